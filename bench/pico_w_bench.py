"""The Wi-Fi clock as built (issue 38): a table's real RPI_PICO_W image (the
app frozen, net.json in its table block, as `make firmware-tables` makes
it) on the emulated Pico W (target/cyw43.js, target/netpeer.js) in a real
hall: the model's access point, DHCP, and the broker address of net.json
relayed to the hall's Mosquitto on this host, TLS with the hall's CA
pinned.  main.py runs the clock app as on a board: nothing is typed at its
REPL (a Ctrl-C into a running table image can leave lwIP's lock held).

One boot serves everything (HallClock): the simulated ms from power-up to
READY and to "hall connected" (the LCD's hall mark, view.G_HALL +
net.HALL_UP), the heap after boot and after a short game, and the game's
presses from pin edge to LCD while connected (bench/press_bench.py's
pico_presses).  The heap is read from the emulated RAM (harness PEEK)
between two emulated instructions, without touching the app: MicroPython's
own allocation table (py/gc.c), found by the invariants of its
mp_state_mem_area_t, its free blocks counted as gc.mem_free() counts them
and its longest free run as micropython.mem_info()'s "max free sz" (no
collection first: garbage not yet collected counts as used, so both are
lower bounds of what gc.collect() would leave).

    python -m bench.pico_w_bench [presses]      (prints the figures as JSON)
"""
import json
import os
import random
import sys
import tempfile

from host_sim import target

SSID, PASSPHRASE = "hall", "correct horse battery"
BROKER_IP = "192.168.4.10"     # the hall computer on the AP's network (net.json "host")
TABLE = 7
PATIENT_S = 300                # wall bound of a wait on the emulator (as tests/hallkit.py's)
UP_LIMIT_MS = 60000            # simulated: READY, then connected, by then (net.CONNECT_MS is 15 s a try)
RESULT_LIMIT_MS = 60000        # simulated: a game's result stored by the recorder by then

# py/gc.c on the RP2040 (32-bit): 16-byte blocks, four 2-bit entries an
# allocation-table byte, AT_FREE 0
BYTES_PER_BLOCK, BLOCKS_PER_ATB = 16, 4
SRAM, SRAM_WORDS = 0x20000000, 264 * 1024 // 4


def in_sram(a):
    return SRAM <= a < SRAM + SRAM_WORDS * 4


def find_gc_area(words):
    """(alloc table address, its length in bytes, pool start) of the GC
    area in a dump of SRAM (a list of words from SRAM): mp_state_mem_area_t's
    gc_alloc_table_start A and gc_alloc_table_byte_len L, followed within a
    few words (the finaliser's and weakref's tables, if built) by
    gc_pool_start P and gc_pool_end E with E - P == L * BLOCKS_PER_ATB *
    BYTES_PER_BLOCK and A + L <= P (gc_init's layout)."""
    found = []
    for i in range(len(words) - 6):
        a, n = words[i], words[i + 1]
        if not in_sram(a) or not 256 <= n <= 64 * 1024:
            continue
        for j in range(i + 2, i + 5):
            p, e = words[j], words[j + 1]
            if in_sram(p) and e - p == n * BLOCKS_PER_ATB * BYTES_PER_BLOCK and a + n <= p:
                found.append((a, n, p))
    if len(found) != 1:
        raise RuntimeError("the GC's area: %d candidates in SRAM (%r)" % (len(found), found[:4]))
    return found[0]


