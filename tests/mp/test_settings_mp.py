# Settings under the real MicroPython interpreter: walkthroughs like
# tests/test_settings.py's, and the file handling on MicroPython's json/os.
# (The menus' tests are tests/test_menu.py, written once for both
# interpreters; these join tests/test_settings.py when that file is written
# the same way.)
import json
import os
from mptest import tmp_path

import profiles
import settings
from mptest import eq

MIN = 60000


class MemFile:
    def __init__(self, fs, path, mode):
        self.fs = fs
        self.path = path
        self.mode = mode
        self.pos = 0
        if "w" in mode:
            fs.files[path] = b""

    def read(self, n=-1):
        data = self.fs.files[self.path]
        out = data[self.pos:] if n < 0 else data[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def write(self, s):
        self.fs.files[self.path] += s.encode()
        return len(s)

    def close(self):
        pass


class MemFs:
    def __init__(self, files=None):
        self.files = dict(files or {})
        self.fail_rename = False

    def open(self, path, mode):
        if "r" in mode and path not in self.files:
            raise OSError(2)
        return MemFile(self, path, mode)

    def rename(self, src, dst):
        if self.fail_rename:
            raise OSError(5)
        self.files[dst] = self.files.pop(src)

    def remove(self, path):
        del self.files[path]


# -- settings ---------------------------------------------------------------------

def test_settings_defaults_and_first_boot():
    s = settings.Settings.load(fs=MemFs())
    eq((s.profile, s.base_left, s.base_right, s.lang, s.sound),
       ("sdev", 30 * MIN, 30 * MIN, "en", True), "defaults")
    eq(s.notice, False, "no notice on first boot")


def test_settings_round_trip_memfs():
    fs = MemFs()
    s = settings.Settings()
    s.set_profile("custom")
    s.base_left = 17 * MIN
    s.lang = "pl"
    s.sound = False
    s.zero = profiles.ZERO_FLAG
    s.penalty = 15
    s.forfeit = 240
    s.window = 25000
    eq(s.save(fs=fs), True, "saved")
    t = settings.Settings.load(fs=fs)
    eq(t.as_dict(), s.as_dict(), "round trip")
    eq(t.notice, False, "notice")


def test_settings_bad_files_reset_with_notice():
    good = settings.Settings().as_dict()
    good["lang"] = "de"
    bad = [b"", b"{", bytes(range(256)), b"[1]", b'"x"', b"1e400",
           json.dumps(good)[:30].encode(), b'{"v": 2}', b'{"v": 1, "sound": 1}',
           b'{"v": 1, "base_left": true}', b'{"v": 1, "penalty": 1.5}',
           b'{"v": 1, "lang": "fr"}', b'{"v": 1, "window": 61000}',
           b'{"v": 1, "forfeit": 0}', b'{"v": 1, "zero": 1}',
           b'{"v": 1, "profile": null}', b'{"v": 1, "penalty": NaN}',
           b"\xff" * 2000]
    for data in bad:
        s = settings.Settings.load(fs=MemFs({"settings.json": data}))
        eq((s.profile, s.lang, s.notice), ("sdev", "en", True),
           "reset for %r" % data[:20])


def test_settings_failing_rename_keeps_old_file():
    fs = MemFs()
    s = settings.Settings()
    s.lang = "de"
    s.save(fs=fs)
    before = fs.files["settings.json"]
    s.lang = "pl"
    fs.fail_rename = True
    eq(s.save(fs=fs), False, "save fails quietly")
    eq(fs.files["settings.json"], before, "old file intact")
    eq("settings.json.tmp" in fs.files, False, "temp removed")


def test_settings_real_fs_replace_existing():
    path = tmp_path("scrabble_clock_settings.json")
    try:
        s = settings.Settings()
        s.lang = "de"
        eq(s.save(path), True, "first save")
        s.lang = "pl"
        eq(s.save(path), True, "rename over an existing file")
        eq(settings.Settings.load(path).lang, "pl", "reloaded")
    finally:
        for p in (path, path + ".tmp"):
            try:
                os.remove(p)
            except OSError:
                pass


def test_settings_rules_match_make_rules():
    s = settings.Settings()
    for name in profiles.NAMES:
        s.set_profile(name)
        eq(s.rules().__dict__, profiles.make_rules(name).__dict__, name)
