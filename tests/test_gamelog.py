"""The game log on the clock (SPEC §4 "Game log", "Power loss"; §5 replay
format; TSO § 4.1 f: the clock is stopped for a power failure).

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, and
tests/test_target_qemu.py on the 32-bit image.

The first part runs everywhere: the log's lines, its repair after a power
cut, its bounds, on the fake flash of tests/test_power_loss.py and on the
interpreter's own filesystem (mptest.tmp_path).  The second part is
CPython only (it needs host_sim): a Device below wires the real core,
StateStore and GameLog the way the app does; games played on it (with power
cuts at random flash steps, and inside log lines) are replayed from their
log with host_sim.replay and must end in exactly the live clock's state.
`python -m host_sim logs` is tested in tests/test_logs_tool.py.
"""
import os

import appversion
import clockcore as cc
import fsys
import gamelog
import persist
import profiles
import ticks
from mptest import (MICROPYTHON, Random, cpython_only, eq, parametrize, small_heap,
                    tmp_path as mp_tmp_path)
from test_power_loss import FakeFlash, PowerCut

# issue 37, docs/build.md: every header names the app that wrote the log
# (appversion.LOG_LINE: "# firmware 1.0.0 <commit>", "dev" without a build)
FIRMWARE = appversion.LOG_LINE.rstrip("\n")

DIFF, ADD = ticks.wrapping(1 << 30)
LOOP_MS = 100
CHECKPOINT_MS = 5000


# == everywhere: the log's lines, repair and bounds =====================================

def test_line_format():
    ff = FakeFlash(journal=False)
    lg = gamelog.GameLog(fs=ff)
    assert lg.begin(profiles.make_rules("sdev", {"base": "25:00"})) == 1
    lg.event(0, cc.EV_LEFT, 0, 0, 1500000, 1500000)
    lg.event(1500, cc.EV_RIGHT, 1, 0, 1500000, 1498500)
    lg.event(21500, cc.EV_WINDOW, 0, 0, 1480000, 1498500)
    lg.event(61000, cc.EV_PAUSE, 0, 0, 1440500, 1498500)
    lg.event(62000, cc.EV_ADJUST, 1, -60000, 1440500, 1438500)
    lg.event(63000, cc.EV_ADJUST, 0, 5000, 1445500, 1438500)
    lg.event(64000, cc.EV_PAUSE, 0, 0, 1445500, 1438500)
    lg.event(1500000, cc.EV_FLAG, 0, 0, 0, 1438500)
    lg.event(1560999, cc.EV_FORFEIT, 0, 0, -3999, 1438500)
    lg.event(1561000, cc.EV_OVER, 0, 0, -301000, 1438500)
    lg.event(1562000, cc.EV_END, 0, 0, -301000, 1438500)
    lg.event(1563000, cc.EV_BASE, 1, 1500000, -301000, 1438500)
    eq(ff.files["games/g0001.txt"].decode(), "\n".join([
        "profile sdev  # game 1",
        FIRMWARE,                  # issue 37: the app that wrote it
        "set base=25:00",
        "0 left  # L 25:00 R 25:00",
        "1500 right  # L 25:00 R 24:59",
        "# 21500 window closed  L 24:40 R 24:59",
        "61000 pause  # L 24:01 R 24:59",
        "62000 adjust right -60000  # L 24:01 R 23:59",
        "63000 adjust left +5000  # L 24:06 R 23:59",
        "64000 pause  # L 24:06 R 23:59",
        "# 1500000 flag left  L 00:00 R 23:59",
        "# 1560999 forfeit left  L -00:03 R 23:59",
        "# 1560999 over  L -00:03 R 23:59",    # SPEC v4 §5: the game's end
        "# 1561000 over  L -05:01 R 23:59",
        "1562000 end  # L -05:01 R 23:59",
        "1563000 base right 25:00  # L -05:01 R 23:59",
        ""]), "the log")


def test_a_language_other_than_english_is_named_in_the_header():
    """The replay draws the LCD in the log's own language (issue 26)."""
    ff = FakeFlash(journal=False)
    lg = gamelog.GameLog(fs=ff, clock="c0ffee")
    lg.lang = "de"
    lg.begin(profiles.make_rules("sdev", {"base": "25:00"}), 3)
    eq(ff.files["games/g0001.txt"].decode(),
       "profile sdev  # game 1\n# clock c0ffee table 3\n" + appversion.LOG_LINE +
       "# lang de\nset base=25:00\n", "header")


