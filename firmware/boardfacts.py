# The board file's names (boards/README.md): which ones every board file
# must name, and the one default of each platform fact a board file may
# leave out.  Every fact about the platform (the MCU, its pin interrupts,
# its ADC, its watchdog, its raw flash, the thread the TLS handshake runs
# on) is read through fact(); nothing in firmware/ imports rp2 or esp32, or
# looks at sys.platform, to learn one.

REQUIRED = ("NAME", "BTN_LEFT", "BTN_RIGHT", "BTN_PAUSE", "I2C_ID", "I2C_SDA",
            "I2C_SCL", "I2C_FREQ", "LCD_ADDR", "LCD_COLS", "LCD_ROWS", "BUZZER",
            "LED_LEFT", "LED_RIGHT", "BATTERY_ADC", "BATTERY_DIVIDER",
            "BATTERY_LOW_MV")

# name: the value for a board file that does not name it.  The defaults are
# the safe ones on any port: soft pin interrupts, no ADC attenuation, no raw
# flash (no running-clock journal: every write goes to the files), no Wi-Fi.
DEFAULTS = {
    "MCU": None,                # "rp2040", "esp32"; None: the fake machine
    "HARD_IRQ": False,          # pin interrupts are hard (rp2) or soft
    "ADC_ATTN": None,           # the battery ADC's attenuation constant's name
    "WDT_MS": 8000,             # the watchdog's timeout; 0: no watchdog
    "RAW_FLASH": None,          # "rp2": rp2.Flash(); "esp32:<label>": a partition
    "TLS_THREAD_STACK": 16384,  # the TLS handshake thread's stack; 0: in the loop
    "WIFI": False,              # joins the tournament hall with a net.json
    "DISPLAY": "hd44780",       # the display families (display.py), a str or a tuple
}


def fact(board, name):
    """The board's value of a platform fact, or its default."""
    return getattr(board, name, DEFAULTS[name])


def check(board):
    """None, or one line naming the first name the board file lacks."""
    for name in REQUIRED:
        if not hasattr(board, name):
            return ("board.py: %s is missing (boards/README.md lists every name); "
                    "the clock cannot start" % name)
    for name in ("WDT_MS", "TLS_THREAD_STACK"):
        v = fact(board, name)
        if not isinstance(v, int) or v < 0:
            return "board.py: %s must be a whole number >= 0, not %r" % (name, v)
    return None
