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
import refereemenu
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
# turn-ending press (turns >= 600 ms apart), plain, or after a pause and a
# resume, or in dead time (PFS § 3.2.1: the mover pauses, then ends the turn
# with their own button), or after the opponent restarted the mover's clock
# from the pause (TSO § 3.1.1; the mover's press 50-400 ms after it).
# A press is a tap of 30-150 ms, or (SPEC v4) a finger left resting on it,
# any length, until just before that player's next press.
PLAIN, PAUSE_RESUME, DEAD_TIME, RESTART = 0, 1, 2, 3
MARGIN = 40          # a key is released this long before its next press (> debounce)
CONFIRM_SAFE = 900   # never this long together with a press made while the clock was stopped
FRESH_MS = 2000      # SPEC v4 §4: a gesture's keys all go down within 2 s


def _overlap(a, b):
    return min(a[1], b[1]) - max(a[0], b[0])


@st.composite
def stray_games(draw):
    """(start presser, real key presses, stray touches, moves) in ms from
    the game's start.  Presses and strays: (button, down, up)."""
    x0 = draw(st.sampled_from((LEFT, RIGHT)))
    taps = [(x0, 0, draw(st.integers(30, 150)))]
    stopped = [0]                   # presses made while the clock was stopped
    can_rest = [0]                  # presses made while a clock ran (and the start)
    moves = []                      # (mover, kind, T, [(lo, hi) running windows])
    runner = 1 - x0
    t_prev = 0
    for _ in range(draw(st.integers(1, 6))):
        m = runner
        kind = draw(st.sampled_from((PLAIN, PAUSE_RESUME, DEAD_TIME, RESTART)))
        d = draw(st.integers(600, 3000))
        t = t_prev + d
        if kind == PLAIN:
            windows = [(t_prev, t)]
        elif kind == DEAD_TIME:
            p = draw(st.integers(t_prev + 200, t - 200))
            taps.append((PAUSE, p, p + draw(st.integers(30, 150))))
            windows = [(t_prev, p)]
        elif kind == RESTART:
            p1 = draw(st.integers(t_prev + 100, t - 250))
            p2 = max(p1 + 200, t - draw(st.integers(50, 400)))
            t = max(t, p2 + 50)
            taps.append((PAUSE, p1, p1 + draw(st.integers(30, 150))))
            stopped.append(len(taps))
            taps.append((1 - m, p2, p2 + draw(st.integers(30, 150))))
            windows = [(t_prev, p1), (p2, t)]
        else:
            p1 = draw(st.integers(t_prev + 200, t - 400))
            p2 = draw(st.integers(p1 + 200, t - 200))
            taps.append((PAUSE, p1, p1 + draw(st.integers(30, 150))))
            taps.append((PAUSE, p2, p2 + draw(st.integers(30, 150))))
            windows = [(t_prev, p1), (p2, t)]
        (stopped if kind == DEAD_TIME else can_rest).append(len(taps))
        taps.append((m, t, t + draw(st.integers(30, 150))))
        moves.append((m, kind, t, windows))
        runner = 1 - m
        t_prev = t
    end = t_prev + 3000

    def next_press(b, t, ivs):
        later = [lo for lo, _ in ivs if lo > t]
        return min(later) if later else end

    # Resting fingers: a press made while a clock ran (or the start press)
    # held on, any length, until just before that player's next press.  A
    # confirmation (SPEC v4) needs its first key's edge in a stopped clock:
    # the start press may rest only if the first move comes more than 2 s
    # after it (else both down together 1 s would be one).
    for i in can_rest:
        b, lo, hi = taps[i]
        if i == 0 and moves[0][2] <= FRESH_MS:
            continue
        if draw(st.booleans()):
            nxt = next_press(b, lo, [(l2, h2) for b2, l2, h2 in taps if b2 == b])
            if nxt - MARGIN > hi:
                taps[i] = (b, lo, draw(st.integers(hi, nxt - MARGIN)))
    # The waiting player's stray touches: press edges while the mover's
    # clock runs (before the press that ends the turn) and within the
    # lock-out after it; any length, but released before that player's
    # next real press, leaning on their button together with the other
    # player's for any time (SPEC v4: presses while a clock runs), but for
    # under CONFIRM_SAFE with a press made while the clock was stopped that
    # went down up to 2 s before it (that would be a confirmation).
    strays = []
    busy = {LEFT: [], RIGHT: []}    # every interval each player button is down
    for b, lo, hi in taps:
        if b != PAUSE:
            busy[b].append((lo, hi))
    halt = [taps[i] for i in stopped]

    def add(w, lo, hi):
        if hi - lo < 1:
            return
        if draw(st.booleans()):
            down = draw(st.integers(lo, hi - 1))
        else:               # just before the window's end: the mover's press
            down = hi - draw(st.integers(1, min(400, hi - lo)))
        up = down + draw(st.one_of(st.integers(5, 5000), st.integers(5, 60000)))
        up = min(up, next_press(w, down, busy[w]) - MARGIN)
        if up - down < 5:
            return
        if not all(hi + MARGIN <= down or up + MARGIN <= lo for lo, hi in busy[w]):
            return                  # the button is down or just released then
        if any(b == 1 - w and l2 <= down <= l2 + FRESH_MS and
               _overlap((down, up), (l2, h2)) >= CONFIRM_SAFE for b, l2, h2 in halt):
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
    """SPEC v4 §4 Buttons: "A press by the player whose clock is not running
    is ignored (logged) and never delays, swallows or changes any other key's
    press, whenever it comes"; after a press that ends a turn, the side it
    started ignores its own button for 500 ms, but not after the opponent
    restarts the mover's clock from a pause; SPEC v4 §4 Gestures: a resting
    finger makes no gesture, and while a clock runs both player buttons are
    presses, never a confirmation.  Random real moves (turns >= 600 ms
    apart; plain, across a pause and resume, the dead-time flow of PFS §
    3.2.1, and the mover's press 50-400 ms after the opponent's restart
    from a pause, TSO § 3.1.1), each press a tap or a finger left resting
    on it for any time, plus random stray touches by the waiting player (5
    ms .. 60 s long, leaning on their button with any overlap with the
    mover's; press edges anywhere while the mover's clock runs before the
    turn-ending press, and within the 500 ms lock-out after it): after
    every real edge and at the end, the turn, both sides' times to the ms
    and the challenge window equal the pure core fed the real edges alone.

    Not generated, because by the rules they are actions, not stray touches:
    a touch by the waiting player while the clock is paused is, by SPEC §4's
    state table (paused(s), x != s), the opponent restarting the mover's
    clock (TSO § 3.1.1, PFS § 4.5.3); and both player buttons held together
    1 s, pressed within 2 s of each other, the first of them while the
    clock was stopped (the start press, a dead-time press, a restart) is
    the confirmation gesture (SPEC v4 §4), whose presses are undone."""
    x0, taps, strays, moves, end, bounce = g
    event("strays: %d" % min(len(strays), 5))
    event("bouncing" if any(on or off for on, off in bounce) else "no bounce")
    event("dead time" if any(k == DEAD_TIME for _, k, _, _ in moves) else "no dead time")
    event("stray held across a real press" if any(
        lo < t < hi for _, lo, hi in strays for b, t, _ in taps) else "no stray across")
    event("resting finger" if any(hi - lo > FRESH_MS for b, lo, hi in taps if b != PAUSE)
          else "no resting finger")
    event("leaning 1 s+" if any(_overlap((lo, hi), (l2, h2)) >= 1000 for w, lo, hi in strays
                               for b, l2, h2 in taps if b == 1 - w) else "no leaning")
    event("restart" if any(k == RESTART for _, k, _, _ in moves) else "no restart")
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
# the referee gesture's two gaps: its three keys go down within 2 s of each
# other, first to last, exactly 2000 ms included (SPEC v4 §4; gestures.py)
REF_GAPS = ((0, 0), (250, 250), (500, 500), (1000, 1000), (2000, 0), (0, 2000))
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
    """The gesture names of the comment lines; any other comment fails (but
    a new log's header)."""
    out = []
    for ln in lines:
        if ln.startswith("#") and not ln.startswith(("# clock ", "# firmware ")):
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
        for gaps in REF_GAPS:
            for start in STATES:
                if order[2] == PAUSE and gaps[1] >= 1000 and start != "running":
                    # SPEC v5: on a stopped clock both player buttons down
                    # together 1 s before the pause key are a confirmation;
                    # the pause key after it makes no referee gesture
                    # (test_a_pause_key_after_the_confirmations_1s...).  While
                    # a clock runs they are presses, never a confirmation: the
                    # referee's keys any order and gaps within 2 s (SPEC v4 §4)
                    continue
                yield pytest.param(order, gaps, start, id="%s-%d-%d-%s" % (
                    _order_id(order), gaps[0], gaps[1], start))