def test_display_times_in_the_comment_round_like_the_lcd():
    f = gamelog.fmt_time
    assert [f(1), f(1000), f(1001), f(0), f(-999), f(-1000), f(-61000), f(-301000)] == \
        ["00:01", "00:01", "00:02", "00:00", "00:00", "-00:01", "-01:01", "-05:01"]
    assert f(5999000) == "99:59"


def test_restored_when_paused_only_comments_and_cuts_back_to_the_checkpoint():
    ff = FakeFlash(journal=False)
    lg = gamelog.GameLog(fs=ff)
    lg.begin(profiles.make_rules("pfs"))
    lg.event(0, cc.EV_RIGHT, 1, 0, 1200000, 1200000)
    pos = lg.pos
    lg.event(5000, cc.EV_PAUSE, 0, 0, 1195000, 1200000)
    ff.files["games/g0001.txt"] += b"9000 le"   # torn
    lg2 = gamelog.GameLog(fs=ff)
    assert lg2.restored(5000, state=cc.PAUSED, game=1, pos=-1)
    text = ff.files["games/g0001.txt"].decode()
    assert text.endswith("5000 pause  # L 19:55 R 20:00\n# 5000 power restored (the clock was paused)\n")
    lg3 = gamelog.GameLog(fs=ff)
    assert lg3.restored(4000, state=cc.RUNNING, game=1, pos=pos)
    assert ff.files["games/g0001.txt"].decode().endswith(
        "0 right  # L 20:00 R 20:00\n4000 pause  # power restored\n")
    assert lg3.pos == len(ff.files["games/g0001.txt"])
    assert not [p for p in ff.files if p.endswith(".tmp")]
    assert gamelog.GameLog(fs=ff).restored(1, game=7) is False
    # a position that is no line end (another file's, a foreign record) or 0
    # (an app that does not pass it) cuts nothing but a torn line
    before = ff.files["games/g0001.txt"]
    for bad in (0, 5, len(before) - 3):
        ff.files["games/g0001.txt"] = before + b"77 ri"
        assert gamelog.GameLog(fs=ff).restored(4500, state=cc.PAUSED, game=1, pos=bad)
        assert ff.files["games/g0001.txt"] == before + b"# 4500 power restored (the clock was paused)\n"


def test_a_game_without_events_is_reused():
    ff = FakeFlash(journal=False)
    lg = gamelog.GameLog(fs=ff)
    assert lg.begin(profiles.make_rules("sdev")) == 1
    assert gamelog.GameLog(fs=ff).begin(profiles.make_rules("pfs")) == 1
    assert ff.files["games/g0001.txt"].startswith(b"profile pfs")
    lg = gamelog.GameLog(fs=ff)
    lg.begin(profiles.make_rules("pfs"))
    lg.event(0, cc.EV_LEFT, 0, 0, 1, 1)
    assert gamelog.GameLog(fs=ff).begin(profiles.make_rules("pfs")) == 2
    assert gamelog.GameLog(fs=ff).list_games() == ["g0001.txt", "g0002.txt"]


def test_a_failing_filesystem_stops_logging_not_the_clock():
    class Full(FakeFlash):
        def _write(self, path, data):
            raise OSError(28, "no space")

    ff = Full(journal=False)
    lg = gamelog.GameLog(fs=ff)
    assert lg.begin(profiles.make_rules("sdev")) == 0 and "28" in lg.error
    assert lg.event(0, cc.EV_LEFT, 0, 0, 1, 1) is False


def test_header_carries_the_clock_id_and_table_number():
    """Issue 12 item 4: `# clock <unique_id hex> [table N]` after the profile
    line (table 0 = none is left out); the replay parser skips it."""
    class Machine:
        def unique_id(self):
            return b"\xe6\x61\x4c\x31\x1b\x5f\x2a\x37"

    cid = gamelog.clock_id(Machine())
    assert cid == "e6614c311b5f2a37"
    assert gamelog.clock_id(object()) == ""       # a port without unique_id()
    first, second = two_games_with_a_header(cid)
    assert first[:2] == ["profile sdev  # game 1", "# clock e6614c311b5f2a37 table 12"]
    assert second[:2] == ["profile sdev  # game 2", "# clock e6614c311b5f2a37"]


