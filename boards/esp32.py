# ESP32-DevKitC (ESP32-WROOM-32), 16x2 LCD.
# Copied onto the board as board.py by `make deploy BOARD=esp32`.
# Pin numbers are GPIO numbers (IOn on the silkscreen); boards/README.md
# explains every choice, docs/wiring/esp32.svg shows the wiring.
NAME = "ESP32-DevKitC (ESP32-WROOM-32)"

# Momentary switches to GND, internal pull-ups: IO25/IO26/IO27, next to each
# other on the left header (J2 pins 9-11, GND at J2 pin 14).  Not 34-39 (no
# pull-ups), not the strapping pins 0/2/5/12/15, not the flash pins 6-11.
BTN_LEFT = 25
BTN_RIGHT = 26
BTN_PAUSE = 27

# The ESP32's customary I2C pins: IO21 (SDA, J3-6) / IO22 (SCL, J3-3).
I2C_ID = 0
I2C_SDA = 21
I2C_SCL = 22
I2C_FREQ = 100000

LCD_ADDR = 0x27  # 0x3F on some backpacks (the app also scans for either)
LCD_COLS = 16
LCD_ROWS = 2
DISPLAY = "hd44780"  # the display families (docs/display.md): this LCD

BUZZER = 23  # piezo, driven by PWM (J3-2, GND at J3-1); None if not fitted
LED_LEFT = 18  # via 330 ohm to GND (J3-9, GND at J3-7); None if not fitted
LED_RIGHT = 19  # (J3-8)

# Battery (4 x AA NiMH on the 5V pin) through a 200k/100k divider into
# IO34 = ADC1 channel 6 (J2-5): ADC1, because ADC2 is unusable while Wi-Fi is on.
BATTERY_ADC = 34
BATTERY_DIVIDER = (3, 1)  # V_bat = V_pin * 3 / 1
BATTERY_LOW_MV = 4400  # 1.1 V per NiMH cell; the 3.3 V regulator needs headroom

# Wi-Fi: the app starts firmware/net.py when net.json is on the board.
WIFI = True

# Platform facts (firmware/hw.py; the defaults of a board file that leaves
# one out: firmware/boardfacts.py).  ESP32 pin interrupts are soft; the
# battery pin reads 0-2450 mV linearly at 11 dB attenuation.
MCU = "esp32"
HARD_IRQ = False
ADC_ATTN = "ATTN_11DB"
WDT_MS = 8000  # the watchdog's timeout
# The running-clock journal's raw flash: the data partition the filesystem
# is mounted on, labelled "vfs" in MicroPython's partition table.
RAW_FLASH = "esp32:vfs"
# The TLS handshake (firmware/tlsjob.py) on its own thread, with this stack
# (not measured on an ESP32: its port keeps a GIL, so the public-key steps
# may hold the loop there as they do without a thread).
TLS_THREAD_STACK = 16384
