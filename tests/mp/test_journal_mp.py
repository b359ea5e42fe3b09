# The running-clock journal under the real MicroPython (issue 11 items 2 and
# 3 "Flash erases": while a clock runs, no flash erase and 0 heap bytes per
# main-loop iteration, counting iterations with a press, a checkpoint or a
# log line; issue 20: the same for a stop; SPEC §6: no garbage collection
# during a game; issue 18: a press also copies the game's snapshot into its
# slot and marks the log, and a press inside the 500 ms lock-out is a record
# of its own).
#
# The app runs on the rig (fake pins and LCD) with its files on MicroPython's
# own littlefs (os.VfsLfs2) over the NOR model of ramflash.py, in a
# bytearray mounted at /jnl; the filesystem adapter offers that block device
# as raw(), as fsys.OsFS does with rp2.Flash() on the Pico.  Each main-loop
# iteration's allocation is read with micropython.mem_total() around
# App.step() alone (the fake pins are driven outside it).
import gc
import os

import sim as board          # boards/sim.py
import clockcore as cc
import fsys
import journal
import ramflash
from mptest import eq
from rig import Rig, LEFT, RIGHT, PAUSE, end_game

MOUNT = "/jnl"
BLOCKS = 12                  # 48 KB of RAM (the Pico's heap is 240 KB): the games,
                             # the state, the journal
try:
    from micropython import mem_total
except ImportError:          # CPython: the figures are MicroPython's
    mem_total = None


class JournalFS(fsys.OsFS):
    def __init__(self, bdev):
        self.bdev = bdev

    def raw(self):
        return self.bdev


def _mount(blocks=BLOCKS):
    try:
        os.umount(MOUNT)
    except OSError:
        pass
    gc.collect()
    # (one allocation; littlefs erases each block before it programs it)
    bdev = ramflash.RamFlash(count=blocks, ram=bytearray(blocks * ramflash.BLOCK))
    os.VfsLfs2.mkfs(bdev, progsize=256)
    os.mount(os.VfsLfs2(bdev, progsize=256), MOUNT)
    return bdev


def _settings(root):
    f = open(root + "settings.json", "w")
    f.write('{"v": 1, "profile": "sdev", "base_left": 600000, "base_right": 600000, '
            '"lang": "en", "sound": true}')
    f.close()


class Steps:
    """Main-loop iterations 5 ms apart, each one's allocation measured."""

    def __init__(self, rig, bdev):
        self.rig = rig
        self.bdev = bdev
        self.worst = 0
        self.worst_running = 0  # the same, over iterations a clock ran throughout
        self.n = 0
        self.erases = 0       # erases while a clock ran
        self.events = 0

    def run(self, ms, step=5):
        rig = self.rig
        app = rig.app
        j = app.session.j
        k = ms // step
        while k > 0:
            rig.now = rig.add(rig.now, step)
            running = app.clock.running() >= 0
            e = self.bdev.erases
            c = j.count
            a = mem_total() if mem_total else 0
            app.step()
            b = mem_total() if mem_total else 0
            if b - a > self.worst:
                self.worst = b - a
            if running and app.clock.running() >= 0:
                self.erases += self.bdev.erases - e
                if b - a > self.worst_running:
                    self.worst_running = b - a
            self.events += j.count - c
            self.n += 1
            k -= 1

    def press(self, b, hold=80):
        self.rig.down(b)
        self.run(hold)
        self.rig.up(b)
        self.run(400)


