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
