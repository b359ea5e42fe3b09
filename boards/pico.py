# Raspberry Pi Pico / Pico W (RP2040): the reference build, 16x2 LCD.
# Copied onto the board as board.py by `make deploy BOARD=pico`.
# Pin numbers are GPIO numbers (GPn on the silkscreen); boards/README.md
# explains every choice, docs/wiring/pico.svg shows the wiring.
NAME = "Raspberry Pi Pico / Pico W (RP2040)"

# Momentary switches to GND, internal pull-ups (physical pins 17, 19, 20;
# pin 18 between them is a GND).
BTN_LEFT = 14
BTN_RIGHT = 15
BTN_PAUSE = 13

# I2C0 on GP4 (SDA, pin 6) / GP5 (SCL, pin 7).
I2C_ID = 0
I2C_SDA = 4
I2C_SCL = 5
I2C_FREQ = 100000

LCD_ADDR = 0x27  # 0x3F on some backpacks (the app also scans for either)
LCD_COLS = 16
LCD_ROWS = 2
DISPLAY = "hd44780"  # the display families (docs/display.md): this LCD

BUZZER = 16  # piezo, driven by PWM (pin 21); None if not fitted
LED_LEFT = 17  # via 330 ohm to GND (pin 22); None if not fitted
LED_RIGHT = 18  # (pin 24)

# Battery through a 100k/100k divider into ADC2 (GP28, pin 34).
BATTERY_ADC = 28
BATTERY_DIVIDER = (2, 1)  # V_bat = V_pin * 2 / 1
BATTERY_LOW_MV = 3400

# Platform facts (firmware/hw.py; the defaults of a board file that leaves
# one out: firmware/boardfacts.py).  RP2040 pin interrupts are hard; its ADC
# has no attenuation setting.
MCU = "rp2040"
HARD_IRQ = True
ADC_ATTN = None
WDT_MS = 8000  # the watchdog's timeout: rp2 allows at most 8388 ms
# The running-clock journal's raw flash: rp2.Flash(), the block device the
# filesystem is mounted on (firmware/journal.py).
RAW_FLASH = "rp2"
# The TLS handshake (firmware/tlsjob.py) runs on the second core, with this
# stack (taken from the heap); 0 would run it in the main loop's steps.
TLS_THREAD_STACK = 16384
