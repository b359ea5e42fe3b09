"""While a question shows, the player buttons answer it and leave the clock
alone; every gesture acts at its instant; no gesture undoes the rules' own
end (SPEC v5 §4 "Gestures on the device", §7; issue 36).

What a person at the table does, on the real device app (the rig:
host_sim/fakehw/rig.py, virtual ticks across the 2**30 wrap), checked
against the pure core and the clock's own log (replayed):

1. Both players answer END? at slightly different moments; one lets go
   early; one answers while the other presses their own button; the pause
   key under a question; a question that times out while a button is held.
2. The yes acts at its instant (keys still held), NEW GAME? and the referee
   menu's questions too.
3. A power cut at every millisecond from the first key to 200 ms past the
   yes, on littlefs over the NOR model with the journal (the boards' set-up):
   before the yes the clock comes back as it was, from the yes on with the
   answer, and its log replays to it.
4. A forfeit, a flag, both flags and the lateness limit between a gesture's
   first key and its recognition: the end or the flag stands.

The clauses each test serves are in its docstring (TSO § 5.2 c, PFS § 6.2.1,
TSO § 5.1 b i, TSO § 1.4.1 a, TSO § 4.1 f).
"""
import pytest

import app as appmod
import clockcore as cc
import question as qmod
import refereemenu
import rig as rigmod
from rig import LEFT, PAUSE, RIGHT, PERIOD, Rig
from test_keys import (drop, events_of, game, gestures_of, keys, log_text, new_lines,
                       new_rig, play, tick_clock, to_state)
from test_device import load_board, replay_matches_live

CONFIRM_MS = 1000          # SPEC §4: both player buttons held 1 s
SETTLE = rigmod.SETTLE_MS  # a release is known debounce_ms after its edge


def ask_end(rig):
    """From to_state("paused"): the pause key held 2 s asks END? (nothing
    else changes).  Returns the game before."""
    pre = game(rig.clock)
    keys(rig, rig.ms(), [(0, PAUSE, 2100)])
    rig.run(100)
    assert rig.app.game.question.kind == qmod.END and game(rig.clock) == pre, rig.screen()
    return pre


def asking(rig):
    return rig.app.game.question.kind


# -- 1. the keys answer, and do nothing else ----------------------------------------------

@pytest.mark.parametrize("delay", (0, 37, 400, 999, 1500, 2000))
@pytest.mark.parametrize("first", (LEFT, RIGHT), ids=("L_first", "R_first"))
def test_both_players_answer_end_at_slightly_different_moments(first, delay):
    """SPEC v5 §4: "While the display asks a question ... a player button's
    edge changes no time and no turn: the clock stays stopped.  Both player
    buttons down together for 1 s with the pause key up answer yes, at that
    instant (not at their release)."  One player presses, the other joins
    `delay` ms later (within the 2 s of a gesture), both hold on: every
    10 ms of the hold the clock is as it was and END? shows; 1 s after the
    second press the game is over (TSO § 5.1 b i: the times as the last
    mover stopped them), while both still hold; the log's `end` is at that
    instant."""
    rig = to_state("paused")
    try:
        before = log_text(rig)
        pre = ask_end(rig)
        c0 = rig.ms()
        yes = c0 + delay + CONFIRM_MS
        items = [(c0, 10, "down", first), (c0 + delay, 11, "down", 1 - first),
                 (yes + 500, 0, "up", first), (yes + 600, 1, "up", 1 - first)]
        items += [(t, 5, "check", t) for t in range(c0 + 1, yes, 10)]
        items.append((yes + rig.step_ms, 5, "check", -1))

        def check(t):
            if t >= 0:
                assert game(rig.clock) == pre and asking(rig) == qmod.END, (t - c0, rig.screen())
                assert "END?" in rig.screen()[1], rig.screen()
            else:
                assert rig.clock.state == cc.OVER and "END" in rig.screen()[1], rig.screen()
        play(rig, items, check)
        rig.run(100)
        c = rig.clock
        assert (c.state, c.side, c.rem[0], c.rem[1]) == (cc.OVER, pre[2], pre[3], pre[4])
        lines = new_lines(before, log_text(rig))
        assert events_of(lines) == [(yes - rig.game0, "end")], lines
        assert gestures_of(lines) == ["pause_long", "confirm"], lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("case", ("alone", "before_the_other", "at_999"))
