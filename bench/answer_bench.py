"""The answer to a question on the emulated Pico (issue 36, SPEC v5 §4, §6),
for `make bench` (bench/run.py):

latency  main.py from the deployed bundle on the official RPI_PICO image
         (rp2040js, host_sim/target.py), the LCD decoded from the real I2C
         traffic: games stopped, END? asked (the pause key held 2 s), both
         player buttons pressed 20-300 ms apart and held on; then NEW GAME?
         answered the same way.  The figure is the time from the instant
         both have been down 1 s (the second button's edge + 1000 ms) to
         the first simulated ms at which the LCD shows the answer (`END` in
         the centre, then `READY`), read every ms: SPEC §6's 30 ms budget.
heap     App.step() counted at the REPL (bench/target_bench.py's way): a
         game stopped, END? showing, gc disabled; the heap allocated in a
         window with no key down, then in one with a player button held
         (an answer begun, SPEC v5: it changes nothing): 0 B, SPEC §6.

`python bench/answer_bench.py [latency [GAMES]|heap]` prints the raw result as JSON.
"""
import json
import os
import random
import re
import sys
import tempfile

from bench import target_bench
from host_sim import target  # (also: the firmware on sys.path)
import game  # noqa: E402  (firmware/game.py: LOCK_MS)

LEFT, RIGHT, PAUSE = 14, 15, 13      # boards/pico.py
CONFIRM_MS = 1000                    # both player buttons held 1 s
SDEV = (b'{"v": 1, "profile": "sdev", "base_left": 600000, "base_right": 600000, '
        b'"lang": "en", "sound": true}')


def _shows(pico, word):
    return pico.lcd.text_rows()[1].strip() == word


def _answer(pico, rng, t, word, limit_ms=300):
    """Both player buttons, the second 20-300 ms after the first, held; the
    ms from their 1 s instant to the LCD showing `word`."""
    pico.run_to(t)
    first = LEFT if rng.random() < 0.5 else RIGHT
    pico.pin(first, 0)
    t2 = t + rng.randint(20, 300)
    pico.run_to(t2)
    pico.pin(RIGHT if first == LEFT else LEFT, 0)
    yes = t2 + CONFIRM_MS
    pico.run_to(yes - 1)
    if _shows(pico, word):
        raise RuntimeError("the answer showed before its instant: %r" % pico.lcd.text_rows())
    got = None
    for ms in range(0, limit_ms):
        pico.run_to(yes + ms)
        if _shows(pico, word):
            got = ms
            break
    if got is None:
        raise RuntimeError("no %s within %d ms of the answer: %r"
                           % (word, limit_ms, pico.lcd.text_rows()))
    pico.run_to(yes + limit_ms)
    pico.pin(LEFT, 1)
    pico.pin(RIGHT, 1)
    return got, yes + limit_ms


def latency(games=5, seed=36):
    """{'end_ms': [...], 'new_ms': [...]}: `games` games, each ended and
    left with a new game, both answers measured."""
    why = target.pico_missing()
    if why:
        raise RuntimeError(why)
    rng = random.Random(seed)
    res = {"end_ms": [], "new_ms": []}
    with tempfile.TemporaryDirectory(prefix="pico-answer-") as d:
        img = os.path.join(d, "fs.img")
        with open(img, "wb") as f:
            f.write(target.bundle_image(d, extra={"settings.json": SDEV}))
        pico = target.Pico(os.path.join(d, "flash.bin"), fs_image=img).start()
        try:
            pico.run_to_ready()
            t = pico.t_ms + 100
            for _ in range(games):
                pico.press(LEFT, t)                       # right runs
                t += rng.randint(game.LOCK_MS + 100, 1200)
                pico.press(RIGHT, t)                      # left runs
                t += rng.randint(game.LOCK_MS + 100, 1200)
                pico.press(PAUSE, t)                      # stopped
                t += 400
                pico.press(PAUSE, t, bounce=(), hold_ms=2100)   # END?
                t += 2300
                got, t = _answer(pico, rng, t + rng.randint(0, 300), "END")
                res["end_ms"].append(got)
                t += 300
                pico.press(PAUSE, t, bounce=(), hold_ms=2100)   # NEW GAME?
                t += 2300
                got, t = _answer(pico, rng, t + rng.randint(0, 300),
                                 target.ready_words())
                res["new_ms"].append(got)
                t += 300
        finally:
            pico.stop()
    return res


HEAP_CODE = """\
import gc, time, board, machine
from app import App
import clockcore as cc
import question as qmod
a = App(board, machine)
""" + target_bench.RUN_FN + """idle(2000)
j = a.session.sp.j
while j is not None and j.arming():
    idle(500)
c = a.clock
now = time.ticks_ms()
c.press(0, now)
idle(1500)
c.pause(time.ticks_ms())
idle(1000)
a.game.question.ask(qmod.END, time.ticks_ms())
idle(300)
r = run(2000)
print('ASKED', r[0], r[1], a.game.question.kind, c.state)
print('PRESS', 'NOW')
while not a.gestures.held(0):
    a.step()
idle(100)
r = run(1500)
print('HELD', r[0], r[1], a.game.question.kind, c.state)
print('END', 'OK')
"""


def heap():
    """{'asked': (iterations, bytes), 'held': (iterations, bytes)}."""
    why = target.pico_missing()
    if why:
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory(prefix="pico-answer-heap-") as d:
        img = os.path.join(d, "fs.img")
        with open(img, "wb") as f:
            f.write(target.bundle_image(d, extra={"settings.json": SDEV}))
        pico = target.Pico(os.path.join(d, "flash.bin"), fs_image=img).start()
        try:
            n0 = target_bench.at_repl(pico, HEAP_CODE)
            deadline = pico.t_ms + 60000
            while b"PRESS NOW" not in pico.serial[n0:] and pico.t_ms < deadline:
                pico.run_to(pico.t_ms + 100)
            pico.pin(LEFT, 0)                   # an answer begun, held on
            deadline = pico.t_ms + 30000
            while b"END OK" not in pico.serial[n0:] and pico.t_ms < deadline:
                pico.run_to(pico.t_ms + 200)
            pico.pin(LEFT, 1)
            out = pico.serial[n0:].decode(errors="replace")
        finally:
            pico.stop()
    m = {k: re.search(r"^%s (.*)$" % k, out, re.M) for k in ("ASKED", "HELD")}
    if not all(m.values()):
        raise RuntimeError("the REPL measurement did not finish:\n" + out[-1500:])
    res = {}
    for k, v in m.items():
        n, alloc, kind, state = (int(x) for x in v.group(1).split()[:4])
        if kind == 0 or state != 2:
            raise RuntimeError("no question showed on a stopped clock (%s):\n%s" % (k, out[-800:]))
        res[k.lower()] = (n, alloc)
    return res


def main(argv):
    which = argv[0] if argv else "latency"
    if which == "latency":
        out = latency(*(int(a) for a in argv[1:2]))
    elif which == "heap":
        out = heap()
    else:
        raise SystemExit("usage: answer_bench.py latency|heap")
    print(json.dumps(out))


if __name__ == "__main__":
    if "host_sim" not in sys.modules:
        import host_sim  # noqa: F401  (firmware/ and fakehw/ on sys.path)
    main(sys.argv[1:])
