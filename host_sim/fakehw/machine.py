# A stand-in for MicroPython's `machine` module, for hosts without the hardware.
#
# It runs under CPython and under the MicroPython unix port (put this folder
# first on sys.path / MICROPYPATH and `import machine` finds it).  It emulates
# the hardware's own behaviour, not our application's:
#
# * Pin: an input with an optional pull-up reads the level the outside world
#   drives onto it (`drive(level)`, used by tests and the simulator: a switch to
#   GND pulls it to 0).  An IRQ handler registered with `irq()` is called on the
#   matching edge, synchronously, exactly as a hard IRQ would interrupt the
#   main loop at that moment.  An OPEN_DRAIN pin is a wired-AND line: it reads
#   low while it or the outside world pulls it low, else high (the pull-up,
#   the internal one or the module's).  A device on a pin's wire
#   (`wire(id, fn)`, e.g. fakehw/tm1637_emu.py) is told every change of the
#   line's level, fn(id, level), and answers with drive().
# * I2C: `writeto(addr, buf)` hands the bytes to the device attached at that
#   address (`attach(addr, device)`); an absent address raises OSError(ENODEV)
#   as the real bus does (errno 19 on rp2/esp32: no ACK).
# * ADC / PWM: the few calls the clock uses, with readable state.
#
# Nothing here knows about the clock.

IRQ_FALLING = 4
IRQ_RISING = 8

# One simulated world at a time: every bus created with the same id shares its
# devices, as a real board's peripherals do.
_buses = {}
_pins = {}
_wires = {}  # pin id -> fn(id, level): a device watching that line


def wire(id, fn):
    """Connect a device to pin `id`'s line: fn(id, level) after every change
    of its level (fn None: disconnect).  Survives the firmware creating the
    Pin again."""
    if fn is None:
        _wires.pop(id, None)
    else:
        _wires[id] = fn


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = IRQ_FALLING
    IRQ_RISING = IRQ_RISING

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self._handler = None
        self._trigger = 0
        self._driven = None  # level forced from outside (a switch), or None
        self._out = 0
        self.mode = Pin.IN
        self.pull = None
        _pins[id] = self
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None):
        before = self.line()
        if mode != -1:
            self.mode = mode
            if mode == Pin.OPEN_DRAIN and value is None:
                value = 1  # as the rp2 port: an open-drain pin starts released
        if pull != -1:
            self.pull = pull
        if value is not None:
            self._out = 1 if value else 0
        if self.line() != before:
            self._tell()

    def value(self, v=None):
        if v is None:
            return self.line()
        self._set(1 if v else 0)
        return None

    def line(self):
        """The level on the wire."""
        if self.mode == Pin.OUT:
            return self._out
        if self.mode == Pin.OPEN_DRAIN:
            if self._out == 0 or self._driven == 0:
                return 0
            return 1
        if self._driven is not None:
            return self._driven
        return 1 if self.pull == Pin.PULL_UP else 0

    def _set(self, v):
        before = self.line()
        self._out = v
        if self.line() != before:
            self._tell()

    def _tell(self):
        fn = _wires.get(self.id)
        if fn is not None:
            fn(self.id, self.line())

    def on(self):
        self._set(1)

    def off(self):
        self._set(0)

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        self._handler = handler
        self._trigger = trigger
        self.hard = hard
        return self

    # -- the outside world --------------------------------------------------
    def drive(self, level):
        """Force the input level (None releases it to its pull).  Fires the
        IRQ handler on a matching edge, like the real pin would."""
        before = self.value()
        self._driven = level
        after = self.value()
        if before == after:
            return
        self._tell()
        if self._handler is None:
            return
        if after == 0 and self._trigger & IRQ_FALLING:
            self._handler(self)
        elif after == 1 and self._trigger & IRQ_RISING:
            self._handler(self)


def pin(id):
    """The Pin object the firmware created for `id` (for tests and the sim)."""
    return _pins[id]


class I2C:
    def __init__(self, id=0, scl=None, sda=None, freq=400000):
        self.id = id
        self.scl = scl
        self.sda = sda
        self.freq = freq
        self.devices = _buses.setdefault(id, {})

    def attach(self, addr, device):
        self.devices[addr] = device

    def scan(self):
        return sorted(self.devices)

    def writeto(self, addr, buf, stop=True):
        dev = self.devices.get(addr)
        if dev is None:
            raise OSError(19)  # ENODEV: no ACK from that address
        dev.writeto(buf)
        return len(buf)

    def readfrom(self, addr, n, stop=True):
        dev = self.devices.get(addr)
        if dev is None:
            raise OSError(19)
        return dev.readfrom(n)


class ADC:
    # The ESP32 port's attenuation constants (a port without them, like the
    # RP2040's, simply has no atten()); atten() remembers the last one set.
    ATTN_0DB = 0
    ATTN_2_5DB = 1
    ATTN_6DB = 2
    ATTN_11DB = 3

    def __init__(self, pin, atten=None):
        self.pin = pin
        self.level_u16 = 0xFFFF
        self.attenuation = atten

    def read_u16(self):
        return self.level_u16

    def atten(self, a):
        self.attenuation = a


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        self.history = []  # (freq, duty_u16) each time the output changes

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        self.history.append((self._freq, self._duty))

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        self.history.append((self._freq, self._duty))

    def deinit(self):
        self._duty = 0


DEFAULT_UID = b"\x00\x00\x00\x00\x00\x00\x00\x01"
_uid = [DEFAULT_UID]


def reset_world():
    """Forget every pin and bus (a fresh board, between tests); the board's
    unique id is the default one again."""
    _buses.clear()
    _pins.clear()
    _wires.clear()
    _uid[0] = DEFAULT_UID


def set_unique_id(uid):
    """This board's machine.unique_id() from now on (a rehearsal's clocks
    each have their own, as real ones do; the app reads it at start)."""
    _uid[0] = bytes(uid)


def unique_id():
    return _uid[0]