def test_a_player_button_let_go_before_the_yes_answers_no(case):
    """SPEC v5 §4: "Anything else (a player button released before the
    other joined or before the 1 s ...) answers no: the question closes,
    the clock stays as it was, and later presses act as the state table
    says."  alone: one button tapped; before_the_other: left let go before
    right's press, which then acts (paused(left): right's button starts
    left's clock, TSO § 3.1.1); at_999: both held together 999 ms, right
    held on 3 s (no end).  The question is gone once the release is known;
    at the end the game is the pure core fed only the later presses, and a
    pause tap acts as ever."""
    rig = to_state("paused")
    try:
        before = log_text(rig)
        pre = ask_end(rig)
        s_pre = list(rig.clock.snapshot())
        c0 = rig.ms()
        n0 = rig.now
        spec, later = {"alone": ([(0, LEFT, 200)], []),
                       "before_the_other": ([(0, LEFT, 300), (400, RIGHT, 200)], [(400, RIGHT)]),
                       "at_999": ([(0, LEFT, 1019), (20, RIGHT, 3000)], [])}[case]
        let_go = c0 + spec[0][2]
        items = []
        for i, (off, b, hold) in enumerate(spec):
            items += [(c0 + off, 10 + i, "down", b), (c0 + off + hold, i, "up", b)]
        items.append((let_go + SETTLE, 5, "check", None))

        def check(_):
            assert asking(rig) == qmod.NONE and game(rig.clock) == pre, rig.screen()
        play(rig, items, check)
        rig.run(500)
        ref = tick_clock(rig)
        ref.restore(s_pre)
        for off, b in later:
            ref.press(b, rig.add(n0, off))
        ref.update(rig.now)
        assert game(rig.clock) == game(ref) and asking(rig) == qmod.NONE
        if not later:
            assert events_of(new_lines(before, log_text(rig))) == []
        t = rig.now
        rig.press(PAUSE)
        ref.pause(t)
        ref.update(rig.now)
        assert game(rig.clock) == game(ref)
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_one_answers_and_the_other_presses_their_own_button():
    """SPEC v5 §4 (and §7: under END? "the opponent's clock ran"): left holds
    their button to answer; right, not knowing, taps their own button (as
    if to restart the mover's clock, TSO § 3.1.1): the tap changes no time
    and no turn, and its release answers no.  Left still holding, right's
    next tap acts as the state table says: from paused(left), right's
    button starts left's clock (the mover's clock restarted: nobody moved,
    no new window)."""
    rig = to_state("paused")
    try:
        pre = ask_end(rig)
        c0 = rig.ms()
        items = [(c0, 10, "down", LEFT), (c0 + 300, 11, "down", RIGHT),
                 (c0 + 400, 0, "up", RIGHT), (c0 + 399, 5, "check", "held"),
                 (c0 + 400 + SETTLE, 5, "check", "no")]

        def check(what):
            assert game(rig.clock) == pre, (what, rig.screen())
            assert asking(rig) == (qmod.END if what == "held" else qmod.NONE), what
        play(rig, items, check)
        ref = tick_clock(rig)
        ref.restore(list(rig.clock.snapshot()))
        rig.run(200)
        t = rig.now
        ref.press(RIGHT, t)
        keys(rig, rig.ms(), [(0, RIGHT, 100)])
        rig.run(300)
        ref.update(rig.now)
        assert rig.clock.running() == LEFT and game(rig.clock) == game(ref)
        rig.up(LEFT)
        rig.run(200)
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_the_pause_key_under_a_question_answers_no_and_leaves_the_clock():
    """SPEC v5 §4: "the pause key tapped ... answers no: the question
    closes, the clock stays as it was" (v4 ran the clock on at that press),
    "and later presses act as the state table says": the next pause tap
    runs the mover's clock (TSO § 4.1)."""
    rig = to_state("paused")
    try:
        before = log_text(rig)
        pre = ask_end(rig)
        rig.press(PAUSE)
        assert asking(rig) == qmod.NONE and game(rig.clock) == pre, rig.screen()
        assert events_of(new_lines(before, log_text(rig))) == []
        rig.press(PAUSE)
        assert rig.clock.state == cc.RUNNING and rig.clock.side == pre[2]
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("both_held", (False, True), ids=("one_held", "both_held"))
def test_a_question_that_times_out_while_a_button_is_held(both_held):
    """SPEC v5 §4: "the question's time running out answers no", also while
    a key is held (v4 waited for the keys).  one_held: left pressed 300 ms
    before END? times out and held on: at the time-out the question goes,
    the clock as it was; right pressed 200 ms after it acts (paused(left):
    left's clock runs), and the two held together 1 s are then a
    confirmation with no question: its presses undone, the clock as it
    was, nothing ended.  both_held: both pressed 500 ms before the time-out,
    so their 1 s falls after it: no end, their presses undone."""
    rig = to_state("paused")
    try:
        before = log_text(rig)
        pre = ask_end(rig)
        until = rig.app.game.question.until
        out = rig.diff(until, rig.now)           # ms until END? times out
        c0 = rig.ms()
        if both_held:
            spec = [(out - 500, LEFT, 2000), (out - 480, RIGHT, 2000)]
        else:
            spec = [(out - 300, LEFT, 2500), (out + 200, RIGHT, 1500)]
        items = []
        for i, (off, b, hold) in enumerate(spec):
            items += [(c0 + off, 10 + i, "down", b), (c0 + off + hold, i, "up", b)]
        items.append((c0 + out + rig.step_ms, 5, "check", "timed out"))
        if not both_held:
            items.append((c0 + out + 400, 5, "check", "right's press"))

        def check(what):
            if what == "timed out":
                assert asking(rig) == qmod.NONE and game(rig.clock) == pre, rig.screen()
            else:
                assert rig.clock.running() == LEFT, rig.screen()
        play(rig, items, check)
        rig.run(300)
        assert game(rig.clock) == pre and rig.clock.state == cc.PAUSED
        lines = new_lines(before, log_text(rig))
        assert events_of(lines) == [] and gestures_of(lines) == ["pause_long", "confirm"], lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


