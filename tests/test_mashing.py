"""An hour of random button mashing on the whole device (TSO § 1.4.1 a; SPEC
§4 Buttons: "No input sequence crashes the clock or loses time").

The real app runs on the fake machine with the HD44780 emulator.  Players mash:
bounce trains, long holds of their own buttons, both buttons together, the
pause key tapped in storms or held together with a player button, all at
random.  Nothing a player can do by accident may open the referee menu or
reset the game, and every millisecond the clock ran is charged to the side
that ran it, exactly once (SPEC §6 zero accumulated error), also where a
gesture (both player buttons held 1 s on a stopped clock: a confirmation
with no question) undid its keys' presses (SPEC v4 §4 Gestures), and with
fingers left resting on a button for up to two minutes while the others
press, lean on their button (any overlap) and pause (SPEC v4: a resting
finger makes no gesture; while a clock runs both player buttons are
presses).
"""
import os
import random

import pytest

import clockcore as cc
from rig import Rig, LEFT, RIGHT, PAUSE
from test_device import load_board

HOUR = 3600 * 1000


def observe(rig):
    """Record (t, state, side) after every core event, through the hook.  A
    recognised gesture undoes its keys (SPEC v3 §4 Gestures): the clock goes
    back to its snapshot before the group's first key (session.mark), so the
    entries made since that mark are taken off the record when the session
    retracts them (session.retract), and the stop at that first edge that
    follows is recorded as any event."""
    app = rig.app
    log = []
    marks = {}
    inner = app.clock.hook
    session = app.session
    mark, retract = session.mark, session.retract

    def hook(code, s, t, arg):
        inner(code, s, t, arg)
        log.append((t, app.clock.state, app.clock.side))

    def spy_mark(k):
        marks[k] = len(log)
        mark(k)

    def spy_retract(k, now):
        del log[marks[k]:]
        rig.undone += 1
        retract(k, now)

    app.clock.hook = hook
    session.mark = spy_mark
    session.retract = spy_retract
    rig.undone = 0
    return log


def charged_by_timeline(rig, log, t_end):
    ran = [0, 0]
    for (t, state, side), nxt in zip(log, log[1:] + [(t_end, None, None)]):
        if state == cc.RUNNING:
            ran[side] += rig.diff(nxt[0], t)
    return ran


def mash(rig, rnd, until_ms):
    while rig.ms() < until_ms:
        kind = rnd.random()
        b = rnd.choice((LEFT, RIGHT))
        bounce = tuple(sorted(rnd.sample(range(1, 20), rnd.randint(0, 6))))
        if kind < 0.45:                          # an ordinary press, maybe bouncy
            rig.press(b, hold=rnd.randint(30, 400), bounce=bounce)
        elif kind < 0.55:                        # a long hold of a player button
            rig.press(b, hold=rnd.randint(1000, 6000), bounce=bounce)
        elif kind < 0.65:                        # both player buttons together
            ran = rig.clock.state == cc.RUNNING
            undone = rig.undone
            rig.down(b, bounce)
            rig.run(rnd.randint(0, 30))
            rig.down(1 - b)
            rig.run(rnd.randint(50, 4000))
            rig.up(b)
            rig.up(1 - b)
            rig.run(40)
            # SPEC v4: while a clock runs they are presses, never a confirmation
            assert not ran or rig.undone == undone, "leaning undid presses"
        elif kind < 0.80:                        # a pause storm
            for _ in range(rnd.randint(2, 12)):
                rig.press(PAUSE, hold=rnd.randint(20, 1500), bounce=bounce)
        elif kind < 0.90:                        # pause held with one player button
            rig.down(PAUSE)
            rig.run(rnd.randint(0, 500))
            rig.down(b, bounce)
            rig.run(rnd.randint(100, 5000))
            rig.up(b)
            rig.run(rnd.randint(0, 300))
            rig.up(PAUSE)
            rig.run(40)
        elif kind < 0.97:                        # a finger left resting (SPEC v4)
            rig.down(b, bounce)                  # ... any length, while the
            rig.run(2001)                        # others press, lean and pause
            undone = rig.undone
            for _ in range(rnd.randint(1, 6)):
                rig.run(rnd.randint(0, 20000))
                k = rnd.choice((1 - b, 1 - b, PAUSE))
                rig.press(k, hold=rnd.choice((rnd.randint(30, 400), rnd.randint(400, 5000))))
            rig.run(rnd.randint(0, 3000))
            rig.up(b)
            rig.run(40)
            assert rig.undone == undone, "a resting finger made a gesture"
        rig.run(rnd.randint(0, 40000))           # thinking
        app = rig.app
        assert app.mode != 3, "a player's mashing opened the referee menu"
        assert app.mode != 2, "a player's mashing opened the setup menu"
        assert app.clock.state in (cc.RUNNING, cc.PAUSED), "game reset or ended"


@pytest.mark.parametrize("seed", [1, 2])
def test_an_hour_of_mashing_never_resets_and_conserves_time(tmp_path, seed):
    rnd = random.Random(seed)
    root = str(tmp_path / "clock")
    os.mkdir(root)
    board = load_board("sim")
    with open(os.path.join(root, "settings.json"), "w") as f:
        f.write('{"v": 1, "profile": "custom", "base_left": 5940000, '
                '"base_right": 5940000, "lang": "en", "sound": true}')
    rig = Rig(board, root + "/", step_ms=20)
    rig.run(1600)
    log = observe(rig)
    rig.press(LEFT)                              # the game starts: right runs
    mash(rig, rnd, HOUR)
    c = rig.clock
    c.update(rig.now)
    ran = charged_by_timeline(rig, log, c.t)
    base = c.rules.base
    charged = [base[0] - c.rem[0], base[1] - c.rem[1]]
    assert charged == ran, "charged %r, ran %r" % (charged, ran)
    assert charged[0] + charged[1] > HOUR // 4  # the game really ran
    assert rig.undone > 0                       # gestures undid presses (CONFIRM)
    games = os.listdir(root + "/games")
    assert len(games) == 1, "a second game file means the game was reset: %r" % games
