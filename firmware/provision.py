# Where every image for the RP2040 keeps the clock's files, and what a
# table's image (`make firmware-tables`: table-NN.uf2) brings to a clock.
#
# One layout for the chip (issue 37): pico.uf2, pico_2004.uf2, pico_w.uf2
# and the table images all mount their littlefs on the flash's last FS_BYTES
# (the region the official RPI_PICO_W image uses), so copying any of them
# over another keeps the settings, the results and the game logs.  The
# 4 KB below it is the table block: no image's code reaches it
# (tools/fwimage.py refuses an image that would), and only a table's image
# writes it.
#
# A table's image is the plain image plus that block: MAGIC, the length of
# the payload (4 bytes, little-endian), its SHA-256 (32 bytes), then the
# payload, the table's net.json.  It writes no filesystem block, so the
# games, results and unsent results on a used clock stay.  At power-up
# apply() takes a block it has not taken before (the hash differs from the
# one in APPLIED): net.json replaced, the setup menu's table set to the
# block's, and the hash kept; every other file is left alone.  The same
# file copied again changes nothing (the clock already has that account).
#
# The host's tools/fwimage.py writes the block with block(); firmware/hw.py
# reads it from the flash (hw.table_block); apply() is the rest, the same
# on CPython (tests) and MicroPython.
import fsys

XIP_BASE = 0x10000000                # where the RP2040 maps the flash
FLASH_BYTES = 2 * 1024 * 1024        # Pico and Pico W: a 2 MB W25Q16
FS_BYTES = 848 * 1024                # the filesystem: the flash's last 848 KB
FS_OFFSET = FLASH_BYTES - FS_BYTES   # 0x12c000
BLOCK_BYTES = 4096                   # the table block: one flash sector ...
BLOCK_OFFSET = FS_OFFSET - BLOCK_BYTES   # ... right below the filesystem
MAGIC = b"SCtable1"
HEAD = len(MAGIC) + 4 + 32           # MAGIC, length, SHA-256
APPLIED = "table.applied"            # the hash of the block last applied
CONFIG = "net.json"                  # (netcfg.CONFIG: the hall account)
SETTINGS = "settings.json"


def _sha(data):
    import hashlib
    return hashlib.sha256(data).digest()


def _hex(b):
    return "".join(["%02x" % x for x in b])


def block(payload):
    """The table block's bytes for a payload (the host: tools/fwimage.py);
    ValueError if it does not fit."""
    n = len(payload)
    if HEAD + n > BLOCK_BYTES:
        raise ValueError("the table's net.json is %d bytes: more than the %d the table "
                         "block holds" % (n, BLOCK_BYTES - HEAD))
    return (MAGIC + bytes((n & 255, (n >> 8) & 255, (n >> 16) & 255, 0)) + _sha(payload)
            + payload)


def payload_of(head, read):
    """(payload, hash) of a table block whose first HEAD bytes are `head`
    (read(offset, n) gives more of it), or None: no block, a damaged one."""
    if head is None or len(head) < HEAD or bytes(head[:len(MAGIC)]) != MAGIC:
        return None
    k = len(MAGIC)
    n = head[k] | (head[k + 1] << 8) | (head[k + 2] << 16)
    if head[k + 3] or HEAD + n > BLOCK_BYTES:
        return None
    digest = bytes(head[k + 4:HEAD])
    payload = bytes(read(HEAD, n))
    if _sha(payload) != digest:
        return None
    return payload, _hex(digest)


def _read(fs, path, most=128):
    try:
        f = fs.open(path, "rb")
    except OSError:
        return None
    try:
        return f.read(most)
    finally:
        f.close()


def apply(fs, root, found, settings_cls):
    """Take a table block found at power-up (payload_of's pair, or None):
    the table number it set, or 0 when there was nothing new to take (no
    block, or the one already applied).  net.json first, then the
    settings' table (settings_cls: settings.Settings; the menu's table
    wins over net.json's, so it must name the new one), then the hash: a
    power cut between them applies it again at the next power-up."""
    if found is None:
        return 0
    payload, digest = found
    done = _read(fs, root + APPLIED)
    if done is not None and done.decode().strip() == digest:
        return 0
    import json
    try:
        table = json.loads(payload)["table"]
    except (ValueError, KeyError, TypeError):
        return 0
    if not isinstance(table, int) or table < 1:
        return 0
    fsys.write_atomic(fs, root + CONFIG, payload)
    s = settings_cls.load(root + SETTINGS, fs)
    if s.table != table and not s.notice:
        # (a settings file that did not load is left as it is, for the app
        # to report; a table the menu cannot show leaves the menu's at none)
        was = s.table
        s.table = table
        if s.problem_with() is not None:
            s.table = 0 if was else was
        if s.table != was:
            s.save()
    fsys.write_atomic(fs, root + APPLIED, digest + "\n")
    return table


