"""firmware/hw.py: board data -> the device objects, on the fake machine
(host_sim/fakehw/machine.py).  What each object must be comes from the board
file's names (boards/README.md) and the datasheet facts they encode: keys are
inputs with pull-ups to a switch to GND, the LEDs are outputs that start off,
the LCD is found at the board's address or the other PCF8574 address (SPEC v2
§4 hardware; issue 13: platform facts come from the board, not sys.platform)."""
import errno

import pytest

import machine
import hw
import outputs
from hd44780_emu import Hd44780Pcf8574
from host_sim import boards

ALL = boards.names()
DIFF = lambda a, b: a - b  # noqa: E731  (plain ints: nothing wraps here)
ADD = lambda a, b: a + b  # noqa: E731


@pytest.fixture(autouse=True)
def fresh_world():
    machine.reset_world()
    yield
    machine.reset_world()


def board_with(name, **changes):
    b = boards.load(name)
    for k, v in changes.items():
        setattr(b, k, v)
    return b


@pytest.mark.parametrize("name", ALL)
def test_keys_are_pulled_up_inputs_on_the_boards_pins(name):
    b = boards.load(name)
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


@pytest.mark.parametrize("name, hard", [("pico", True), ("esp32", False)])
def test_hard_irq_comes_from_the_board_not_the_platform(name, hard):
    b = boards.load(name)
    hw.buttons(b, machine, lambda: 0, DIFF)
    assert machine.pin(b.BTN_PAUSE).hard is hard
    b2 = board_with(name, HARD_IRQ=not hard)
    machine.reset_world()
    hw.buttons(b2, machine, lambda: 0, DIFF)
    assert machine.pin(b2.BTN_PAUSE).hard is (not hard)


def attach_lcd(b, addr):
    emu = Hd44780Pcf8574(b.LCD_COLS, b.LCD_ROWS)
    machine.I2C(b.I2C_ID).attach(addr, emu)
    return emu


@pytest.mark.parametrize("name", ALL)
def test_display_on_the_boards_bus_and_address(name):
    b = boards.load(name)
    emu = attach_lcd(b, b.LCD_ADDR)
    lcd = hw.display(b, machine)
    assert lcd.addr == b.LCD_ADDR
    assert (lcd.i2c.id, lcd.i2c.sda.id, lcd.i2c.scl.id, lcd.i2c.freq) == \
        (b.I2C_ID, b.I2C_SDA, b.I2C_SCL, b.I2C_FREQ)
    lcd.reinit()
    lcd.show(0, bytearray(b"HELLO".ljust(b.LCD_COLS)))
    assert emu.text_rows()[0].startswith("HELLO")
    assert len(emu.text_rows()) == b.LCD_ROWS


@pytest.mark.parametrize("found, expected", [
    ((0x3F,), 0x3F),          # a PCF8574AT backpack where the board says 0x27
    ((0x27,), 0x27),
    ((0x27, 0x3F), 0x27),     # the board's own address wins
    ((), 0x27),               # nothing answers: the board's (the app retries)
    ((0x20,), 0x27),          # something else on the bus is not an LCD
])
def test_lcd_address_fallback(found, expected):
    b = boards.load("pico")
    for a in found:
        attach_lcd(b, a)
    assert hw.display(b, machine).addr == expected


def test_dead_bus_is_not_a_crash_here():
    b = boards.load("pico")
    lcd = hw.display(b, machine)        # nothing attached
    with pytest.raises(OSError) as e:
        lcd.reinit()                    # the app's _lcd_start catches this
    assert e.value.args[0] == errno.ENODEV


@pytest.mark.parametrize("name", ALL)
def test_buzzer_pwm_silent_on_the_boards_pin(name):
    b = boards.load(name)
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


@pytest.mark.parametrize("name", ALL)
def test_leds_are_outputs_that_start_off(name):
    b = boards.load(name)
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


@pytest.mark.parametrize("name", ALL)
def test_battery_adc_and_attenuation_from_the_board(name):
    b = boards.load(name)
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
    bat = hw.battery(boards.load("esp32"), machine, DIFF, ADD)
    assert bat.adc.attenuation == machine.ADC.ATTN_11DB


def test_battery_reading_through_the_divider():
    b = boards.load("pico")                         # 100k/100k: x2
    bat = hw.battery(b, machine, DIFF, ADD)
    bat.adc.level_u16 = 65535 * 1600 // 3300        # 1.6 V at the pin
    bat.update(0)
    assert 3190 <= bat.mv <= 3200 and bat.low       # 3.2 V < BATTERY_LOW_MV