@pytest.mark.parametrize("order,gaps,start", list(_referee_cases()))
def test_referee_gesture_in_any_order_at_any_speed(order, gaps, start):
    """SPEC v4 §4 Gestures: the pause key and both player buttons all down
    together 3 s, in any order, the three presses within 2 s of each other
    (gaps of 0 to 2 s; exactly 2000 ms from the first to the last counts),
    from ready, paused, running and over: the referee menu opens, no turn
    changes, and the time charged equals the timeline without its keys (a
    running clock paused at the first key's edge); the log has only the
    gesture (and that pause)."""
    rig = to_state(start)
    try:
        at = (0, gaps[0], gaps[0] + gaps[1])
        last = at[2] + 3100                     # all three held 3.1 s together
        gesture_undoes_its_keys(
            rig, [(at[i], b, last - at[i]) for i, b in enumerate(order)], "referee")
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
    theirs; the keys changed nothing).  SPEC v5: while END? shows, the
    player buttons' edges change no time and no turn (checked at every
    step of the hold), and the yes acts at its instant, 1 s after the
    second button, not at their release."""
    rig = to_state("paused")
    try:
        before = log_text(rig)
        pre = game(rig.clock)
        keys(rig, rig.ms(), [(0, PAUSE, hold)])
        rig.run(100)
        assert rig.app.game.question.kind == qmod.END and game(rig.clock) == pre, rig.screen()
        assert "END?" in rig.screen()[1], rig.screen()
        c0 = rig.ms()
        items = [(c0, 10, "down", first), (c0 + gap, 11, "down", 1 - first),
                 (c0 + gap + 1100, 0, "up", first), (c0 + gap + 1100, 1, "up", 1 - first)]
        items += [(c0 + k, 5, "check", k) for k in range(0, gap + 1000, 50)]
        items.append((c0 + gap + 1000 + rig.step_ms, 5, "check", -1))

        def check(k):
            if k >= 0:                  # the hold: the clock as it was, asked
                assert game(rig.clock) == pre and rig.app.game.question.kind == qmod.END, k
            else:                       # the yes, at its instant (keys still held)
                assert rig.clock.state == cc.OVER, rig.screen()
        play(rig, items, check)
        rig.run(100)
        c = rig.clock
        assert c.state == cc.OVER and rig.app.mode == appmod.MODE_GAME, rig.screen()
        assert (c.side, c.rem[0], c.rem[1]) == (pre[2], pre[3], pre[4])
        assert "END" in rig.screen()[1], rig.screen()
        lines = new_lines(before, log_text(rig))
        end_ms = c0 + gap + 1000 - rig.game0    # the confirmation: its instant
        assert events_of(lines) == [(end_ms, "end")], lines
        assert gestures_of(lines) == ["pause_long", "confirm"], lines
        replay_matches_live(rig, rig.root)
    finally:
        drop(rig)


@pytest.mark.parametrize("start", ("ready", "paused", "over"))
@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("first", (LEFT, RIGHT), ids=("L_first", "R_first"))
def test_confirmation_with_no_question_undoes_its_presses(first, gap, start):
    """SPEC v4 §4 Gestures: "A confirmation held when no question is showing
    ... does nothing, and its presses are undone like any gesture's": both
    player buttons, the second up to 2 s after the first, held together
    1.1 s, with nothing asked and the clock stopped at the first key's
    edge: no turn change, no time change, only the gesture in the log.
    (While a clock runs they are presses: section 5 below.)"""
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
    """SPEC v4 §4 Gestures, Late arrival (PFS § 2.4, TSO § 2.4): in ready, the
    present player's button and the pause key, in either order and up to 2 s
    apart, held together 2 s, start the absent player's lateness clock from
    the first of the two keys' edges (what each key did at its edge, e.g.
    starting the game, is undone).  The log begins with the `late` event
    and has the gesture's own line (issue 26: SPEC v3 left none),
    `# <ms> gesture late_l|late_r` at the ms it was recognised."""
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
        name = "late_l" if present == LEFT else "late_r"
        check_log(rig, "", 0, False, name, [(0, "late", cc.SIDE_NAMES[absent])])
        assert "# %d gesture %s:" % (gap + 2000, name) in log_text(rig), log_text(rig)
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
    nor both held 0.9 s (SPEC v5: let go before the 1 s, they answer no).
    Returns the log lines the confirmation wrote."""
    s0 = snap(rig)
    menu_to(rig, item)
    rig.press(RIGHT)
    assert rig.app.menu.ask == item and "L+R" in rig.screen()[1], rig.screen()
    rig.press(PAUSE)                            # drops the question
    assert rig.app.menu.ask == -1 and rig.app.menu.item == item
    rig.press(RIGHT)                            # asks again
    both(rig, 900)                              # not long enough: no
    assert rig.app.menu.ask == -1 and rig.app.menu.item == item, rig.screen()
    assert snap(rig) == s0 and log_text(rig) == start_log
    rig.press(RIGHT)                            # asks again
    both(rig, 1100)                             # yes
    return new_lines(start_log, log_text(rig))


