"""hall [run]: the hall in the foreground (docs/hall.md "One hall per folder,
supervised"): the broker, the recorder, the pages, the results desk and,
with --clocks N, a rehearsal's simulated clocks."""
import os
import signal
import sys

from hall import desk as deskmod
from hall import tls as TLS
from hall import tournament
from hall.broker import BROKER_LOG
from hall.supervise import identity


class Stopped(Exception):
    """A signal asked the hall to stop (SIGTERM: hall stop; SIGHUP: its
    terminal went away)."""


def _stop_on(signum, frame):
    raise Stopped(signal.Signals(signum).name)


def _tell(text, out=sys.stdout):
    """A line for the terminal, which may be gone (after SIGHUP): never an error."""
    try:
        print(text, file=out, flush=True)
    except (OSError, ValueError):
        pass


def command(hall, args):
    """The hall in the foreground: Ctrl-C, SIGTERM (hall stop) and SIGHUP
    (the terminal closed) stop the recorder and the broker; a recorder or
    broker that dies is started again."""
    old = {s: signal.signal(s, _stop_on) for s in (signal.SIGHUP, signal.SIGTERM)}
    why = None
    sim = desk = log = None
    try:
        hall.claim()             # one hall per folder, free ports: before writing a thing
        hall.pids["hall"] = identity(os.getpid(), "hall")
        hall.write()
        # issue 27: Mosquitto's own start-up warnings ("should not be run as
        # root" ...) are no news for the director: they go to a file in the hall
        # folder; the recorder's lines stay on the terminal
        log = open(os.path.join(hall.folder, BROKER_LOG), "ab")
        hall.start_broker(stderr=log)
        hall.start_recorder(stderr=sys.stderr)
        hall.start_pages()
        if hall.bind == "127.0.0.1":
            print("hall: broker on port %d, the director's page at %s (event %r, tables 1-%d; "
                  "loopback only: --lan for the hall's Wi-Fi)"
                  % (hall.port, hall.url(), hall.event, hall.tables), flush=True)
        else:
            print("hall: LISTENING ON EVERY INTERFACE (--lan): clocks on port %d, the "
                  "director's page on port %d (https://<this computer's address>:%d/) "
                  "(event %r, tables 1-%d)" % (hall.port, hall.page_port, hall.page_port,
                                               hall.event, hall.tables), flush=True)
        print("hall: TLS only, with the hall's own CA (%s: import it into the director's "
              "browser as an authority); the broker's certificate is SHA-256 %s"
              % (os.path.join(hall.folder, TLS.CA_CERT), TLS.fingerprint(hall.folder)),
              flush=True)
        print("hall: the projector view is projector.html there; round %d (hall round N, "
              "hall pairings --round N FILE); the broker's own log: %s"
              % (tournament.current_round(hall.folder), os.path.join(hall.folder, BROKER_LOG)),
              flush=True)
        # issue 27: the results desk, on this computer only (hall/desk.py)
        try:
            desk = deskmod.Desk(hall.folder, hall.desk_port).start()
            print("hall: the results desk (scores from the score sheets, exports for TSH) at "
                  "%s, on this computer only" % desk.url(), flush=True)
        except OSError as e:
            print("hall: no results desk: port %d: %s (hall scores / hall results --tsh "
                  "do the same)" % (hall.desk_port, e.strerror or e), file=sys.stderr,
                  flush=True)
        if args.clocks:
            from hall.rehearsal import clocks as rehearsal
            # issue 27: a rehearsal: each `hall round N` gives every clock a
            # fresh game; their flash is kept in the hall folder
            sim = rehearsal.Fleet(hall, args.clocks, speed=args.speed,
                                 folder=os.path.join(hall.folder, rehearsal.SIM_CLOCKS),
                                 rnd=tournament.current_round(hall.folder))
            sim.rehearse(lambda m: print(m, flush=True))
        hall.watch(args.seconds or None)
    except KeyboardInterrupt:
        why = "SIGINT"
    except Stopped as e:
        why = str(e)
    finally:
        for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)     # stopping: not twice
        try:
            if sim is not None:
                sim.close()
            if desk is not None:
                desk.stop()
            hall.stop()
            if log is not None:
                log.close()
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if why:
        _tell("hall: stopped (%s): the recorder and the broker are stopped" % why, sys.stderr)
    return 0
