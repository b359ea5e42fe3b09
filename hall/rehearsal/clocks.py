"""Simulated clocks for the tournament hall (issue 14).

Each clock is the real device app (firmware/app.py) on the fake hardware
(host_sim/fakehw/rig.py: the HD44780 emulator, pin IRQs, virtual ticks that
wrap at 2**30) with the real firmware/net.py publisher attached.  Its socket
module is CPython's, standing in for the board's network: the same net.py
code talks to the real Mosquitto.  FlakySockets can take the "Wi-Fi" away.

A Fleet plays one whole game per clock from a seeded script (turns of random
length, some into overtime, then the end gesture: stop, hold the pause key, confirm with L+R), with every
clock's virtual time following the wall clock times `speed`.

A rehearsal (issue 27: `make hall ARGS="--clocks 24"`, Fleet.rehearse()):
each time the director sets a new round (`hall round N`), every clock whose
game is over starts a new one as a real clock does (the NEW GAME gesture:
its game number goes up) and plays a fresh game seeded by its table and the
round, so every round has its own results.  The clocks' flash lives in
<hall folder>/sim-clocks/ and is kept: a hall started again continues each
clock's game numbers (a clock booting on its final screen first starts a new
game), so no game repeats an earlier one's number and times.
"""
import errno
import os
import random
import socket
import tempfile
import threading
import time

import host_sim  # noqa: F401  (its importer: firmware/ and fakehw/)

import net
import rig as gestures
from rig import Rig, LEFT, RIGHT
from host_sim.sim import load_board

STEP_MS = 20          # main-loop period of a simulated clock (virtual ms)
HOLD_MS = 80          # a player's press
END = -1              # a script item: the end gesture (rig.end_game)


def attach(app, cfg, clock_id, link=None, sock_mod=socket):
    """The hall's publisher (firmware/net.py) on a simulated clock's app, as
    App does on a board with Wi-Fi (App.__init__), with this clock's id, Wi-Fi
    and socket module: it sees the app only through App.hall_source()."""
    n = net.Net(cfg, app.hall_source(), app.store.fs, app.root, app.ticks_ms,
                app.diff, app.add, clock_id, link, sock_mod)
    app.net = n
    return n


class Link:
    """The Wi-Fi: isconnected() as network.WLAN has it."""

    def __init__(self):
        self.up = True

    def isconnected(self):
        return self.up


class FlakySocket:
    """A CPython socket that fails like a board's when its Wi-Fi is gone."""

    def __init__(self, link):
        self.link = link
        self.s = socket.socket()

    def _check(self):
        if not self.link.up:
            raise OSError(errno.ENETUNREACH, "Wi-Fi down")

    def setblocking(self, flag):
        self.s.setblocking(flag)

    def settimeout(self, t):
        self.s.settimeout(t)

    def connect(self, addr):
        self._check()
        self.s.connect(addr)

    def send(self, data):
        self._check()
        return self.s.send(data)

    def recv_into(self, buf):
        self._check()
        return self.s.recv_into(buf)

    def fileno(self):
        return self.s.fileno()

    def close(self):
        self.s.close()


class FlakyTLS(FlakySocket):
    """TLS (CPython's ssl, as the board's mbedtls) over a FlakySocket: fails
    the same way when the Wi-Fi is gone."""

    def __init__(self, link, ctx, raw, name, handshake):
        self.link = link
        self._check()
        self.s = ctx.wrap_socket(raw.s, server_hostname=name,
                                 do_handshake_on_connect=handshake)


class FlakySockets:
    """The `socket` module net.py sees."""

    def __init__(self, link):
        self.link = link

    def wrap_tls(self, ctx, raw, name, handshake):
        """net.py's TLS over this Wi-Fi (firmware/tlsjob.py Handshake.wrap)."""
        return FlakyTLS(self.link, ctx, raw, name, handshake)

    def getaddrinfo(self, host, port):
        return socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)

    def socket(self):
        return FlakySocket(self.link)


def write_settings(root, profile, base_s):
    with open(os.path.join(root, "settings.json"), "w") as f:
        f.write('{"v": 1, "profile": "%s", "base_left": %d, "base_right": %d, '
                '"lang": "en", "sound": true}' % (profile, base_s * 1000, base_s * 1000))