def test_void_5_2_d_acts_only_after_the_confirmation():
    """SPEC v3 §4 Gestures: in the menu, TSO § 5.2 d acts only after a
    confirmation (both player buttons held 1 s)."""
    rig = referee_menu("paused")                # left's turn, begun by right's move
    try:
        c = rig.clock
        want = c.void_rem
        lines = asked_then_confirmed(rig, refereemenu.R_VOID, log_text(rig))
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
        lines = asked_then_confirmed(rig, refereemenu.R_RESUME, log_text(rig))
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
        asked_then_confirmed(rig, refereemenu.R_RESET, log_text(rig))
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
        menu_to(rig, refereemenu.R_L_SEC)
        for _ in range(3):
            rig.press(RIGHT)                    # left +3 s
        rig.press(LEFT)                         # ... -1 s: +2 s
        menu_to(rig, refereemenu.R_R_MIN)
        rig.press(LEFT)
        rig.press(LEFT)                         # right -2 min
        assert snap(rig) == s0
        rig.press(PAUSE, hold=2100)             # leave: asks
        assert rig.app.mode == appmod.MODE_REFEREE and rig.app.menu.ask == refereemenu.R_EXIT
        rig.press(PAUSE)                        # drops the question, keeps the changes
        assert rig.app.menu.ask == -1 and rig.app.menu.pend == [2000, -120000]
        rig.press(PAUSE, hold=2100)             # asks again
        both(rig, 900)                          # SPEC v5: let go early, a no
        assert rig.app.menu.ask == -1 and rig.app.menu.pend == [2000, -120000]
        assert snap(rig) == s0 and log_text(rig) == log0
        rig.press(PAUSE, hold=2100)             # asks again
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
        menu_to(rig, refereemenu.R_L_MIN)
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
        assert rig.screen()[1].strip() == "RIGHT LOST", rig.screen()   # (issue 37: its side)
        rig.perform(rigmod.long_press())
        assert rig.app.game.question.kind == qmod.NEW
        assert rig.screen()[1].strip() == "NEW GAME? L+R", rig.screen()
        rig.run(qmod.ASK_MS + 100)            # nobody answers
        assert rig.app.game.question.kind == qmod.NONE
        assert rig.screen()[1].strip() == "RIGHT LOST", rig.screen()   # (issue 37: its side)
    finally:
        drop(rig)


