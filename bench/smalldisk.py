"""A real full disk for the hall's tests and figures (issue 29): a small
tmpfs mounted for the occasion (root only, as in CI), and a Filler that
keeps it full until removed.  tests/test_hall_disk.py, bench/hall_bench.py."""
import contextlib
import errno
import os
import subprocess
import tempfile
import threading


class NoMount(Exception):
    pass


@contextlib.contextmanager
def mounted(size="6m", where=None):
    """A fresh tmpfs of `size` at a new folder (yielded); unmounted after.
    NoMount (with the reason) where mounting is not allowed."""
    mnt = where or tempfile.mkdtemp(prefix="hall-disk-")
    os.makedirs(mnt, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s,mode=0700" % size, "tmpfs", mnt],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise NoMount("cannot mount a small tmpfs here (root only): %s"
                      % (r.stderr.strip() or r.returncode))
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        if where is None:
            try:
                os.rmdir(mnt)
            except OSError:
                pass


class Filler:
    """Keeps the filesystem of `path` full: writes zeros into it until the
    filesystem says no space is left, and again whenever some is freed (the
    broker rewrites its database every second) until remove()d."""

    def __init__(self, path):
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.stop = threading.Event()
        self.full = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self.full.wait(10):
            raise OSError("the disk did not fill up: %r" % self.error)

    def _run(self):
        chunk = b"\0" * 4096
        while not self.stop.is_set():
            try:
                while True:
                    os.write(self.fd, chunk)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    self.error = e
                    return
                self.full.set()
            self.stop.wait(0.01)

    def remove(self):
        self.stop.set()
        self.thread.join()
        os.close(self.fd)
        os.remove(self.path)
