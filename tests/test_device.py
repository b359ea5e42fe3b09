"""The device app end to end on emulated hardware (issue: device firmware).

The scenarios live in tests/mp/device_scenarios.py.  Written once for both
interpreters (tests/mp/mptest.py): pytest runs this file on CPython,
tests/test_micropython.py inside the real MicroPython, where the scenarios
that CPython also replays from their logs (host_sim, CPython only) run on
their own and the main loop's heap allocation is measured;
tests/test_target_qemu.py runs it on the 32-bit image, without the long
scenarios (every virtual second costs real seconds of emulation there).
"""
import os

import clockcore as cc
import device_scenarios as ds
from mptest import MICROPYTHON, cpython_only, eq, heap_bytes, micropython_only, parametrize
from mptest import small_heap, tmp_path


def load_board(name):
    """boards/<name>.py (on MicroPython, boards/ is on MICROPYPATH)."""
    if MICROPYTHON:
        return __import__(name)
    from host_sim.boards import load  # the one board loader
    return load(name)


def new_root(name):
    """A fresh folder for one clock's files (its flash)."""
    if MICROPYTHON:
        base = tmp_path("sclock_mp_device")  # the run's own (runs at once)
        try:
            os.mkdir(base)
        except OSError:
            pass
        return ds.fresh_dir(base + "/" + name)
    import tempfile
    return ds.fresh_dir(tempfile.mkdtemp(prefix="sclock-%s-" % name))


def _name(f):
    return f.__name__


@parametrize("scenario", ds.SCENARIOS, ids=_name)
def test_device_scenario(scenario):
    scenario(load_board("sim"), new_root(scenario.__name__))


def replay_matches_live(rig, root):
    """The device's own game log (the newest game file) replays to exactly
    the live clock: same state, same times, same flags and forfeits."""
    from host_sim import replay
    games = sorted(n for n in os.listdir(root + "games") if n.endswith(".txt"))
    assert games, "no game log"
    text = open(root + "games/" + games[-1], encoding="utf-8").read()
    game = replay.parse(text.split("\n"))
    live = rig.clock
    if live.state == 0 and hasattr(rig, "ended_rem"):
        # a new game began: the log of the game before ends as it ended
        clock, _ = replay.run(game)
        assert clock.state == 3 and clock.rem == rig.ended_rem, (text, clock.rem)
        return text
    at = rig.app.session.log_ms(live.t)
    clock, _ = replay.run(game, at)
    got = replay.report(clock, at)
    want = replay.report(live, at)
    assert got == want, "log:\n%s\nreplay %r\nlive   %r" % (text, got, want)
    return text


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
@parametrize("scenario", ds.GESTURE_SCENARIOS + ds.FAULT_SCENARIOS, ids=_name)
def test_gesture_scenario_replays_to_the_live_clock(tmp_path, scenario):
    """Issues 10, 18: each gesture scenario (SPEC v3 §4 Gestures) on the emulated
    device, and its game log replays to exactly the live clock, so no key
    sequence changed a side's time other than by its own clock running or
    by a logged referee event."""
    root = ds.fresh_dir(str(tmp_path / "clock"))
    rig = scenario(load_board("sim"), root)
    chords = scenario is ds.scenario_chords or scenario is ds.scenario_chords_on_a_stopped_clock
    if chords:
        root = rig.app.log.folder.rsplit("/", 1)[0] + "/"
    text = replay_matches_live(rig, root)
    if chords:   # SPEC v3 §4: the log records the gesture, not its undone presses
        assert "gesture referee: the presses of its keys are undone" in text, text


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_thirty_days_idle_paused_running(tmp_path):
    """Issue 12 "any uptime works" (the scenario runs on MicroPython too);
    issue 26: a game longer than 11.6 days (30 days paused, then 6.2 days of
    overtime) replays exactly to the live clock (its log times went on past
    10**9 ms; they stopped at 999 999 999 before)."""
    root = ds.fresh_dir(str(tmp_path / "clock"))
    rig = ds.scenario_thirty_days(load_board("sim"), root)
    text = replay_matches_live(rig, root)
    assert "999999999" not in text, text


