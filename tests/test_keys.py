"""Keys at their edge (SPEC v3 §4 "Gestures on the device", "Buttons"; issue 18):
the acceptance tests at app level.

Every test drives the real device app on the rig (host_sim/fakehw/rig.py: the
whole app on the fake machine, the HD44780 emulator on its bus, virtual ticks
that wrap at 2**30 during the game), pressing the keys through the pins' IRQs
at exact virtual milliseconds.  What the app must do is computed without the
app: by the pure timing core (firmware/clockcore.py) fed only the edges that
by the rules act, or from the clock's snapshot before a gesture's first key.
Each game's log must also replay (host_sim/replay.py) to the live clock.

1. No swallowed move: random real moves plus random stray touches by the
   waiting player (hypothesis) charge both sides exactly the timeline of the
   real moves alone.
2. Gestures at any speed: the referee gesture, the end request, the
   confirmation and late arrival, every key order, gaps up to 2 s, undo their
   keys exactly.
3. Simultaneous presses change the turn exactly once.
4. The referee menu changes the game only after a confirmation.
"""
import os
import re
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

import app as appmod
import clockcore as cc
import device_scenarios as ds
import menu as menumod
import question as qmod
import rig as rigmod
from rig import LEFT, PAUSE, RIGHT, Rig
from test_device import load_board, replay_matches_live

NAMES = "LRP"
NAMES_LONG = cc.SIDE_NAMES   # the log's words for the player buttons
LOCK_MS = 500          # SPEC v3 §4 Buttons: the side just started ignores its button
BOOT_MS = appmod.SPLASH_MS + 100

# CI is deterministic: no example database, derandomized examples.
KEYS = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- the rig ------------------------------------------------------------------------
def new_rig(profile="sdev", base_s=600):
    """A fresh clock (its own flash folder), past its boot screen."""
    root = ds.fresh_dir(tempfile.mkdtemp(prefix="sclock-keys-"))
    ds.write_settings(root, profile, base_s)
    rig = Rig(load_board("sim"), root)
    rig.root = root
    rig.run(BOOT_MS)
    return rig


def drop(rig):
    shutil.rmtree(rig.root, ignore_errors=True)


def plain_clock(rig):
    """The pure core with this clock's rules, on plain integer ms (the
    rig's unwrapped virtual time, rig.ms()), in `ready` now."""
    return cc.Clock(rig.app.settings.rules(), rig.ms(),
                    lambda a, b: a - b, lambda t, d: t + d)


def tick_clock(rig):
    """The pure core on the rig's own (wrapping) ticks."""
    return cc.Clock(rig.app.settings.rules(), rig.now, rig.diff, rig.add)


def seen(c):
    """What a player can check: the state, whose turn, both times to the ms,
    the challenge window."""
    return (c.state, c.side, c.rem[0], c.rem[1], c.win)


def game(c):
    """The whole game state of a clock (its snapshot without the settle time)."""
    s = list(c.snapshot())
    return s[:8] + s[9:]


def log_text(rig):
    """The newest game log ("" if there is none)."""
    folder = rig.root + "games"
    names = sorted(n for n in os.listdir(folder) if n.endswith(".txt")) \
        if os.path.isdir(folder) else []
    if not names:
        return ""
    with open(folder + "/" + names[-1], encoding="utf-8") as f:
        return f.read()


def new_lines(before, after):
    """The log lines written since `before` (the log before must still be
    there, unchanged)."""
    assert after.startswith(before), "the log before the keys changed:\n%s\n---\n%s" % (
        before, after)
    return [ln for ln in after[len(before):].split("\n") if ln.strip()]


def play(rig, items, check=None):
    """Play timed items in rig.ms() time: (t, order, "down"/"up", button) or
    (t, order, "check", payload).  At a check the main loop has run at t and
    no key edge at t has been made yet; check(payload) is called."""
    for t, _, what, arg in sorted(items, key=lambda it: (it[0], it[1])):
        d = t - rig.ms()
        assert d >= 0, (t, rig.ms())
        if d:
            rig.run(d)
        if what == "down":
            rig.down(arg)
        elif what == "up":
            rig.up(arg)
        else:
            check(arg)


def keys(rig, t0, spec):
    """Press keys from t0 = rig.ms() on: spec = [(offset, button, hold)]."""
    items = []
    for i, (off, b, hold) in enumerate(spec):
        items.append((t0 + off, 10 + i, "down", b))
        items.append((t0 + off + hold, i, "up", b))
    play(rig, items)