# -- the filesystem at power-up (the image's _boot.py; issue 37) ------------------
# The rp2 port's own _boot.py formats the region when it does not mount.
# On a clock whose files an image of the older layout left (the Pico's
# filesystem at LEGACY_OFFSET, 1408 KB, where the official RPI_PICO image
# keeps it too, e.g. after `make deploy`), that would overwrite them: the
# new region is the old one's last 848 KB.  boot() moves them instead: the
# old filesystem read in place (read-only), its files kept in RAM, the
# region formatted and the files written there.  Not moved: the running-
# clock journal (the clock makes it again) and the app's modules a `make
# deploy` left (*.mpy, *.py but board.py: they would shadow the frozen app);
# past MOVE_MOST (the game logs keep within 64 KB, so only on a flash that
# holds other things) the oldest game logs stay behind, and it says how
# many.  Anything else that does not mount (a blank chip, another
# firmware's leftovers) is formatted as before.
LEGACY_OFFSET = 0xA0000               # the official RPI_PICO image's region ...
LEGACY_BLOCKS = 352                   # ... 1408 KB of 4 KB blocks
LFS_BLOCK = 4096
MOVE_MOST = 96 * 1024                 # the most bytes of files moved through RAM
SKIP = ("journal.bin",)


def moved(path):
    """Whether boot() moves a file of the older layout's filesystem."""
    if path in SKIP or path.endswith(".mpy"):
        return False
    return not path.endswith(".py") or path == "board.py"


class _ReadOnly:
    """A block device over the memory-mapped flash that only reads."""

    def __init__(self, mem, count):
        self.mem = memoryview(mem)
        self.count = count

    def readblocks(self, n, buf, off=0):
        a = n * LFS_BLOCK + off
        buf[:] = self.mem[a:a + len(buf)]

    def writeblocks(self, n, buf, off=None):
        raise OSError(30)             # EROFS

    def ioctl(self, op, arg):
        if op == 4:
            return self.count
        if op == 5:
            return LFS_BLOCK
        if op == 6:
            raise OSError(30)
        return 0


def legacy_files(fs, top=""):
    """[(path, bytes or None for a folder)] of a filesystem object's files
    (vfs.VfsLfs2 or littlefs-python's: ilistdir, open), folders first."""
    out = []
    for e in fs.ilistdir(top or "/"):
        name, kind = e[0], e[1]
        path = (top + "/" + name) if top else name
        if kind == 0x4000:
            out.append((path, None))
            out.extend(legacy_files(fs, path))
        elif moved(path):
            f = fs.open(path, "rb")
            try:
                out.append((path, f.read()))
            finally:
                f.close()
    return out


def is_littlefs(head):
    """Whether a block's first bytes are a littlefs superblock's."""
    return bytes(head[8:16]) == b"littlefs"


def boot(vfs, bdev, old_mem):
    """Mount the clock's filesystem at / (the image's _boot.py, generated by
    tools/fwimage.py, hands it the vfs module, the region's block device,
    rp2.Flash(), and the older layout's region as memory, read in place)."""
    try:
        fs = vfs.VfsLfs2(bdev, progsize=256)
    except OSError:
        found = _old_files(vfs, old_mem)
        vfs.VfsLfs2.mkfs(bdev, progsize=256)
        fs = vfs.VfsLfs2(bdev, progsize=256)
        if found:
            for path, data in found:
                if data is None:
                    fs.mkdir(path)
                else:
                    f = fs.open(path, "wb")
                    f.write(data)
                    f.close()
            print("filesystem: moved %d files from 0x%x (the older layout) to 0x%x"
                  % (len(found), XIP_BASE + LEGACY_OFFSET, XIP_BASE + FS_OFFSET))
    vfs.mount(fs, "/")


def within(files, most=MOVE_MOST):
    """legacy_files()'s list cut to `most` bytes: the files outside games/
    first, then the game logs newest first; (kept, how many left out)."""
    games = sorted([f for f in files if f[0].startswith("games/") and f[1] is not None],
                   reverse=True)
    kept = [f for f in files if f not in games]
    n = sum(len(d) for _p, d in kept if d is not None)
    left = 0
    for f in games:
        if n + len(f[1]) > most:
            left += 1
            continue
        n += len(f[1])
        kept.append(f)
    return kept, left


def _old_files(vfs, mem):
    """The files of an older layout's filesystem to move, or None (none
    there, or it cannot be read)."""
    if not (is_littlefs(mem[:16]) or is_littlefs(mem[LFS_BLOCK:LFS_BLOCK + 16])):
        return None
    try:
        old = vfs.VfsLfs2(_ReadOnly(mem, LEGACY_BLOCKS), progsize=256)
        files = legacy_files(old)
    except (OSError, MemoryError) as e:
        print("filesystem: the older layout's at 0x%x cannot be read (%s)"
              % (XIP_BASE + LEGACY_OFFSET, e))
        return None
    kept, left = within(files)
    if left:
        print("filesystem: %d older game logs at 0x%x left behind (more than %d KB)"
              % (left, XIP_BASE + LEGACY_OFFSET, MOVE_MOST // 1024))
    return kept