def two_games_with_a_header(cid):
    """The first lines of two games logged by clock `cid`, at table 12 then
    at none."""
    ff = FakeFlash(journal=False)
    gl = gamelog.GameLog(fs=ff, clock=cid)
    rules = profiles.make_rules("sdev")
    gl.begin(rules, 12)
    gl.event(0, cc.EV_LEFT, 0, 0, 1800000, 1800000)
    gl.close()
    gl.begin(rules)
    gl.event(0, cc.EV_LEFT, 0, 0, 1800000, 1800000)
    return (ff.files["games/g0001.txt"].decode().split("\n"),
            ff.files["games/g0002.txt"].decode().split("\n"))


# -- storage bounds -------------------------------------------------------------------

def test_storage_stays_bounded_over_1000_games():
    """SPEC §4 Game log: kept for the last games, bounded.  1000 games of
    random length (some runaway ones, the last game one of them), reboots
    in between: never more than max_games files or max_bytes
    in games/, never more than the three state files of one record each.
    MicroPython plays the first 120 of them (the bounds hold from the 21st
    game on), and in the qemu image's Pico-sized heap, where the fake flash's
    files are heap objects, within a 16 KB bound."""
    games = 120 if MICROPYTHON else 1000
    rng = Random(8)
    ff = FakeFlash(journal=False)
    max_games, max_bytes = 20, (16 if small_heap() else 64) * 1024
    rules = [profiles.make_rules("sdev"), profiles.make_rules("pfs", {"base": "15:00"})]
    lg = st = None
    numbers = []
    for g in range(games):
        if g % 37 == 0:   # a reboot
            lg = gamelog.GameLog(fs=ff, max_games=max_games, max_bytes=max_bytes)
            st = persist.StateStore(fs=ff, count=cc.SNAPSHOT_LEN)
            st.load()
        numbers.append(lg.begin(rng.choice(rules)))
        n = rng.choice((rng.randrange(1, 150), rng.randrange(1, 150), 3000 if g % 97 == 5 else 40))
        if g == games - 1:
            n = 3000      # the last game a runaway one
        t = 0
        for k in range(n):
            t += rng.randrange(100, 30000)
            kind = rng.choice((cc.EV_LEFT, cc.EV_RIGHT, cc.EV_PAUSE, cc.EV_WINDOW)) if k else cc.EV_LEFT
            lg.event(t, kind,
                     k & 1, 0, rng.randrange(-300000, 1800000), rng.randrange(1800000))
            if k % 10 == 0:
                st.save([rng.randrange(-1 << 31, 1 << 31) for _ in range(cc.SNAPSHOT_LEN)],
                        t, lg.pos, lg.number)
            names = ff.listdir("games")
            assert len(names) <= max_games
        assert ff.dir_bytes("games") <= max_bytes
        lg.close()
        if rng.random() < 0.5:
            st.clear()
        state = [p for p in ff.files if p.startswith("clock.state")]
        assert len(state) <= 3 and sum(len(ff.files[p]) for p in state) <= 3 * 100
    assert numbers == list(range(1, games + 1))
    assert len(ff.listdir("games")) <= max_games
    assert ff.dir_bytes("games") <= max_bytes
    last = "g%04d.txt" % games
    assert sorted(lg.list_games())[-1] == last
    assert lg.read(last).startswith("profile ")
    runaway = [n for n in lg.list_games() if "# log full" in lg.read(n)]
    assert runaway and all(len(ff.files["games/" + n]) <= max_bytes for n in runaway)


# -- on the interpreter's own filesystem ----------------------------------------------

def new_folder(name):
    """An empty folder of this run's own: mptest's tmp_path under MicroPython
    (the unix port: the run's folder; the qemu image: its own littlefs),
    a fresh temporary one under pytest."""
    if MICROPYTHON:
        path = mp_tmp_path(name)
    else:
        import tempfile
        path = tempfile.mkdtemp() + "/" + name
    os.mkdir(path)
    return path


def read_text(path):
    f = open(path, "rb")
    data = f.read()
    f.close()
    return data.decode()