def plan(seed, base_s, start_ms=2000):
    """[(ms since boot, button, hold ms)]: alternate turns, then the end."""
    rnd = random.Random(seed)
    moves = rnd.randint(4, 10)
    t = start_ms
    acts = [(t, LEFT, HOLD_MS)]            # right's clock starts
    side = RIGHT
    for _ in range(2 * moves):
        t += int(rnd.uniform(0.4, 1.25) * base_s * 1000 / moves)
        acts.append((t, side, HOLD_MS))
        side = 1 - side
    t += rnd.randint(200, 3000)
    acts.append((t, END, 0))               # the end gesture, from running
    return acts


def edges(script):
    """A script's (ms, button, 1 down / 0 up) edges in time order: each
    (ms, button, hold) is a press; (ms, END, 0) is the cards' end gesture
    (stop, hold the pause key 2 s, confirm with both player buttons)."""
    out = []
    for t, b, hold in script:
        if b == END:
            out.extend((t + off, b2, lv) for off, b2, lv in gestures.end_game(True))
        else:
            out.append((t, b, 1))
            out.append((t + hold, b, 0))
    out.sort(key=lambda e: e[0])
    return out


# issue 37: a table of a rehearsal taken off the network (`hall drop 7`,
# `hall restore 7`): the tables in <clocks folder>/dropped, one a line; the
# rehearsal reads it every half second and takes that clock's Wi-Fi away
# (its sockets fail as a board's do: the broker sends its last will, the
# page shows it offline) or gives it back (it connects again and sends what
# it kept).  The clock plays on meanwhile, as a real one does.
DROPPED = "dropped"
SIM_CLOCKS = "sim-clocks"      # the rehearsal's folder in the hall folder (hall/cli.py run)


def dropped(folder):
    """The tables taken off the network in a rehearsal's clocks folder."""
    try:
        with open(os.path.join(folder, DROPPED)) as f:
            return {int(x) for x in f.read().split() if x.isdigit()}
    except (OSError, ValueError):
        return set()


def drop(folder, table, off=True):
    """`hall drop T` (off) / `hall restore T`: the one-line answer; raises
    ValueError (its one line) for a folder without a rehearsal or a table
    it has no clock for."""
    if not os.path.isdir(folder):
        raise ValueError("no rehearsal in %s (`hall --clocks N` runs one): only a "
                         "simulated clock can be taken off the network" % os.path.dirname(folder))
    if not os.path.isdir(os.path.join(folder, "clock%03d" % table)):
        have = sorted(int(n[5:]) for n in os.listdir(folder)
                      if n.startswith("clock") and n[5:].isdigit())
        raise ValueError("the rehearsal has no clock at table %d (%s)" % (
            table, "tables %d-%d" % (have[0], have[-1]) if have else "none yet"))
    now = dropped(folder)
    if (table in now) == off:
        return "table %d is %s already" % (table, "off the network" if off else "on the network")
    now = now | {table} if off else now - {table}
    path = os.path.join(folder, DROPPED)
    with open(path + ".tmp", "w") as f:
        f.write("".join("%d\n" % t for t in sorted(now)))
    os.replace(path + ".tmp", path)
    return ("table %d's simulated clock goes off the network (its Wi-Fi gone; the page "
            "shows it offline; `hall restore %d` brings it back)" % (table, table) if off else
            "table %d's simulated clock comes back on the network" % table)


def drop_command(hall_folder, values, off):
    """`python -m hall drop T` / `restore T`: exit 0 and one line, or 2 and
    one line on stderr."""
    import sys
    word = "drop" if off else "restore"
    if len(values) != 1 or not (values[0].isascii() and values[0].isdigit()) \
            or not 1 <= int(values[0]) <= 9999:
        print("hall: %s takes one table number (hall %s 7)" % (word, word), file=sys.stderr)
        return 2
    try:
        print("hall: " + drop(os.path.join(hall_folder, SIM_CLOCKS), int(values[0]), off))
    except (ValueError, OSError) as e:
        print("hall: %s: %s" % (word, e), file=sys.stderr)
        return 2
    return 0


