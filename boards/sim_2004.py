# The host simulator's board with a 20x4 LCD (`python -m host_sim sim
# --board sim_2004`): identical to sim.py except for the display geometry.
NAME = "Host simulator (fake machine), 20x4 LCD"

BTN_LEFT = 14
BTN_RIGHT = 15
BTN_PAUSE = 13

I2C_ID = 0
I2C_SDA = 4
I2C_SCL = 5
I2C_FREQ = 100000

LCD_ADDR = 0x27
LCD_COLS = 20
LCD_ROWS = 4

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
