"""firmware/hw.py: board data -> the device objects, on the fake machine
(host_sim/fakehw/machine.py).  What each object must be comes from the board
file's names (boards/README.md) and the datasheet facts they encode: keys are
inputs with pull-ups to a switch to GND, the LEDs are outputs that start off,
the LCD is found at the board's address or the other PCF8574 address (SPEC v2
§4 hardware; issue 13: platform facts come from the board, not sys.platform).

The last part tests the outputs themselves (firmware/outputs.py: the beep
patterns, the side LEDs, the battery warning) on the boards' wrapping ticks,
and, under MicroPython, that their loop calls allocate nothing.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, and
tests/test_target_qemu.py on the 32-bit image (the fake machine runs there
too)."""
import errno

import machine
import hw
import outputs
import ticks
from hd44780_emu import Hd44780Pcf8574
from mptest import MICROPYTHON, cpython_only, heap_bytes, micropython_only, parametrize, raises

# Every board file (boards/*.py).  MicroPython cannot list boards/ on the
# qemu image, so it takes the typed list; test_the_board_list_is_every_board_file
# keeps that equal to boards/ (CPython lists the folder: a new board file is
# tested at once, tests/test_recipes.py).
BOARDS_TYPED = ["esp32", "pico", "pico_2004", "pico_tm1637", "pico_w", "sim", "sim_2004",
                "sim_tm1637"]
if MICROPYTHON:
    ALL = BOARDS_TYPED
else:
    from host_sim import boards as _boards
    ALL = _boards.names()
DIFF = lambda a, b: a - b  # noqa: E731  (plain ints: nothing wraps here)
ADD = lambda a, b: a + b  # noqa: E731


class _Board:
    """A board's names, copied (a test may change them; MicroPython's
    imported board modules are shared)."""


def load_board(name):
    """boards/<name>.py as the app gets it, fresh: the one board loader on
    CPython (host_sim.boards), the module (boards/ on MICROPYPATH) copied
    under MicroPython."""
    if not MICROPYTHON:
        from host_sim import boards
        return boards.load(name)
    mod = __import__(name)
    b = _Board()
    for k in dir(mod):
        if not k.startswith("_"):
            setattr(b, k, getattr(mod, k))
    return b


def board_with(name, **changes):
    machine.reset_world()
    b = load_board(name)
    for k, v in changes.items():
        setattr(b, k, v)
    return b


def fresh(name):
    """The board, on a fresh fake machine (no pin or bus from a test before)."""
    return board_with(name)


@cpython_only
def test_the_board_list_is_every_board_file():
    assert BOARDS_TYPED == _boards.names()


@parametrize("name", ALL)
def test_keys_are_pulled_up_inputs_on_the_boards_pins(name):
    b = fresh(name)
    keys = hw.buttons(b, machine, lambda: 0, DIFF)
    for n in (b.BTN_LEFT, b.BTN_RIGHT, b.BTN_PAUSE):
        p = machine.pin(n)
        assert p.mode == machine.Pin.IN and p.pull == machine.Pin.PULL_UP
        assert p.value() == 1                       # released: pulled up
        assert p.hard is b.HARD_IRQ                 # the board decides
    # each pin is its key: a switch closing on BTN_RIGHT is a press of key 1
    machine.pin(b.BTN_RIGHT).drive(0)
    keys.poll(1000)
    assert keys.get() >= 0 and (keys.i, keys.kind) == (1, 1)


@parametrize("name, hard", [("pico", True), ("esp32", False)])
def test_hard_irq_comes_from_the_board_not_the_platform(name, hard):
    b = fresh(name)
    hw.buttons(b, machine, lambda: 0, DIFF)
    assert machine.pin(b.BTN_PAUSE).hard is hard
    b2 = board_with(name, HARD_IRQ=not hard)
    hw.buttons(b2, machine, lambda: 0, DIFF)
    assert machine.pin(b2.BTN_PAUSE).hard is (not hard)


def attach_lcd(b, addr):
    emu = Hd44780Pcf8574(b.LCD_COLS, b.LCD_ROWS)
    machine.I2C(b.I2C_ID).attach(addr, emu)
    return emu


@parametrize("name", ALL)
def test_display_on_the_boards_bus_and_address(name):
    b = fresh(name)
    emu = attach_lcd(b, b.LCD_ADDR)
    lcd = hw.display(b, machine)
    assert lcd.addr == b.LCD_ADDR
    assert (lcd.i2c.id, lcd.i2c.sda.id, lcd.i2c.scl.id, lcd.i2c.freq) == \
        (b.I2C_ID, b.I2C_SDA, b.I2C_SCL, b.I2C_FREQ)
    lcd.reinit()
    lcd.show(0, bytearray(b"HELLO" + b" " * (b.LCD_COLS - 5)))
    assert emu.text_rows()[0].startswith("HELLO")
    assert len(emu.text_rows()) == b.LCD_ROWS