# -- 5. SPEC v4: resting fingers, leaning presses, the lock-out, the log -------------------
# Each case of issue 26 and its mirror images: either side, the sdev and pfs
# profiles, in the challenge window, in overtime near the forfeit (pfs: the
# last seconds before the flag), and with the press at exactly 00:00.  What
# the app must do is the pure core fed only the edges that by SPEC v4 act.
PROFILES = ("sdev", "pfs")
WHERE = ("plain", "window", "overtime", "zero")
SIDES = pytest.mark.parametrize("mover", (LEFT, RIGHT), ids=("L_moves", "R_moves"))


def _where_cases(where=WHERE):
    return [pytest.param(p, w, id="%s-%s" % (p, w)) for p in PROFILES for w in where
            if not (p == "pfs" and w == "window")]       # pfs has no challenge window


def arrange(profile, mover, where, rest, crit=0):
    """A fresh clock (base 60 s) where `mover`'s clock runs, started by the
    opponent's press: the game's start press, or in "window" the opponent's
    move 1 s ago (the challenge window open).  `rest`: the opponent's finger
    stays on that press.  where: "plain" (the mover has 30 s left),
    "window", "overtime" (sdev: 10 s before the forfeit at -05:01; pfs: 10 s
    before the flag), "zero" (the mover's time reaches 00:00 exactly `crit`
    ms from now)."""
    rig = new_rig(profile, 60)
    x = 1 - mover
    rig.game0 = rig.ms()

    def opponent():
        if rest:
            rig.down(x)
            rig.run(rigmod.SETTLE_MS)
        else:
            rig.press(x)

    if where == "window":
        rig.press(x)                        # the start: the mover runs
        rig.run(2000)
        rig.press(mover)                    # the mover's move: x runs
        rig.run(2000)
        opponent()                          # x's move: the mover runs, the window opens
        rig.run(1000)
    else:
        opponent()                          # the start press
        target = {"plain": 30000, "zero": crit,
                  "overtime": -290000 if profile == "sdev" else 10000}[where]
        rig.run(rig.clock.rem[mover] - target)
        assert rig.clock.rem[mover] == target
    c = rig.clock
    assert c.state == cc.RUNNING and c.side == mover, (c.state, c.side)
    assert (c.win > 0) == (where == "window"), c.win
    return rig