# -- 2. the yes at its instant: NEW GAME? and the referee menu -------------------------------

def test_new_game_is_answered_at_its_instant():
    """SPEC v5 §4: NEW GAME? answered yes at the instant both have been
    down 1 s: the new game (`ready`) shows while both still hold; their
    edges did nothing to the final screen before (TSO § 1.4.1 a: no reset
    by accident, and none late)."""
    rig = to_state("over")
    try:
        pre = game(rig.clock)
        keys(rig, rig.ms(), [(0, PAUSE, 2100)])
        rig.run(100)
        assert asking(rig) == qmod.NEW
        c0 = rig.ms()
        yes = c0 + 300 + CONFIRM_MS
        items = [(c0, 10, "down", RIGHT), (c0 + 300, 11, "down", LEFT),
                 (yes + 800, 0, "up", RIGHT), (yes + 800, 1, "up", LEFT),
                 (yes - 1, 5, "check", "held"), (yes + rig.step_ms, 5, "check", "yes")]

        def check(what):
            if what == "held":
                assert game(rig.clock) == pre and asking(rig) == qmod.NEW
            else:
                assert rig.clock.state == cc.READY and rig.app.mode == appmod.MODE_GAME
        play(rig, items, check)
    finally:
        drop(rig)


@pytest.mark.parametrize("item", (refereemenu.R_RESET, refereemenu.R_EXIT))
def test_a_referee_question_is_answered_at_its_instant(item):
    """SPEC v5 §4 (a referee item's confirmation; "Apply new times?"): the
    yes acts at the instant both have been down 1 s, the keys still held:
    the reset (TSO § 1.4.1 a: asked first) or the pending +1 s logged as
    `adjust` then, the menu left."""
    from test_keys import referee_menu, menu_to
    rig = referee_menu("paused")
    try:
        rem = list(rig.clock.rem)
        if item == refereemenu.R_EXIT:
            menu_to(rig, refereemenu.R_L_SEC)
            rig.press(RIGHT)                     # left +1 s, pending
            rig.press(PAUSE, hold=2100)          # leave: Apply new times?
        else:
            menu_to(rig, item)
            rig.press(RIGHT)                     # Reset game? asked
        assert rig.app.menu.ask == item, rig.screen()
        c0 = rig.ms()
        yes = c0 + 50 + CONFIRM_MS
        items = [(c0, 10, "down", LEFT), (c0 + 50, 11, "down", RIGHT),
                 (yes + 700, 0, "up", LEFT), (yes + 700, 1, "up", RIGHT),
                 (yes - 1, 5, "check", "held"), (yes + rig.step_ms, 5, "check", "yes")]

        def check(what):
            if what == "held":
                assert rig.app.mode == appmod.MODE_REFEREE and rig.clock.rem == rem
            else:
                assert rig.app.mode == appmod.MODE_GAME, rig.screen()
                if item == refereemenu.R_EXIT:
                    assert rig.clock.rem == [rem[0] + 1000, rem[1]]
                else:
                    assert rig.clock.state == cc.READY
        play(rig, items, check)
    finally:
        drop(rig)


