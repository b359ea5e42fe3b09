"""The firmware image's figures (issue 30): heap, boot times and sizes of the
app frozen into MicroPython (`make firmware`, tools/fwimage.py) against
today's .mpy deployment (`make deploy`), on the emulated Pico (rp2040js,
host_sim/target.py).

Two runs of one game each, at the REPL (Ctrl-C stops main.py in its splash;
the same measuring script is pasted in both runs, its own bytecode on the
heap in both):

    pico frozen     build/firmware image for pico (RPI_PICO + clock-core)
    pico .mpy       the official RPI_PICO v1.28.0 image + the pico bundle

The Pico W's heap is measured on its real image, pico_w.uf2 with the radio
model, in a hall (bench/pico_w_bench.py, `pico_w_hall_*`); the stand-in
that measured it here (pico_w frozen on RPI_PICO with lwIP and no radio,
the heap cut to a Pico W's by a ballast) is gone.  Only the real image's
flash size is taken from here.

Each builds App(board, machine), measures (gc.collect(); gc.mem_free(); the
largest free block from micropython.mem_info()'s "max free sz", in 16-byte
blocks), then plays a game through the GPIOs: GAME_STOPS turns, each with a
stop (the pause key, then again to resume), then the end (pause, long pause,
both players: yes); collections (drops of gc.mem_alloc() between steps) and
MemoryErrors are counted during the game, then the heap is measured again.

Two more runs time main.py as on a clock (frozen, and .mpy for the
baseline): power-up to READY on a blank filesystem, and, after a game was
cut off by a power cut, power-up to GAME RESTORED.

    python -m bench.image_bench [pico_frozen pico_mpy boot_frozen boot_mpy]      (default: every run)
"""
import os
import re
import tempfile

from bench.figures import side_by_side
from bench.target_bench import both_keys, long_pause, stopped_turns  # the end: long pause, both keys
from host_sim import target
import lang  # noqa: E402  (firmware/, on host_sim's path)

LEFT, RIGHT, PAUSE = 14, 15, 13
GAME_STOPS = int(os.environ.get("IMAGE_BENCH_STOPS", "20"))   # (fewer: a quick look)
GAP_MS = 400                # between presses: a turn, a pause, a resume (the 500 ms
                            # lock-out is the started side's, whose next press is 1.2 s on)


CODE = """\
import gc, micropython, time
gc.collect()
import board, machine
from app import App
import clockcore as cc
def info(tag):
    gc.collect()
    micropython.mem_info()
    print(tag, gc.mem_free(), gc.mem_alloc(), 1 if a.net is not None else 0)
a = App(board, machine)
c = a.clock
info('BOOT')
E = [0, 0, 0]   # MemoryErrors, collections, steps
def pause():
    now = time.ticks_ms()
    a._sleep(a.nap, now, a._pause_ms(now))
while c.state == cc.READY:
    a.step()
    pause()
gc.collect()
last = gc.mem_alloc()
while c.state != cc.OVER:
    try:
        a.step()
    except MemoryError:
        E[0] += 1
    m = gc.mem_alloc()
    if m < last:
        E[1] += 1
    last = m
    E[2] += 1
    pause()
print('GAME', E[0], E[1], E[2])
info('OVER')
print('END', 'OK')
"""


def _paste(pico, code):
    pico.type_serial(b"\x05")
    pico.type_serial(code.replace("\n", "\r\n").encode())
    pico.type_serial(b"\x04")


def _heap_lines(text, tag):
    """(free, allocated, net running, largest free block in bytes) of the
    info(tag) print and the mem_info() just before it."""
    m = re.search(r"max free sz: (\d+)[^\n]*\n(?:[^\n]*\n)*?%s (\d+) (\d+) (\d+)" % tag, text)
    if not m:
        raise RuntimeError("no %s figures in:\n%s" % (tag, text[-1500:]))
    return int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(1)) * 16


