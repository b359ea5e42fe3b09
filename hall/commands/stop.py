"""hall stop: stop the hall of this folder, from any terminal."""
import signal
import sys
import time

from hall.supervise import alive, describe, read_pidfile, send, terminate


def command(hall, args, wait_s=15.0):
    """`hall stop`: the hall of this folder (its supervisor, which stops the
    rest in order), else what a dead hall left running; only processes
    whose identity hall.pid records."""
    folder = hall.folder
    info = read_pidfile(folder)
    running = [k for k in ("hall", "recorder", "broker") if info and alive(info.get(k))]
    if not running:
        print("hall: no hall runs in %s" % folder)
        return 0
    said = describe(info)
    if "hall" in running:
        send(info["hall"], signal.SIGTERM)
        end = time.monotonic() + wait_s
        while time.monotonic() < end and any(alive(info.get(k)) for k in running):
            time.sleep(0.05)
    for k in ("recorder", "broker"):
        if alive(info.get(k)):
            terminate(info[k])
    left = [k for k in running if alive(info.get(k))]
    if left:
        print("hall: could not stop the %s in %s" % (" and ".join(left), folder), file=sys.stderr)
        return 1
    print("hall: stopped the hall in %s (%s)" % (folder, said))
    return 0
