# The host simulator's board (host_sim with the fake `machine` module).
# Same names as a real board; the pin ids only have to be distinct, so it
# reuses the Pico's numbers.  Everything optional is fitted, so the simulator
# exercises the buzzer, the LEDs and the battery warning too.
NAME = "Host simulator (fake machine)"

BTN_LEFT = 14
BTN_RIGHT = 15
BTN_PAUSE = 13

I2C_ID = 0
I2C_SDA = 4
I2C_SCL = 5
I2C_FREQ = 100000

LCD_ADDR = 0x27
LCD_COLS = 16
LCD_ROWS = 2

BUZZER = 16
LED_LEFT = 17
LED_RIGHT = 18

BATTERY_ADC = 28
BATTERY_DIVIDER = (2, 1)
BATTERY_LOW_MV = 3400

# Platform facts (firmware/hw.py): no MCU (the fake machine: pin ids only);
# its pin interrupts run at once, like the RP2040's hard ones.
MCU = None
HARD_IRQ = True
ADC_ATTN = None