def game_run(uf2, fs_image, flash):
    """One game at the REPL (the module's docstring); a dict of figures."""
    pico = target.Pico(flash, fs_image=fs_image, uf2=uf2).start()
    try:
        pico.run_to(300)
        pico.write_serial(b"\x03\x03")
        pico.run_to(600)
        n0 = len(pico.serial)
        _paste(pico, CODE)
        t = pico.t_ms + 4000
        deadline = t + 30000
        while b"BOOT " not in pico.serial[n0:] and pico.t_ms < deadline:
            pico.run_to(pico.t_ms + 500)
        t = pico.t_ms + 1000
        t = stopped_turns(pico, t, GAME_STOPS, GAP_MS, LEFT, RIGHT)
        pico.press(PAUSE, t)
        long_pause(pico, t + GAP_MS)
        both_keys(pico, t + GAP_MS + 2600)
        t += 5000
        deadline = t + 30000
        pico.run_to(t)
        while b"END OK" not in pico.serial[n0:] and pico.t_ms < deadline:
            pico.run_to(pico.t_ms + 1000)
        out = pico.serial[n0:].decode(errors="replace")
    finally:
        pico.stop()
    m = re.search(r"^GAME (\d+) (\d+) (\d+)", out, re.M)
    if not m or "END OK" not in out:
        raise RuntimeError("the game run did not finish:\n" + out[-1500:])
    boot = _heap_lines(out, "BOOT")
    over = _heap_lines(out, "OVER")
    return {"boot_free": boot[0], "boot_alloc": boot[1], "net": boot[2], "boot_block": boot[3],
            "over_free": over[0], "over_alloc": over[1], "over_block": over[3],
            "memory_errors": int(m.group(1)), "collections": int(m.group(2)),
            "steps": int(m.group(3)), "stops": GAME_STOPS}


def boot_run(uf2, fs_image, flash):
    """main.py as on a clock: power-up to READY; a game started and cut off
    by a power cut; power-up to GAME RESTORED.  (ready_ms, restored_ms)"""
    pico = target.Pico(flash, fs_image=fs_image, uf2=uf2).start()
    try:
        ready = pico.run_to_ready()
        pico.press(LEFT, pico.t_ms + 100)
        pico.press(RIGHT, pico.t_ms + 1200)
        pico.run_to(pico.t_ms + 5000)
    finally:
        pico.stop()
    pico = target.Pico(flash, uf2=uf2).start()
    try:
        restored = pico.run_until_shown(lang.text("en", "RESTORED"))
    finally:
        pico.stop()
    return ready, restored


def images():
    """{name: info} of the frozen images this bench boots (built or taken
    from the cache: tools/fwimage.py)."""
    import fwimage
    out = os.path.join(target.ROOT, "build", "firmware")
    return {"pico": fwimage.build("pico", out=os.path.join(out, "pico.uf2")),
            "pico_w": fwimage.build("pico_w", out=os.path.join(out, "pico_w.uf2"))}


def measure(log=None, only=None):
    """The figures of every run (the module's docstring), the runs side by
    side (each an emulator process of its own: on two cores they take about
    as long as the longest run alone would on a busy machine)."""
    why = target.pico_missing()
    if why:
        raise RuntimeError(why)
    import fwimage
    try:
        imgs = images()
    except fwimage.FirmwareError as e:
        raise RuntimeError("firmware image: %s" % e)
    res = {"images": imgs}
    region = target.IMAGE_LFS_BLOCKS * target.LFS_BLOCK    # the images' region
    official = target.image(target.PICO_UF2)
    with tempfile.TemporaryDirectory(prefix="image-bench-") as d:
        def fs(name, files):
            p = os.path.join(d, name + ".img")
            with open(p, "wb") as f:
                f.write(fwimage.littlefs_region(files, region))
            return p

        empty = fs("empty", {})
        sub = os.path.join(d, "b-pico")
        os.makedirs(sub)
        pico_bundle = os.path.join(d, "pico-bundle.img")
        with open(pico_bundle, "wb") as f:
            f.write(target.bundle_image(sub, board="pico"))
        runs = [("pico_frozen", game_run, imgs["pico"]["path"], empty),
                ("pico_mpy", game_run, official, pico_bundle),
                ("boot_frozen", boot_run, imgs["pico"]["path"], empty),
                ("boot_mpy", boot_run, official, pico_bundle)]

        def one(run):
            name, fn, uf2, img = run
            flash = os.path.join(d, name + ".flash")
            got = fn(uf2, img, flash)
            if log:
                log("%s: %r" % (name, got))
            return name, got

        runs = [r for r in runs if not only or r[0] in only]
        for name, got in side_by_side(*(lambda run=run: one(run) for run in runs)):
            res[name] = got
    res["official_uf2_bytes"] = os.path.getsize(official)
    return res