@parametrize("found, expected", [
    ((0x3F,), 0x3F),          # a PCF8574AT backpack where the board says 0x27
    ((0x27,), 0x27),
    ((0x27, 0x3F), 0x27),     # the board's own address wins
    ((), 0x27),               # nothing answers: the board's (the app retries)
    ((0x20,), 0x27),          # something else on the bus is not an LCD
])
def test_lcd_address_fallback(found, expected):
    b = fresh("pico")
    for a in found:
        attach_lcd(b, a)
    assert hw.display(b, machine).addr == expected


def test_dead_bus_is_not_a_crash_here():
    b = fresh("pico")
    lcd = hw.display(b, machine)        # nothing attached
    e = raises(OSError, lcd.reinit)     # the LCD keeper (display.py) catches this
    assert e.args[0] == errno.ENODEV


@parametrize("name", ALL)
def test_buzzer_pwm_silent_on_the_boards_pin(name):
    b = fresh(name)
    bz = hw.buzzer(b, machine, DIFF, ADD)
    if b.BUZZER is None:
        assert bz.pwm is None
        return
    assert bz.pwm.pin.id == b.BUZZER and bz.pwm.duty_u16() == 0
    bz.beep(outputs.BEEP_WINDOW, 0)
    assert bz.pwm.duty_u16() > 0
    bz.update(1000)
    assert bz.pwm.duty_u16() == 0


def test_missing_parts_give_drivers_without_hardware():
    b = board_with("pico", BUZZER=None, LED_LEFT=None, LED_RIGHT=None, BATTERY_ADC=None)
    bz = hw.buzzer(b, machine, DIFF, ADD)
    assert bz.pwm is None
    bz.beep(outputs.BEEP_FLAG, 0)       # counts, sounds nothing, no error
    assert bz.beeps == 1
    leds = hw.leds(b, machine)
    assert leds.pins == (None, None)
    leds.show(0)
    bat = hw.battery(b, machine, DIFF, ADD)
    assert bat.adc is None
    bat.update(0)
    assert bat.mv == 0 and not bat.low
    assert machine._pins == {}          # no pin claimed for what is not fitted


@parametrize("name", ALL)
def test_leds_are_outputs_that_start_off(name):
    b = fresh(name)
    leds = hw.leds(b, machine)
    fitted = [(s, machine.pin(n)) for s, n in ((0, b.LED_LEFT), (1, b.LED_RIGHT))
              if n is not None]
    assert [leds.pins[s] for s, _ in fitted] == [p for _, p in fitted]
    for s, p in fitted:
        assert p.mode == machine.Pin.OUT and p.value() == 0
    for running in (0, 1):               # the LED of the side whose clock runs
        leds.show(running)
        for s, p in fitted:
            assert p.value() == (1 if s == running else 0), (running, s)


@parametrize("name", ALL)
def test_battery_adc_and_attenuation_from_the_board(name):
    b = fresh(name)
    bat = hw.battery(b, machine, DIFF, ADD)
    if b.BATTERY_ADC is None:
        assert bat.adc is None
        return
    assert bat.adc.pin.id == b.BATTERY_ADC
    if b.ADC_ATTN is None:
        assert bat.adc.attenuation is None          # RP2040: nothing to set
    else:
        assert bat.adc.attenuation == getattr(machine.ADC, b.ADC_ATTN)
    assert (bat.num, bat.den) == b.BATTERY_DIVIDER and bat.low_mv == b.BATTERY_LOW_MV


def test_esp32_battery_uses_11_db():
    """boards/README.md: IO34 at 11 dB attenuation, linear 150-2450 mV."""
    bat = hw.battery(fresh("esp32"), machine, DIFF, ADD)
    assert bat.adc.attenuation == machine.ADC.ATTN_11DB


def test_battery_reading_through_the_divider():
    b = fresh("pico")                               # 100k/100k: x2
    bat = hw.battery(b, machine, DIFF, ADD)
    bat.adc.level_u16 = 65535 * 1600 // 3300        # 1.6 V at the pin
    bat.update(0)
    assert 3190 <= bat.mv <= 3200 and bat.low       # 3.2 V < BATTERY_LOW_MV


# -- the outputs themselves (firmware/outputs.py), on the fake machine ---------------
# On the boards' tick counter, which wraps at 2**30: every pattern below
# starts 100 ms before the wrap.

WDIFF, WADD = ticks.wrapping(1 << 30)
NEAR_WRAP = (1 << 30) - 100


def tones(bz, start, ms):
    """The buzzer run 1 ms at a time for `ms`: [(on at, off at)] in ms from
    `start` (PWM duty up / back to 0), and whether it still plays."""
    out = []
    on = None
    for k in range(ms + 1):
        bz.update(WADD(start, k))
        sounding = bz.pwm.duty_u16() > 0
        if sounding and on is None:
            on = k
        elif not sounding and on is not None:
            out.append((on, k))
            on = None
    return out, bz.active()


