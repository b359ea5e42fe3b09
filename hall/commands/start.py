"""hall start: the hall as a service, in a session of its own."""
import os
import subprocess
import sys
import time

from hall.paths import PACKAGE_PARENT


def command(hall, args, wait_s=60.0):
    """`hall start`: `hall` (run) in a session of its own, detached from this
    terminal (closing it changes nothing), its output appended to
    <dir>/hall.log; returns once it runs (0) or failed (its line, 2)."""
    os.makedirs(hall.folder, exist_ok=True)
    log = os.path.join(hall.folder, "hall.log")
    argv = [sys.executable, "-m", "hall", "run", "--dir", hall.folder,
            "--event", hall.event, "--tables", str(hall.tables), "--port", str(hall.port),
            "--ws-port", str(hall.ws_port), "--page-port", str(hall.page_port)]
    if args.lan:
        argv.append("--lan")
    if args.clocks:
        argv += ["--clocks", str(args.clocks), "--speed", str(args.speed)]
    if args.seconds:
        argv += ["--seconds", str(args.seconds)]
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    start = os.fstat(fd).st_size
    try:
        p = subprocess.Popen(argv, cwd=PACKAGE_PARENT, stdin=subprocess.DEVNULL, stdout=fd,
                             stderr=subprocess.STDOUT, start_new_session=True)
    finally:
        os.close(fd)
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        with open(log, errors="replace") as f:
            f.seek(start)
            lines = f.read().splitlines()
        up = [x for x in lines if x.startswith(("hall: broker on port", "hall: LISTENING"))]
        if up:
            print("%s\nhall: running in the background (pid %d): hall status, hall stop "
                  "--dir %s; its output in %s" % (up[0], p.pid, hall.folder, log))
            return 0
        if p.poll() is not None:
            print(lines[-1] if lines else "hall: the hall exited (%s)" % p.returncode,
                  file=sys.stderr)
            return 2
        time.sleep(0.1)
    print("hall: the hall did not start within %d s (see %s)" % (wait_s, log), file=sys.stderr)
    return 2
