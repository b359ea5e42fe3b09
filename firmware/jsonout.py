# JSON written into a buffer kept for it, allocating nothing once warm
# (SPEC §6: no garbage collection in a game; a clock on the hall's Wi-Fi
# publishes its state at every press and a heartbeat every few seconds).
# Runs unchanged on MicroPython (>= 1.22) and CPython 3.11.
#
# A writer for report.emit()'s protocol: field(name, value), open(name),
# close(); begin() and end() the outer object.  Values: None, True, False,
# ints, and strings.  A string is written as json.dumps writes it (the
# same escapes), encoded once and kept by identity (the profile's name,
# the sides' names, the self-test's summary: the same objects report after
# report); a new one costs an allocation, once.  Keys are encoded once, on
# their first use.  What does not fit in the buffer sets `over` (the caller
# builds that message the ordinary way).
import json

KEEP = 12               # strings kept encoded at most (then the keep starts again)


class JSONOut:
    def __init__(self, buf, start=0):
        self.buf = buf
        self.start = start
        self.n = start
        self.first = True     # no field in the open object yet
        self.over = False
        self.keys = {}        # name -> b'"name":'
        self.texts = {}       # str -> its JSON, encoded

    def begin(self):
        """A new object, at the buffer's `start`."""
        self.n = self.start
        self.over = False
        self.first = True
        self._raw(b"{")

    def end(self):
        """The outer object closed: the JSON is buf[start:n]."""
        self._raw(b"}")

    def field(self, name, v):
        self._key(name)
        if v is None:
            self._raw(b"null")
        elif v is True:
            self._raw(b"true")
        elif v is False:
            self._raw(b"false")
        elif isinstance(v, int):
            self._int(v)
        else:
            self._raw(self._text(v))

    def open(self, name):
        self._key(name)
        self._raw(b"{")
        self.first = True

    def close(self):
        self._raw(b"}")
        self.first = False

    # -- the pieces -------------------------------------------------------------------
    def _key(self, name):
        k = self.keys.get(name)
        if k is None:
            k = self.keys[name] = (json.dumps(name) + ":").encode()
        if self.first:
            self.first = False
        else:
            self._raw(b",")
        self._raw(k)

    def _text(self, s):
        t = self.texts.get(s)
        if t is None:
            if len(self.texts) >= KEEP:
                self.texts = {}
            t = self.texts[s] = json.dumps(s).encode()
        return t

    def _raw(self, b):
        n = self.n
        e = n + len(b)
        if e > len(self.buf):
            self.over = True
            return
        self.buf[n:e] = b
        self.n = e

    def _int(self, v):
        # its digits counted, then written backwards into place (small
        # ints only: no allocation)
        if v < 0:
            self._raw(b"-")
            v = -v
        e = self.n + 1
        d = v
        while d >= 10:
            d //= 10
            e += 1
        if e > len(self.buf):
            self.over = True
            return
        self.n = e
        while True:
            e -= 1
            self.buf[e] = 48 + v % 10
            v //= 10
            if not v:
                break
