"""A person's clock in a running hall (issue 37): `python -m hall sim --table
7` (`make sim TABLE=7`) is the terminal simulator (host_sim/sim.py: the
device app on the emulated hardware, played with the keys) with the hall's
network part attached, as the rehearsal's clocks have it
(hall.rehearsal.clocks.attach: the real firmware/net.py over CPython's
sockets and TLS): it logs in to the hall's broker with clock account 7's
own password from the hall folder (clocks.json, as `make deploy TABLE=7`
would put it in the clock's net.json) and publishes its state, heartbeats,
result and log like a clock at table 7; the LCD's hall mark shows the link.

The hall must be running in --dir (its hall.pid names the broker, the event
and the port); the simulator's flash is build/sim/hall-table-7/ unless
--state-dir or --fresh says otherwise, and its clock id is `e000000000000007`:
its own machine.unique_id() in hex, as its game logs' `# clock` line names
it (issue 37: it published `term007` while its logs said 0000000000000001),
another than the rehearsal's `0000000000000007` (the recorder ties a clock
id to its account).  The simulator itself (host_sim) knows nothing of the hall: it is
handed the attachment."""
import argparse
import os
import sys

from hall import supervise
from hall.errors import HallError
from hall.folder import Hall
from hall.paths import DEFAULT_DIR
from hall.rehearsal import clocks as rehearsal


def uid(table):
    """The joined simulator's machine.unique_id(): e0, then the table."""
    return bytes.fromhex("e0%014d" % table)


def clock_id(table):
    return uid(table).hex()


def _tables(folder):
    import json
    try:
        with open(os.path.join(folder, "clocks.json")) as f:
            return max(int(k) for k in json.load(f))
    except (OSError, ValueError):
        return 0


def config(folder, table):
    """(net.json of clock account `table` for the hall running in folder,
    its event); raises HallError (one line) when no hall runs there or it
    has no such account."""
    info = supervise.read_pidfile(folder)
    broker = (info or {}).get("broker")
    if not info or not broker or not supervise.alive(broker):
        raise HallError("no hall runs in %s (python -m hall --dir %s starts one; "
                          "hall status says what runs)" % (folder, folder))
    n = _tables(folder)
    if not 1 <= table <= n:
        raise HallError("the hall in %s has no clock account %d (tables 1-%d)"
                          % (folder, table, n))
    hall = Hall(folder, info["event"], n, port=info["port"], ws_port=info["ws_port"])
    return hall.clock_config(table), info["event"]


def parser():
    from host_sim import sim
    p = argparse.ArgumentParser(
        prog="python -m hall sim",
        description="The terminal simulator as a clock of the running hall: clock account "
                    "--table's password from the hall folder.")
    p.add_argument("--dir", default=DEFAULT_DIR, help="the running hall's folder "
                   "(default build/hall)")
    p.add_argument("--table", type=int, required=True, help="the clock account (its table)")
    sim.add_arguments(p)
    return p


def main(argv):
    from host_sim import sim
    args = parser().parse_args(argv)
    folder = os.path.abspath(args.dir)
    try:
        cfg, event = config(folder, args.table)
    except HallError as e:
        print("hall sim: %s" % e, file=sys.stderr)
        return 2
    if args.state_dir is None and not args.fresh:
        args.state_dir = os.path.join(sim.DEFAULT_STATE, "hall-table-%d" % args.table)
    link = rehearsal.Link()

    def join(s):
        rehearsal.attach(s.app, cfg, clock_id(args.table), link, rehearsal.FlakySockets(link))
        return " \u00b7 hall %s table %d (clock %s)" % (event, args.table, clock_id(args.table))
    return sim.run(args, join=join, uid=uid(args.table))