def round_seed(table, rnd):
    """The seed of a table's game in a round: a different game each round."""
    return table if rnd <= 1 else table + 1000 * rnd


class SimClock:
    def __init__(self, hall, table, folder, base_s=60, seed=None, profile="sdev",
                 script=None, fresh=True):
        self.table = table
        self.base_s = base_s
        self.root = os.path.join(folder, "clock%03d" % table) + "/"
        os.makedirs(self.root, exist_ok=True)
        if not os.path.exists(os.path.join(self.root, "settings.json")):
            write_settings(self.root, profile, base_s)
        self.link = Link()
        self.cfg = hall.clock_config(table)
        # its own machine.unique_id(), the table's number in its last digits
        # (table 12: 0000000000000012; they all had ...0001), and the id it
        # publishes is the one its app names in each log's `# clock` line
        # (issue 37: the pages and files said sim012), as a real clock's
        self.uid = bytes.fromhex("%016d" % table)
        self._power_up()
        self.script = []
        self.i = 0
        if script is not None:
            self.script = edges(script)
        elif fresh or self.rig.clock.state == 0:
            self.play(table if seed is None else seed)

    def play(self, seed, after_ms=0):
        """Script a fresh game from `after_ms` virtual ms since boot (now, if
        later): first out of the state the clock is in (a final screen: NEW
        GAME; a game brought back paused after a power cut: end it first)."""
        t = max(after_ms, self.rig.ms()) + 500
        pre = []
        st = self.rig.clock.state
        if st != 0:                          # not ready (clockcore.READY)
            if st != 3:                      # (clockcore.OVER)
                pre += [(o, b, lv) for o, b, lv in gestures.end_game(st == 1)]
                t0 = (pre[-1][0] + 600) if pre else 0
            else:
                t0 = 0
            pre += [(t0 + o, b, lv) for o, b, lv in gestures.new_game()]
        pre = [(t + o, b, lv) for o, b, lv in pre]
        # (past the boot screen: plan()'s own start, 2 s after power-up)
        start = (pre[-1][0] + 1500) if pre else max(t, 2000)
        self.script = self.script[:self.i] + pre + edges(plan(seed, self.base_s, start))

    def _power_up(self):
        self.rig = Rig(load_board("sim"), self.root, step_ms=STEP_MS, uid=self.uid)
        self.id = self.rig.app.hall_source().clock_id()   # gamelog.clock_id, hex
        self.net = attach(self.rig.app, self.cfg, self.id, self.link,
                          FlakySockets(self.link))

    def power_cut(self):
        """The power fails and comes back: the socket dies without a
        DISCONNECT (the broker sends the last will), only what is on the
        clock's flash survives, and the app boots again on it."""
        self.net.wire.close()
        self._power_up()

    def over(self):
        return self.rig.clock.state == 3 and self.i >= len(self.script)

    STATES = ("ready", "running", "paused", "over", "late")   # clocktime's, by number
    LINKS = ("no socket", "connecting", "waiting for CONNACK", "connected")  # net's st

    def describe(self, fleet_ms=None):
        """One line: this clock's game and its result, as it is now (a round
        that does not finish says which games and why, issue 37); with
        `fleet_ms`, how far its fleet's time is (a clock behind it: a
        machine too slow for the fleet's speed)."""
        k, n = self.rig.clock, self.net
        st = self.STATES[k.state] if 0 <= k.state < len(self.STATES) else str(k.state)
        link = self.LINKS[n.st] if 0 <= n.st < len(self.LINKS) else str(n.st)
        at = "%d" % self.rig.ms() + ("" if fleet_ms is None else " of %d" % fleet_ms)
        shown = " / ".join(r.rstrip() for r in self.rig.screen()) if self.rig.lcd else "-"
        return ("table %d (%s): game %s at %s virtual ms, %d of %d scripted key edges "
                "done; %d result(s) confirmed, %d message(s) unconfirmed; hall link: %s "
                "(%s); the LCD shows %r" % (self.table, self.id, st, at, self.i,
                                            len(self.script), n.confirmed, len(n.q1), link,
                                            n.note, shown))

    def advance(self, to_ms):
        """Run the clock to `to_ms` virtual ms since boot, pressing on cue."""
        rig = self.rig
        while self.i < len(self.script) and self.script[self.i][0] <= to_ms:
            t, b, level = self.script[self.i]
            self.i += 1
            if t > rig.ms():
                rig.run(t - rig.ms())
            if level:
                rig.down(b)
            else:
                rig.up(b)
        if to_ms > rig.ms():
            rig.run(to_ms - rig.ms())


