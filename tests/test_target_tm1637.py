"""The TM1637 driver on the emulated Pico's GPIOs (issue 28): the official
RPI_PICO image on rp2040js, firmware/tm1637.py on real machine.Pin objects
in open-drain mode, the modules' lines and ACK modelled by target/tm1637.js
and decoded on the host by host_sim/fakehw/tm1637_emu.py.  A short script,
not the app (the bench runs the app: bench/press_bench.py pico_tm1637).
"""
import os

from conftest import FIRMWARE, need
from host_sim import CORE, firmware_files, target

LEFT, RIGHT = (10, 11), (20, 21)           # boards/pico_tm1637.py
MAIN = """\
from machine import Pin
import time, tm1637
def od(n):
    return Pin(n, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1)
m = tm1637.Modules(tm1637.Tm1637(od(10), od(11), 5), tm1637.Tm1637(od(20), od(21), 5))
for k in range(4):
    tm1637.time_segs(m.bufs[0], 90000 - k * 1000)
    tm1637.time_segs(m.bufs[1], -61000 - k * 1000)
    m.draw(0)
    m.draw(1)
    time.sleep_ms(200)
t = time.ticks_us()
m.mods[0].invalidate()
m.draw(0)
print('US', time.ticks_diff(time.ticks_us(), t))
print('ERRORS', m.errors, bytes(m.down))
"""


def test_driver_on_the_emulated_pico(tmp_path):
    need(target.pico_missing())
    fs = tmp_path / "fs"
    (tmp_path / "main.py").write_text(MAIN)
    # the app's modules (clock-core) as .mpy, its main.py replaced by MAIN
    target.compile_tree(str(fs), [os.path.join(FIRMWARE, n) for n in firmware_files(package=CORE)
                                  if n != "main.py"]
                        + [str(tmp_path / "main.py")], keep_py=("main.py",))
    img = tmp_path / "fs.img"
    img.write_bytes(target.littlefs_image(str(fs), dirs=()))
    pico = target.Pico(str(tmp_path / "flash.bin"), fs_image=str(img), tm1637=(LEFT, RIGHT)).start()
    sent = []
    pico.on_tm = lambda clk, us: sent.append(clk)
    try:
        t = 0
        while b"ERRORS" not in pico.serial and t < 20000:
            t += 500
            pico.run_to(t)
        out = pico.serial.decode(errors="replace")
    finally:
        pico.stop()
    assert "ERRORS 0 b'\\x00\\x00'" in out, out[-800:]   # every byte ACKed by target/tm1637.js
    left, right = pico.tm[LEFT[0]], pico.tm[RIGHT[0]]
    assert (left.text(), right.text()) == ("01:27", "-1:04"), out[-800:]
    assert (left.on, left.brightness, right.brightness) == (True, 5, 5)
    assert left.errors == [] and right.errors == []
    # four changes a side, three commands each, and the forced resend
    assert (left.frames, right.frames) == (15, 12)
    us = int(out.split("US ")[1].split()[0])
    print("one module's full update: %d us" % us)
    assert 0 < us < 5000, us                 # bit-banged, 7 bytes