# -- 3. a power cut at every millisecond of the answer --------------------------------------------

def _boot(buffer, t0):
    """A power-up on a copy of the NOR's bytes (the journal's and littlefs's)."""
    from norfs import Nor, NorFS
    nor = Nor()
    nor.buffer[:] = buffer
    rig = Rig(load_board("sim"), "", t0=t0, fs=NorFS(nor, fresh=False))
    rig.run(2000)
    return rig


def _replays(rig):
    """The restored game's log (the files, plus the journal's records since)
    replays to exactly the restored clock."""
    from host_sim import replay
    c = rig.clock
    fs = rig.app.store.fs
    games = sorted(n for n in fs.files("games") if n.startswith("g"))
    text = fs.read("games/" + games[-1]).decode()
    at = rig.app.session.log_ms(c.t)
    got, _ = replay.run(replay.parse(text.split("\n")), at)
    assert replay.report(got, at) == replay.report(c, at), text
    return text


def _answer_live(question):
    """The game on the journal (NorFS), to the question asked; returns (rig,
    fs, the game before the keys)."""
    from norfs import NorFS
    import device_scenarios as ds
    fs = NorFS()
    f = fs.open("settings.json", "wb")
    f.write(('{"v": 1, "profile": "sdev", "base_left": 60000, "base_right": 60000, '
             '"lang": "en", "sound": true}').encode())
    f.close()
    rig = Rig(load_board("sim"), "", t0=PERIOD - 30000, fs=fs)
    for _ in range(400):
        if rig.app.session.sp.j.ok:
            break
        rig.run(20)
    assert rig.app.session.sp.j.ok
    rig.run(1600)
    rig.press(LEFT)
    rig.run(3000)
    rig.press(RIGHT)
    rig.run(2000)
    rig.press(PAUSE)
    rig.run(500)
    if question == "new":
        rig.perform(rigmod.end_game(False))
        assert rig.clock.state == cc.OVER
        rig.run(500)
    rig.perform(rigmod.long_press())
    rig.run(200)
    assert asking(rig) == (qmod.END if question == "end" else qmod.NEW), rig.screen()
    del ds
    return rig, fs, game(rig.clock)