def test_no_erase_and_no_allocation_while_a_clock_runs():
    units = journal.UNITS
    bdev = _mount()
    try:
        root = MOUNT + "/"
        _settings(root)
        journal.UNITS = 8      # 8 KB of the small disk
        rig = Rig(board, root, fs=JournalFS(bdev))
        app = rig.app
        s = Steps(rig, bdev)
        s.run(1600)                        # the splash
        s.run(200)                         # ready: the journal is armed in slices
        eq(app.session.j is not None and app.session.j.ok, True, "journal armed")
        s.press(LEFT)                      # the game starts: right runs
        eq(app.clock.running(), cc.RIGHT, "right runs")
        gc.collect()
        gc.disable()                       # no collection hides an allocation
        try:
            s.worst = 0
            s.run(4500)                    # a checkpoint (4 s)
            s.press(RIGHT)                 # a turn-ending press: its record
            # SPEC v3 §4 Buttons: left's own button 480 ms after right's
            # press started left is locked out (a "pressed together" record),
            # then right's stray touch while left runs (the core ignores it:
            # an event record); every press snapshots the game first
            # (App._keep, Session.mark): none of it allocates
            s.press(LEFT)
            s.press(RIGHT, 30)
            eq(app.clock.running(), cc.LEFT, "left still runs")
            s.run(9000)                    # two checkpoints, the window closes
            s.press(LEFT)
            s.run(4500)
        finally:
            gc.enable()
        eq(app.clock.running(), cc.RIGHT, "right runs")
        print("journal: %d iterations, %d records, worst %d B per iteration, "
              "%d erases while a clock ran" % (s.n, s.events, s.worst, s.erases))
        eq(s.events >= 6, True, "records written (presses, window, checkpoints)")
        eq(s.erases, 0, "flash erases while a clock ran")
        if mem_total is not None:
            eq(s.worst, 0, "heap bytes in the worst main-loop iteration")
        # issue 20: a stop is as lean as a running second: the pause step
        # allocates nothing and writes no file (its record is programmed
        # after the LCD shows PAUSE)
        e = bdev.erases
        gc.collect()
        gc.disable()
        try:
            s.worst = 0
            s.press(PAUSE)
        finally:
            gc.enable()
        eq(app.clock.state, cc.PAUSED, "paused")
        eq(bdev.erases, e, "erases at a pause")
        eq(app.session.j.count > app.session.folded, True, "not folded at a pause")
        if mem_total is not None:
            eq(s.worst, 0, "heap bytes in the worst pause iteration")
        # the end of the game: the journal goes to the files (erases allowed)
        rig.perform(end_game(False))
        eq(app.clock.state, cc.OVER, "over")
        s.run(2000)
        eq(app.session.j.count, app.session.folded, "folded")
        f = open(root + "games/g0001.txt")
        text = f.read()
        f.close()
        eq(text.count("\n") >= 6 and " pause  # " in text, True, "the log got the lines")
        eq("left ignored: pressed together with right" in text, True, "the lock-out's line")
    finally:
        journal.UNITS = units
        os.umount(MOUNT)


def test_a_60_minute_game_runs_without_a_garbage_collection():
    """Issue 11 item 2, issue 20: "no garbage collection during a simulated
    60-minute game" (SPEC §6), its stops included.  A whole sdev game (30:00
    a side) on the journal, in 20 ms main-loop iterations (the app's idle
    loop period): a turn every 30 s, a challenge pause every 2 minutes (the
    stop writes no file: the journal is folded into the files at the end).
    MicroPython collects only when an allocation finds no room, and
    gc.mem_alloc() drops only at a collection: it never drops in the game
    (read after every turn, before its press: gc.mem_alloc() walks the
    whole heap, ~0.5 ms on the 4 MB unix heap, which read after each of the
    177,000 iterations was most of this test's time), and no iteration
    allocates.  (Unix port only: a 60-minute game takes minutes on the
    32-bit qemu image, which runs the short test above.)"""
    import sys
    if sys.maxsize < (1 << 40):
        return
    units = journal.UNITS
    bdev = _mount(40)
    try:
        root = MOUNT + "/"
        f = open(root + "settings.json", "w")
        # (sound off: the fake PWM records every tone change in a growing
        # list for the tests; the real PWM's freq()/duty_u16() are C calls)
        f.write('{"v": 1, "profile": "sdev", "base_left": 1800000, '
                '"base_right": 1800000, "lang": "en", "sound": false}')
        f.close()
        journal.UNITS = 130    # 1170 records: the whole game
        rig = Rig(board, root, fs=JournalFS(bdev))
        app = rig.app
        s = Steps(rig, bdev)
        s.run(1600)
        s.press(LEFT)
        gc.collect()
        s.worst = 0
        drops = n = stops = 0
        side = RIGHT
        last = gc.mem_alloc()
        for minute in range(60):
            for half in range(2):
                k = (30000 - 480) // 20   # a turn: 30 s with its press
                while k > 0:
                    s.run(20, 20)
                    n += 1
                    k -= 1
                m = gc.mem_alloc()
                if m < last:
                    drops += 1         # a collection in the game
                last = m
                s.press(side)
                side = LEFT if side == RIGHT else RIGHT
            if minute % 2 == 1:        # a challenge: the clock stops
                s.press(PAUSE)
                s.run(2000)
                s.press(PAUSE)
                stops += 1
            m = gc.mem_alloc()
            if m < last:
                drops += 1
            last = m
        print("60-minute game: %d iterations, %d stops, worst %d B, %d collections, "
              "%d erases while a clock ran" % (n, stops, s.worst, drops, s.erases))
        eq(app.clock.rem[0] < 0 or app.clock.rem[1] < 0, True, "a side is in overtime")
        eq(drops, 0, "garbage collections in the game")
        eq(s.erases, 0, "flash erases while a clock ran")
        eq(app.session.j.full(), False, "the journal held the game")
        if mem_total is not None:
            eq(s.worst, 0, "heap bytes in the worst iteration of the game")
    finally:
        journal.UNITS = units