def run_case(rig, spec, real, ups=(), after=500, gesture=None):
    """Play spec = [(offset, button, hold)] from now, and `ups` = [(offset,
    button)], releases of keys already down.  `real` = [(offset, button)]:
    the edges that by SPEC v4 act (a press the state table ignores, by the
    waiting player, may be among them; one the lock-out ignores may not).
    1 ms after each real edge and at the end the turn, both times to the ms
    and the challenge window equal the pure core fed only `real`; no menu
    opened, no question asked, no gesture in the log (or just `gesture`),
    and the log replays to the live clock."""
    c = rig.clock
    ref = tick_clock(rig)
    ref.restore(list(c.snapshot()))
    before = log_text(rig)
    t0 = rig.ms()
    t0_ticks = rig.now
    items = []
    for i, (off, b, hold) in enumerate(spec):
        items.append((t0 + off, 30 + i, "down", b))
        items.append((t0 + off + hold, 10 + i, "up", b))
    for off, b in ups:
        items.append((t0 + off, 9, "up", b))
    end = max([off + hold for off, b, hold in spec] + [off for off, b in ups]) + after
    real = sorted(real, key=lambda r: r[0])  # (presses of one ms: in spec order)
    for off, b in real:
        items.append((t0 + off + 1, 0, "check", "1 ms after %s at %d" % (NAMES[b], off)))
    items.append((t0 + end, 0, "check", "the end"))
    fed = [0]

    def check(what):
        while fed[0] < len(real) and t0 + real[fed[0]][0] < rig.ms():
            off, b = real[fed[0]]
            t = rig.add(t0_ticks, off)
            if b == PAUSE:
                ref.pause(t)
            else:
                ref.press(b, t)
            fed[0] += 1
        ref.update(rig.now)
        assert seen(c) == seen(ref), "%s: app %r, the real presses alone %r\n%s" % (
            what, seen(c), seen(ref), log_text(rig))
        assert rig.app.mode == appmod.MODE_GAME, (what, rig.screen())
        assert rig.app.game.question.kind == qmod.NONE, (what, rig.screen())

    play(rig, items, check)
    lines = new_lines(before, log_text(rig))
    got = [ln for ln in lines if ln.startswith("#") and " gesture " in ln]
    assert gestures_of(got) == ([gesture] if gesture else []), lines
    replay_matches_live(rig, rig.root)
    return lines