# -- 1. no swallowed move -------------------------------------------------------------
# The real game: the start press, then moves.  A move is the mover's
# turn-ending press (a tap of 30-150 ms, turns >= 600 ms apart), plain, or
# after a pause and a resume, or in dead time (PFS § 3.2.1: the mover pauses,
# then ends the turn with their own button).
PLAIN, PAUSE_RESUME, DEAD_TIME = 0, 1, 2
MARGIN = 40          # a key is released this long before its next press (> debounce)
CONFIRM_SAFE = 900   # left and right are never down together this long (< 1 s)


def _overlap(a, b):
    return min(a[1], b[1]) - max(a[0], b[0])


@st.composite
def stray_games(draw):
    """(start presser, real key taps, stray touches, moves) in ms from the
    game's start.  Taps and strays: (button, down, up)."""
    x0 = draw(st.sampled_from((LEFT, RIGHT)))
    taps = [(x0, 0, draw(st.integers(30, 150)))]
    moves = []                      # (mover, kind, T, [(lo, hi) running windows])
    runner = 1 - x0
    t_prev = 0
    for _ in range(draw(st.integers(1, 6))):
        m = runner
        kind = draw(st.sampled_from((PLAIN, PAUSE_RESUME, DEAD_TIME)))
        d = draw(st.integers(600, 3000))
        t = t_prev + d
        if kind == PLAIN:
            windows = [(t_prev, t)]
        elif kind == DEAD_TIME:
            p = draw(st.integers(t_prev + 200, t - 200))
            taps.append((PAUSE, p, p + draw(st.integers(30, 150))))
            windows = [(t_prev, p)]
        else:
            p1 = draw(st.integers(t_prev + 200, t - 400))
            p2 = draw(st.integers(p1 + 200, t - 200))
            taps.append((PAUSE, p1, p1 + draw(st.integers(30, 150))))
            taps.append((PAUSE, p2, p2 + draw(st.integers(30, 150))))
            windows = [(t_prev, p1), (p2, t)]
        taps.append((m, t, t + draw(st.integers(30, 150))))
        moves.append((m, kind, t, windows))
        runner = 1 - m
        t_prev = t
    end = t_prev + 3000
    # The waiting player's stray touches: press edges while the mover's
    # clock runs (before the press that ends the turn) and within the
    # lock-out after it; any length, but released before that player's
    # next real press, and never held together with the other player
    # button for CONFIRM_SAFE (that would be the confirmation gesture).
    strays = []
    busy = {LEFT: [], RIGHT: []}    # every interval each player button is down
    for b, lo, hi in taps:
        if b != PAUSE:
            busy[b].append((lo, hi))

    def next_press(b, t):
        later = [lo for lo, _ in busy[b] if lo > t]
        return min(later) if later else end

    def add(w, lo, hi):
        if hi - lo < 1:
            return
        if draw(st.booleans()):
            down = draw(st.integers(lo, hi - 1))
        else:               # just before the window's end: the mover's press
            down = hi - draw(st.integers(1, min(400, hi - lo)))
        up = down + draw(st.integers(5, 5000))
        up = min(up, next_press(w, down) - MARGIN)
        if up - down < 5:
            return
        if not all(hi + MARGIN <= down or up + MARGIN <= lo for lo, hi in busy[w]):
            return                  # the button is down or just released then
        if any(_overlap((down, up), iv) >= CONFIRM_SAFE for iv in busy[1 - w]):
            return
        busy[w].append((down, up))
        strays.append((w, down, up))

    for m, kind, t, windows in moves:
        w = 1 - m
        for _ in range(draw(st.integers(0, 4))):
            lo, hi = windows[draw(st.integers(0, len(windows) - 1))]
            add(w, lo, hi)
        for _ in range(draw(st.integers(0, 2))):
            add(w, t, t + LOCK_MS)  # w's clock just started: its button is locked
    # contacts bounce (SPEC §4 Buttons): a train of edges within 8 ms after
    # the press and after the release of every real tap and longer stray
    train = st.lists(st.integers(1, 8), max_size=4, unique=True).map(
        lambda offs: sorted(offs)[:len(offs) // 2 * 2])
    bounce = [(draw(train), draw(train)) for _ in taps]
    bounce += [(draw(train), draw(train)) if hi - lo > 10 else ([], []) for _, lo, hi in strays]
    return x0, taps, strays, moves, end, bounce


@KEYS
@given(stray_games())
def test_no_stray_touch_swallows_a_move(g):
    """SPEC v3 §4 Buttons: "A press by the player whose clock is not running
    is ignored (logged) and never delays, swallows or changes any other key's
    press, whenever it comes"; after a player button starts a side, that
    side's own button is ignored for 500 ms.  Random real moves (taps of
    30-150 ms, turns >= 600 ms apart; plain, across a pause and resume, and
    the dead-time flow of PFS § 3.2.1: the mover pauses, then ends the turn
    with their own button) plus random stray touches by the waiting player
    (5 ms .. 5 s long; press edges anywhere while the mover's clock runs
    before the turn-ending press, and within the 500 ms lock-out after it):
    after every real edge and at the end, the turn, both sides' times to the
    ms and the challenge window equal the pure core fed the real edges alone.

    Not generated, because by the rules they are actions, not stray touches:
    a touch by the waiting player while the clock is paused is, by SPEC §4's
    state table (paused(s), x != s), the opponent restarting the mover's
    clock (TSO § 3.1.1, PFS § 4.5.3); and a stray held together with the
    other player button for 1 s or more is the confirmation gesture (SPEC v3
    §4: both player buttons held 1 s, whose presses are undone) - so the
    mover's taps are < 1 s and a stray never overlaps the other player
    button for 900 ms or more."""
    x0, taps, strays, moves, end, bounce = g
    event("strays: %d" % min(len(strays), 5))
    event("bouncing" if any(on or off for on, off in bounce) else "no bounce")
    event("dead time" if any(k == DEAD_TIME for _, k, _, _ in moves) else "no dead time")
    event("stray held across a real press" if any(
        lo < t < hi for _, lo, hi in strays for b, t, _ in taps) else "no stray across")
    rig = new_rig()
    try:
        b0 = rig.ms()
        ref = plain_clock(rig)
        real = []                           # the real edges' actions for the core
        for b, lo, hi in taps:
            real.append((b0 + lo, b))
        real.sort()
        items = []
        for i, (b, lo, hi) in enumerate(taps + strays):
            # (a stray press at the very ms of a real one comes after it)
            o = 30 if i < len(taps) else 40
            items.append((b0 + lo, o, "down", b))
            items.append((b0 + hi, 20, "up", b))
            on, off = bounce[i]
            for k, x in enumerate(on):
                items.append((b0 + lo + x, o, "up" if k % 2 == 0 else "down", b))
            for k, x in enumerate(off):
                items.append((b0 + hi + x, 20, "down" if k % 2 == 0 else "up", b))
            if i < len(taps):
                items.append((b0 + lo + 1, 0, "check", "after %s at %d" % (NAMES[b], lo)))
        items.append((b0 + end, 0, "check", "end"))
        fed = [0]

        def check(what):
            now = rig.ms()
            while fed[0] < len(real) and real[fed[0]][0] < now:
                t, b = real[fed[0]]
                if b == PAUSE:
                    ref.pause(t)
                else:
                    ref.press(b, t)
                fed[0] += 1
            ref.update(now)
            got = seen(rig.clock)
            want = seen(ref)
            assert got == want, "%s (game ms %d): app %r, real moves alone %r\nlog:\n%s" % (
                what, now - b0, got, want, log_text(rig))

        play(rig, items, check)
        assert rig.clock.state == cc.RUNNING and rig.app.mode == appmod.MODE_GAME
        assert rig.clock.side == 1 - moves[-1][0]
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


# -- 2. gestures at any speed ---------------------------------------------------------
ORDERS = ((PAUSE, LEFT, RIGHT), (PAUSE, RIGHT, LEFT), (LEFT, PAUSE, RIGHT),
          (RIGHT, PAUSE, LEFT), (LEFT, RIGHT, PAUSE), (RIGHT, LEFT, PAUSE))
GAPS = (0, 500, 1000, 2000)
STATES = ("ready", "paused", "running", "over")
GESTURE_LINE = re.compile(r"^# (\d+) gesture (\w+): the presses of its keys are undone$")


def _order_id(order):
    return "".join(NAMES[b] for b in order)


def to_state(name):
    """A fresh clock in `name`: ready; running (left's turn, the challenge
    window open, after a start and a move); paused (the same, stopped);
    over (the same, ended with the end gesture).  rig.game0: the game's
    first event (log time 0)."""
    rig = new_rig()
    rig.game0 = None
    if name != "ready":
        rig.game0 = rig.ms()
        rig.press(LEFT)                         # right runs
        rig.run(3000)
        rig.press(RIGHT)                        # right's move: left runs
        rig.run(2000)
    if name == "paused":
        rig.press(PAUSE)
        rig.run(1000)
    elif name == "over":
        rig.perform(rigmod.end_game(True))
        rig.run(1000)
    want = {"ready": cc.READY, "running": cc.RUNNING, "paused": cc.PAUSED, "over": cc.OVER}
    assert rig.clock.state == want[name] and rig.app.mode == appmod.MODE_GAME
    assert rig.app.game.question.kind == qmod.NONE
    return rig


def stopped_at_first_edge(rig):
    """The timeline without the gesture's keys, by the pure core: the clock
    as it is now (settled to now, the first key's edge), and a clock that
    runs paused at that edge (SPEC v3 §4: a gesture leaves the clock
    stopped; v4: a lateness clock runs on)."""
    ref = tick_clock(rig)
    ref.restore(list(rig.clock.snapshot()))
    assert ref.t == rig.now
    if ref.state == cc.RUNNING:
        ref.pause(rig.now)
    return ref


def events_of(lines):
    """The event lines (log ms, words...) among log lines; comments dropped."""
    out = []
    for ln in lines:
        body = ln.split("#", 1)[0].split()
        if body and body[0] in ("profile", "set"):
            continue                            # a new log's header
        if body:
            out.append((int(body[0]),) + tuple(body[1:]))
    return out


def gestures_of(lines):
    """The gesture names of the comment lines; any other comment fails."""
    out = []
    for ln in lines:
        if ln.startswith("#"):
            m = GESTURE_LINE.match(ln)
            assert m, "a comment that is no gesture: %r" % ln
            out.append(m.group(2))
    return out


def check_log(rig, before, t0_ms, was_running, gesture, extra=()):
    """The log shows the gesture, not its keys' presses: the new lines are
    gesture comments (the last one `gesture`), a pause at the first key's
    edge if the clock ran, and `extra` events; and it replays to the live
    clock.  (In ready no game log is begun: the keys' presses are undone.)"""
    after = log_text(rig)
    if rig.game0 is None and not extra:
        assert after == "", "a log for undone presses:\n" + after
        return
    lines = new_lines(before, after)
    want = ([(t0_ms, "pause")] if was_running else []) + list(extra)
    assert events_of(lines) == want, after
    if gesture is not None:
        names = gestures_of(lines)
        assert names == [gesture], after
    replay_matches_live(rig, rig.root)


def gesture_undoes_its_keys(rig, spec, gesture):
    """Play a gesture's keys (keys()'s spec, from now) and 100 ms more: the
    game is the timeline without them (stopped_at_first_edge) and the log
    shows only the gesture (check_log)."""
    before = log_text(rig)
    was_running = rig.clock.state == cc.RUNNING
    t0_ms = rig.ms() - rig.game0 if rig.game0 is not None else 0
    ref = stopped_at_first_edge(rig)
    keys(rig, rig.ms(), spec)
    rig.run(100)
    assert game(rig.clock) == game(ref), (game(rig.clock), game(ref))
    check_log(rig, before, t0_ms, was_running, gesture)


# A slow referee on the final screen, the pause key first and held alone 2 s:
# the pause key's hold is the new-game request (NEW GAME? asked, "gesture
# pause_long" logged); the referee gesture that follows in the same group
# undoes it (the question goes) and its comment too, as in `paused`
# (Session.gesture() marks the cut before its comment: it was the first line
# after the group's mark in `over`, where the pause key's edge logs nothing).


def _referee_cases():
    for order in ORDERS:
        for gap in GAPS:
            for start in STATES:
                yield pytest.param(order, gap, start,
                                   id="%s-%d-%s" % (_order_id(order), gap, start))


@pytest.mark.parametrize("order,gap,start", list(_referee_cases()))
def test_referee_gesture_in_any_order_at_any_speed(order, gap, start):
    """SPEC v3 §4 Gestures: the pause key and both player buttons all down
    together 3 s, in any order and with any gaps, from ready, paused,
    running and over: the referee menu opens, no turn changes, and the time
    charged equals the timeline without its keys (a running clock paused at
    the first key's edge); the log has only the gesture (and that pause)."""
    rig = to_state(start)
    try:
        last = 2 * gap + 3100                   # all three held 3.1 s together
        gesture_undoes_its_keys(
            rig, [(i * gap, b, last - i * gap) for i, b in enumerate(order)], "referee")
        assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
    finally:
        drop(rig)


@pytest.mark.parametrize("hold", (2100, 3500))
@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("first", (LEFT, RIGHT), ids=("L_first", "R_first"))
def test_end_request_then_confirmation_at_any_speed(first, gap, hold):
    """SPEC v3 §4 Gestures: the pause key pressed while the clock is stopped
    and held alone 2 s asks "END?" (its press, which resumed the clock at
    its edge, is undone); both player buttons then held together 1 s, the
    second up to 2 s after the first (each acted at its edge: a dead-time
    move, a turn), confirm: the game is over with both times as they were
    when the pause key went down (TSO § 5.1 b i: the last mover's time is
    theirs; the keys changed nothing)."""
    rig = to_state("paused")
    try:
        before = log_text(rig)
        pre = game(rig.clock)
        keys(rig, rig.ms(), [(0, PAUSE, hold)])
        rig.run(100)
        assert rig.app.game.question.kind == qmod.END and game(rig.clock) == pre, rig.screen()
        assert "END?" in rig.screen()[1], rig.screen()
        c0 = rig.ms()
        keys(rig, c0, [(0, first, gap + 1100), (gap, 1 - first, 1100)])
        rig.run(100)
        c = rig.clock
        assert c.state == cc.OVER and rig.app.mode == appmod.MODE_GAME, rig.screen()
        assert (c.side, c.rem[0], c.rem[1]) == (pre[2], pre[3], pre[4])
        assert "END" in rig.screen()[1], rig.screen()
        lines = new_lines(before, log_text(rig))
        end_ms = c0 + gap + 1100 - rig.game0    # the confirmation: its first release
        assert events_of(lines) == [(end_ms, "end")], lines
        assert gestures_of(lines) == ["pause_long", "confirm"], lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("start", STATES)
@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("first", (LEFT, RIGHT), ids=("L_first", "R_first"))
def test_confirmation_with_no_question_undoes_its_presses(first, gap, start):
    """SPEC v3 §4 Gestures: "A confirmation held when no question is showing
    ... does nothing, and its presses are undone like any gesture's": both
    player buttons, the second up to 2 s after the first, held together
    1.1 s, with nothing asked: no turn change, no time change (a running
    clock is stopped at the first key's edge), only the gesture in the log."""
    rig = to_state(start)
    try:
        gesture_undoes_its_keys(rig, [(0, first, gap + 1100), (gap, 1 - first, 1100)],
                                "confirm")
        assert rig.app.mode == appmod.MODE_GAME and rig.app.game.question.kind == qmod.NONE
    finally:
        drop(rig)


@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("present", (LEFT, RIGHT), ids=("L_present", "R_present"))
@pytest.mark.parametrize("pause_first", (True, False), ids=("P_first", "X_first"))
def test_late_arrival_runs_from_the_first_key(pause_first, present, gap):
    """SPEC v3 §4 Gestures, Late arrival (PFS § 2.4, TSO § 2.4): in ready, the
    present player's button and the pause key, in either order and up to 2 s
    apart, held together 2 s, start the absent player's lateness clock from
    the first of the two keys' edges (what each key did at its edge, e.g.
    starting the game, is undone)."""
    rig = to_state("ready")
    try:
        t0 = rig.ms()
        ref = plain_clock(rig)
        spec = [(0, PAUSE, gap + 2100), (gap, present, 2100)]
        if not pause_first:
            spec = [(0, present, gap + 2100), (gap, PAUSE, 2100)]
        keys(rig, t0, spec)
        rig.run(100)
        absent = 1 - present
        ref.start_late(absent, t0)
        ref.update(rig.ms())
        c = rig.clock
        assert rig.app.mode == appmod.MODE_GAME, rig.screen()
        assert seen(c) == seen(ref), (seen(c), seen(ref))
        assert c.state == cc.LATE and c.side == absent
        assert c.lateness() == rig.ms() - t0
        rig.game0 = t0
        check_log(rig, "", 0, False, None, [(0, "late", cc.SIDE_NAMES[absent])])
    finally:
        drop(rig)


# -- 3. simultaneous presses ------------------------------------------------------------
def to_turn(name):
    """A fresh clock in ready, running(L) (after a start and a move: the
    window open), running(R) (one more move), paused(L) (L's clock
    stopped: L is the mover) or late(L) (L's lateness clock runs)."""
    if name == "ready":
        return to_state("ready")
    if name == "late_L":
        rig = to_state("ready")
        rig.game0 = rig.ms()
        keys(rig, rig.ms(), [(0, PAUSE, 2100), (0, RIGHT, 2100)])  # right is present
        rig.run(3000)
        assert rig.clock.state == cc.LATE and rig.clock.side == LEFT
        return rig
    rig = to_state("running")                   # left runs
    if name == "running_R":
        rig.press(LEFT)                         # left's move: right runs
        rig.run(2000)
    elif name == "paused_L":
        rig.press(PAUSE)
        rig.run(1000)
    return rig


TOGETHER = [(s, m) for s in ("running_L", "running_R", "ready", "late_L")
            for m in (True, False)] + [("paused_L", True)]


@pytest.mark.parametrize("d", range(0, 101, 10))
@pytest.mark.parametrize("start,mover_first", TOGETHER,
                         ids=["%s-%s" % (s, "mover_first" if m else "other_first")
                              for s, m in TOGETHER])
def test_both_players_pressing_together_change_the_turn_once(start, mover_first, d):
    """SPEC v3 §4 Buttons: "When both players press together, the first press
    that takes effect wins: after a player button starts a side's clock,
    that side's own button is ignored for 500 ms ... so a simultaneous press
    changes the turn once."  Both player buttons pressed d = 0..100 ms apart,
    in either order, from running(L), running(R), ready and late(L) (the
    first press starts the game) and paused(L) (the mover first: the
    dead-time flow):
    the turn changes exactly once, at the first press that takes effect;
    the press the lock-out ignored is a comment in the log (a press by the
    player whose clock is not running is an event the core ignores)."""
    rig = to_turn(start)
    try:
        c = rig.clock
        before = log_text(rig)
        # the mover: whose clock runs or is paused; in ready, the first presser
        if start == "ready" or start == "late_L":
            # (in late(L) either press begins the game, as from ready)
            m = LEFT if mover_first else RIGHT
            first, second = m, 1 - m
        else:
            m = c.side
            first, second = (m, 1 - m) if mover_first else (1 - m, m)
        ref = tick_clock(rig)
        ref.restore(list(c.snapshot()))
        t0 = rig.ms()
        t0_ticks = rig.now
        base_ms = t0 - rig.game0 if rig.game0 is not None else 0
        # the press that takes effect: the first one, unless the first is
        # the waiting player's in a running game (the core ignores it)
        waiting_first = start.startswith("running") and not mover_first
        effective_t = rig.add(t0_ticks, d) if waiting_first else t0_ticks
        ref.press(m, effective_t)
        turns = []

        def check(what):
            turns.append(c.running())

        play(rig, [(t0, 30, "down", first), (t0 + d, 31, "down", second),
                   (t0 + 80, 20, "up", first), (t0 + d + 80, 21, "up", second),
                   (t0 + 1, 0, "check", "after the first"),
                   (t0 + d + 1, 1, "check", "after both")], check)
        rig.run(LOCK_MS + 100)
        ref.update(rig.now)
        assert seen(c) == seen(ref), (seen(c), seen(ref))
        # the turn, 1 ms after each press: it changed at the effective one
        want = [m if waiting_first and d else 1 - m, 1 - m]
        assert c.running() == 1 - m and turns == want, (c.running(), turns, want)
        lines = new_lines(before, log_text(rig))
        if waiting_first:
            assert events_of(lines) == [(base_ms, NAMES_LONG[second ^ 1]),
                                        (base_ms + d, NAMES_LONG[m])], lines
            assert not [ln for ln in lines if ln.startswith("#")], lines
        else:
            t1 = 0 if start == "ready" else base_ms
            assert events_of(lines) == [(t1, NAMES_LONG[first])], lines
            assert ("# %d %s ignored: pressed together with %s"
                    % (t1 + d, NAMES_LONG[second], NAMES_LONG[first])) in lines, lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


# -- 4. the referee menu asks first -------------------------------------------------------
def referee_menu(start):
    """A fresh clock in `start` (to_state) with the referee menu open."""
    rig = to_state(start)
    rig.perform(rigmod.referee())
    rig.run(100)
    assert rig.app.mode == appmod.MODE_REFEREE, rig.screen()
    return rig


def menu_to(rig, item):
    """Step through the menu (pause taps) to `item`."""
    for _ in range(len(rig.app.menu.items()) + 1):
        if rig.app.menu.item == item:
            return
        rig.press(PAUSE)
    raise AssertionError("no item %d in %r" % (item, rig.app.menu.items()))


def snap(rig):
    return list(rig.clock.snapshot())


def both(rig, hold):
    """Both player buttons, 20 ms apart, held together `hold` ms."""
    keys(rig, rig.ms(), [(0, LEFT, hold + 20), (20, RIGHT, hold)])
    rig.run(100)


def asked_then_confirmed(rig, item, start_log):
    """`item`'s right button asks; nothing changes until both player buttons
    are held 1 s: not the question, a pause tap that drops it, a second ask,
    nor both held 0.9 s.  Returns the log lines the confirmation wrote."""
    s0 = snap(rig)
    menu_to(rig, item)
    rig.press(RIGHT)
    assert rig.app.menu.ask == item and "L+R" in rig.screen()[1], rig.screen()
    rig.press(PAUSE)                            # drops the question
    assert rig.app.menu.ask == -1 and rig.app.menu.item == item
    rig.press(RIGHT)                            # asks again
    both(rig, 900)                              # not long enough
    assert rig.app.menu.ask == item, rig.screen()
    assert snap(rig) == s0 and log_text(rig) == start_log
    both(rig, 1100)                             # yes
    return new_lines(start_log, log_text(rig))


def test_void_5_2_d_acts_only_after_the_confirmation():
    """SPEC v3 §4 Gestures: in the menu, TSO § 5.2 d acts only after a
    confirmation (both player buttons held 1 s)."""
    rig = referee_menu("paused")                # left's turn, begun by right's move
    try:
        c = rig.clock
        want = c.void_rem
        lines = asked_then_confirmed(rig, menumod.R_VOID, log_text(rig))
        assert c.state == cc.OVER and c.rem[LEFT] == want
        assert [e[1:] for e in events_of(lines)] == [("void", "left")], lines
        assert rig.app.mode == appmod.MODE_GAME
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_resume_acts_only_after_the_confirmation():
    """SPEC v3 §4 Gestures: undoing an end ("Resume game") acts only after a
    confirmation."""
    rig = referee_menu("over")
    try:
        c = rig.clock
        rem = list(c.rem)
        lines = asked_then_confirmed(rig, menumod.R_RESUME, log_text(rig))
        assert c.state == cc.PAUSED and c.rem == rem
        assert [e[1:] for e in events_of(lines)] == [("resume",)], lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_reset_acts_only_after_the_confirmation():
    """SPEC v3 §4 Referee functions: reset the game (asks for confirmation)."""
    rig = referee_menu("paused")
    try:
        c = rig.clock
        asked_then_confirmed(rig, menumod.R_RESET, log_text(rig))
        assert c.state == cc.READY and c.rem == list(c.rules.base)
        assert rig.app.mode == appmod.MODE_GAME
    finally:
        drop(rig)


@pytest.mark.parametrize("start", ("paused", "ready"))
def test_time_adjustment_acts_as_a_whole_only_after_the_confirmation(start):
    """SPEC v3 §4 Gestures: a time adjustment acts as a whole, when the
    referee leaves the menu and confirms: the changes are pending (the clock
    unchanged) while the referee adjusts, through "Apply new times?", a
    pause tap that drops the question (the changes kept), and both player
    buttons held 0.9 s; both held 1 s apply each side's net change as one
    logged adjustment; the pause key held 2 s at the question leaves
    without them."""
    rig = referee_menu(start)
    try:
        c = rig.clock
        s0 = snap(rig)
        log0 = log_text(rig)
        rem = list(c.rem)
        menu_to(rig, menumod.R_L_SEC)
        for _ in range(3):
            rig.press(RIGHT)                    # left +3 s
        rig.press(LEFT)                         # ... -1 s: +2 s
        menu_to(rig, menumod.R_R_MIN)
        rig.press(LEFT)
        rig.press(LEFT)                         # right -2 min
        assert snap(rig) == s0
        rig.press(PAUSE, hold=2100)             # leave: asks
        assert rig.app.mode == appmod.MODE_REFEREE and rig.app.menu.ask == menumod.R_EXIT
        rig.press(PAUSE)                        # drops the question, keeps the changes
        assert rig.app.menu.ask == -1 and rig.app.menu.pend == [2000, -120000]
        rig.press(PAUSE, hold=2100)             # asks again
        both(rig, 900)
        assert rig.app.menu.ask == menumod.R_EXIT
        assert snap(rig) == s0 and log_text(rig) == log0
        both(rig, 1100)                         # yes
        assert rig.app.mode == appmod.MODE_GAME
        assert c.rem == [rem[0] + 2000, rem[1] - 120000]
        rig.game0 = rig.game0 if rig.game0 is not None else 0
        lines = new_lines(log0, log_text(rig))
        assert [e[1:] for e in events_of(lines)] == [("adjust", "left", "+2000"),
                                                     ("adjust", "right", "-120000")], lines
        replay_matches_live(rig, rig.root)
        # again, and leave without the changes: the pause key held 2 s
        rig.perform(rigmod.referee())
        rig.run(100)
        s1 = snap(rig)
        log1 = log_text(rig)
        menu_to(rig, menumod.R_L_MIN)
        rig.press(RIGHT)
        rig.press(PAUSE, hold=2100)             # asks
        rig.press(PAUSE, hold=2100)             # leave without them
        assert rig.app.mode == appmod.MODE_GAME and snap(rig)[:8] == s1[:8]
        assert c.rem == [rem[0] + 2000, rem[1] - 120000]
        assert events_of(new_lines(log1, log_text(rig))) == []
    finally:
        drop(rig)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(STATES[:2] + STATES[3:]), st.integers(0, 40))
def test_scrolling_the_referee_menu_changes_nothing(start, n):
    """SPEC v3 §4 Gestures: "moving through the menu never changes the game":
    any number of pause taps in the referee menu (ready, paused, over) leave
    the clock's snapshot and the game log exactly as they were."""
    rig = referee_menu(start)
    try:
        s0 = snap(rig)
        log0 = log_text(rig)
        for _ in range(n):
            rig.press(PAUSE)
        assert rig.app.mode == appmod.MODE_REFEREE
        assert snap(rig) == s0 and log_text(rig) == log0
    finally:
        drop(rig)


@pytest.mark.parametrize("gap", (0, 500, 2000))
@pytest.mark.parametrize("wait", (qmod.ASK_MS + 100, 10000))
def test_an_expired_end_question_is_not_answered(wait, gap):
    """Issue 18 ("an expired END? question turns its yes into a move") and
    SPEC v3 §4 Gestures: the END? question times out after 6 s with no key
    held; both player buttons held 1 s after that are a confirmation with
    no question showing: the game is not ended, no turn changes, no time
    changes, and their presses are undone."""
    rig = to_state("paused")
    try:
        pre = game(rig.clock)
        keys(rig, rig.ms(), [(0, PAUSE, 2100)])
        rig.run(100)
        assert rig.app.game.question.kind == qmod.END
        rig.run(wait)
        assert rig.app.game.question.kind == qmod.NONE and "END?" not in rig.screen()[1]
        before = log_text(rig)
        keys(rig, rig.ms(), [(0, RIGHT, gap + 1100), (gap, LEFT, 1100)])
        rig.run(100)
        assert game(rig.clock) == pre and rig.app.mode == appmod.MODE_GAME
        lines = new_lines(before, log_text(rig))
        assert events_of(lines) == [] and gestures_of(lines) == ["confirm"], lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("hold", (2100, 5000))
@pytest.mark.parametrize("start", STATES)
def test_pause_key_held_alone_in_every_state(start, hold):
    """SPEC v3 §4 Gestures: the pause key held alone 2 s is the end request
    only when pressed while the clock is stopped: paused -> "END?" (its
    edge's resume undone), over -> "NEW GAME?", ready -> the setup menu when
    it is released; pressed while a clock runs, it only stops the clock at
    its edge (a challenge held for seconds never asks to end)."""
    rig = to_state(start)
    try:
        ref = stopped_at_first_edge(rig)       # running: paused at the edge
        before = log_text(rig)
        t0_ms = rig.ms() - rig.game0 if rig.game0 is not None else 0
        keys(rig, rig.ms(), [(0, PAUSE, hold)])
        rig.run(100)
        app = rig.app
        assert game(rig.clock) == game(ref), (game(rig.clock), game(ref))
        if start == "ready":
            assert app.mode == appmod.MODE_SETUP and log_text(rig) == ""
            return
        assert app.mode == appmod.MODE_GAME
        want_ask = {"running": qmod.NONE, "paused": qmod.END,
                    "over": qmod.NEW}[start]
        assert app.game.question.kind == want_ask, rig.screen()
        lines = new_lines(before, log_text(rig))
        if start == "running":
            assert events_of(lines) == [(t0_ms, "pause")] and gestures_of(lines) == []
        else:
            assert events_of(lines) == [] and gestures_of(lines) == ["pause_long"]
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


def test_the_new_game_question_shows_over_a_forfeit_on_16x2():
    """SPEC v3 §4 Gestures: leaving the final screen needs a confirmation the
    display asks for.  After a forfeit (TSO § 5.2 c) the 16x2 display shows
    LOST where the centre word goes; the NEW GAME? question must show there
    all the same (it did not: a blind L+R could start a new game), and the
    LOST comes back once it is answered no."""
    rig = new_rig("sdev", 60)
    try:
        rig.press(LEFT)                       # right's clock runs
        rig.run(60000 + 5 * 60000 + 2000)     # -05:01 shown: lost (TSO § 5.2 c)
        assert rig.clock.state == cc.OVER and rig.clock.forfeited[RIGHT]
        assert rig.screen()[1].strip() == "LOST", rig.screen()
        rig.perform(rigmod.long_press())
        assert rig.app.game.question.kind == qmod.NEW
        assert rig.screen()[1].strip() == "NEW GAME? L+R", rig.screen()
        rig.run(qmod.ASK_MS + 100)            # nobody answers
        assert rig.app.game.question.kind == qmod.NONE
        assert rig.screen()[1].strip() == "LOST", rig.screen()
    finally:
        drop(rig)
