"""The organizer's checks of a clock (issue 37): the setup menu's version
item, the self-test (firmware/selftest.py) and its result in the state
message the hall receives, and the firmware line of every game log.

The real app on the rig, every step with the real keys (the setup menu
opened with the pause key held 2 s in READY, its items walked with the
pause key, the self-test started with an arrow), what the LCD and the
TM1637 modules show read from their emulators, the outputs from the fake
machine's pins.  Written once for both interpreters (tests/mp/mptest.py):
inside the MicroPython unix port too.
"""
import sys

import appversion
import fsys
import lang
import selftest
import setupmenu
from mptest import MICROPYTHON, cpython_only, eq, micropython_only, parametrize, tmp_path

# The rig (and with it the whole app) is imported in each test, so the
# MicroPython runner lets it go after it (tests/mp/mptest.py: on the qemu
# image's 240 KB heap an app kept from test to test leaves too little).
LEFT, RIGHT, PAUSE = 0, 1, 2        # rig.LEFT, RIGHT, PAUSE (boot() checks)

_boards = {}


def load_board(name):
    if name not in _boards:
        if MICROPYTHON:
            _boards[name] = __import__(name)          # boards/ is on MICROPYPATH
        else:
            from host_sim.boards import load          # the one board loader
            _boards[name] = load(name)
    return _boards[name]


def boot(name="sim", board="sim", lang_code="en", sound=True):
    import rig as rigmod
    from device_scenarios import fresh_dir, write_settings
    eq((rigmod.LEFT, rigmod.RIGHT, rigmod.PAUSE), (LEFT, RIGHT, PAUSE), "the rig's keys")
    root = fresh_dir(tmp_path("selftest_" + name))
    write_settings(root, "sdev", 1800, lang_code)
    if not sound:
        f = open(root + "settings.json", "w")
        f.write('{"v": 1, "profile": "sdev", "base_left": 1800000, "base_right": 1800000, '
                '"lang": "%s", "sound": false}' % lang_code)
        f.close()
    rig = rigmod.Rig(load_board(board), root)
    rig.run(1600)                               # the splash
    return rig


def hold(rig):
    """The pause key held 2 s (the rig's long press)."""
    import rig as rigmod
    rig.press(PAUSE, rigmod.LONG_MS)


def to_item(rig, item):
    """The setup menu opened (the pause key held 2 s in READY) and walked
    with the pause key to `item`."""
    hold(rig)
    eq(rig.app.mode, 2, "the setup menu")
    for _ in range(20):
        if rig.app.menu.item == item:
            return
        rig.press(PAUSE)
    raise AssertionError("no item %d" % item)


def start(rig):
    """The self-test from the setup menu's item (either arrow)."""
    if rig.app.mode != 2 or rig.app.menu.item != setupmenu.S_SELFTEST:
        to_item(rig, setupmenu.S_SELFTEST)
    rig.press(RIGHT)
    eq(rig.app.mode, 5, "the self-test")       # app.MODE_SELFTEST
    return rig.app.menu


def words(lang_code, key):
    return lang.text(lang_code, key)


def page(st):
    it = st.item()
    return it.kind if it is not None else -1


def keys_done(rig):
    for k in (LEFT, RIGHT, PAUSE):
        rig.press(k)
    rig.run(selftest.KEYS_DONE_MS + 50)


def title(rig, lang_code="en"):
    """Row 0 once it shows the page's title (on a 16x2 it takes turns with
    how to go on, every SHOW_MS)."""
    hint = words(lang_code, "ST_NEXT")
    rig.run(10)                                 # (a new page is drawn from the next step)
    run_until(rig, lambda: not rig.screen()[0].startswith(hint), selftest.SHOW_MS + 40)
    return rig.screen()[0]


def run_until(rig, cond, ms=20000):
    t = 0
    while not cond() and t < ms:
        rig.run(20)
        t += 20
    assert cond(), rig.screen()


# -- the version ------------------------------------------------------------------