@pytest.mark.parametrize("question", ("end", "new"))
def test_the_answer_survives_a_power_cut_at_every_ms(question):
    """SPEC v5 §4: the yes "is then as durable as any transition: a power
    cut after it keeps it" (TSO § 4.1 f: the clock is stopped for a power
    failure), and a cut during the hold loses nothing either (v4 kept the
    first press as a move and lost the answer).  Both player buttons, 80 ms
    apart, held through the yes; the main loop runs every ms; the power is
    cut after every ms from the first key to 200 ms past the yes (the NOR's
    bytes as the last whole main-loop step left them: a cut inside a flash
    operation is test_power_cuts_app's).  Every power-up: the clock never
    raises; before the yes's step the game comes back as it was (END?: the
    same paused game, both times to the ms; NEW GAME?: the same final
    screen), from it on with the answer (over, the times unchanged / a new
    game in ready), and the restored game's log replays to it."""
    rig, fs, pre = _answer_live(question)
    nor = fs.nor
    rig.step_ms = 1
    c0 = rig.ms()
    yes = c0 + 80 + CONFIRM_MS
    items = [(c0, 10, "down", LEFT), (c0 + 80, 11, "down", RIGHT),
             (yes + 150, 0, "up", LEFT), (yes + 170, 1, "up", RIGHT)]
    items += [(t, 5, "check", t) for t in range(c0, yes + 201)]
    states = []                     # (from ms, NOR bytes) at each change

    def counts():
        return (nor.erases, nor.programs, nor.raw_programs)

    last = [None]

    def check(t):
        if counts() != last[0]:
            last[0] = counts()
            states.append((t, bytes(nor.buffer)))
    play(rig, items, check)
    assert rig.clock.state == (cc.OVER if question == "end" else cc.READY)
    assert len(states) >= 2, "the answer wrote nothing"
    # the flash did not change before the yes (the presses wrote nothing),
    # and changed in the main-loop step of its instant (not at a release)
    assert states[0][0] == c0 and states[1][0] == yes, [s[0] - yes for s in states]
    tried = 0
    for i, (t, buf) in enumerate(states):
        rig2 = _boot(buf, PERIOD - 700)
        c = rig2.clock
        tried += 1
        if t < yes:
            assert game(c)[1:5] == pre[1:5], (t - yes, game(c), pre)
            _replays(rig2)
        elif question == "end":
            assert (c.state, c.rem[0], c.rem[1]) == (cc.OVER, pre[3], pre[4]), t - yes
            assert "end" in _replays(rig2)
        else:
            assert c.state == cc.READY and c.rem == list(c.rules.base), t - yes
    # every ms maps to one of these states: a cut at ms t leaves the last before t
    assert tried == len(states)


# -- 4. no gesture undoes the rules' own end -----------------------------------------------------

def _stray_then_referee(rig, crit):
    """A stray touch of the waiting player's button `crit` ms before the
    rules act, then the rest of the referee gesture (pause, the mover's
    button) 100 and 200 ms after the rules acted, held 3.1 s."""
    waiting = 1 - rig.clock.side
    keys(rig, rig.ms(), [(0, waiting, crit + 3400), (crit + 100, PAUSE, 3300),
                         (crit + 200, 1 - waiting, 3200)])
    rig.run(100)


