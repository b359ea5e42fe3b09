"""The hall recorder's own speed, for `make bench` (bench/run.py):

  hall_recorder_messages_per_second: messages hall/recorder.py's
      Recorder.message() handles per second (CPython, one thread, no
      broker): a fixed mix of what the recorder subscribes to, built by the
      firmware itself (hallmsg.Messages on a real clockcore game per
      clock: each press's retained state, a heartbeat every
      net.HEARTBEAT_MS, the game's result and its log at the end), with a
      share of bench/hall_attacks.py's hostile corpus among them; the best
      of `runs` runs, each on a fresh hall folder in RAM (a tmpfs,
      /dev/shm, where there is one: the recorder's work, not the disk's
      fsync latency, which other work on the machine makes vary tenfold).
      Baseline, measured in the same run on the same messages: the bare minimum any reader does per message
      (decode and split the topic, json.loads the payload; a log's or a
      status's text decoded), so the figure's text gives the recorder's
      cost as a ratio of it.  The goal: far above what 100 clocks can send
      (need(): a state each turn, a turn at most every game.LOCK_MS, and a
      heartbeat every net.HEARTBEAT_MS).

    python -m bench.run --only hall_recorder_messages_per_second
"""
import json
import os
import random
import shutil
import sys
import tempfile
import time

from bench.figures import Figure
import host_sim  # noqa: F401  (the firmware on sys.path)

EVENT = "cup"
CLOCKS = 20              # the mix's clocks, each playing a whole game
TURNS = 60               # ... of this many turns
TURN_S = (3, 60)         # a turn's length, uniform, in seconds
HOSTILE_EVERY = 20       # one message in this many is from the hostile corpus
RUNS = 5
RAM = "/dev/shm"           # the runs' hall folders (a tmpfs), if there is one
HALL_CLOCKS = 100        # the hall the goal is stated for
GOAL_TIMES = 10          # the goal: this many times what HALL_CLOCKS need


class _Clock:
    """The clock as hallmsg.Messages reads it (firmware/source.py's
    methods), on a real clockcore game."""

    def __init__(self, clock, game):
        self.clock = clock
        self.n = game

    def table(self):
        return 0

    def tabled(self, t):
        pass

    def state(self):
        return self.clock.state

    def report(self, t):
        import report
        return report.state(self.clock, t)

    def emit(self, t, o):
        import report
        report.emit(self.clock, t, o)

    def game(self):
        return self.n

    def pending(self):
        return False

    def low(self):
        return False

    def selftest(self):
        return "pass"


def _sent(msgs, t, state):
    """The state's (or heartbeat's) PUBLISH hallmsg writes at t, a copy."""
    msgs.report(t, state)
    return msgs.packet()


def _unpack(packet):
    """(topic, payload, retain) of an MQTT PUBLISH packet (mqtt.publish_packet's)."""
    i, n, shift = 1, 0, 0
    while True:
        b = packet[i]
        n |= (b & 0x7F) << shift
        i += 1
        shift += 7
        if not b & 0x80:
            break
    tl = packet[i] << 8 | packet[i + 1]
    topic = bytes(packet[i + 2:i + 2 + tl])
    payload = bytes(packet[i + 2 + tl:])
    return topic, payload, bool(packet[0] & 1)