def test_device_20x4():
    ds.scenario_20x4_layout(load_board("sim_2004"), new_root("20x4"))


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_power_cut_log_replays_to_the_live_clock(tmp_path):
    """SPEC §4 Game log: the log the clock wrote through a power cut replays
    (python -m host_sim replay) to exactly the live clock's final state."""
    from host_sim import replay

    root = ds.fresh_dir(str(tmp_path / "clock"))
    rig = ds.scenario_power_cut(load_board("sim"), root)
    games = sorted(os.listdir(root + "games"))
    assert len(games) == 1, games
    text = open(root + "games/" + games[0]).read()
    assert "# power restored" in text
    game = replay.parse(text.split("\n"))
    clock, _ = replay.run(game)
    live = rig.clock
    assert clock.state == live.state == 3
    assert clock.rem == live.rem
    assert clock.rules.name == "sdev"


def _rig(tmp_path, profile="sdev", base_s=600, sound=True):
    from rig import Rig
    root = ds.fresh_dir(str(tmp_path / "clock"))
    with open(root + "settings.json", "w") as f:
        f.write('{"v": 1, "profile": "%s", "base_left": %d, "base_right": %d, '
                '"lang": "en", "sound": %s}' % (profile, base_s * 1000, base_s * 1000,
                                                "true" if sound else "false"))
    rig = Rig(load_board("sim"), root)
    rig.run(1600)
    return rig


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_side_leds_show_the_running_side(tmp_path):
    """Issue: two side LEDs show which side runs (visible across the room)."""
    import machine
    board = load_board("sim")
    rig = _rig(tmp_path)
    led_l, led_r = machine.pin(board.LED_LEFT), machine.pin(board.LED_RIGHT)
    assert (led_l.value(), led_r.value()) == (0, 0)       # ready: dark
    rig.press(ds.LEFT)                                    # right runs
    assert (led_l.value(), led_r.value()) == (0, 1)
    rig.run(3000)
    rig.press(ds.RIGHT)                                   # left runs
    assert (led_l.value(), led_r.value()) == (1, 0)
    rig.press(ds.PAUSE)                                   # paused: dark
    assert (led_l.value(), led_r.value()) == (0, 0)


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_low_battery_warning_on_the_display(tmp_path):
    """Issue: a battery voltage input with a low-battery warning; the divider
    (2:1) and the 3400 mV threshold come from the board file."""
    rig = _rig(tmp_path)
    rig.press(ds.LEFT)
    rig.run(11000)
    assert "BATT" not in rig.screen()[1]                  # full battery
    rig.app.battery.adc.level_u16 = 30000                 # 1510 mV at the pin: 3020 mV
    rig.run(10100)
    assert rig.app.battery.mv == 30000 * 3300 // 65535 * 2
    assert rig.app.battery.low
    assert "BATT" in rig.screen()[1]                      # shown while the center is free
    rig.app.battery.adc.level_u16 = 40000                 # 4028 mV: recovered
    rig.run(10100)
    assert "BATT" not in rig.screen()[1]


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_beeps_at_window_close_flag_and_forfeit_and_sound_off(tmp_path):
    """Issue: a short beep when the challenge window closes, a distinct one at
    00:00 and at forfeit; switchable off in the setup."""
    import machine
    import outputs
    board = load_board("sim")
    rig = _rig(tmp_path, base_s=60)
    pwm_pin = board.BUZZER
    rig.press(ds.LEFT)
    rig.run(3000)
    rig.press(ds.RIGHT)                                   # window opens
    rig.run(20100)
    assert rig.app.buzzer.last == outputs.BEEP_WINDOW
    rig.run(40000)                                        # left reaches 00:00
    assert rig.app.buzzer.last == outputs.BEEP_FLAG
    rig.run(301000)
    assert rig.app.buzzer.last == outputs.BEEP_FORFEIT
    (tmp_path / "q").mkdir()
    quiet = _rig(tmp_path / "q", base_s=60, sound=False)
    quiet.press(ds.LEFT)
    quiet.run(70000)
    assert quiet.app.buzzer.beeps == 0 and quiet.clock.flag(ds.RIGHT)


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_press_together_is_logged_but_not_applied(tmp_path):
    """SPEC v3 §4 Buttons: a press inside the 500 ms lock-out of the side
    just started is ignored and logged, with no effect; it is a comment, so
    the log still replays to the live clock (both orders: the scenario's
    1 ms and 100 ms pairs)."""
    from host_sim import replay

    root = ds.fresh_dir(str(tmp_path / "clock"))
    rig = ds.scenario_both_buttons_together(load_board("sim"), root)
    name = sorted(os.listdir(root + "games"))[-1]
    text = open(root + "games/" + name).read()
    assert "left ignored: pressed together with right" in text
    assert "right ignored: pressed together with left" in text
    turns = [ln for ln in text.split("\n") if ln.split(" ")[1:2] in (["left"], ["right"])]
    assert len(turns) == 3, text          # the start and one move per pair
    live = rig.clock
    live.update(live.t)
    at = rig.app.session.log_ms(live.t)
    clock, _ = replay.run(replay.parse(text.split("\n")), at)
    assert clock.running() == live.running() == ds.RIGHT
    assert clock.rem == live.rem


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_every_game_log_names_its_clock_and_table(tmp_path):
    """Issue 12 item 4: the log header carries machine.unique_id() in hex and
    the table number from the setup menu; replay reads it as a comment."""
    import machine
    from host_sim import replay

    rig = _rig(tmp_path)
    rig.app.settings.table = 12
    rig.press(ds.LEFT)
    rig.run(2000)
    rig.press(ds.RIGHT)
    root = str(tmp_path / "clock") + "/"
    name = sorted(os.listdir(root + "games"))[-1]
    text = open(root + "games/" + name).read()
    uid = "".join("%02x" % b for b in machine.unique_id())
    assert text.split("\n")[1] == "# clock %s table 12" % uid
    clock, _ = replay.run(replay.parse(text.split("\n")))
    assert clock.running() == rig.clock.running() == ds.LEFT


