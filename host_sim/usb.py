"""The clock over USB: running mpremote, for both tools that do
(tools/deploy.py: `make deploy`; host_sim/logs.py: `python -m host_sim logs`).

One place for: finding mpremote, the `connect PORT` words, running it with a
time limit, mpremote's own reason when it fails (the last line it wrote to
stderr that is not a progress line), and its phrases for "there is no
board there" (mpremote/commands.py, transport_serial.py).  Each tool words
its own advice (`PORT=...` for make, `--port` for logs) around them.
"""
import os
import re
import shutil
import subprocess
import sys

EXIT_NO_BOARD = 2
TIMEOUT_S = 300

# mpremote's words for "there is no board there"
NO_BOARD = ("no device found", "failed to access", "no device with serial number",
            "could not enter raw repl", "could not open", "could not connect")

_PROGRESS = re.compile(r"^(\.\.\. )?\w+ +\d+% \[|^cp \S+ :|^(Up to date|removed):")


class UsbError(Exception):
    """One line for the user; the exit status rides along."""

    def __init__(self, message, status=1):
        Exception.__init__(self, message)
        self.status = status


def find_tool(name="mpremote", override=None):
    """override, else PATH, else next to this Python (the project's .venv)."""
    if override:
        return override
    found = shutil.which(name)
    if found:
        return found
    cand = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(cand):
        return cand
    raise UsbError("%s not found: run `make venv` (or put it on PATH)" % name, 2)


def connect_args(port):
    return ["connect", port or "auto"]


def where(port):
    return port if port else "any USB serial port"


def reason(stderr, stdout, status):
    """mpremote's own reason for failing: the last line it wrote to stderr
    (a traceback's last line is the exception), skipping progress output;
    stdout only if stderr is silent."""
    for text in (stderr, stdout):
        for raw in reversed(text.replace("\r", "\n").splitlines()):
            line = raw.strip()
            if line and not _PROGRESS.search(line):
                if line.startswith("mpremote: "):
                    line = line[len("mpremote: "):]
                return line
    return "exit status %d" % status


def no_board(last):
    """Is mpremote's reason one of its "no board there" phrases?"""
    low = last.lower()
    return any(k in low for k in NO_BOARD)


def run(exe, argv, doing, cwd=None):
    """Run mpremote: (returncode, reason, stdout), reason None on success,
    else mpremote's own one line.  UsbError if it cannot run or does not
    finish in TIMEOUT_S (`doing`: "copying the files on /dev/ttyACM0")."""
    try:
        proc = subprocess.run([exe] + argv, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except OSError as e:
        raise UsbError("cannot run %s: %s" % (exe, e), 2)
    except subprocess.TimeoutExpired:
        raise UsbError("mpremote did not finish %s in %d minutes" % (doing, TIMEOUT_S // 60))
    if proc.returncode == 0:
        return 0, None, proc.stdout
    return proc.returncode, reason(proc.stderr, proc.stdout, proc.returncode), proc.stdout


def raise_no_board(port, last, advice):
    """UsbError (status 2) if `last` says there is no board on `port`."""
    if no_board(last):
        raise UsbError("no MicroPython board found on %s; %s [mpremote: %s]"
                       % (where(port), advice, last), EXIT_NO_BOARD)