def _game(rnd, table, turns):
    """One clock's messages, [(t_ms, topic bytes, payload bytes, retain)]:
    its real game (sdev), the states and heartbeats hallmsg builds for it,
    then its result and its log."""
    import clockcore as cc
    import hallmsg
    import hallproto as hp
    import net
    import profiles
    c = cc.Clock(profiles.make_rules("sdev", {}), 0, lambda a, b: a - b, lambda t, d: t + d)
    src = _Clock(c, 1)
    msgs = hallmsg.Messages({"table": table, "event": EVENT, "user": str(table)}, src,
                            "e6614c31%08x" % table, 0)
    out = []
    log = []
    t = rnd.randrange(0, 5000)
    side = rnd.randrange(2)

    def press(x, t):
        c.press(x, t)
        log.append("%d %s" % (t, cc.SIDE_NAMES[x]))
        out.append((t,) + _unpack(_sent(msgs, t, True)))
    press(side, t)                  # the opponent of the first mover starts the game
    for turn in range(turns):
        if c.state == cc.OVER:
            break
        end = t + rnd.randint(TURN_S[0] * 1000, TURN_S[1] * 1000)
        hb = t + net.HEARTBEAT_MS
        while hb < end:
            out.append((hb,) + _unpack(_sent(msgs, hb, False)))
            hb += net.HEARTBEAT_MS
        t = end
        press(c.side, t)            # the mover ends the turn
    c.pause(t + 1000)
    c.end(t + 1000)
    log.append("%d pause" % (t + 1000))
    log.append("%d end" % (t + 1000))
    out.append((t + 1000,) + _unpack(_sent(msgs, t + 1000, True)))
    msgs.event(cc.EV_OVER, t + 1000)
    d = msgs.fields(t + 1000)
    result = json.dumps(d).encode()
    out.append((t + 1100, hp.topic(EVENT, table, "result", str(table), 1).encode(),
                result, False))
    text = ("profile sdev  # game 1\n# clock %s table %d\n" % (msgs.clock_id, table)
            + "".join(x + "\n" for x in log)).encode()
    out.append((t + 1200, hp.topic(EVENT, table, "log", str(table), 1).encode(), text, True))
    out.append((t + 6100, out[-2][1], result, False))   # re-sent before the confirmation came
    return out


def mix(clocks=CLOCKS, turns=TURNS, hostile_every=HOSTILE_EVERY, seed=35):
    """(messages, kinds): the messages, [(topic bytes, payload bytes,
    retain)], in time order: every clock's game, interleaved, and after
    every `hostile_every`-1 of them one of the hostile corpus
    (bench/hall_attacks.py, for a table of its own), in turn; kinds: how
    many of each kind the games sent, {"state": n, ..., "hostile": n}."""
    from bench import hall_attacks
    rnd = random.Random(seed)
    games = []
    for table in range(1, clocks + 1):
        games += _game(rnd, table, turns)
    games.sort(key=lambda m: m[0])
    hostile_table = clocks + 1
    good = json.loads(_game(random.Random(seed), hostile_table, 1)[0][2])
    corpus = [(t.encode("utf-8", "surrogatepass"), bytes(p), False)
              for t, p in hall_attacks.hostile_messages(EVENT, hostile_table,
                                                       hostile_table, good)]
    out = []
    kinds = {"hostile": 0}
    for m in games:
        if hostile_every and len(out) % hostile_every == hostile_every - 1:
            out.append(corpus[kinds["hostile"] % len(corpus)])
            kinds["hostile"] += 1
        out.append(m[1:])
        k = m[1].split(b"/")[3].decode()
        kinds[k] = kinds.get(k, 0) + 1
    return out, kinds


def _topic(t):
    """The topic as the recorder's on_message() takes it from paho."""
    try:
        return t.decode("utf-8")
    except UnicodeDecodeError:
        return t.decode("utf-8", "replace")


def bare(items):
    """The least any reader does with each message: the topic decoded and
    split, the payload parsed (json.loads; a log's or a status's text
    decoded)."""
    n = 0
    for t, p, r in items:
        levels = _topic(t).split("/")
        if len(levels) > 3 and levels[3] in ("log", "status"):
            p.decode("utf-8", "replace")
        else:
            try:
                json.loads(p)
            except (ValueError, RecursionError):     # (not JSON; "[" * 5000)
                pass
        n += 1
    return n


class _Quiet:
    """The recorder's stderr (one line per refusal) into /dev/null, as into
    a log file: written, not shown."""

    def __enter__(self):
        self.old = sys.stderr
        sys.stderr = open(os.devnull, "w")

    def __exit__(self, *exc):
        sys.stderr.close()
        sys.stderr = self.old


def recorder(items, folder):
    """A fresh recorder in `folder` (created), and a function that hands it
    every message of items."""
    from hall.recorder import Recorder
    os.makedirs(folder)
    sent = []
    rec = Recorder(folder, EVENT, lambda t, p, q, r: sent.append(t))
    rec.log_s = 0.0                    # (the seconds spent filing logs)
    rec.log_n = 0
    filing = rec.log

    def log(*args):
        t0 = time.perf_counter()
        rec.log_n += 1
        try:
            return filing(*args)
        finally:
            rec.log_s += time.perf_counter() - t0
    rec.log = log

    def feed():
        for t, p, r in items:
            rec.message(_topic(t), p, r)
        return sent
    return rec, feed