class _Stop(BaseException):
    pass


def _run_loops(app, rig, n, step=None):
    """app.run() for n iterations of 2 ms of virtual time (its sleep_ms ends
    it); returns how many times it fed the watchdog."""
    fed = []
    left = [n]
    inner = step if step is not None else app.step

    def sleep_ms(ms):
        rig.now = rig.add(rig.now, ms)

    def counted():
        # one loop iteration; the sleep after it comes in 1 ms slices
        left[0] -= 1
        if left[0] < 0:
            raise _Stop()
        inner()

    app.step = counted
    try:
        app.run(sleep_ms, feed=lambda: fed.append(1))
    except _Stop:
        pass
    return len(fed)


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_an_unexpected_error_is_logged_and_the_loop_goes_on(tmp_path):
    """Issue 12: anything that escapes a loop iteration goes to errors.txt
    (bounded) and the clock goes on (it keeps feeding the watchdog); only a
    failure that repeats (5 in 10 s) stops feeding it, so the watchdog
    reboots into the restored, paused game."""
    rig = _rig(tmp_path)
    app = rig.app
    real = app.step
    calls = [0]

    def sometimes(every):
        def step():
            calls[0] += 1
            if calls[0] % every == 0:
                raise ValueError("boom %d" % calls[0])
            real()
        return step

    # one failure every 1500 loop iterations (seconds apart): goes on
    fed = _run_loops(app, rig, 6000, sometimes(1500))
    assert app.errlog.errors == 4 and app.errlog.healthy and fed == 6000
    path = str(tmp_path / "clock" / "errors.txt")
    lines = open(path).read().splitlines()
    assert len(lines) == 4 and all("ValueError: boom" in ln for ln in lines)
    # a burst: stop feeding the watchdog
    fed = _run_loops(app, rig, 100, sometimes(2))
    assert not app.errlog.healthy and fed < 100
    # the error log stays bounded
    for k in range(400):
        app.errlog.failed(RuntimeError("x" * 40), rig.now)
    assert os.path.getsize(path) <= 4096


@cpython_only  # pytest's tmp_path (and host_sim's replay where used)
def test_boot_notices_show_each_in_turn(tmp_path):
    """Issue 12: "Settings reset" no longer hides "SAVED GAME LOST", each
    shows NOTICE_MS from the end of the splash, then the game screen."""
    from rig import Rig
    import app as appmod
    import display
    root = ds.fresh_dir(str(tmp_path / "clock"))
    with open(root + "settings.json", "w") as f:
        f.write("{not json")
    with open(root + "clock.state.a", "wb") as f:
        f.write(b"SClk" + bytes(100))          # a torn record
    rig = Rig(load_board("sim"), root)
    rig.run(appmod.SPLASH_MS + 100)
    seen = []
    for _ in range(int(2.5 * display.NOTICE_MS / 500)):
        row = rig.screen()[1].strip()
        if not seen or seen[-1] != row:
            seen.append(row)
        rig.run(500)
    import lang
    assert seen == ["Settings reset", "SAVED GAME LOST", lang.text("en", "READY_WHO")], seen


# -- MicroPython: the scenarios CPython runs with their replay, and the heap -------