def test_the_log_on_the_real_filesystem_is_repaired_after_a_power_cut():
    """SPEC §4 "Game log", "Power loss": on the interpreter's own files
    (fsys.OsFS, the one the app uses; on the qemu image littlefs, as on the
    Pico) the log is written line by line; a line torn by a power cut is cut
    back to the last checkpoint's position, which gets a `pause`; the next
    game takes the next number."""
    folder = new_folder("sclock_gamelog_fs") + "/games"
    lg = gamelog.GameLog(fs=fsys.OsFS(), folder=folder)
    eq(lg.begin(profiles.make_rules("sdev", {"base": "25:00"})), 1, "the first game")
    lg.event(0, cc.EV_LEFT, 0, 0, 1500000, 1500000)
    lg.event(1500, cc.EV_RIGHT, 1, 0, 1500000, 1498500)
    pos = lg.pos                                   # the checkpoint's position
    lg.event(9000, cc.EV_LEFT, 0, 0, 1492500, 1498500)
    name = lg.name
    f = open(name, "ab")                           # power cut inside the next line
    f.write(b"12000 ri")
    f.close()
    eq(sorted(os.listdir(folder)), ["g0001.txt"], "the files")
    lg2 = gamelog.GameLog(fs=fsys.OsFS(), folder=folder)
    eq(lg2.restored(3000, state=cc.RUNNING, game=1, pos=pos), True, "restored")
    eq(read_text(name), "\n".join([
        "profile sdev  # game 1",
        FIRMWARE,
        "set base=25:00",
        "0 left  # L 25:00 R 25:00",
        "1500 right  # L 25:00 R 24:59",
        "3000 pause  # power restored",
        ""]), "cut back to the checkpoint, then the pause")
    eq(lg2.pos, len(read_text(name)), "the log's length")
    lg2.close()
    eq(gamelog.GameLog(fs=fsys.OsFS(), folder=folder).begin(profiles.make_rules("pfs")), 2,
       "the next game")
    eq(sorted(os.listdir(folder)), ["g0001.txt", "g0002.txt"], "the files")


# == CPython only: the log replayed by host_sim =========================================
# (host_sim is the PC side: it does not run under MicroPython)

# -- the app's wiring, as a test harness ----------------------------------------------

class Device:
    """Clock + StateStore + GameLog on one flash, wired as the app does:
    log line first, then the checkpoint (which records the log's length);
    at power-up: load, restore paused, GameLog.restored()."""

    def __init__(self, flash, profile, over, boot_tick, **log_args):
        self.flash = flash
        self.rules = profiles.make_rules(profile, over)
        self.store = persist.StateStore(fs=flash, count=cc.SNAPSHOT_LEN)
        self.log = gamelog.GameLog(fs=flash, **log_args)
        self.clock = cc.Clock(self.rules, boot_tick, DIFF, ADD, self._hook)
        self.L0 = 0
        self.T0 = boot_tick
        self.started = False
        self.dirty = False
        self.last_charged = 0
        self.restored = None
        rec = self.store.load()
        if rec is not None:
            ints, log_ms = rec
            self.restored = ints
            self.clock.restore(ints, t=boot_tick)
            self.L0, self.T0 = log_ms, boot_tick
            self.started = True
            if ints[1] != cc.OVER:
                assert self.log.restored(log_ms, ints[1],
                                         self.store.game, self.store.log_pos)
            self.last_charged = self._charged()

    def log_ms(self, t):
        return self.L0 + DIFF(t, self.T0)

    def _charged(self):
        c = self.clock
        return (c.rules.base[0] - c.rem[0]) + (c.rules.base[1] - c.rem[1])

    def _hook(self, code, side, t, arg):
        if not self.started:
            self.started = True
            self.L0, self.T0 = 0, t
            self.log.begin(self.rules)
        self.log.event(self.log_ms(t), code, side, arg, self.clock.rem[0], self.clock.rem[1])
        self.dirty = True

    def _checkpoint(self):
        c = self.clock
        assert self.store.save(c.snapshot(), self.log_ms(c.t), self.log.pos, self.log.number)
        self.dirty = False
        self.last_charged = self._charged()
        # the app keeps the log open on the final screen (void, resume)

    def after(self):
        if self.dirty or (self.clock.state == cc.RUNNING and
                          abs(self._charged() - self.last_charged) >= CHECKPOINT_MS - LOOP_MS):
            self._checkpoint()

    # the inputs (each: the core, then the checkpoint)
    def loop(self, t):
        self.clock.update(t)
        self.after()

    def act(self, what, t):
        c = self.clock
        if what == "L":
            c.press(cc.LEFT, t)
        elif what == "R":
            c.press(cc.RIGHT, t)
        elif what == "P":
            c.pause(t)
        elif what == "E":
            c.pause(t)   # the long press: pause at the edge, end at the same ms
            c.end(t)
        elif what.startswith("A"):
            c.adjust(int(what[1]), int(what[2:]), t)
        self.after()


