# The main loop's failures: anything unexpected that escapes an iteration is
# written to errors.txt (bounded, one line each: the game log's time, the
# exception) and the loop goes on; a failure that repeats (FAIL_LIMIT in
# FAIL_WINDOW_MS) makes the clock unhealthy: the app stops feeding the
# watchdog, which reboots it into the restored, paused game (App.run).

FAIL_WINDOW_MS = 10000  # this many failed loop iterations in this window:
FAIL_LIMIT = 5          # stop feeding the watchdog
ERRLOG_MAX = 4096       # errors.txt: at most this many bytes


class ErrLog:
    def __init__(self, fs, path, now, diff, log_ms):
        self.fs = fs
        self.path = path
        self.diff = diff
        self.log_ms = log_ms      # ticks -> the game log's time (session.py)
        self.fails = [now] * FAIL_LIMIT  # when the last failures were
        self.fail_i = 0
        self.errors = 0
        self.healthy = True       # False: let the watchdog reboot the clock

    def failed(self, e, now):
        self.errors += 1
        i = self.fail_i
        oldest = self.fails[i]
        self.fails[i] = now
        self.fail_i = (i + 1) % FAIL_LIMIT
        if self.errors >= FAIL_LIMIT and self.diff(now, oldest) < FAIL_WINDOW_MS:
            self.healthy = False
        try:
            self._write("%d %s: %s\n" % (self.log_ms(now), type(e).__name__, e))
        except Exception:  # noqa: BLE001 - a full or broken flash
            pass

    def _write(self, line):
        fs = self.fs
        try:
            size = fs.stat(self.path)[6]
        except OSError:
            size = 0
        f = fs.open(self.path, "wb" if size + len(line) > ERRLOG_MAX else "ab")
        try:
            f.write(line.encode())
        finally:
            f.close()