class Heap:
    """The image's GC heap, read through PEEK."""

    def __init__(self, pico):
        self.pico = pico
        self.atb, self.atb_len, self.pool = find_gc_area(pico.peek(SRAM, SRAM_WORDS))

    def read(self):
        """(free bytes, largest free block in bytes, total pool bytes) now."""
        words = self.pico.peek(self.atb, (self.atb_len + 3) // 4)
        raw = b"".join(w.to_bytes(4, "little") for w in words)[:self.atb_len]
        free = run = longest = 0
        for byte in raw:
            for k in range(BLOCKS_PER_ATB):
                if (byte >> (2 * k)) & 3 == 0:
                    free += 1
                    run += 1
                    if run > longest:
                        longest = run
                else:
                    run = 0
        return (free * BYTES_PER_BLOCK, longest * BYTES_PER_BLOCK,
                self.atb_len * BLOCKS_PER_ATB * BYTES_PER_BLOCK)


def hall_up(pico):
    """The LCD's last cell of row 1 is the hall mark "connected"
    (view._hall: G_HALL + net.HALL_UP)."""
    import net
    import view
    return pico.lcd.row_codes(1)[-1] == view.G_HALL + net.HALL_UP


def run_until(pico, cond, limit_ms, step_ms=50):
    """Pico.run_until, bounded by PATIENT_S of wall time too."""
    return pico.run_until(cond, limit_ms, step_ms, wall_s=PATIENT_S)


def table_image(hall, uf2, out):
    """uf2 with the hall's net.json for TABLE (its broker at BROKER_IP, the
    AP's SSID and passphrase) in the table block, as tools/fwimage.py
    tables() makes it: the path written."""
    from tools import fwimage
    cfg = hall.clock_config(TABLE, BROKER_IP, SSID, PASSPHRASE)
    fwimage.with_table_block(uf2, out, (json.dumps(cfg) + "\n").encode())
    return out


class HallClock:
    """The table image of `hall` booted on the emulated Pico W, the hall's
    TLS port relayed from BROKER_IP.  boot() runs it to READY and to
    connected; play() a short game; heap() the heap now."""

    def __init__(self, hall, uf2, folder):
        self.hall = hall
        img = table_image(hall, uf2, os.path.join(folder, "table-%02d.uf2" % TABLE))
        self.pico = target.Pico(os.path.join(folder, "flash.bin"), uf2=img,
                                cyw43=target.cyw43_blobs(), ap=(SSID, PASSPHRASE),
                                relay={(BROKER_IP, hall.port): hall.port})
        self.pico.nice = 10
        self.heap_reader = None
        self.ready_ms = self.up_ms = self.syn_ms = None
        self.connections = 0

    def boot(self):
        p = self.pico
        p.start()
        words = target.ready_words()
        if not run_until(p, lambda: p.shows(words), UP_LIMIT_MS, step_ms=10):
            raise RuntimeError("no READY by %d simulated ms: %r" % (p.t_ms, p.lcd.text_rows()))
        self.ready_ms = p.t_ms
        if not run_until(p, lambda: hall_up(p), UP_LIMIT_MS, step_ms=10):
            raise RuntimeError("not connected to the hall by %d simulated ms: %r"
                               % (p.t_ms, p.wifi[-20:]))
        self.up_ms = p.t_ms
        syn = [w for w in p.wifi if " TCP " in w and " SYN (mss " in w]
        self.syn_ms = int(syn[0].split()[0]) / 1000 if syn else None
        self.connections = len(syn)
        return self

    def heap(self):
        if self.heap_reader is None:
            self.heap_reader = Heap(self.pico)
        return self.heap_reader.read()

    def play(self, presses=8, seed=38, think_ms=0):
        """A game of `presses` presses after the start (pico_presses: the
        mover's button or the pause key, each timed from its edge to the
        LCD), a last move of `think_ms` with a clock running, then the end as
        the cards say: a stop, the pause key held 2 s (END?), both player
        buttons (yes).  The presses' {'lat_ms', 'kinds', ...}."""
        from bench import press_bench
        from bench.target_bench import both_keys, long_pause
        p = self.pico
        pause = press_bench.PICO_PINS[2]
        res = {"lat_ms": [], "kinds": [], "after_start_ms": []}
        press_bench.pico_presses(p, random.Random(seed), res, p.t_ms + 300, presses,
                                 new_game=0)
        t = p.t_ms + 600
        if res["kinds"][-1] == "stop":            # paused: the clock restarted first
            p.press(pause, t, hold_ms=80)
            t += 600
        t += think_ms
        p.press(pause, t, hold_ms=80)             # stopped
        t += 600
        long_pause(p, t)
        both_keys(p, t + 2400)
        p.run_to(t + 2400 + 1500)
        return res

    def recorded(self, game):
        """The recorder's lines of TABLE's game `game` (hall/recorder.py)."""
        return [r for r in self.hall.records() if r["table"] == TABLE and r["game"] == game]

    def until_recorded(self, game, also=lambda: True):
        """Run on until the recorder has stored the game's result (and
        also()), at most RESULT_LIMIT_MS simulated: whether it did."""
        p = self.pico
        return run_until(p, lambda: self.recorded(game) and also(), p.t_ms + RESULT_LIMIT_MS,
                         step_ms=200)

    def stop(self):
        self.pico.stop()


def measure(presses=8):
    """The figures of one boot in a hall of its own (JSON-able)."""
    from bench.hall_bench import bench_hall
    from tools import fwimage
    why = target.pico_missing() or (None if target.cyw43_blobs() else
                                    "no cyw43-driver sources (make firmware unpacks them)")
    if why:
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory(prefix="pico-w-hall-") as d:
        try:
            uf2 = fwimage.build("pico_w", out=os.path.join(d, "pico_w.uf2"))["path"]
        except fwimage.FirmwareError as e:
            raise RuntimeError("firmware image: %s" % e)
        h = bench_hall(os.path.join(d, "hall"), tables=TABLE)[0]
        h.start()
        c = HallClock(h, uf2, d)
        try:
            c.boot()
            boot_heap = c.heap()
            res = c.play(presses)
            if not c.until_recorded(1):
                raise RuntimeError("the game's result was not recorded: %r" % c.pico.wifi[-20:])
            game_heap = c.heap()
        finally:
            c.stop()
            h.stop()
    return {"ready_ms": c.ready_ms, "up_ms": c.up_ms, "syn_ms": c.syn_ms,
            "connections": c.connections, "boot_heap": boot_heap,
            "game_heap": game_heap, "lat_ms": res["lat_ms"], "kinds": res["kinds"]}


# -- the published figures (bench/run.py) --------------------------------------------

FIGURES = ("pico_w_hall_ready_ms", "pico_w_hall_connected_ms",
           "pico_w_hall_free_after_boot_bytes", "pico_w_hall_largest_block_after_boot_bytes",
           "pico_w_hall_free_after_game_bytes", "pico_w_hall_largest_block_after_game_bytes",
           "pico_w_hall_press_to_lcd_ms_p50", "pico_w_hall_press_to_lcd_ms_p99")
PRESSES = 8
PRESS_BUDGET_MS = 30           # SPEC v3 §6


def figures(r=None):
    """[Figure] of measure() (or of its result `r`)."""
    import app
    import net
    from bench.figures import BenchError, Figure
    from bench.press_bench import pct
    try:
        r = r or measure(PRESSES)
    except RuntimeError as e:
        raise BenchError(str(e))
    how = ("a table's real RPI_PICO_W image (make firmware-tables: the app frozen, "
           "net.json in the table block) on the emulated Pico W (rp2040js, "
           "target/cyw43.js, target/netpeer.js), joined to the model's access point "
           "and connected over TLS (the hall's CA pinned) to the real Mosquitto of a "
           "running hall through the relay; main.py as on a board (bench/pico_w_bench.py)")
    heap = ("gc.mem_free() as the app would read it at that instant (py/gc.c's allocation "
            "table read from the emulated RAM; no collection forced, so garbage not yet "
            "collected counts as used: a lower bound)")
    block = "the largest free heap block (mem_info()'s max free sz) at that instant"
    pool = r["boot_heap"][2]
    game = "%d presses timed, a stop, END? and yes" % len(r["lat_ms"])
    p50, p99 = pct(r["lat_ms"])
    return [
        Figure("pico_w_hall_ready_ms", r["ready_ms"], "ms", app.SPLASH_MS,
               "simulated ms from power-up to READY on the LCD, %s" % how,
               "the splash alone (app.SPLASH_MS): the least any boot shows before READY"),
        Figure("pico_w_hall_connected_ms", r["up_ms"], "ms", r["ready_ms"],
               "simulated ms from power-up to the hall mark \"connected\" (the broker's "
               "CONNACK: Wi-Fi join, DHCP, TCP, the TLS handshake on core 1, MQTT), %s" % how,
               "READY in the same run", "within net.CONNECT_MS (%d ms) of READY: the first try"
               % net.CONNECT_MS, r["up_ms"] - r["ready_ms"] <= net.CONNECT_MS,
               ["the clock's TCP SYN to the broker at %.0f ms; %d TCP connection(s) by then "
                "(the LCD polled every 50 simulated ms)" % (r["syn_ms"], r["connections"])]),
        Figure("pico_w_hall_free_after_boot_bytes", r["boot_heap"][0], "bytes", pool,
               "free heap once connected after boot: %s, %s" % (heap, how),
               "the image's whole GC pool"),
        Figure("pico_w_hall_largest_block_after_boot_bytes", r["boot_heap"][1], "bytes", pool,
               "%s, once connected after boot, %s" % (block, how), "the image's whole GC pool"),
        Figure("pico_w_hall_free_after_game_bytes", r["game_heap"][0], "bytes", pool,
               "free heap after a game (%s), its result stored by the hall's recorder: %s, %s" % (game, heap, how),
               "the image's whole GC pool"),
        Figure("pico_w_hall_largest_block_after_game_bytes", r["game_heap"][1], "bytes", pool,
               "%s, after the game, %s" % (block, how), "the image's whole GC pool"),
        Figure("pico_w_hall_press_to_lcd_ms_p50", p50, "ms", PRESS_BUDGET_MS,
               "from a key's pin edge to the LCD showing it, median of the game's presses "
               "(the mover's button, the pause key), connected to the hall all along, %s" % how,
               "the budget (SPEC v3 §6)", "<= 30", p50 <= PRESS_BUDGET_MS),
        Figure("pico_w_hall_press_to_lcd_ms_p99", p99, "ms", PRESS_BUDGET_MS,
               "as pico_w_hall_press_to_lcd_ms_p50, 99th percentile", "the budget (SPEC v3 §6)",
               "<= 30", p99 <= PRESS_BUDGET_MS, ["%d presses: %s ms" % (len(r["lat_ms"]), r["lat_ms"])]),
    ]


if __name__ == "__main__":
    print(json.dumps(measure(*(int(a) for a in sys.argv[1:]))))