def script(rng, minutes):
    """(world ms, action) pairs: moves, pauses, referee adjustments."""
    out = []
    w = rng.randrange(1000, 5000)
    side = rng.randrange(2)
    end = minutes * 60000
    while w < end:
        r = rng.random()
        if r < 0.08:
            out.append((w, "P"))
            if rng.random() < 0.5:
                out.append((w + rng.randrange(500, 3000), "A%d%+d" % (rng.randrange(2),
                            rng.choice((-60000, -1000, 1000, 30000)))))
            w += rng.randrange(4000, 15000)
            out.append((w, "P"))
        elif r < 0.1:
            out.append((w, "LR"[rng.randrange(2)]))  # maybe the wrong player
        else:
            out.append((w, "LR"[side]))
            side = 1 - side
        w += rng.randrange(1000, 40000)
    out.append((w, "E" if rng.random() < 0.5 else "P"))
    if out[-1][1] == "P":
        out.append((w, "E"))
    return out


def play(seed, profile, over, cut_units=(), minutes=30, flash=None, **log_args):
    """Play a scripted game; cut the power at each flash step count in
    `cut_units` (counted from the previous boot), reboot after 1-600 s with
    the tick counter anywhere, and go on.  Returns (device, flash, cuts)."""
    rng = Random(seed)
    acts = script(rng, minutes)
    flash = flash or FakeFlash(journal=False)
    cuts = list(cut_units)
    boots = []

    def boot():
        tick = rng.randrange(1 << 30)
        flash.budget = cuts.pop(0) if cuts else None
        try:
            d = Device(flash, profile, over, tick, **log_args)
        except PowerCut:
            return None, tick
        boots.append(d)
        return d, tick

    dev, tick = boot()
    world = 0
    base_w = 0
    i = 0
    while i < len(acts):
        if dev is None:
            flash.budget = None
            dev, tick = boot()
            base_w = world
            continue
        w, what = acts[i]
        try:
            while world + LOOP_MS < w:
                world += LOOP_MS
                dev.loop(ADD(tick, world - base_w))
            world = max(world, w)   # inputs due during an outage come after it
            t = ADD(tick, world - base_w)
            dev.loop(t)
            dev.act(what, t)
            i += 1
        except PowerCut:
            i += 1   # that input was lost with the power
            world += rng.randrange(1000, 600000)
            dev = None
            continue
        if dev.clock.state == cc.OVER:
            break
    if dev is None:
        flash.budget = None
        dev, tick = boot()
    flash.budget = None
    return dev, flash, boots


def replay_log(flash, number, folder="games"):
    """The game file as the host gets it, through host_sim's reader."""
    path = "%s/g%04d.txt" % (folder, number)
    return flash.files[path].decode()


def replayed(text, tmp_path, name="g.txt", at=None):
    """Parse a log as host_sim does and run it to `at` (default: its last event)."""
    from host_sim import logs, replay
    p = tmp_path / name
    p.write_text(text)
    log = logs.read_log(str(p))
    clock, at = replay.run(log.game, at)
    return log, clock, at


STATE_FIELDS = (1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16)


def assert_same(live, rep):
    from host_sim import replay
    a = live.snapshot()
    b = rep.snapshot()
    assert [a[k] for k in STATE_FIELDS] == [b[k] for k in STATE_FIELDS], (
        "live %r\nreplay %r" % (list(a), list(b)))
    assert replay.report(live, 0) == replay.report(rep, 0)


# -- the round trip ---------------------------------------------------------------

@cpython_only
@parametrize("seed,profile,over", [
    (1, "sdev", None),
    (2, "sdev", {"base": "08:00"}),                  # overtime, penalties, forfeit
    (3, "pfs", {"base": "06:00"}),                   # flags pause the clock
    (4, "custom", {"base_left": "10:00", "base_right": "07:30", "window": "15",
                   "penalty": "5", "forfeit": "02:00"}),
])
def test_a_logged_game_replays_to_the_live_clock_state(seed, profile, over, tmp_path):
    dev, flash, boots = play(seed, profile, over, minutes=40)
    assert dev.log.number == 1 and len(boots) == 1
    text = replay_log(flash, 1)
    log, clock, at = replayed(text, tmp_path, at=dev.log_ms(dev.clock.t))
    assert log.torn is None and log.restored == 0
    assert log.game.rules.__dict__ == dev.rules.__dict__
    assert len(log.game.events) > 20 and log.game.events[-1].t <= at
    assert_same(dev.clock, clock)
    # the header is the replay format's: profile, then the overrides
    first = text.split("\n")[0]
    assert first.startswith("profile %s" % profile)
    if over:
        assert text.split("\n")[2] == "set " + " ".join(dev.rules.overrides())