def test_a_forfeit_between_a_gestures_first_key_and_its_recognition_stands():
    """SPEC v5 §4 "No gesture undoes the rules' own end" (§7: a stray first
    key 300 ms before a forfeit undid it), TSO § 5.2 c: right at -05:00.7
    (sdev), left's stray touch, the forfeit at -05:01 300 ms later (LOST
    shown), then the pause key and right's button: the referee gesture
    opens the menu on the final screen, right lost with exactly 5:01 over,
    and the log (forfeit at its instant) replays to it."""
    rig = new_rig("sdev", 60)
    try:
        rig.press(LEFT)                          # right runs
        rig.run(rig.clock.rem[RIGHT] + 300700)   # -05:00.7: the forfeit in 300 ms
        assert rig.clock.rem[RIGHT] == -300700
        _stray_then_referee(rig, 300)
        c = rig.clock
        assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
        assert c.state == cc.OVER and c.forfeited[RIGHT] and c.rem[RIGHT] == -301000
        assert refereemenu.R_RESUME not in rig.app.menu.items()   # the rules' end
        rig.perform(rigmod.long_press())         # leave the menu
        assert rig.app.mode == appmod.MODE_GAME and "LOST" in "".join(rig.screen())
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("both_out", (False, True), ids=("one_flag", "both_flags"))
def test_a_flag_between_a_gestures_first_key_and_its_recognition_stands(both_out):
    """SPEC v5 §4, PFS § 6.2.1: left at 00:00.3 (pfs), right's stray touch,
    left's flag 300 ms later (dead time, TIME shown), then the pause key and
    left's button (which, alone, would start the remaining player): the
    referee menu opens in the flag's dead time (one_flag: paused, left out
    at 00:00, right's time as at the flag) or on the final screen
    (both_flags: right was out already)."""
    rig = new_rig("pfs", 60)
    try:
        rig.press(LEFT)                          # right runs
        if both_out:
            rig.run(rig.clock.rem[RIGHT] + 500)  # right's flag: dead time
            assert rig.clock.out(RIGHT)
            rig.press(LEFT)                      # the remaining player: left runs
        else:
            rig.run(4000)
            rig.press(RIGHT)                     # left runs
        rig.run(rig.clock.rem[LEFT] - 300)
        right = rig.clock.rem[RIGHT]
        assert rig.clock.running() == LEFT and rig.clock.rem[LEFT] == 300
        _stray_then_referee(rig, 300)
        c = rig.clock
        assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
        assert c.rem[LEFT] == 0 and c.out(LEFT) and c.rem[RIGHT] == right
        assert c.state == (cc.OVER if both_out else cc.PAUSED)
        rig.perform(rigmod.long_press())
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_a_flag_during_a_confirmation_with_no_question_stands():
    """SPEC v5 §4: the rule holds for every gesture.  pfs, paused(left),
    right at 00:00.3: left presses (ends left's turn: right runs), right's
    press 100 ms later is in the lock-out; right's flag falls 200 ms after
    that; both held 1 s are a confirmation with no question, whose undo
    goes back to the flag only: right stays out (PFS § 6.2.1)."""
    rig = new_rig("pfs", 60)
    try:
        rig.press(LEFT)                          # right runs
        rig.run(rig.clock.rem[RIGHT] - 300)
        rig.press(RIGHT)                         # left runs
        rig.run(2000)
        rig.press(PAUSE)                         # paused(left); right at 00:00.3
        rig.run(500)
        right = rig.clock.rem[RIGHT]
        keys(rig, rig.ms(), [(0, LEFT, 1300), (100, RIGHT, 1200)])
        rig.run(100)
        c = rig.clock
        assert c.out(RIGHT) and c.rem[RIGHT] == 0 and c.state == cc.PAUSED, (c.rem, rig.screen())
        assert right > 0
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_the_lateness_limit_between_a_gestures_first_key_and_its_recognition_stands():
    """SPEC v5 §4 (the lateness limit), TSO § 2.4 b ii, § 5.3 b: right is
    late, 14:59.5 of lateness; the referee gesture begins with the pause
    key (which alone would stop the lateness: back to ready).  Its undo
    lets the lateness clock run on from that edge (SPEC v4), so the limit
    falls at 15:01 before the gesture is recognised: the menu opens on the
    final screen, right lost, and the log replays to it."""
    rig = new_rig("sdev", 1800)
    try:
        rig.perform(rigmod.late(LEFT))           # right is late, from the first key
        c = rig.clock
        assert c.state == cc.LATE and c.side == RIGHT
        rig.run(15 * 60000 + 500 - c.lateness())
        assert c.lateness() == 15 * 60000 + 500
        keys(rig, rig.ms(), [(0, PAUSE, 3300), (100, LEFT, 3200), (200, RIGHT, 3100)])
        rig.run(100)
        assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
        assert c.state == cc.OVER and c.forfeited[RIGHT]
        rig.perform(rigmod.long_press())
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)
