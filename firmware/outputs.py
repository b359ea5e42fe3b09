# The clock's optional outputs: piezo buzzer, two side LEDs, battery monitor.
#
# Each takes an initialised machine object (PWM, Pin, ADC) or None when the
# board has none fitted, and only calls it.  update()/show() run every loop
# iteration and allocate nothing: tone patterns are preallocated tuples and
# state is ints.

# Tone patterns: (frequency Hz, on ms, off ms) repeated `count` times.
BEEP_WINDOW = 0   # challenge window closed: one short beep
BEEP_FLAG = 1     # 00:00 reached: three quick beeps
BEEP_FORFEIT = 2  # forfeit / game over by time: one long low tone
BEEP_KEY = 3      # menu key click
_PATTERNS = (
    (2400, 80, 0, 1),
    (3000, 90, 70, 3),
    (1000, 900, 0, 1),
    (3200, 15, 0, 1),
)


class Buzzer:
    def __init__(self, pwm, ticks_diff, ticks_add, enabled=True):
        self.pwm = pwm
        self._diff = ticks_diff
        self._add = ticks_add
        self.enabled = enabled
        self._pat = None
        self._left = 0      # tones still to start
        self._on = False
        self._until = 0     # tick time of the next on/off switch
        self.beeps = 0      # patterns started (for tests and the simulator)
        self.last = -1      # the last pattern started
        self.sounding = False

    def set_enabled(self, on):
        """Sound on or off (the setup menu's Sound item)."""
        self.enabled = on

    def beep(self, kind, now, always=False):
        """Start pattern `kind`; `always`: even with the sound off (the
        self-test's, selftest.py)."""
        if not self.enabled and not always:
            return
        self.beeps += 1
        self.last = kind
        self._pat = _PATTERNS[kind]
        self._left = self._pat[3]
        self._start_tone(now)

    def _start_tone(self, now):
        p = self._pat
        self._left -= 1
        self._on = True
        self.sounding = True
        self._until = self._add(now, p[1])
        if self.pwm is not None:
            self.pwm.freq(p[0])
            self.pwm.duty_u16(32768)

    def active(self):
        """A beep pattern is playing (its tones or the gaps between them)."""
        return self._pat is not None

    def wake(self, now, ms):
        """The main loop's sleep `ms`, cut to the pattern's next on/off switch."""
        if self._pat is not None:
            d = self._diff(self._until, now)
            if d < ms:
                return d
        return ms

    def _silence(self):
        self._on = False
        self.sounding = False
        if self.pwm is not None:
            self.pwm.duty_u16(0)

    def update(self, now):
        if self._pat is None or self._diff(now, self._until) < 0:
            return
        if self._on:
            self._silence()
            if self._left > 0:
                self._until = self._add(now, self._pat[2])
                return
            self._pat = None
        elif self._left > 0:
            self._start_tone(now)


class Leds:
    """One LED per side, lit while that side's clock runs."""

    def __init__(self, left, right):
        self.pins = (left, right)
        self.lit = -2  # unknown: the first show() writes both
        self.fitted = left is not None or right is not None

    def show(self, side):
        if side == self.lit:
            return
        self.lit = side
        self._set(0, side)
        self._set(1, side)

    def _set(self, s, side):
        p = self.pins[s]
        if p is not None:
            p.value(1 if side == s else 0)


class Battery:
    """Battery voltage through a resistor divider on an ADC pin (integer mV).
    Reads every `every_ms`; `low` turns on below low_mv and off again only
    100 mV above it (hysteresis, so the warning doesn't flicker).  Where the
    port offers read_uv() (ESP32: calibrated, with the 11 dB attenuation the
    app sets) it is used; otherwise read_u16() against a 3.3 V reference
    (RP2040)."""

    def __init__(self, adc, divider, low_mv, ticks_diff, ticks_add,
                 every_ms=10000, vref_mv=3300):
        self.adc = adc
        self.num, self.den = divider
        self.low_mv = low_mv
        self._diff = ticks_diff
        self._add = ticks_add
        self._uv = adc is not None and hasattr(adc, "read_uv")
        self.every = every_ms
        self.vref = vref_mv
        self.mv = 0
        self.low = False
        self._next = None

    def update(self, now):
        if self.adc is None:
            return
        if self._next is not None and self._diff(now, self._next) < 0:
            return
        self.read(now)

    def read(self, now):
        """Read the voltage now (update(): every `every_ms`; the self-test:
        at once) into .mv and .low; returns .mv."""
        self._next = self._add(now, self.every)
        if self._uv:
            pin_mv = self.adc.read_uv() // 1000
        else:
            pin_mv = self.adc.read_u16() * self.vref // 65535
        self.mv = pin_mv * self.num // self.den
        if self.mv < self.low_mv:
            self.low = True
        elif self.mv > self.low_mv + 100:
            self.low = False
        return self.mv
