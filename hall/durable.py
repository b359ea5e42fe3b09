"""Small host files that must survive a power cut (the hall's secrets, the
tournament's round files, the recorder's results): every byte written and
fsynced before the caller goes on, and a last line a cut tore recognised."""
import os


def write_all(fd, data):
    """Every byte of `data` to fd (os.write may take fewer), then fsync."""
    n = 0
    while n < len(data):
        n += os.write(fd, data[n:])
    os.fsync(fd)


def torn(path, fd):
    """True when the file `path`, open on fd, ends without a newline (a
    power cut tore its last line): the next line must start on its own."""
    size = os.fstat(fd).st_size
    if not size:
        return False
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1) != b"\n"


def replace(path, data):
    """`path` holds `data` (bytes) or what it held before, whatever the
    power does: a temp file created 0600 (never readable by others, not
    even for an instant), every byte fsynced, renamed over `path`, and the
    folder fsynced (the new name is on disk too)."""
    tmp = path + ".tmp"
    try:
        os.remove(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
