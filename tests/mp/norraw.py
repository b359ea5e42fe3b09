# The raw NOR flash under littlefs, as the running-clock journal sees it
# (the rp2.Flash() API: readblocks/writeblocks with an offset, ioctl), for
# both flash models: tests/norfs.py (CPython) and tests/mp/norflash.py
# (MicroPython).  `nor` is the model: .buffer (the bytes), .blocks,
# .raw_programs (counted here), .budget (None, or the changed bytes left
# before a power cut: PowerCut), .busy/.prog_ms (the flash's time, if set),
# .hook (None, or hook(block, offset, data) before each operation).
BLOCK = 4096


class PowerCut(Exception):
    pass


class Raw:
    """The block device under the filesystem (the rp2.Flash() API)."""

    def __init__(self, nor):
        self.nor = nor

    def readblocks(self, blk, buf, off=0):
        a = blk * BLOCK + off
        # through a memoryview: no 4 KB copy of the block on the heap (the
        # real flash reads into buf; on the qemu image's fragmented 240 KB
        # heap a copy could fail with MemoryError)
        buf[:] = memoryview(self.nor.buffer)[a:a + len(buf)]

    def writeblocks(self, blk, buf, off=None):
        if off is None:
            raise AssertionError("the journal never erases (writeblocks without an offset)")
        nor = self.nor
        a = blk * BLOCK + off
        if (a & 255) or len(buf) != 256:
            raise AssertionError("a NOR page program is one whole aligned page")
        if nor.hook is not None:
            nor.hook(blk, off, buf)
        b = nor.buffer
        for i in range(len(buf)):
            new = b[a + i] & buf[i]
            if new != b[a + i]:
                if nor.budget is not None:
                    if nor.budget <= 0:
                        raise PowerCut()
                    nor.budget -= 1
                b[a + i] = new
        nor.raw_programs += 1
        busy = getattr(nor, "busy", None)
        if busy is not None:
            busy(nor.prog_ms)

    def ioctl(self, op, arg):
        if op == 4:
            return self.nor.blocks
        if op == 5:
            return BLOCK
        return 0
