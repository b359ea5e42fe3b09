"""The hall's processes, named so that no signal reaches a stranger (issue
29; docs/hall.md "One hall per folder, supervised"): hall.pid keeps each
process's pid, start time and a piece of its command line; a signal goes
through a pidfd only to the process that still matches; who holds a port;
free loopback ports.  Hall (hall/folder.py) spawns and watches its broker
and recorder with these.
"""
import json
import os
import shutil
import signal
import socket
import time

PIDFILE = "hall.pid"
SETPRIV = shutil.which("setpriv")   # util-linux: --pdeathsig (a child dies with the hall)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def listening(port):
    s = socket.socket()
    try:
        s.settimeout(0.2)
        s.connect(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def proc_identity(pid):
    """(start time in clock ticks since boot, command line) of a running
    process, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read().split(b"\0")
    except (OSError, ValueError):
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] == "Z":          # a zombie: already gone
        return None
    return int(fields[19]), " ".join(x.decode(errors="replace") for x in cmd if x)


def identity(pid, marker):
    """What hall.pid keeps of a process: its pid, start time and a piece of
    its command line."""
    got = proc_identity(pid)
    return {"pid": pid, "start": got[0] if got else None, "marker": marker}


def _same(entry, got):
    return got is not None and got[0] == entry.get("start") and entry.get("marker", "\0") in got[1]


def alive(entry):
    """Is the process of this hall.pid entry still running (the same
    process: pid, start time and command line)?"""
    if not isinstance(entry, dict) or type(entry.get("pid")) is not int:
        return False
    return _same(entry, proc_identity(entry["pid"]))


def send(entry, sig):
    """Signal the process of a hall.pid entry only if it is that process
    (a pidfd pins the process while its identity is checked: a pid reused
    meanwhile cannot get the signal).  True if sent."""
    if not isinstance(entry, dict) or type(entry.get("pid")) is not int:
        return False
    try:
        fd = os.pidfd_open(entry["pid"])
    except OSError:
        return False
    try:
        if not _same(entry, proc_identity(entry["pid"])):
            return False
        signal.pidfd_send_signal(fd, sig)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def terminate(entry, wait_s=10.0):
    """SIGTERM (SIGKILL after wait_s) to a hall.pid entry's process if it is
    still that process; True once it is gone."""
    if not send(entry, signal.SIGTERM):
        return not alive(entry)
    end = time.monotonic() + wait_s
    while alive(entry):
        if time.monotonic() > end:
            send(entry, signal.SIGKILL)
            end += wait_s
        time.sleep(0.05)
    return True


def read_pidfile(folder):
    """hall.pid as a dict, or None (none, or not one of ours)."""
    try:
        with open(os.path.join(folder, PIDFILE)) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def describe(info):
    """A few words on the hall of a hall.pid: who runs it, since when, where."""
    if not info:
        return "no hall.pid"
    who = [("pid %d" % info[k]["pid"]) if k == "hall" else "%s pid %d" % (k, info[k]["pid"])
           for k in ("hall", "broker", "recorder") if info.get(k) and alive(info[k])]
    return "%s, since %s, ports %s and %s" % (", ".join(who) or "no process running",
                                            info.get("since", "?"), info.get("port", "?"),
                                            info.get("ws_port", "?"))


def _listen_inodes(port):
    out = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            x = line.split()
            if x[3] == "0A" and int(x[1].rsplit(":", 1)[1], 16) == port:
                out.add(x[9])
    return out


def port_holder(port):
    """None if nothing listens on TCP `port`, else who does: "pid N
    (its command line)", or "a process not visible from here"."""
    inodes = _listen_inodes(port)
    if not inodes:
        return None
    want = {"socket:[%s]" % i for i in inodes}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("/proc/%s/fd/%s" % (pid, fd)) in want:
                    got = proc_identity(int(pid))
                    return "pid %s (%s)" % (pid, got[1][:120] if got else "?")
            except OSError:
                continue
    return "a process not visible from here"