def need(clocks=HALL_CLOCKS):
    """Messages per second `clocks` clocks can send the recorder at most: a
    state each turn, a turn at most every game.LOCK_MS (the side a press
    started ignores its button that long), and a heartbeat every
    net.HEARTBEAT_MS (results and logs: one each a game)."""
    import game
    import net
    return clocks * (1000.0 / game.LOCK_MS + 1000.0 / net.HEARTBEAT_MS)


def parse_all(items):
    """hallproto.parse() alone on every message (the recorder's first step)."""
    import hallproto as hp
    for t, p, r in items:
        hp.parse(EVENT, _topic(t), p)


def _rate(fn, items):
    t0 = time.perf_counter()
    fn(items)
    return len(items) / (time.perf_counter() - t0)


def best_rates(items, runs=RUNS):
    """(recorder msgs/s, bare msgs/s, parse() msgs/s, recorder confirmations
    sent, (the share of the best recorder run spent filing logs, how many)), the
    best of `runs` each, measured alternately."""
    rec_best = bare_best = parse_best = 0.0
    log_share = (0.0, 0)
    confirms = 0
    d = tempfile.mkdtemp(prefix="rec-bench-", dir=RAM if os.path.isdir(RAM) else None)
    try:
        with _Quiet():
            for i in range(runs):
                rec, feed = recorder(items, os.path.join(d, str(i)))
                t0 = time.perf_counter()
                sent = feed()
                dt = time.perf_counter() - t0
                rec.journal.close()
                confirms = len(sent)
                if len(items) / dt > rec_best:
                    rec_best, log_share = len(items) / dt, (rec.log_s / dt, rec.log_n)
                shutil.rmtree(os.path.join(d, str(i)), ignore_errors=True)
                bare_best = max(bare_best, _rate(bare, items))
                parse_best = max(parse_best, _rate(parse_all, items))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return rec_best, bare_best, parse_best, confirms, log_share


def recorder_rate(clocks=CLOCKS, turns=TURNS, runs=RUNS):
    items, kinds = mix(clocks, turns)
    rate, base, parse, confirms, log_share = best_rates(items, runs)
    want = need()
    ratio = rate / base
    return [Figure(
        "hall_recorder_messages_per_second", int(rate), "msgs/s", int(base),
        "messages hall/recorder.py's Recorder.message() handles per second (CPython, one "
        "thread, best of %d runs, each on a fresh hall folder%s): %d messages, %d clocks "
        "each playing a whole sdev game built by the firmware (hallmsg.Messages on "
        "clockcore: %d states, %d heartbeats, %d results each also re-sent once, %d logs) "
        "and %d items of the "
        "hostile corpus among them (%d confirmations sent); %.2f of the bare reader's "
        "rate (1/%.1f), %.0f times the %.0f msgs/s %d clocks can send at most"
        % (runs, " in RAM (%s, a tmpfs: its fsyncs cost no disk)" % RAM
               if os.path.isdir(RAM) else "", len(items), clocks, kinds.get("state", 0), kinds.get("heartbeat", 0),
           kinds.get("result", 0) // 2, kinds.get("log", 0), kinds["hostile"], confirms,
           ratio, 1 / ratio, rate / want, want, HALL_CLOCKS),
        "the bare minimum any reader does, on the same messages in the same run: the "
        "topic decoded and split, the payload json.loads'ed (a log's or status's text "
        "decoded)",
        ">= %dx what %d clocks send at most (%.0f msgs/s: a state a turn, a turn at most "
        "every game.LOCK_MS, a heartbeat every net.HEARTBEAT_MS)"
        % (GOAL_TIMES, HALL_CLOCKS, want), rate >= GOAL_TIMES * want,
        ["%.1f us a message (the bare reader: %.1f us; hallproto.parse() alone, the "
         "recorder's first step: %.1f us, %.0f msgs/s)"
         % (1e6 / rate, 1e6 / base, 1e6 / parse, parse),
         "%.0f %% of the recorder's time went to the %d logs its protocol took (the "
         "games' and the corpus's), hall/filing.py: each written durably, and its "
         "timelines for the page, the game replayed on the clock's own view"
         % (100 * log_share[0], log_share[1])])]


if __name__ == "__main__":
    for f in recorder_rate():
        print(f.line())
        print(f.what)
        print(f.notes)
