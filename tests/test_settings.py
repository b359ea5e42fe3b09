"""Settings kept across power cycles (SPEC §4 Setup): defaults, a round trip,
every kind of bad file falls back to defaults with a notice and never raises,
and saving is atomic (temp file + rename).

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython (its json and
os), tests/test_target_qemu.py on the 32-bit image.
"""
import json
import os

import profiles
import mptest
from mptest import Random, cpython_only, parametrize
from settings import Settings

DEFAULTS = {"v": 1, "profile": "sdev", "base_left": 1800000, "base_right": 1800000,
            "lang": "en", "sound": True, "zero": "overtime", "penalty": 0,
            "forfeit": -1, "window": 0, "table": 0}


class MemFile:
    def __init__(self, fs, path, mode):
        self.fs, self.path, self.mode = fs, path, mode
        self.pos = 0
        if "w" in mode:
            self.buf = bytearray()
            fs.files[path] = b""

    def read(self, n=-1):
        data = self.fs.files[self.path]
        out = data[self.pos:] if n < 0 else data[self.pos:self.pos + n]
        self.pos += len(out)
        return out if "b" in self.mode else out.decode()

    def write(self, s):
        if self.fs.fail_write:
            raise OSError(28)  # ENOSPC
        self.buf.extend(s.encode() if isinstance(s, str) else s)
        self.fs.files[self.path] = bytes(self.buf)
        return len(s)

    def flush(self):
        pass

    def close(self):
        self.fs.closed += 1


class MemFs:
    """An in-memory file system with switchable failures."""

    def __init__(self, files=None):
        self.files = dict(files or {})
        self.fail_rename = self.fail_write = self.fail_open = False
        self.closed = 0
        self.ops = []

    def open(self, path, mode):
        self.ops.append(("open", path, mode))
        if self.fail_open:
            raise OSError(5)  # EIO
        if "r" in mode and path not in self.files:
            raise OSError(2)  # ENOENT, as MicroPython raises it
        return MemFile(self, path, mode)

    def rename(self, src, dst):
        self.ops.append(("rename", src, dst))
        if self.fail_rename:
            raise OSError(5)
        self.files[dst] = self.files.pop(src)

    def remove(self, path):
        self.ops.append(("remove", path))
        del self.files[path]


def with_file(content):
    if isinstance(content, dict):
        content = json.dumps(content)
    if isinstance(content, str):
        content = content.encode()
    return MemFs({"settings.json": content})


def assert_defaults(s):
    assert s.as_dict() == DEFAULTS


# -- defaults and round trip ------------------------------------------------------

def test_defaults_are_sdev_30_min_english_sound_on():
    s = Settings()
    assert_defaults(s)
    assert s.notice is False
    assert s.rules().__dict__ == profiles.make_rules("sdev").__dict__


def test_missing_file_is_first_boot_defaults_without_notice():
    fs = MemFs()
    s = Settings.load(fs=fs)
    assert_defaults(s)
    assert s.notice is False and s.problem is None


def test_round_trip_every_field():
    fs = MemFs()
    s = Settings()
    s.profile = "custom"
    s.base_left, s.base_right = 25 * 60000, 17 * 60000
    s.lang, s.sound = "pl", False
    s.zero, s.penalty, s.forfeit, s.window = profiles.ZERO_FLAG, 15, 240, 25000
    assert s.save(fs=fs) is True
    t = Settings.load(fs=fs)
    assert t.as_dict() == s.as_dict()
    assert t.notice is False
    assert json.loads(fs.files["settings.json"])["zero"] == "flag"   # readable file
    assert "settings.json.tmp" not in fs.files