class Fleet:
    """N simulated clocks on tables 1..N, in step with the wall clock
    (folder: where their flash lives; default a temporary folder, removed
    at close())."""

    def __init__(self, hall, n, speed=1.0, base_s=60, folder=None, scripts=None,
                 rnd=None):
        self.hall = hall
        self.speed = speed
        self.tmp = None
        self.round = None
        if folder is None:
            self.tmp = tempfile.TemporaryDirectory(prefix="hall-clocks-")
            folder = self.tmp.name
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        # a kept folder (the rehearsal's): a clock whose last game was of
        # this round already waits on its final screen for the next round
        fresh = rnd is None or self._played() != rnd
        if rnd is not None:
            self._played(rnd)
        scripts = scripts or {}
        self.clocks = [SimClock(hall, t, folder, base_s, script=scripts.get(t),
                                seed=None if rnd is None else round_seed(t, rnd), fresh=fresh)
                       for t in range(1, n + 1)]
        self.t0 = time.monotonic()
        self.thread = None

    def ms(self):
        return int((time.monotonic() - self.t0) * 1000 * self.speed)

    def tick(self):
        to = self.ms()
        for c in self.clocks:
            c.advance(to)

    def finished(self):
        return sum(1 for c in self.clocks if c.over())

    def unfinished(self):
        """describe() of each clock whose game is not over or whose result
        the hall has not confirmed: [] when the round is done."""
        now = self.ms()
        return [c.describe(now) for c in self.clocks if not c.over() or c.net.q1]

    def follow_drops(self, say=None):
        """Each clock's Wi-Fi as the folder's `dropped` file says (hall drop /
        restore); a change is one line."""
        off = dropped(self.folder)
        for c in self.clocks:
            up = c.table not in off
            if c.link.up != up:
                c.link.up = up
                if say is not None:
                    say("hall: table %d's simulated clock is %s" % (
                        c.table, "back on the network" if up else
                        "off the network (hall restore %d brings it back)" % c.table))

    def run(self, seconds=None, until=None, linger_ms=3000):
        """Until every game is over (and its result confirmed by the hall's
        recorder, plus linger_ms of virtual time), `until()` is true, or
        `seconds` pass."""
        end = None if seconds is None else time.monotonic() + seconds
        done_at = None
        while end is None or time.monotonic() < end:
            self.tick()
            if until is not None and until():
                return True
            if until is None and done_at is None and self.finished() == len(self.clocks) \
                    and all(not c.net.q1 for c in self.clocks):
                done_at = self.ms()
            if done_at is not None and self.ms() - done_at >= linger_ms:
                return True
            time.sleep(0.005)
        return False

    def _played(self, rnd=None):
        """The round the clocks in the folder last played (written with rnd)."""
        path = os.path.join(self.folder, "round")
        if rnd is not None:
            with open(path, "w") as f:
                f.write("%d\n" % rnd)
            return rnd
        try:
            with open(path) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def next_round(self, rnd):
        """Every clock plays a fresh game of round `rnd` (seeded by its table
        and the round), starting now."""
        self.round = rnd
        self._played(rnd)
        now = self.ms()
        for c in self.clocks:
            c.play(round_seed(c.table, rnd), now)

    def rehearse(self, say=print):
        """The rehearsal (`hall --clocks N`), in a thread of its own: the
        clocks play; when the director sets a new round (`hall round N`: the
        hall folder's current round changes), every clock plays a fresh game
        of it, and when every game of a round is over that is said in one
        line.  close() stops it."""
        from hall import tournament

        def current():
            return tournament.current_round(self.hall.folder, lambda m: None)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.round = current()
        said = [False]

        def drive():
            last = 0
            while not self.stopping.is_set():
                with self.lock:
                    self.tick()
                    if time.monotonic() - last > 0.5:
                        last = time.monotonic()
                        self.follow_drops(say)
                        rnd = current()
                        if rnd != self.round:
                            self.next_round(rnd)
                            said[0] = False
                            say("hall: round %d: the %d simulated clocks start a new game"
                                % (rnd, len(self.clocks)))
                        elif not said[0] and self.finished() == len(self.clocks):
                            said[0] = True
                            say("hall: round %d: all %d simulated games are over (`hall "
                                "results --round %d --csv`; `hall round %d` starts the "
                                "next round)" % (rnd, len(self.clocks), rnd, rnd + 1))
                time.sleep(0.005)

        self.thread = threading.Thread(target=drive, daemon=True)
        self.thread.start()

    def background(self, pause_s=0.01):
        """Keep ticking in a thread (while a browser is driven); returns the
        lock to hold while touching the clocks."""
        self.lock = threading.Lock()
        self.stopping = threading.Event()

        def drive():
            while not self.stopping.is_set():
                with self.lock:
                    self.tick()
                time.sleep(pause_s)

        self.thread = threading.Thread(target=drive, daemon=True)
        self.thread.start()
        return self.lock

    def close(self):
        if self.thread is not None:
            self.stopping.set()
            self.thread.join()
            self.thread = None
        for c in self.clocks:
            c.net.wire.close()  # (the socket; the clock is dropped)
        if self.tmp is not None:
            self.tmp.cleanup()


