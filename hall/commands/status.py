"""hall status: what runs in this folder (exit 0: all of it, 1: part, 3: nothing)."""
import json

from hall import recorder as REC
from hall.clients import collect
from hall.errors import HallError
from hall.supervise import alive, describe, read_pidfile


def command(hall, args):
    """`hall status`: what runs (0: the hall, its broker and its recorder;
    1: part of it; 3: nothing), whether the broker answers, how many
    results are stored, and the recorder's alarm."""
    folder = hall.folder
    info = read_pidfile(folder) or {}
    up = {k: alive(info.get(k)) for k in ("hall", "broker", "recorder")}
    if not any(up.values()):
        print("hall: no hall runs in %s" % folder)
        return 3
    print("hall: %s: %s" % (folder, describe(info)))
    for k, what in (("hall", "the hall (its supervisor)"), ("broker", "the broker"),
                    ("recorder", "the recorder")):
        print("hall: %s: %s" % (what, ("running, pid %d" % info[k]["pid"]) if up[k]
                                else "NOT RUNNING"))
    port = info.get("port")
    if up["broker"] and isinstance(port, int):
        try:
            got = collect(port, REC.ALARM_TOPIC % info.get("event", "open"), quiet_s=0.3,
                          timeout=3, folder=folder)
            print("hall: the broker answers on port %d (the viewer logged in)" % port)
            for _t, payload in got.items():
                a = json.loads(payload)
                print("hall: the recorder: %s" % ("ALARM: cannot store results: %s; %d "
                                                  "waiting" % (a["writing"], a["waiting"])
                                                  if a.get("writing") else "storing results"))
        except (HallError, OSError, ValueError, KeyError, TypeError) as e:
            print("hall: the broker does not answer on port %s: %s" % (port, e))
            up["broker"] = False
    try:
        n = len(REC.read_records(folder, lambda m: None))
        print("hall: %d result lines in %s" % (n, REC.RESULTS))
    except OSError:
        print("hall: no results stored yet")
    return 0 if all(up.values()) else 1
