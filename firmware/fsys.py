# The filesystem adapter and the atomic writer: one of each, used by the
# settings, the state store, the game log and the journal.
#
# The firmware never calls open()/os directly for its files: it takes an
# `fs` object with open(path, mode) (files with read/write/flush/seek/
# close), rename(old, new) over an existing file, remove, listdir, stat,
# mkdir, and raw() (the block device under the filesystem, or None); and,
# where it has one, statvfs (free_bytes(): the self-test's free space).  OsFS
# is the real one (given its block device: hw.raw_flash()); tests inject
# fakes with the same methods.
import os

_replace = getattr(os, "replace", None) or os.rename  # CPython on Windows: replace


class OsFS:
    """The real filesystem: os + builtin open."""

    def open(self, path, mode):
        return open(path, mode)

    def rename(self, old, new):
        _replace(old, new)

    def remove(self, path):
        os.remove(path)

    def listdir(self, path):
        return os.listdir(path)

    def stat(self, path):
        return os.stat(path)

    def mkdir(self, path):
        os.mkdir(path)

    def statvfs(self, path):
        return os.statvfs(path)

    def __init__(self, raw=None):
        self._raw = raw

    def raw(self):
        """The block device the filesystem is mounted on, for the running-
        clock journal (journal.py): the one hw.raw_flash() found from the
        board file's RAW_FLASH; None where there is none (CPython, the unix
        port, a board that names none): no journal there."""
        return self._raw


def write_atomic(fs, path, data, tmp=None):
    """Replace `path` with `data` (bytes, text, or a function that writes
    to the open binary file) so that a power cut leaves the old file or the new one: the
    data goes to `tmp` (default path + ".tmp"), which is closed and renamed
    over `path` (atomic on littlefs and POSIX).  Raises OSError; a short
    write is one too.  The temp file is not removed on failure (the next
    write truncates it; the readers know it may be there)."""
    tmp = tmp or path + ".tmp"
    f = fs.open(tmp, "w" if isinstance(data, str) else "wb")
    try:
        if callable(data):
            data(f)
        else:
            w = f.write(data)
            if w is not None and w != len(data):
                raise OSError("short write")
        if hasattr(f, "flush"):
            f.flush()
    finally:
        f.close()
    fs.rename(tmp, path)


def free_bytes(fs, path):
    """The free bytes of the filesystem `path` is on (statvfs: fragment size
    times the blocks available), or -1 where fs cannot tell (a test's fake)."""
    try:
        st = fs.statvfs(path or "/")
    except (AttributeError, OSError):
        return -1
    return st[1] * st[4]


def close(f):
    """Close an open file, or nothing (None); a failing close (a full or
    broken flash) is not an error of the caller's (the journal, the log)."""
    if f is not None:
        try:
            f.close()
        except OSError:
            pass