def chaos_round(hall, n=20, seed=1, speed=10, kills=3, base_s=60, timeout_s=240,
                broker=True, recorder=True, log=None):
    """A round of n simulated clocks while the broker and/or the recorder are
    killed (SIGKILL) and restarted at random moments, each at least `kills`
    times, until every game is over and every clock's queue is empty (each
    result confirmed by the recorder).  Returns what happened:
    {"finished", "confirmed", "broker_kills", "recorder_kills", "seconds"}
    (issue 19: tests/test_hall_durable.py, bench/hall_bench.py)."""
    import signal
    rnd = random.Random(seed)
    fleet = Fleet(hall, n, speed=speed, base_s=base_s)
    got = {"broker_kills": 0, "recorder_kills": 0}
    t0 = time.monotonic()
    lock = fleet.background(0.002)
    say = log or (lambda m: None)
    try:
        def done():
            with lock:
                return fleet.finished() == n and all(not c.net.q1 for c in fleet.clocks)

        def over_ms():
            return max(len(c.script) and c.script[-1][0] for c in fleet.clocks)

        last_game_end = over_ms()
        # Kill at random moments while games run and end: spread over the round.
        while (got["broker_kills"] < kills * broker or got["recorder_kills"] < kills * recorder
               or fleet.ms() < last_game_end) and time.monotonic() - t0 < timeout_s:
            time.sleep(rnd.uniform(0.2, 1.2))
            what = rnd.choice([w for w, on in (("broker", broker), ("recorder", recorder),
                                               ("both", broker and recorder)) if on])
            if what in ("broker", "both"):
                hall.stop_broker(signal.SIGKILL)
                got["broker_kills"] += 1
            if what in ("recorder", "both"):
                hall.stop_recorder(signal.SIGKILL)
                got["recorder_kills"] += 1
            say("chaos: killed %s at %d virtual ms, %d games over" % (what, fleet.ms(),
                                                                      fleet.finished()))
            time.sleep(rnd.uniform(0.0, 1.0))
            if hall.proc is None:
                hall.start_broker()
            if hall.rec_proc is None:
                hall.start_recorder(wait=rnd.random() < 0.5)
        while not done() and time.monotonic() - t0 < timeout_s:
            time.sleep(0.1)
        with lock:
            got["finished"] = fleet.finished()
            got["confirmed"] = sum(c.net.confirmed for c in fleet.clocks)
            got["unconfirmed"] = sum(len(c.net.q1) for c in fleet.clocks)
            got["finals"] = {c.table: (c.rig.clock.rem[0], c.rig.clock.rem[1], c.id)
                             for c in fleet.clocks if c.over()}
            got["unfinished"] = fleet.unfinished()
    finally:
        fleet.close()
    got["seconds"] = time.monotonic() - t0
    return got