def flagged_at(profile, where):
    """In pfs a side's 00:00 is its flag: the whole clock stops at that very
    ms, so a key going down at it finds the clock stopped (dead time), and
    both player buttons held from it are a confirmation (test below); the
    leaning cases put their first key at the last ms before it."""
    return profile == "pfs" and where == "zero"


@pytest.mark.parametrize("hold", (1100, 4000))
@pytest.mark.parametrize("profile,where", _where_cases())
@SIDES
def test_a_resting_finger_makes_no_confirmation_with_a_later_move(mover, profile, where, hold):
    """Issue 26 / SPEC v4 §4 Gestures ("A gesture's keys go down close
    together"): the opponent's finger stays on the press that started the
    mover's clock (the start press, resting 3.5 s to 6 minutes by then; in
    "window" their move, 3.5 s), and 2.5 s later the mover ends the turn
    with a firm press held `hold` ms.  The resting finger was held longer
    than 2 s when the mover's key went down: no confirmation, the move
    stands (SPEC v3 undid the move and everything back to the start
    press, or to before the opponent's move)."""
    a = 2500
    rig = arrange(profile, mover, where, rest=True, crit=a)
    try:
        run_case(rig, [(a, mover, hold)], [(a, mover)], ups=[(a + hold + 400, 1 - mover)])
    finally:
        drop(rig)


@pytest.mark.parametrize("pause_first", (True, False), ids=("P_first", "mover_first"))
@pytest.mark.parametrize("profile,where", _where_cases())
@SIDES
def test_a_resting_finger_makes_no_referee_gesture(mover, profile, where, pause_first):
    """Issue 26 / SPEC v4 §4 Gestures: "a gesture needs a fresh press of
    every one of its keys".  The opponent's finger rests on the press that
    started the mover's clock; 2.5 s later the pause key and the mover's
    button go down 100 ms apart and all three keys are held 3.5 s: no
    referee gesture (SPEC v3 opened the menu and undid the move and the
    time back to that press).  Each key did what the state table says at
    its edge: the pause key stops the clock, the mover's button ends the
    turn (in dead time after the pause)."""
    a = 2500
    rig = arrange(profile, mover, where, rest=True, crit=a)
    try:
        first, second = (PAUSE, mover) if pause_first else (mover, PAUSE)
        run_case(rig, [(a, first, 3600), (a + 100, second, 3500)],
                 [(a, first), (a + 100, second)], ups=[(a + 3700, 1 - mover)])
    finally:
        drop(rig)