@cpython_only   # pytest's tmp_path fixture: the folder holds nothing else
def test_round_trip_on_the_real_file_system(tmp_path):
    path = str(tmp_path / "settings.json")
    s = Settings()
    s.set_profile("pfs")
    s.lang = "de"
    assert s.save(path) is True
    t = Settings.load(path)
    assert t.as_dict() == s.as_dict() and t.notice is False
    t.sound = False
    assert t.save() is True                 # remembers its path; replaces the file
    assert Settings.load(path).sound is False
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_save_replaces_an_existing_file_on_the_real_file_system():
    """On the interpreter's own file system (MicroPython's os.rename too):
    a second save renames over the first file and leaves no temp file."""
    path = mptest.tmp_path("scrabble_clock_settings.json")
    try:
        s = Settings()
        s.lang = "de"
        assert s.save(path) is True
        s.lang = "pl"
        assert s.save(path) is True             # rename over an existing file
        assert Settings.load(path).lang == "pl"
        try:
            os.stat(path + ".tmp")
            left = True
        except OSError:
            left = False
        assert left is False
    finally:
        for p in (path, path + ".tmp"):
            try:
                os.remove(p)
            except OSError:
                pass


def test_missing_keys_take_defaults_silently_unknown_keys_ignored():
    """A file from an older firmware (fewer keys) or a newer one (more keys)."""
    s = Settings.load(fs=with_file({"v": 1, "lang": "de", "brightness": 3}))
    assert s.lang == "de" and s.profile == "sdev" and s.base_left == 1800000
    assert s.notice is False


def test_off_grid_but_valid_values_are_kept():
    s = Settings.load(fs=with_file(dict(DEFAULTS, base_left=25 * 60000 + 30000,
                                        penalty=7, forfeit=90, window=3000)))
    assert s.notice is False
    assert (s.base_left, s.penalty, s.forfeit, s.window) == (1530000, 7, 90, 3000)


# -- bad files: defaults + notice, never an exception -----------------------------------

BAD_FILES = {
    "empty": b"",
    "truncated": json.dumps(DEFAULTS)[:40].encode(),
    "not json": b"profile=sdev\n",
    "binary": bytes(range(256)),
    "nul bytes": b"\x00" * 64,
    "invalid utf-8": b'{"v": 1, "lang": "\xff\xfe"}',
    "json list": b"[1, 2, 3]",
    "json number": b"42",
    "json string": b'"sdev"',
    "foreign object": b'{"ssid": "clock", "password": "x"}',
    "other version": json.dumps(dict(DEFAULTS, v=2)).encode(),
    "too large": json.dumps(dict(DEFAULTS, pad="x" * 5000)).encode(),
    "nan": b'{"v": 1, "penalty": NaN}',
    "unclosed brace": b"{",
    "number too large for a float": b"1e400",
    "0xff bytes over the size limit": b"\xff" * 2000,
}

BAD_VALUES = [
    ("profile", "wespa"), ("profile", None), ("profile", ["sdev"]), ("profile", {}),
    ("base_left", 0), ("base_left", 59000), ("base_left", 99 * 60000 + 1000),
    ("base_right", -60000), ("base_right", "30:00"), ("base_right", 1800000.0),
    ("base_right", 1800500), ("base_left", True), ("base_left", 10 ** 30),
    ("lang", "fr"), ("lang", 1), ("lang", None),
    ("sound", 1), ("sound", "yes"), ("sound", None),
    ("zero", 0), ("zero", "Flag"), ("zero", None),
    ("penalty", -5), ("penalty", 55), ("penalty", "10"), ("penalty", 10.0), ("penalty", 1.5),
    ("forfeit", -2), ("forfeit", 0), ("forfeit", 59), ("forfeit", 601), ("forfeit", None),
    ("window", -1000), ("window", 61000), ("window", 20), ("window", 20500),
    ("window", False),
    ("table", -1), ("table", 100), ("table", "12"), ("table", 12.0), ("table", True),
]


def check_reset(fs):
    s = Settings.load(fs=fs)
    assert_defaults(s)
    assert s.notice is True            # the app shows lang SETRESET
    assert s.problem and s.problem.startswith("settings.json: ")
    return s