def test_the_setup_menu_shows_the_apps_commit_and_the_interpreter():
    """Issue 37: "No way to see a running clock's version": the setup menu's
    version item shows the app's commit (appversion.LABEL: the build's,
    v1.0.0 without one) and the interpreter's release (sys.implementation:
    MicroPython on a clock, CPython in the simulator)."""
    rig = boot("version")
    to_item(rig, setupmenu.S_VERSION)
    top, bottom = rig.screen()
    eq(top.startswith("Version") and top.rstrip().endswith(appversion.LABEL), True, top)
    eq(bottom.strip(), appversion.RUNTIME, bottom)
    name = "MicroPy" if sys.implementation.name == "micropython" else "CPython"
    v = sys.implementation.version
    eq(bottom.strip().split()[:2], [name, "%d.%d.%d" % (v[0], v[1], v[2])], bottom)
    rig.press(LEFT)
    rig.press(RIGHT)                            # read only: the arrows change nothing
    eq(rig.app.menu.item, setupmenu.S_VERSION, "still the version")
    eq(rig.screen(), [top, bottom], "unchanged")


def test_the_runtime_fits_16_columns():
    class Impl:
        name = "micropython"
        version = (1, 29, 0, "preview")
    eq(appversion.runtime(Impl), "MicroPy 1.29.0", "the tag left out: 16 columns")
    Impl.name = "cpython"
    Impl.version = (3, 11, 7, "final", 0)
    eq(appversion.runtime(Impl), "CPython 3.11.7", "the simulator's")
    Impl.name = "a-very-long-interpreter-name"
    eq(len(appversion.runtime(Impl)), 16, "cut")


def test_every_game_log_header_names_the_firmware():
    """docs/build.md: every game log's header carries `# firmware 1.0.0
    <commit>` ("dev" where the app runs from the sources, as here)."""
    rig = boot("logline")
    rig.press(LEFT)
    rig.run(2000)
    f = open(rig.app.log.name)
    head = f.read().split("\n")
    f.close()
    want = "# firmware %s %s" % (appversion.VERSION, appversion.COMMIT or "dev")
    eq(want in head[:4], True, head)
    eq(appversion.LOG_LINE, want + "\n", "the one line")


@cpython_only
def test_a_log_without_the_firmware_line_replays_the_same():
    """Logs written before the line (no firmware line) replay as ever; the
    line is a comment to the replay (host_sim/replay.py)."""
    from host_sim import replay
    body = ["profile sdev  # game 3", "set base=25:00", "0 left  # L 25:00 R 25:00",
            "41250 right  # L 24:59 R 24:19", "61250 pause  # L 24:59 R 23:59"]
    old = replay.run(replay.parse(body))
    new = replay.run(replay.parse(body[:1] + [appversion.LOG_LINE.strip()] + body[1:]))
    eq(replay.report(*old), replay.report(*new), "the same game")


# -- the self-test ------------------------------------------------------------------