@pytest.mark.parametrize("profile,where", _where_cases())
@SIDES
def test_a_resting_finger_on_the_start_press_makes_no_late_arrival(mover, profile, where):
    """Issue 26 / SPEC v4 §4 Gestures: with a finger kept on the start
    press, the pause key held 2.5 s 40 s into the game (in "window" right
    after a move by the mover, the window open) only stops the clock at its
    edge: the late-arrival gesture needs fresh presses of both its keys and
    exists only if the clock was in `ready` at the first of their edges
    (SPEC v3 took it for late arrival: the game went back to `late`)."""
    a = 10000 if where == "plain" else 2500
    rig = arrange(profile, mover, "plain" if where == "window" else where, rest=True, crit=a)
    try:
        spec = [(a, PAUSE, 2500)]
        real = [(a, PAUSE)]
        if where == "window":
            spec.append((1000, mover, 80))  # the mover's move: the window opens
            real.append((1000, mover))
        run_case(rig, spec, real, ups=[(a + 3000, 1 - mover)])
    finally:
        drop(rig)


LEANS = (0, 150, 700, 1500, 1900)


@pytest.mark.parametrize("lean", LEANS)
@pytest.mark.parametrize("profile,where", _where_cases())
@SIDES
def test_a_waiting_player_leaning_on_their_button_costs_no_move(mover, profile, where, lean):
    """Issue 26 / SPEC v4 §4 Gestures ("While a clock runs, both player
    buttons are presses, not a confirmation"): the waiting player leans on
    their button, and `lean` ms later the mover presses and holds theirs
    1.3 s, both held together over 1 s: the waiting player's press is
    ignored, the mover's ends the turn, and nothing is undone (SPEC v3 read
    a confirmation with no question and undid the move)."""
    a = 1000
    # (pfs, both at once: at the last ms before the flag, flagged_at())
    rig = arrange(profile, mover, where, rest=False,
                  crit=a + lean + (lean == 0 and flagged_at(profile, where)))
    try:
        w = 1 - mover
        run_case(rig, [(a, w, lean + 1400), (a + lean, mover, 1300)],
                 [(a, w), (a + lean, mover)])
    finally:
        drop(rig)


@pytest.mark.parametrize("d", (100, 175, 250))
@pytest.mark.parametrize("mover_first", (True, False), ids=("mover_first", "waiting_first"))
@pytest.mark.parametrize("profile,where", _where_cases())
@SIDES
def test_both_players_pressing_and_holding_change_the_turn_once(mover, profile, where,
                                                                 mover_first, d):
    """Issue 26 / SPEC v4 §4 Buttons, Gestures: both players press within
    100-250 ms of each other and hold 1.3 s: the turn changes exactly once
    (at the mover's press; the other press is the waiting player's, or
    falls in the 500 ms lock-out), and no confirmation undoes it (SPEC v3
    changed the turn zero times)."""
    a = 1000
    # (pfs, the mover first: at the last ms before the flag, flagged_at())
    rig = arrange(profile, mover, where, rest=False,
                  crit=a + (1 if flagged_at(profile, where) else 0) if mover_first else a + d)
    try:
        w = 1 - mover
        first, second = (mover, w) if mover_first else (w, mover)
        real = [(a, mover)] if mover_first else [(a, w), (a + d, mover)]
        lines = run_case(rig, [(a, first, 1300 + d), (a + d, second, 1300)], real)
        if mover_first and rig.clock.state == cc.RUNNING:
            assert rig.clock.side == w
            assert any("ignored: pressed together" in ln for ln in lines), lines
    finally:
        drop(rig)


@pytest.mark.parametrize("d", (100, 200, 300))
@pytest.mark.parametrize("profile,where", _where_cases())
@SIDES
def test_the_movers_press_right_after_the_opponents_restart_ends_the_turn(mover, profile,
                                                                          where, d):
    """Issue 26 / SPEC v4 §4 Buttons: "An opponent's press that restarts the
    mover's clock from a pause (TSO § 3.1.1) sets no lock-out": the mover
    pauses, the opponent restarts the mover's clock, and the mover's own
    press d = 100-300 ms later ends the mover's turn (SPEC v3's lock-out
    swallowed it: the move lost, the mover's clock running on)."""
    a = 2000
    rig = arrange(profile, mover, where, rest=False, crit=a + d)
    try:
        w = 1 - mover
        run_case(rig, [(1000, PAUSE, 80), (a, w, 80), (a + d, mover, 80)],
                 [(1000, PAUSE), (a, w), (a + d, mover)])
    finally:
        drop(rig)