# The long ones (minutes of virtual play each: 66 chord boots, a
# 15-minute lateness, 30 days, a minute of a flaky bus; the display's
# back-off and its notices, stepped a few ms at a time) are left out on the
# 32-bit image (a Pico-sized heap, under qemu).
LONG = (ds.scenario_void_after_a_forfeit, ds.scenario_chords,
        ds.scenario_chords_on_a_stopped_clock,
        ds.scenario_second_hold_on_the_final_screen, ds.scenario_late_sdev,
        ds.scenario_late_sdev_restarted_and_the_limit_in_the_menu,
        ds.scenario_late_sdev_after_a_credit,
        ds.scenario_late_arrival_begins_the_game, ds.scenario_results_of_the_last_games,
        ds.scenario_bus_faults, ds.scenario_thirty_days,
        ds.scenario_pause_held_through_a_challenge, ds.scenario_slow_referee,
        ds.scenario_display_backoff, ds.scenario_notice_waits_for_the_question)
ON_THEIR_OWN = [f for f in ds.GESTURE_SCENARIOS + ds.FAULT_SCENARIOS + (ds.scenario_thirty_days,)
                if f not in ds.SCENARIOS and not (MICROPYTHON and small_heap() and f in LONG)]


@micropython_only
@parametrize("scenario", ON_THEIR_OWN, ids=_name)
def test_scenario_inside_micropython(scenario):
    scenario(load_board("sim"), new_root(scenario.__name__))


@micropython_only
@parametrize("board", ["sim", "sim_2004"])
def test_main_loop_allocates_nothing_in_a_running_game(board):
    """Issue budget: 0 bytes per main-loop iteration in steady state (the
    16x2, and the 20x4's big digits: issue 28)."""
    from rig import Rig, LEFT
    root = new_root("alloc_" + board)
    ds.write_settings(root, "sdev", 600)
    rig = Rig(load_board(board), root)
    rig.run(1600)
    rig.press(LEFT)                       # right runs
    rig.run(4500)                          # past the first checkpoint
    app = rig.app
    # Align to just after a second boundary of right's remaining time.
    rig.run(rig.clock.rem[1] % 1000 + 1)

    def one_ms():
        rig.now = rig.add(rig.now, 1)
        app.step()

    steady = heap_bytes(one_ms, 300)       # 300 loops, no boundary, no checkpoint
    eq(rig.clock.state, cc.RUNNING, "still running")
    eq(steady, 0, "heap bytes in 300 steady-state loop iterations")

    def one_s():
        rig.now = rig.add(rig.now, 1000)
        app.step()

    rig.run(rig.clock.rem[1] % 1000 + 1)
    # Across second boundaries (the LCD changes each time); checkpoints every
    # 4 s write the state file, so measure 3 boundaries between two of them.
    rig.run(5)
    app.session.last_save = rig.now        # no checkpoint write in the window
    crossing = heap_bytes(one_s, 2)        # warm-up + 2 boundaries < 4 s
    print("heap bytes: steady %d per loop, across a second boundary %d per loop"
          % (steady // 300, crossing // 2))
    eq(crossing, 0, "heap bytes across two second boundaries (LCD rewrites)")


@micropython_only
@parametrize("board", ["sim", "sim_2004"])
def test_referee_menu_over_a_lateness_allocates_nothing(board):
    """SPEC v4 (issue 26): the referee menu shows while a lateness clock
    runs on: the main loop there (the clock advanced, the menu redrawn as
    the seconds change: the 20x4 shows both times) allocates nothing
    either."""
    from rig import Rig, LEFT
    import rig as gestures
    root = new_root("alloc_late_" + board)
    ds.write_settings(root, "sdev", 600)
    rig = Rig(load_board(board), root)
    rig.run(1600)
    rig.perform(gestures.late(LEFT))      # right's lateness runs
    rig.perform(gestures.referee())
    app = rig.app
    eq(app.mode, 3, "the referee menu")
    rig.press(gestures.PAUSE)             # the next item, and back to the first
    rig.press(gestures.PAUSE)
    rig.press(gestures.PAUSE)
    rig.run(4500)                         # past a checkpoint
    app.session.last_save = rig.now

    def one_ms():
        rig.now = rig.add(rig.now, 1)
        app.step()

    def one_s():
        rig.now = rig.add(rig.now, 1000)
        app.step()

    steady = heap_bytes(one_ms, 300)
    crossing = heap_bytes(one_s, 2)
    eq(rig.clock.state, cc.LATE, "the lateness still runs")
    eq(app.mode, 3, "still in the menu")
    eq(steady, 0, "heap bytes in 300 loop iterations over a lateness")
    eq(crossing, 0, "heap bytes across two second boundaries over a lateness")