def test_the_flag_is_three_quick_beeps_and_then_silence():
    """outputs.py: BEEP_FLAG is three quick beeps (00:00 reached), played by
    update() without blocking, across the tick wrap; the window's is one
    short beep, the forfeit's one long tone (below a second)."""
    b = fresh("pico")
    bz = hw.buzzer(b, machine, WDIFF, WADD)
    bz.beep(outputs.BEEP_FLAG, NEAR_WRAP)
    got, playing = tones(bz, NEAR_WRAP, 2000)
    assert len(got) == 3 and not playing, got
    assert got[0][0] == 0                                   # at the call, not later
    assert all(0 < off - on <= 150 for on, off in got), got  # quick
    assert all(got[i][1] < got[i + 1][0] for i in range(2)), got   # gaps between
    bz.beep(outputs.BEEP_WINDOW, NEAR_WRAP)
    got, _ = tones(bz, NEAR_WRAP, 2000)
    assert len(got) == 1 and got[0][1] <= 150, got
    bz.beep(outputs.BEEP_FORFEIT, NEAR_WRAP)
    got, _ = tones(bz, NEAR_WRAP, 2000)
    assert len(got) == 1 and 500 <= got[0][1] < 1000, got


def test_a_new_beep_replaces_the_one_playing_and_a_muted_buzzer_is_silent():
    b = fresh("pico")
    bz = hw.buzzer(b, machine, WDIFF, WADD)
    bz.beep(outputs.BEEP_FLAG, NEAR_WRAP)
    bz.update(WADD(NEAR_WRAP, 40))
    bz.beep(outputs.BEEP_WINDOW, WADD(NEAR_WRAP, 40))        # the flag's first tone cut
    got, playing = tones(bz, WADD(NEAR_WRAP, 40), 2000)
    assert len(got) == 1 and not playing and bz.last == outputs.BEEP_WINDOW, got
    muted = hw.buzzer(b, machine, WDIFF, WADD, enabled=False)
    muted.beep(outputs.BEEP_FLAG, NEAR_WRAP)
    assert muted.beeps == 0 and not muted.active() and muted.pwm.duty_u16() == 0


def test_leds_follow_the_running_side_and_write_only_on_a_change():
    b = fresh("pico")
    leds = hw.leds(b, machine)
    left, right = machine.pin(b.LED_LEFT), machine.pin(b.LED_RIGHT)
    for side, want in ((0, (1, 0)), (1, (0, 1)), (-1, (0, 0)), (0, (1, 0))):
        leds.show(side)
        assert (left.value(), right.value()) == want, side
    left.value(0)                     # written behind its back: show() does not look
    leds.show(0)
    assert left.value() == 0


class _UvAdc:
    """An ADC with read_uv() (the ESP32 port's calibrated reading)."""

    def __init__(self, uv):
        self.uv = uv

    def read_uv(self):
        return self.uv

    def read_u16(self):
        raise AssertionError("read_u16() used where read_uv() exists")


def test_battery_warning_has_100_mv_of_hysteresis_and_reads_every_10_s():
    """outputs.Battery: low below low_mv, clear again only 100 mV above it;
    one reading every every_ms (10 s), across the tick wrap."""
    bat = outputs.Battery(_UvAdc(0), (2, 1), 3400, WDIFF, WADD)
    t = NEAR_WRAP
    # (pin µV, battery mV, low) by hand: the divider doubles the pin's voltage
    for uv, mv, low in ((1750000, 3500, False), (1690000, 3380, True),
                        (1720000, 3440, True), (1750000, 3500, True),
                        (1751000, 3502, False), (1705000, 3410, False),
                        (1699000, 3398, True)):
        bat.adc.uv = uv
        bat.update(t)
        assert (bat.mv, bat.low) == (mv, low), uv
        bat.adc.uv = 0                  # read again before 10 s: not read
        bat.update(WADD(t, 9999))
        assert bat.mv == mv
        t = WADD(t, 10000)


class _QuietPwm:
    """machine.PWM's two calls, remembering only the last values (the fake
    machine's PWM records each change in a list: that would be its own
    allocation, not the buzzer's)."""

    def __init__(self):
        self.f = self.d = 0

    def freq(self, f):
        self.f = f

    def duty_u16(self, d):
        self.d = d


@micropython_only
def test_the_outputs_allocate_nothing_in_the_loop():
    """outputs.py: update()/show() run every loop iteration and allocate
    nothing (SPEC: no heap allocation in the steady-state main loop), while
    a pattern plays and the battery is read, across the tick wrap."""
    b = fresh("pico")
    bz = outputs.Buzzer(_QuietPwm(), WDIFF, WADD)   # the fake PWM keeps a history
    leds = hw.leds(b, machine)
    bat = hw.battery(b, machine, WDIFF, WADD)
    bat.every = 1                       # a reading at every call
    now = [NEAR_WRAP]

    def loop():
        now[0] = WADD(now[0], 7)
        if not bz.active():
            bz.beep(outputs.BEEP_FLAG, now[0])
        bz.update(now[0])
        leds.show((now[0] >> 9) & 1)
        bat.update(now[0])

    assert heap_bytes(loop) == 0