def test_the_self_test_item_starts_it_and_every_item_passes():
    """Issue 37: the keys, every display cell and glyph, the buzzer, the
    LEDs, the flash and the battery, each shown and judged; all pass: PASS
    on the LCD, "passed" on the setup menu's item, "pass" for the hall."""
    rig = boot("pass")
    to_item(rig, setupmenu.S_SELFTEST)
    eq(rig.screen()[1].split(), words("en", "V_ST_NONE").split() + [">"], "not run yet")
    st = start(rig)
    app = rig.app
    eq([i.code for i in st.items], ["keys", "hd44780", "buzzer", "leds", "flash", "battery"],
       "the sim board's items")
    # keys: each shown while down, "+" once up again; a tap of the pause key
    # alone neither leaves nor ends the page
    eq(rig.screen()[1][:13], "L _  R _  \u2016 _", rig.screen())
    rig.down(LEFT)
    rig.run(40)
    eq(rig.screen()[1][2], "\u2588", "left held: a block")
    rig.up(LEFT)
    rig.run(60)
    eq(rig.screen()[1][2], "+", "left seen")
    rig.press(PAUSE)
    eq((page(st), rig.screen()[1][12]), (selftest.K_KEYS, "+"), "the pause key seen")
    rig.press(RIGHT)
    rig.run(selftest.KEYS_DONE_MS + 50)
    eq(page(st), selftest.K_DISPLAY, "all three seen: the display page")
    # the display: every cell all dots, then the eight CGRAM glyphs
    lcd = rig.lcd
    eq(set("".join(rig.screen())), {"\u2588"}, "every cell lit")
    rig.run(selftest.PATTERN_MS)
    import hd44780
    eq("".join(rig.screen()), ("".join(hd44780.TEST_CHARS) * 4)[:16]
       + ("".join(hd44780.TEST_CHARS) * 4)[1:17], "the staircase")
    for code in range(8):
        eq(bytes(lcd.cgram_pattern(code)), hd44780.TEST_GLYPHS[code], "glyph %d" % code)
    rig.run(selftest.PATTERN_MS)
    eq(rig.screen()[1].strip(), words("en", "ST_ASK"), "then the question")
    rig.press(RIGHT)                            # yes
    eq(page(st), selftest.K_BEEP, "the buzzer")
    # the buzzer: it sounds (on PWM), the sound setting aside
    rig.run(50)
    eq(app.buzzer.last == selftest.TEST_BEEP and app.buzzer.pwm._duty > 0, True, "it sounds")
    rig.press(RIGHT)
    eq(page(st), selftest.K_LEDS, "the LEDs")
    lit = []
    for _ in range(8):
        rig.run(selftest.LED_MS // 2)
        lit.append(tuple(p.value() for p in app.leds.pins))
    eq(set(lit), {(1, 0), (0, 1)}, "left and right in turn")
    rig.press(RIGHT)
    eq(tuple(p.value() for p in app.leds.pins), (0, 0), "off after")
    eq(page(st), selftest.K_FLASH, "the flash")
    eq(title(rig).rstrip().endswith(words("en", "ST_PASS")), True, rig.screen())
    eq(words("en", "ST_FREE") in rig.screen()[1], True, rig.screen())
    import os
    eq(selftest.TEST_FILE in os.listdir(rig.app.root), False, "its file removed")
    rig.run(selftest.SHOW_MS + 20)
    eq(page(st), selftest.K_BATTERY, "the battery")
    eq(rig.screen()[1].split()[0], str(app.battery.mv), rig.screen())
    rig.run(selftest.SHOW_MS + 20)
    eq(page(st), -1, "the results")
    eq(rig.screen(), ["Self-test       ".replace("       ", "   PASS")[:16],
                      (words("en", "ST_EXIT") + " " * 16)[:16]], "the verdict")
    rig.run(selftest.SHOW_MS)
    eq(rig.screen(), ["KEY+ LCD+ SND+  ", "LED+ FLS+ BAT+  "], "each item")
    eq(app.tested.summary(), "pass", "for the hall")
    rig.press(PAUSE)                            # a tap does not leave
    eq(app.mode, 5, "still the self-test")
    hold(rig)
    eq(app.mode, 1, "back to the game")
    eq(rig.screen()[1].strip(), words("en", "READY_WHO"), "READY again")
    to_item(rig, setupmenu.S_SELFTEST)
    eq(rig.screen()[1].split(), words("en", "V_ST_PASS").split() + [">"], "passed")


def test_failures_are_named_and_holding_pause_moves_on():
    """A key never pressed, a "no" to the buzzer: FAIL, each named on the
    result page and in the hall's field; holding the pause key 2 s (no key
    tested alone can do it) goes on from any page."""
    rig = boot("fail", sound=False)
    st = start(rig)
    rig.press(LEFT)
    rig.press(PAUSE)                            # the right key never comes
    rig.run(selftest.KEYS_DONE_MS + 50)
    eq(page(st), selftest.K_KEYS, "the keys page waits for it")
    hold(rig)
    eq((page(st), st.items[0].state), (selftest.K_DISPLAY, selftest.FAIL), "keys failed")
    hold(rig)                   # the display not judged: failed
    eq(page(st), selftest.K_BEEP, "on")
    rig.run(100)
    eq(rig.app.buzzer.last, selftest.TEST_BEEP, "it sounds with the sound off")
    rig.press(LEFT)                             # no
    rig.press(RIGHT)                            # LEDs yes
    run_until(rig, lambda: page(rig.app.menu) == -1)
    eq(rig.app.tested.summary(), "fail keys hd44780 buzzer", "named")
    rig.run(selftest.SHOW_MS)
    eq(rig.screen(), ["KEYX LCDX SNDX  ", "LED+ FLS+ BAT+  "], "each item")
    hold(rig)
    to_item(rig, setupmenu.S_SELFTEST)
    eq(rig.screen()[1].split(), words("en", "V_ST_FAIL").split() + [">"], "failed")


def test_a_display_that_does_not_answer_fails_at_once():
    """The LCD's bus gives no ACK (unplugged) during its patterns: FAIL at
    once, and the clock goes on (display.py retries it)."""
    rig = boot("lcdgone")
    st = start(rig)
    keys_done(rig)
    eq(page(st), selftest.K_DISPLAY, "the display page")
    devs = rig.app.display.outs[0].fam.lcd.i2c.devices
    addr = rig.app.display.outs[0].fam.lcd.addr
    emu = devs.pop(addr)
    rig.run(selftest.PATTERN_MS + 20)
    eq((page(st), st.items[1].state), (selftest.K_BEEP, selftest.FAIL), "failed, on")
    devs[addr] = emu                            # plugged in again
    rig.run(3000)
    eq(rig.app.display.down, False, "back")
    eq(title(rig).startswith(words("en", "ST_I_BEEP")), True, rig.screen())


def test_the_digit_modules_light_every_segment():
    """boards/sim_tm1637.py: the TM1637 modules show every segment and the
    colon, then each segment alone, while the LCD asks; a module that stops
    answering fails the item."""
    rig = boot("tm", board="sim_tm1637")
    st = start(rig)
    keys_done(rig)
    rig.press(RIGHT)                            # the LCD: yes
    eq(page(st), selftest.K_DISPLAY, "the modules' page")
    eq(st.item().code, "tm1637", "the family's name")
    import tm1637
    tm = rig.emus["tm1637"]
    seen = set()
    for _ in range(8 * 4):
        rig.run(selftest.SEGMENT_MS // 2)
        seen.add((tm.mods[0].segments(), tm.mods[1].segments()))
    want = set([(bytes([tm1637.ALL_SEGS] * 4),) * 2]
               + [(bytes([1 << k] * 4),) * 2 for k in range(7)])
    eq(seen & want, want, "every segment, and each alone")
    eq(title(rig).startswith(words("en", "ST_I_DIG")), True, rig.screen())
    eq(rig.screen()[1].strip(), words("en", "ST_ASK"), "the LCD asks")
    tm.mods[1].disconnect()
    rig.run(selftest.SEGMENT_MS + 20)
    eq(st.items[2].state, selftest.FAIL, "no ACK: failed")


def test_a_low_battery_fails():
    rig = boot("lowbat")
    st = start(rig)
    keys_done(rig)
    for _ in range(3):                          # display, buzzer, LEDs: yes
        rig.press(RIGHT)
    rig.app.battery.adc.level_u16 = 1000        # about 100 mV at the pin
    run_until(rig, lambda: page(st) == selftest.K_BATTERY)
    eq(st.item().state, selftest.FAIL, "below BATTERY_LOW_MV")
    eq(title(rig).rstrip().endswith(words("en", "ST_FAIL")), True, rig.screen())


class _FS(fsys.OsFS):
    """The real filesystem, with what the flash reports changed."""

    def __init__(self, free=None, garble=False, broken=False):
        fsys.OsFS.__init__(self)
        self.free = free
        self.garble = garble
        self.broken = broken

    def statvfs(self, path):
        if self.free is None:
            return fsys.OsFS.statvfs(self, path)
        return (4096, 4096, 100, self.free // 4096, self.free // 4096, 0, 0, 0, 0, 255)

    def open(self, path, mode):
        if self.broken:
            raise OSError(5)
        f = fsys.OsFS.open(self, path, mode)
        return _Garbled(f) if self.garble and "r" in mode else f


class _Garbled:
    def __init__(self, f):
        self.f = f

    def read(self):
        b = bytearray(self.f.read())
        b[7] ^= 1                                  # one bit flipped
        return bytes(b)

    def close(self):
        self.f.close()


def test_the_flash_check_reads_back_and_counts_the_free_space():
    """A small file written, read back and removed (through fsys.py's
    filesystem); at least MIN_FREE bytes free.  A bit flipped on the way,
    too little room, or a filesystem that refuses: FAIL."""
    import os
    from device_scenarios import fresh_dir
    root = fresh_dir(tmp_path("selftest_flash"))
    kb, ok = selftest.check_flash(_FS(), root)
    eq(ok, True, "the real filesystem")
    eq(selftest.TEST_FILE in os.listdir(root), False, "removed")
    eq(selftest.check_flash(_FS(free=selftest.MIN_FREE), root)[1], True, "just enough")
    eq(selftest.check_flash(_FS(free=selftest.MIN_FREE - 4096), root),
       ((selftest.MIN_FREE - 4096) // 1024, False), "too little room")
    eq(selftest.check_flash(_FS(garble=True), root)[1], False, "read back wrong")
    eq(selftest.check_flash(_FS(broken=True), root)[1], False, "refused")
    eq(fsys.free_bytes(object(), root), -1, "a filesystem that cannot tell")


@parametrize("lang_code", lang.LANGS)
def test_the_self_test_speaks_the_clocks_language(lang_code):
    """Three languages (firmware/lang.py): the pages' words are the
    language's, each fitting its field (tests/test_lang.py)."""
    rig = boot("lang_" + lang_code, lang_code=lang_code)
    st = start(rig)
    eq(bytes(rig.lcd.row_codes(0)[:len(lang.word(lang_code, "ST_I_KEYS"))]),
       lang.word(lang_code, "ST_I_KEYS"), rig.screen())
    rig.run(selftest.SHOW_MS)
    eq(bytes(rig.lcd.row_codes(0)[:len(lang.word(lang_code, "ST_NEXT"))]),
       lang.word(lang_code, "ST_NEXT"), "how to go on, in turn")
    keys_done(rig)
    rig.run(2 * selftest.PATTERN_MS)
    eq(bytes(rig.lcd.row_codes(1)[:len(lang.word(lang_code, "ST_ASK"))]),
       lang.word(lang_code, "ST_ASK"), "the question")
    eq(st.items[0].state, selftest.PASS, "keys")


def test_the_20x4_shows_every_cell_and_every_result_at_once():
    rig = boot("big", board="sim_2004")
    st = start(rig)
    eq(rig.screen()[3].rstrip(), words("en", "ST_NEXT"), "the hint on row 3")
    keys_done(rig)
    eq(rig.screen(), ["\u2588" * 20] * 4, "all 80 cells")
    while page(st) != -1:
        rig.press(RIGHT)
        rig.run(selftest.SHOW_MS + 20)
    eq(rig.screen(), ["Self-test       PASS", "KEY+ LCD+ SND+ LED+ ", "FLS+ BAT+           ",
                      (words("en", "ST_EXIT") + " " * 20)[:20]], "at once")
    hold(rig)
    eq(rig.app.mode, 1, "READY")
    eq(rig.screen()[2].strip() != "", True, "the game screen drawn again: %r" % rig.screen())


def _state(rig):
    """The state message's JSON (hallmsg.py) of the rig's clock."""
    import hallmsg
    import json
    cfg = {"table": 7, "event": "cup", "user": "7"}
    m = hallmsg.Messages(cfg, rig.app.hall_source(), "c0ffee", rig.now)
    m.report(rig.now, True)
    pkt = m.packet()
    return json.loads(pkt[pkt.index(b"{"):].decode())


def test_the_hall_gets_the_result_in_one_field():
    """On a clock in the hall the result is the state message's one field
    `selftest` (source.py's selftest(), hallmsg.py): null before any
    self-test since power-up, then "pass" or "fail" and the items."""
    rig = boot("hall")
    eq(_state(rig)["selftest"], None, "none yet")
    st = start(rig)
    keys_done(rig)
    rig.press(RIGHT)
    rig.press(LEFT)                             # the buzzer: no
    rig.press(RIGHT)
    run_until(rig, lambda: page(st) == -1)
    d = _state(rig)
    eq(d["selftest"], "fail buzzer", "named")
    eq(d["clock"] == "c0ffee" and d["table"] == 7, True, "the rest as ever")
    import hallmsg
    eq("selftest" in hallmsg.Messages.fields(hallmsg.Messages(
        {"table": 7, "event": "cup"}, rig.app.hall_source(), "c0ffee", rig.now), rig.now),
       False, "not in the result (fields())")


# -- the loop's sleep (firmware/nap.py) ------------------------------------------------

def test_the_nap_polls_where_the_port_can():
    """nap.py: MicroPython polls the keys' edge count (select.poll over an
    io.IOBase, one wait for the whole sleep); CPython and an injected sleep
    take slices."""
    import machine
    import nap
    import buttons as btn
    import ticks
    machine.reset_world()
    Pin = machine.Pin
    b = btn.Buttons([Pin(n, Pin.IN, Pin.PULL_UP) for n in (14, 15, 13)],
                    ticks.ticks_ms, ticks.ticks_diff)
    try:
        import select
        from io import IOBase       # noqa: F401
        can = MICROPYTHON and hasattr(select, "poll")
    except ImportError:
        can = False
    eq(nap.Nap(b).polls, can, "polls on MicroPython")
    got = []
    n = nap.Nap(b, got.append)
    eq(n.polls, False, "an injected sleep: slices")
    n.sleep(500, b.edges())
    eq(got, [nap.SLICE_MS], "one slice")


@micropython_only
def test_the_nap_ends_at_a_key_edge_and_allocates_nothing():
    """Issue 37: the loop sleeps until the next change or a key's edge, in
    one wait: a press 50 ms into a sleep of 10 minutes ends it (a thread
    drives the fake pin: its IRQ handler counts the edge, as on the
    board), and the wait allocates nothing."""
    try:
        import _thread
    except ImportError:
        return      # (the qemu image has no threads: tests/test_target_nap.py on the Pico's)
    import time
    import machine
    import micropython
    import nap
    import buttons as btn
    import ticks
    machine.reset_world()
    Pin = machine.Pin
    b = btn.Buttons([Pin(n, Pin.IN, Pin.PULL_UP) for n in (14, 15, 13)],
                    ticks.ticks_ms, ticks.ticks_diff)
    n = nap.Nap(b)
    seen = b.edges()
    done = []

    def press():
        time.sleep_ms(50)
        machine.pin(14).drive(0)
        done.append(1)

    _thread.start_new_thread(press, ())
    t0 = time.ticks_ms()
    n.sleep(600000, seen)
    waited = time.ticks_diff(time.ticks_ms(), t0)
    eq(b.edges() != seen, True, "the edge came")
    eq(waited < 600000, True, "the sleep ended at it, not at its end")
    while not done:
        time.sleep_ms(1)
    seen = b.edges()
    n.sleep(1, seen)
    i = 0
    m = micropython.mem_total()
    while i < 50:
        n.sleep(1, seen)
        i += 1
    eq(micropython.mem_total() - m, 0, "bytes allocated by 50 sleeps")