@parametrize("name", sorted(BAD_FILES))
def test_bad_file_gives_defaults_and_notice(name):
    check_reset(with_file(BAD_FILES[name]))


@parametrize("key,value", BAD_VALUES)
def test_wrong_type_or_out_of_range_gives_defaults_and_notice(key, value):
    """One bad value resets everything: a file that is wrong in one place is
    not trusted in the others."""
    good = dict(DEFAULTS, lang="de", profile="pfs", base_left=20 * 60000,
                base_right=20 * 60000)
    check_reset(with_file(dict(good, **{key: value})))


def test_unreadable_file_gives_defaults_and_notice():
    fs = with_file(DEFAULTS)
    fs.fail_open = True
    s = check_reset(fs)
    assert "OSError" in s.problem


@parametrize("seed", range(200))
def test_random_bytes_never_raise(seed):
    rnd = Random(seed)   # CPython's own; mptest's xorshift on MicroPython
    base = bytearray(json.dumps(dict(DEFAULTS, lang="pl")).encode())
    for _ in range(rnd.randint(1, 6)):  # flip, cut or insert a few bytes
        op = rnd.randint(0, 2)
        i = rnd.randrange(len(base))
        if op == 0:
            base[i] = rnd.randrange(256)
        elif op == 1:
            base = base[:i]     # slices: MicroPython's bytearray has no del/insert
            if not base:
                break
        else:
            base = base[:i] + bytearray([rnd.randrange(256)]) + base[i:]
    s = Settings.load(fs=with_file(bytes(base)))
    assert s.problem_with() is None            # whatever came in, the values are valid
    assert (s.notice is False) == (s.problem is None)
    s.rules()                                  # and usable


# -- atomic save ------------------------------------------------------------------

def test_save_writes_temp_then_renames():
    fs = MemFs()
    assert Settings().save(fs=fs)
    writes = [op for op in fs.ops if op[0] != "remove"]
    assert writes == [("open", "settings.json.tmp", "w"),
                      ("rename", "settings.json.tmp", "settings.json")]
    assert fs.closed == 1


def test_failing_rename_leaves_old_file_intact():
    old = Settings()
    old.lang = "de"
    fs = MemFs()
    assert old.save(fs=fs)
    before = fs.files["settings.json"]
    new = Settings.load(fs=fs)
    new.lang = "pl"
    fs.fail_rename = True
    assert new.save() is False                 # no exception
    assert "cannot save" in new.problem
    assert fs.files["settings.json"] == before
    assert "settings.json.tmp" not in fs.files  # cleaned up
    fs.fail_rename = False
    assert Settings.load(fs=fs).lang == "de"


def test_failing_write_leaves_old_file_intact():
    fs = MemFs()
    assert Settings().save(fs=fs)
    before = fs.files["settings.json"]
    s = Settings.load(fs=fs)
    s.sound = False
    fs.fail_write = True
    assert s.save() is False
    assert fs.files["settings.json"] == before
    assert fs.closed >= 2                      # the temp file was closed


def test_failing_open_for_write_returns_false():
    fs = MemFs()
    fs.fail_open = True
    assert Settings().save(fs=fs) is False


def test_rename_cut_short_recovers_the_complete_temp_file():
    """MicroPython's FAT driver removes the target before renaming; a power cut
    in between leaves only settings.json.tmp."""
    s = Settings()
    s.lang = "pl"
    fs = MemFs({"settings.json.tmp": json.dumps(s.as_dict()).encode()})
    t = Settings.load(fs=fs)
    assert t.lang == "pl" and t.notice is False


def test_torn_temp_file_alone_is_a_first_boot():
    fs = MemFs({"settings.json.tmp": b'{"v": 1, "lang": "p'})
    s = Settings.load(fs=fs)
    assert_defaults(s)
    assert s.notice is False


# -- rules() ---------------------------------------------------------------------

