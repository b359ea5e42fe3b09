"""One filesystem adapter and one atomic writer (issue 13 item 3):
firmware/fsys.py, used by the settings, the state store, the game log and
the session.  A power cut at any step of write_atomic leaves the old file or
the new one, never a mix (FakeFlash of tests/test_power_loss.py counts the
steps: create, each byte, rename)."""
import pytest

import fsys
import gamelog
import persist
import session
import settings
from test_power_loss import FakeFlash, PowerCut


def test_every_writer_uses_the_one_adapter_by_default(tmp_path):
    assert isinstance(persist.StateStore().fs, fsys.OsFS)
    assert isinstance(gamelog.GameLog().fs, fsys.OsFS)
    assert isinstance(settings.Settings.load(str(tmp_path / "s.json")).fs, fsys.OsFS)
    for mod in (persist, gamelog, settings, session):
        assert not hasattr(mod, "OsFs") and not hasattr(mod, "OsFS"), mod


def test_no_raw_flash_on_cpython():
    """The journal runs only where the filesystem has a block device."""
    assert fsys.OsFS().raw() is None


@pytest.mark.parametrize("data", [b"new contents\n",
                                  lambda f: (f.write(b"new "), f.write(b"chunks\n"))])
def test_a_cut_at_every_step_leaves_the_old_file_or_the_new(data):
    """(Text, the settings' JSON, goes the same way: tests/test_settings.py.)"""
    new = data if isinstance(data, bytes) else b"new chunks\n"
    steps = len(new) + 2                   # create the temp file, the bytes, the rename
    for k in range(steps + 1):
        flash = FakeFlash({"f": b"old"}, journal=False)
        flash.budget = k
        try:
            fsys.write_atomic(flash, "f", data)
            done = True
        except PowerCut:
            done = False
        assert flash.files["f"] == (new if done else b"old"), k
        assert done == (k >= steps)


def test_a_short_write_is_an_error_and_keeps_the_old_file():
    class Short(FakeFlash):
        def open(self, path, mode):
            f = FakeFlash.open(self, path, mode)
            if "w" in mode:
                w = f.write
                f.write = lambda d: w(d[:2]) and 2
            return f

    flash = Short({"f": b"old"}, journal=False)
    with pytest.raises(OSError):
        fsys.write_atomic(flash, "f", b"longer")
    assert flash.files["f"] == b"old"