@cpython_only
def test_a_torn_last_line_is_read(tmp_path):
    """A power cut may tear the last line only: the reader drops it, or keeps
    it when its event is complete (the comment was being written)."""
    dev, flash, boots = play(5, "sdev", None, minutes=12)
    text = replay_log(flash, 1)
    lines = text.split("\n")[:-1]
    full = "\n".join(lines) + "\n"
    last = lines[-1]
    assert last.split()[1] == "end"
    before = "\n".join(lines[:-1]) + "\n"
    _, want_before, at_before = replayed(before, tmp_path, "b.txt")
    _, want_after, _ = replayed(full, tmp_path, "a.txt")
    assert want_before.state != cc.OVER and want_after.state == cc.OVER
    for cut in range(len(last) + 1):
        log, clock, at = replayed(before + last[:cut], tmp_path)
        complete = "#" in last[:cut]
        assert (log.torn is None) == (complete or cut == 0)
        assert_same(clock, want_after if complete else want_before)
    # the plain replay tool reads the clean part too
    p = tmp_path / "clean.txt"
    p.write_text(before)
    import json
    import subprocess
    import sys
    from host_sim import replay
    from conftest import ROOT
    proc = subprocess.run([sys.executable, "-m", "host_sim", "replay", str(p), "--json"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == replay.report(want_before, at_before)


@cpython_only
def test_restored_after_a_power_cut_replays_to_the_live_clock(tmp_path):
    """Power cut mid-game at many random flash steps; the clock comes back
    paused as of its last checkpoint, the log is cut back to that checkpoint
    and gets a `pause`: its replay ends exactly where the live clock does."""
    rng = Random(6)
    restored_games = 0
    for k in range(50):
        seed = 100 + k
        profile, over = rng.choice([("sdev", {"base": "12:00"}), ("pfs", {"base": "08:00"}),
                                    ("custom", {"base": "09:00", "window": "10"})])
        n = rng.randrange(1, 4)
        cuts = [rng.randrange(1, 60000) for _ in range(n)]
        dev, flash, boots = play(seed, profile, over, cuts, minutes=20)
        text = replay_log(flash, dev.log.number)
        log, clock, at = replayed(text, tmp_path, at=dev.log_ms(dev.clock.t))
        assert log.torn is None
        assert_same(dev.clock, clock)
        if log.restored:
            restored_games += 1
            assert "pause  # power restored" in text or "power restored (the clock was paused)" in text
        # log times never go back, and the last event is the live clock's time
        times = [e.t for e in log.game.events]
        assert times == sorted(times) and times[-1] <= at
    assert restored_games >= 20


@cpython_only
def test_power_cut_inside_every_log_line_of_a_game(tmp_path):
    """A cut at a byte inside each log write of a game (so a torn line is on
    flash at power-up): the device repairs the log and the replay matches."""
    ff = FakeFlash(journal=True)
    play(7, "sdev", {"base": "06:00"}, minutes=8, flash=ff)
    # flash steps (as FakeFlash counts them) at which each log line is written
    steps = []
    unit = 0
    for op, path, data, before in ff.journal:
        if op == "write":
            if path.startswith("games/"):
                steps.append((unit, len(data)))
            unit += len(data)
        else:
            unit += 1
    assert len(steps) > 20
    rng = Random(7)
    for start, n in steps:
        cut = start + 1 + rng.randrange(n - 1)   # 1 to n-1 bytes of the line
        dev, flash, boots = play(7, "sdev", {"base": "06:00"}, [cut], minutes=8)
        text = replay_log(flash, dev.log.number)
        assert not text.endswith(" ") and text.endswith("\n")
        log, clock, at = replayed(text, tmp_path, at=dev.log_ms(dev.clock.t))
        assert_same(dev.clock, clock)


@cpython_only
def test_the_replay_parser_skips_the_clock_header():
    from host_sim import replay
    first, _ = two_games_with_a_header("e6614c311b5f2a37")
    assert [e.kind for e in replay.parse(first).events] == ["left"]