@parametrize("name", profiles.NAMES)
def test_rules_match_make_rules_for_each_profile_default(name):
    s = Settings()
    s.set_profile(name)
    assert s.base_left == s.base_right == profiles.PROFILES[name]["base"]
    r = s.rules()
    assert r.name == name
    assert r.__dict__ == profiles.make_rules(name).__dict__


def test_rules_carry_per_side_base_times():
    s = Settings()
    s.set_profile("pfs")
    s.base_left, s.base_right = 15 * 60000, 20 * 60000
    want = profiles.make_rules("pfs", [("base_left", "15:00"), ("base_right", "20:00")])
    assert s.rules().__dict__ == want.__dict__


def test_custom_rules_use_the_custom_fields():
    s = Settings()
    s.set_profile("custom")
    s.base_left = s.base_right = 25 * 60000
    s.zero, s.penalty, s.forfeit, s.window = profiles.ZERO_OVERTIME, 5, 120, 15000
    want = profiles.make_rules("custom", {"base": "25:00", "zero": "overtime",
                                          "penalty": "5", "forfeit": "02:00",
                                          "window": "15"})
    assert s.rules().__dict__ == want.__dict__
    s.zero, s.forfeit = profiles.ZERO_FLAG, -1
    r = s.rules()
    assert r.zero == profiles.ZERO_FLAG and r.forfeit == -1


def test_custom_fields_do_not_leak_into_built_in_profiles():
    s = Settings()
    s.penalty, s.window, s.forfeit = 50, 60000, 600
    assert s.rules().__dict__ == profiles.make_rules("sdev").__dict__
    s.set_profile("pfs")
    assert s.rules().__dict__ == profiles.make_rules("pfs").__dict__


def test_table_number_is_kept_and_an_older_file_without_it_means_none():
    """Issue 12 item 4: the table number (0 = none) survives a save/load;
    a file from before it existed loads with table 0 and no notice."""
    fs = MemFs()
    s = Settings()
    s.table = 12
    assert s.save(fs=fs)
    assert Settings.load(fs=fs).table == 12
    old = dict(DEFAULTS)
    del old["table"]
    s = Settings.load(fs=with_file(old))
    assert s.table == 0 and s.notice is False


# The file as the firmware before issue 22 wrote it (bytes of its save():
# numbers already, base times in ms, forfeit in s, window in ms).  Issue 22
# changed only how the numbers reach the clock (Settings.rules() builds the
# rules from them, no mm:ss text and back): a clock in the field keeps every
# value across the upgrade, and its next save writes the same file.
FIELD_FILE = (b'{"v": 1, "profile": "custom", "base_left": 1530000, "base_right": 1200000, '
              b'"lang": "pl", "sound": false, "zero": "flag", "penalty": 5, "forfeit": 120, '
              b'"window": 15000, "table": 7}')


def test_a_file_from_the_firmware_before_is_loaded_with_nothing_lost():
    fs = with_file(FIELD_FILE)
    s = Settings.load(fs=fs)
    assert s.notice is False and s.problem is None
    r = s.rules()
    # 25:30 and 20:00, the flag at 00:00, 5 points, forfeit 2 min, 15 s window
    assert (r.name, r.base, r.zero, r.penalty, r.forfeit, r.window) == \
        ("custom", [1530000, 1200000], profiles.ZERO_FLAG, 5, 120, 15000)
    assert (s.lang, s.sound, s.table) == ("pl", False, 7)
    assert s.save(fs=fs)
    assert json.loads(fs.files["settings.json"]) == json.loads(FIELD_FILE)


def test_rules_are_new_objects_built_from_the_numbers():
    """Settings.rules() gives the clock its own Rules each time: the referee
    menu's base change (Clock.set_rules, Rules.with_base) never writes back
    into the settings."""
    s = Settings()
    a = s.rules()
    b = a.with_base(60000, 120000)
    assert (b.base, b.name, b.window) == ([60000, 120000], "sdev", 20000)
    assert a.base == [1800000, 1800000] and s.rules().base == [1800000, 1800000]
    assert s.rules() is not s.rules()
