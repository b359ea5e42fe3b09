# The hardware: board data (board.py) -> the device objects the app drives.
#
# The one place that calls the `machine` module's constructors and builds
# the platform's devices.  The board file says what is wired where and what
# the platform is (boards/README.md; the defaults: boardfacts.py):
#   HARD_IRQ  pin interrupts are hard (rp2: the edge is stamped the moment it
#             happens, even in the middle of an I2C transfer) or soft (ESP32:
#             run between bytecodes, so a press landing during an LCD write
#             is stamped when that write returns; docs/architecture.md);
#   ADC_ATTN  the name of the machine.ADC attenuation constant the battery
#             pin needs (ESP32 "ATTN_11DB": the 0-2450 mV linear range), or
#             None on a port without attenuation (RP2040);
#   WDT_MS    the hardware watchdog's timeout (rp2: at most 8388 ms);
#   RAW_FLASH the block device under the filesystem, for the running-clock
#             journal: "rp2" (rp2.Flash()), "esp32:<label>" (the data
#             partition with that label), None (no journal).
# Nothing here looks at sys.platform or at the board's NAME.
#
# Everything is built once at power-up; the drivers (buttons.py, lcd.py,
# outputs.py) only call what they are handed.
import boardfacts
import buttons as btn
import fsys
import lcd as lcdmod
import outputs

fact = boardfacts.fact    # (the app reads WIFI and TLS_THREAD_STACK here)

LCD_ADDRS = (0x27, 0x3F)   # PCF8574T, PCF8574AT: the backpacks in the trade


def buttons(board, machine, ticks_ms, diff):
    """The three keys (switches to GND, internal pull-ups) as btn.Buttons."""
    Pin = machine.Pin
    pins = (Pin(board.BTN_LEFT, Pin.IN, Pin.PULL_UP),
            Pin(board.BTN_RIGHT, Pin.IN, Pin.PULL_UP),
            Pin(board.BTN_PAUSE, Pin.IN, Pin.PULL_UP))
    return btn.Buttons(pins, ticks_ms, diff, hard=boardfacts.fact(board, "HARD_IRQ"))


def lcd_addr(i2c, addr):
    """The board's LCD address if a device answers there, else whichever
    known backpack address answers, else the board's (the app then retries)."""
    found = i2c.scan()
    if addr not in found:
        for a in LCD_ADDRS:
            if a in found:
                return a
    return addr


def display(board, machine):
    """The LCD driver on the board's I2C bus (not yet initialised: the app
    calls reinit(), so a dead bus is the app's retry, not a crash here)."""
    Pin = machine.Pin
    i2c = machine.I2C(board.I2C_ID, scl=Pin(board.I2C_SCL),
                      sda=Pin(board.I2C_SDA), freq=board.I2C_FREQ)
    return lcdmod.Lcd(i2c, lcd_addr(i2c, board.LCD_ADDR), board.LCD_COLS,
                      board.LCD_ROWS, init=False)


def buzzer(board, machine, diff, add, enabled=True):
    """The piezo on PWM (silent at start), or a Buzzer without one."""
    pwm = None
    if board.BUZZER is not None:
        pwm = machine.PWM(machine.Pin(board.BUZZER), freq=2000, duty_u16=0)
    return outputs.Buzzer(pwm, diff, add, enabled)


def leds(board, machine):
    """The side LEDs (outputs, off at start); None where not fitted."""
    Pin = machine.Pin
    pins = [None, None]
    for i in range(2):
        n = board.LED_RIGHT if i else board.LED_LEFT
        if n is not None:
            pins[i] = Pin(n, Pin.OUT, value=0)
    return outputs.Leds(pins[0], pins[1])


def battery(board, machine, diff, add):
    """The battery monitor on the board's ADC pin (with the attenuation the
    board names), or one that reads nothing when no divider is fitted."""
    adc = None
    if board.BATTERY_ADC is not None:
        adc = machine.ADC(machine.Pin(board.BATTERY_ADC))
        attn = boardfacts.fact(board, "ADC_ATTN")
        if attn is not None:
            adc.atten(getattr(machine.ADC, attn))
    return outputs.Battery(adc, board.BATTERY_DIVIDER, board.BATTERY_LOW_MV,
                           diff, add)


def watchdog(board, machine):
    """The hardware watchdog started with the board's WDT_MS, as its feed
    function; None without one (WDT_MS 0, or a port without machine.WDT)."""
    ms = boardfacts.fact(board, "WDT_MS")
    if not ms or not hasattr(machine, "WDT"):
        return None
    return machine.WDT(timeout=ms).feed


def table_block(board, raw):
    """The table block a table's image wrote below the filesystem
    (provision.py), as provision.payload_of() gives it, or None: not an
    RP2040 clock with Wi-Fi on its own flash (`raw`, the filesystem's raw
    flash, raw_flash(): None off the chip, the fakes, the unix port), no
    block there, or a damaged one.  Read in place from the memory-mapped
    flash (XIP)."""
    if raw is None or boardfacts.fact(board, "RAW_FLASH") != "rp2" \
            or not boardfacts.fact(board, "WIFI"):
        return None
    try:
        import uctypes
        import provision
    except ImportError:
        return None
    view = uctypes.bytearray_at(provision.XIP_BASE + provision.BLOCK_OFFSET,
                                provision.BLOCK_BYTES)
    return provision.payload_of(view[:provision.HEAD], lambda at, n: view[at:at + n])


def filesystem(board):
    """The board's filesystem (fsys.OsFS) with the raw flash under it."""
    return fsys.OsFS(raw_flash(board))


def raw_flash(board):
    """The raw block device the board's RAW_FLASH names (the journal's,
    journal.py), or None: none named, or the port has none after all."""
    kind = boardfacts.fact(board, "RAW_FLASH")
    try:
        if kind == "rp2":
            import rp2
            return rp2.Flash()
        if kind is not None and kind.startswith("esp32:"):
            import esp32
            p = esp32.Partition.find(esp32.Partition.TYPE_DATA, label=kind[6:])
            return p[0] if p else None
    except (ImportError, AttributeError, OSError):
        pass
    return None
