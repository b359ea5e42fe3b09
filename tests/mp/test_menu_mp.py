# Settings, the setup menu and the referee menu under the real MicroPython
# interpreter: the same walkthroughs as tests/test_menu.py and
# tests/test_settings.py, the file handling on MicroPython's json/os, and
# heap measurements of render().
import gc
import json
import os

import clockcore as cc
import menu
import profiles
import settings
import view
from mptest import tmp_path
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE
from mptest import eq

MIN = 60000


def rows_of(cols=16, n=2):
    return [bytearray(b" " * cols) for _ in range(n)]


def shown(m, cols=16, n=2):
    return [view.to_text(r) for r in m.render(rows_of(cols, n))]


class MemFile:
    def __init__(self, fs, path, mode):
        self.fs = fs
        self.path = path
        self.mode = mode
        self.pos = 0
        if "w" in mode:
            fs.files[path] = b""

    def read(self, n=-1):
        data = self.fs.files[self.path]
        out = data[self.pos:] if n < 0 else data[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def write(self, s):
        self.fs.files[self.path] += s.encode()
        return len(s)

    def close(self):
        pass


class MemFs:
    def __init__(self, files=None):
        self.files = dict(files or {})
        self.fail_rename = False

    def open(self, path, mode):
        if "r" in mode and path not in self.files:
            raise OSError(2)
        return MemFile(self, path, mode)

    def rename(self, src, dst):
        if self.fail_rename:
            raise OSError(5)
        self.files[dst] = self.files.pop(src)

    def remove(self, path):
        del self.files[path]


# -- settings ---------------------------------------------------------------------

def test_settings_defaults_and_first_boot():
    s = settings.Settings.load(fs=MemFs())
    eq((s.profile, s.base_left, s.base_right, s.lang, s.sound),
       ("sdev", 30 * MIN, 30 * MIN, "en", True), "defaults")
    eq(s.notice, None, "no notice on first boot")


def test_settings_round_trip_memfs():
    fs = MemFs()
    s = settings.Settings()
    s.set_profile("custom")
    s.base_left = 17 * MIN
    s.lang = "pl"
    s.sound = False
    s.zero = profiles.ZERO_FLAG
    s.penalty = 15
    s.forfeit = 240
    s.window = 25000
    eq(s.save(fs=fs), True, "saved")
    t = settings.Settings.load(fs=fs)
    eq(t.as_dict(), s.as_dict(), "round trip")
    eq(t.notice, None, "notice")


def test_settings_bad_files_reset_with_notice():
    good = settings.Settings().as_dict()
    good["lang"] = "de"
    bad = [b"", b"{", bytes(range(256)), b"[1]", b'"x"', b"1e400",
           json.dumps(good)[:30].encode(), b'{"v": 2}', b'{"v": 1, "sound": 1}',
           b'{"v": 1, "base_left": true}', b'{"v": 1, "penalty": 1.5}',
           b'{"v": 1, "lang": "fr"}', b'{"v": 1, "window": 61000}',
           b'{"v": 1, "forfeit": 0}', b'{"v": 1, "zero": 1}',
           b'{"v": 1, "profile": null}', b'{"v": 1, "penalty": NaN}',
           b"\xff" * 2000]
    for data in bad:
        s = settings.Settings.load(fs=MemFs({"settings.json": data}))
        eq((s.profile, s.lang, s.notice), ("sdev", "en", "Settings reset"),
           "reset for %r" % data[:20])


def test_settings_failing_rename_keeps_old_file():
    fs = MemFs()
    s = settings.Settings()
    s.lang = "de"
    s.save(fs=fs)
    before = fs.files["settings.json"]
    s.lang = "pl"
    fs.fail_rename = True
    eq(s.save(fs=fs), False, "save fails quietly")
    eq(fs.files["settings.json"], before, "old file intact")
    eq("settings.json.tmp" in fs.files, False, "temp removed")


def test_settings_real_fs_replace_existing():
    path = tmp_path("scrabble_clock_settings.json")
    try:
        s = settings.Settings()
        s.lang = "de"
        eq(s.save(path), True, "first save")
        s.lang = "pl"
        eq(s.save(path), True, "rename over an existing file")
        eq(settings.Settings.load(path).lang, "pl", "reloaded")
    finally:
        for p in (path, path + ".tmp"):
            try:
                os.remove(p)
            except OSError:
                pass


def test_settings_rules_match_make_rules():
    s = settings.Settings()
    for name in profiles.NAMES:
        s.set_profile(name)
        eq(s.rules().as_ints(), profiles.make_rules(name).as_ints(), name)


# -- setup menu -------------------------------------------------------------------

def test_setup_walkthrough():
    s = settings.Settings()
    m = menu.SetupMenu(s)
    seen = []
    for _ in range(7):
        seen.append(shown(m))
        m.handle(A_NEXT)
    eq(seen, [["Rules           ", "<  SDeV (TSO)  >"],
              ["Time per player ", "<    30:00     >"],
              ["Language        ", "<   English    >"],
              ["Sound           ", "<      on      >"],
              ["Table number    ", "      none     >"],
              ["Last games      ", "               >"],
              ["Rules           ", "<  SDeV (TSO)  >"]], "sdev items")
    for _ in range(5):
        m.handle(A_NEXT)          # round again to the profile
    m.handle(A_RIGHT)
    eq((s.profile, s.base_left), ("pfs", 20 * MIN), "pfs base")
    m.handle(A_RIGHT)
    eq(s.profile, "custom", "custom")
    labels = []
    for _ in range(12):
        m.handle(A_NEXT)
        labels.append(shown(m)[0].rstrip())
    eq(labels, ["Time per player", "Time: left", "Time: right", "At 00:00",
                "Penalty/minute", "Forfeit after", "Challenge time", "Language",
                "Sound", "Table number", "Last games", "Rules"], "custom items")


def test_setup_custom_values_and_bounds():
    s = settings.Settings()
    s.set_profile("custom")
    m = menu.SetupMenu(s)
    for _ in range(5):
        m.handle(A_NEXT)          # penalty
    for _ in range(20):
        m.handle(A_RIGHT)
    eq(s.penalty, 50, "penalty max")
    eq(shown(m)[1], "<      50       ", "penalty row")
    m.handle(A_NEXT)              # forfeit
    m.handle(A_RIGHT)
    eq(s.forfeit, 60, "forfeit 1:00")
    m.handle(A_LEFT)
    eq(s.forfeit, -1, "forfeit none")
    eq(shown(m)[1], "     never     >", "forfeit row")
    m.handle(A_NEXT)              # window
    for _ in range(4):
        m.handle(A_RIGHT)
    eq(shown(m)[1], "<     20 s     >", "window row")
    m.handle(A_NEXT)              # language
    m.handle(A_RIGHT)
    eq(shown(m), ["Sprache         ", "<   Deutsch    >"], "german")
    eq(m.handle(A_DONE), "save", "done")
    eq(s.rules().window, 20000, "rules window")


def test_setup_20x4():
    m = menu.SetupMenu(settings.Settings())
    eq(shown(m, 20, 4), ["Setup            1/6", "Rules               ",
                         "<    SDeV (TSO)    >", "Pause=next hold=OK  "], "20x4")


# -- referee menu -----------------------------------------------------------------

def paused_game(events):
    c = cc.Clock(profiles.make_rules("sdev"), 0, lambda a, b: a - b,
                 lambda t, d: t + d,
                 lambda code, s, t, a: events.append((code, s, a)))
    c.press(cc.LEFT, 0)
    c.press(cc.RIGHT, 61500)
    c.pause(91750)
    c.void_side = -1   # as if no move had been made: the time items come first
    del events[:]
    return c


def test_referee_adjusts_reach_the_hook():
    ev = []
    c = paused_game(ev)
    m = menu.RefereeMenu(c)
    steps = ((0, 1000), (0, MIN), (1, 1000), (1, MIN))
    for side, step in steps:
        before = c.rem[side]
        m.handle(A_RIGHT, 100000)
        eq(c.rem[side], before + step, "plus")
        m.handle(A_LEFT, 100000)
        m.handle(A_LEFT, 100000)
        eq(c.rem[side], before - step, "minus")
        m.handle(A_NEXT, 100000)
    want = []
    for side, step in steps:
        want += [(cc.EV_ADJUST, side, step), (cc.EV_ADJUST, side, -step),
                 (cc.EV_ADJUST, side, -step)]
    eq(ev, want, "hook")


def test_referee_late_arrival_and_base_in_ready():
    ev = []
    c = cc.Clock(profiles.make_rules("pfs"), 0, lambda a, b: a - b,
                 lambda t, d: t + d,
                 lambda code, s, t, a: ev.append((code, s, a)))
    m = menu.RefereeMenu(c, "pl")
    for _ in range(4):
        m.handle(A_NEXT, 0)
    for _ in range(7):
        m.handle(A_RIGHT, 0)
    eq(shown(m), ["Spoznienie L    ", "<     07:00    >"], "late row")
    eq(c.rem[0], 13 * MIN, "late left")
    m.handle(A_NEXT, 0)
    m.handle(A_NEXT, 0)           # base (ready only)
    eq(m.handle(A_RIGHT, 0), menu.RULES, "base change reported")
    eq((c.rules.base, c.rem, c.state), ([21 * MIN, 21 * MIN], [21 * MIN, 21 * MIN],
                                        cc.READY), "base change resets")


def test_referee_reset_needs_confirmation():
    ev = []
    c = paused_game(ev)
    m = menu.RefereeMenu(c)
    for _ in range(6):
        m.handle(A_NEXT, 0)       # paused: no base item, so this is reset
    eq(shown(m)[0], "Reset game      ", "reset item")
    for a in (A_LEFT, A_NEXT, A_DONE):
        m.handle(A_RIGHT, 0)
        eq(shown(m)[1], "  Reset? R=yes  ", "asks")
        eq(m.handle(a, 0), None, "cancel")
        eq(c.state, cc.PAUSED, "not reset")
    m.handle(A_RIGHT, 0)
    eq(m.handle(A_RIGHT, 0), "reset", "confirmed")
    eq((c.state, c.rem), (cc.READY, [30 * MIN, 30 * MIN]), "reset")


def test_referee_mashing_never_resets():
    ev = []
    c = paused_game(ev)
    m = menu.RefereeMenu(c)
    seed = 12345
    for i in range(3000):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        a = A_LEFT if seed & 0x100 else A_NEXT
        if m.handle(a, 100000 + i) == "reset":
            raise AssertionError("reset without A_RIGHT")
    eq(c.state in (cc.PAUSED, cc.OVER), True, "state")


# -- allocation ---------------------------------------------------------------------

def _alloc(fn, n=100):
    fn()
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(n):
        fn()
    return gc.mem_alloc() - before


def test_render_allocates_nothing():
    ev = []
    c = paused_game(ev)
    r2 = rows_of()
    r4 = rows_of(20, 4)
    s = settings.Settings()
    s.set_profile("custom")
    s.lang = "de"
    sm = menu.SetupMenu(s)
    rm = menu.RefereeMenu(c, "pl")
    for i in range(10):
        eq(_alloc(lambda: sm.render(r2)), 0, "setup render item %d" % sm.item)
        eq(_alloc(lambda: sm.render(r4)), 0, "setup 20x4 item %d" % sm.item)
        sm.handle(A_NEXT)
        sm.handle(A_RIGHT)
    for i in range(8):
        eq(_alloc(lambda: rm.render(r2)), 0, "referee render item %d" % rm.item)
        eq(_alloc(lambda: rm.render(r4)), 0, "referee 20x4 item %d" % rm.item)
        rm.handle(A_NEXT, 0)