@SIDES
def test_at_the_flag_both_player_buttons_held_are_a_confirmation(mover):
    """SPEC v4 §4 Gestures: the confirmation exists "when the clock was
    already stopped at its first key's edge".  In pfs the flag stops the
    whole clock at 00:00's very ms (PFS § 6.2.2, dead time), before any key
    going down at that ms acts: the mover's press there and the opponent's
    150 ms later, held 1.3 s, are a confirmation with no question, and
    their presses are undone: the clock stays stopped at the flag, as the
    core has it with no key pressed.  (Decision, docs/rules.md: a key at
    the flag's ms comes after the flag.)"""
    rig = arrange("pfs", mover, "zero", rest=False, crit=1000)
    try:
        run_case(rig, [(1000, mover, 1450), (1150, 1 - mover, 1300)], [], gesture="confirm")
        assert rig.clock.state == cc.PAUSED and rig.clock.flag(mover)
    finally:
        drop(rig)


@pytest.mark.parametrize("gap", (2000, 2001))
@pytest.mark.parametrize("first", (LEFT, RIGHT), ids=("L_first", "R_first"))
def test_the_2_s_of_a_gesture_include_2000_ms_exactly(first, gap):
    """SPEC v4 §4 Gestures: "The keys of one gesture must all have gone
    down within 2 s of each other"; a key "already held longer than that"
    is a resting finger.  Decision (docs/rules.md): held 2000 ms exactly is
    not longer, so 2000 ms from the first key to the last is within.  In
    paused (the clock stopped at the first key's edge), both player buttons
    2000 ms apart and held together 1.1 s are a confirmation with no
    question (their presses undone, the clock as it was); 2001 ms apart
    they are two presses, each acting at its edge (the first a dead-time
    move or the opponent's restart, the second a turn)."""
    rig = to_state("paused")
    try:
        if gap == 2000:
            gesture_undoes_its_keys(rig, [(0, first, gap + 1100), (gap, 1 - first, 1100)],
                                    "confirm")
            return
        run_case(rig, [(0, first, gap + 1100), (gap, 1 - first, 1100)],
                 [(0, first), (gap, 1 - first)])
    finally:
        drop(rig)


def test_the_hall_record_shows_the_gestures_not_the_undone_presses():
    """Issue 26 / SPEC v4 §4 Gestures: "The game log and the hall record the
    gesture (every recognized gesture gets its line in the log, `# <ms>
    gesture <name>`), not the undone presses."  A game on a hall clock (the
    outbox of firmware/net.py, no broker needed): late arrival (right
    present), left arrives and starts right's clock, right stops it, then
    both player buttons held 1 s on the stopped clock (a confirmation with
    no question: left's restart and right's move undone), then the end.
    The log the hall is sent has a line for each gesture (late_r, confirm,
    pause_long, confirm) and, of the keys' presses, only those that stand."""
    from test_net_outbox import boot, FakeFlash, SETTINGS, packet
    rig = boot(FakeFlash({"settings.json": SETTINGS}, dirs={"games"}))
    rig.run(2000)
    rig.perform(rigmod.late(RIGHT))
    rig.run(3000)
    rig.press(LEFT)                             # left arrives: right runs
    rig.run(3000)
    rig.press(PAUSE)
    rig.run(500)
    rig.perform(rigmod.confirm())               # undone: nothing asked
    rig.run(500)
    rig.perform(rigmod.end_game(False))
    assert rig.clock.state == cc.OVER
    n = rig.app.net      # the messages as the link carries them (a log is streamed)
    sent = [packet(n, m).decode("latin-1") for m in n.q1]
    log = sent[1][sent[1].index("profile "):]
    lines = [ln for ln in log.split("\n") if ln.strip()]
    assert [e[1:] for e in events_of(lines)] == [("late", "left"), ("left",), ("pause",),
                                                 ("end",)], log
    assert gestures_of(lines) == ["late_r", "confirm", "pause_long", "confirm"], log