if __name__ == "__main__":
    import pprint
    import sys
    pprint.pprint(measure(log=lambda s: print(s, flush=True), only=sys.argv[1:]))


# -- the published figures (bench/run.py) --------------------------------------------

FIGURES = ("target_free_heap_after_boot_bytes", "image_pico_free_after_game_bytes",
           "image_pico_largest_block_after_game_bytes", "image_boot_to_ready_ms", "image_power_up_to_restored_ms",
           "image_pico_uf2_bytes", "image_pico_w_flash_bytes")


FROZEN_RUNS = ("pico_frozen", "boot_frozen")
MPY_RUNS = ("pico_mpy", "boot_mpy")   # the baseline (bench/run.py keeps it)


def fits(kept):
    """Whether a kept baseline of MPY_RUNS was measured with today's game
    (its game runs played GAME_STOPS stops)."""
    return all(isinstance(kept.get(k), dict) and kept[k].get("stops") == GAME_STOPS
               for k in MPY_RUNS if k != "boot_mpy")


def figures(r=None, mpy_how=""):
    """[Figure] of measure() (or of its result `r`): the frozen images
    against the .mpy deployment (`mpy_how`: when and where that baseline was
    measured, added to its texts)."""
    from bench.figures import BenchError, Figure
    try:
        r = r or measure()
    except RuntimeError as e:
        raise BenchError(str(e))
    pf, pm = r["pico_frozen"], r["pico_mpy"]
    game = ("a game of %d turns, each with a stop (pause, resume), to its end, played "
            "through the GPIOs at the REPL (bench/image_bench.py)" % GAME_STOPS)
    fro = "the app frozen into MicroPython v1.28.0 (make firmware, RPI_PICO), on rp2040js"
    mpy = "the .mpy bundle on the official RPI_PICO v1.28.0 image (make deploy)%s" % mpy_how
    ready_f, restored_f = r["boot_frozen"]
    ready_m, restored_m = r["boot_mpy"]
    return [
        Figure("target_free_heap_after_boot_bytes", pf["boot_free"], "bytes", pm["boot_free"],
               "gc.collect(); gc.mem_free() once App(board, machine) is built, %s" % fro,
               "the same with %s" % mpy,
               notes=["largest free block %d B (the .mpy bundle: %d B); %d B allocated "
                      "(%d B)" % (pf["boot_block"], pm["boot_block"], pf["boot_alloc"],
                                  pm["boot_alloc"])]),
        Figure("image_pico_free_after_game_bytes", pf["over_free"], "bytes", pm["over_free"],
               "free heap after %s, %s" % (game, fro), "the same with %s" % mpy,
               notes=["%d MemoryErrors, %d collections in the game (the .mpy bundle: %d, %d)"
                      % (pf["memory_errors"], pf["collections"], pm["memory_errors"],
                         pm["collections"])]),
        Figure("image_pico_largest_block_after_game_bytes", pf["over_block"], "bytes",
               pm["over_block"], "the largest free heap block after the game (mem_info's "
               "max free sz), %s" % fro, "the same with %s" % mpy),
        Figure("image_boot_to_ready_ms", ready_f, "ms", ready_m,
               "power-up to READY on the LCD (main.py, a blank filesystem; the splash "
               "stays 1.5 s), %s" % fro, "the same with %s" % mpy),
        Figure("image_power_up_to_restored_ms", restored_f, "ms", restored_m,
               "power-up to GAME RESTORED on the LCD after a power cut in a running game, %s"
               % fro, "the same with %s" % mpy),
        Figure("image_pico_uf2_bytes", r["images"]["pico"]["bytes"], "bytes",
               r["official_uf2_bytes"], "build/firmware/pico.uf2 (%d B of flash)"
               % r["images"]["pico"]["flash_bytes"],
               "the official RPI_PICO v1.28.0 .uf2 (without the app)"),
        Figure("image_pico_w_flash_bytes", r["images"]["pico_w"]["flash_bytes"], "bytes",
               r["images"]["pico"]["flash_bytes"],
               "flash build/firmware/pico_w.uf2 takes (RPI_PICO_W with the radio's "
               "firmware, lwIP and TLS; .uf2: %d B)"
               % r["images"]["pico_w"]["bytes"], "the pico image's"),
    ]
