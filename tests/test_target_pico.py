"""The deployed bundle on the emulated Raspberry Pi Pico (issue 11 "What to
build" 1): the official MicroPython RPI_PICO v1.28.0 image on rp2040js
(target/harness.js) with a NOR-flash model kept in a file, the bundle that
`make deploy BOARD=pico` copies (.mpy files + main.py + board.py) in a littlefs
image where the rp2 port mounts its filesystem, and the LCD decoded from the
real I2C0 traffic by the project's HD44780/PCF8574 emulator.
Under CI=true a missing image, node or rp2040js fails the run.
"""
import os

import pytest

import journal
import lang
from conftest import need
from host_sim import target

READY_WHO = lang.text("en", "READY_WHO")     # READY and who presses to start
READY_ROW = READY_WHO.center(15) + " "            # (the last column: the hall mark's)


@pytest.fixture(scope="module")
def fs_image(tmp_path_factory):
    need(target.pico_missing())
    d = tmp_path_factory.mktemp("pico")
    img = d / "fs.img"
    img.write_bytes(target.bundle_image(str(d)))
    return str(img)


def test_bundle_boots_from_littlefs_and_survives_a_power_cut(fs_image, tmp_path):
    flash = str(tmp_path / "flash.bin")
    pico = target.Pico(flash, fs_image=fs_image).start()
    try:
        pico.run_to(1500)
        # SPEC boot screen: name and version for 1.5 s, from main.py -> App
        # with the real rp2 machine module (no Python fakes on the board).
        rows = pico.lcd.text_rows()
        assert rows[0].strip() == "Scrabble clock", rows
        # issue 30: the splash names the app's commit (appversion.LABEL, the
        # bundle's buildinfo; "+": built from a changed checkout)
        from host_sim import app_commit
        assert rows[1].split()[0] == (app_commit() or "v1.0.0"), rows
        pico.run_to(3000)
        rows = pico.lcd.text_rows()
        # READY and who presses to start (issue 37, lang READY_WHO)
        assert rows == ["  30:00   30:00 ", READY_ROW], rows
        s = pico.stats()
        # the image's filesystem was mounted, not reformatted at boot (a
        # format erases all 352 blocks): the only erases are the first
        # boot's running-clock journal (firmware/journal.py, 160 KB), set
        # up in ready a 4 KB block per main-loop step (issue 20)
        pico.run_to(7000)
        s = pico.stats()
        assert s["erases"] <= journal.UNITS * journal.UNIT // 4096 + 4, s
        assert s["busy_ns"] > 0
        assert pico.lcd.text_rows()[1].strip() == READY_WHO
    finally:
        pico.stop()           # kill -9: a power cut
    # power up again on the same flash file: the same filesystem boots
    pico = target.Pico(flash).start()
    try:
        pico.run_to(3000)
        assert pico.lcd.text_rows()[1].strip() == READY_WHO
        assert pico.stats()["erases"] == 0
    finally:
        pico.stop()


LEFT, RIGHT, PAUSE = 14, 15, 13      # boards/pico.py
SDEV_1MIN = (b'{"v": 1, "profile": "sdev", "base_left": 60000, "base_right": 60000, '
             b'"lang": "en", "sound": true}')
WRAP_AT_MS = 30000                   # simulated ms after power-up when ticks_ms wraps


def start_scripted_game(request, background, tmp_path_factory):
    """The scripted game (test_scripted_game_on_the_emulated_pico, the
    longest run of the suite: ~77 s of simulated time, minutes of CPU) is
    played in a thread of the session's `background` (tests/conftest.py),
    one emulated Pico per core, from the session's start
    (tests/conftest.py longest_run_first; test_logs_pico.py and this module
    start it too when run alone), while the other tests run; its test, last
    here, waits for it.  Nothing starts when
    that test is not selected.  The job, or None."""
    names = {item.name for item in request.session.items}
    if "test_scripted_game_on_the_emulated_pico" not in names:
        return None
    if "scripted game" not in background.jobs:
        need(target.pico_missing())
        d = tmp_path_factory.mktemp("pico-game")
        img = d / "fs.img"
        img.write_bytes(target.bundle_image(str(d), extra={"settings.json": SDEV_1MIN}))
        background.start("scripted game", play_scripted_game, str(img),
                         tmp_path_factory.mktemp("scripted"))
    return background.jobs["scripted game"]


@pytest.fixture(scope="module", autouse=True)
def scripted_game(request, background, tmp_path_factory):
    return start_scripted_game(request, background, tmp_path_factory)


def play_scripted_game(game_image, tmp_path):
    """An SDeV game on a 1-minute base (TSO § 5.2) played through the GPIO
    levels, the LCD read from the I2C0 bytes at each step; the 2**30 ms tick
    wrap lands 30 s into the game; a power cut in overtime, then GAME
    RESTORED from the same flash (SPEC §4 "Power loss"); the game log pulled
    off over USB replays to the restored clock.  The log is copied with
    mpremote itself (`python -m host_sim logs` on the emulated Pico:
    tests/test_logs_pico.py)."""
    flash = str(tmp_path / "flash.bin")
    pico = target.Pico(flash, fs_image=game_image,
                       advance_ms=(1 << 30) - WRAP_AT_MS).start()
    try:
        # READY and who presses to start (issue 37, lang READY_WHO), before
        # the script's first press (the boot and the splash: 2450 ms today)
        ms = 1500
        while ms < 2490 and pico.lcd.text_rows() != ["  01:00   01:00 ", READY_ROW]:
            ms += 10
            pico.run_to(ms)
        assert pico.lcd.text_rows() == ["  01:00   01:00 ", READY_ROW], (ms, pico.lcd.text_rows())
        # a bouncing press of the left key: right's clock starts, once
        pico.press(LEFT, 2500, bounce=(1, 1, 2, 3))
        pico.run_to(4600)
        row0, row1 = pico.lcd.text_rows()
        assert row0[2:7] == "01:00" and row0[10:15] == "00:58", row0
        # right ends the turn: left runs, the 20 s challenge window opens
        pico.press(RIGHT, 8000, bounce=(2,))
        pico.run_to(9050)
        row0, row1 = pico.lcd.text_rows()
        assert row0[2:7] == "00:59" and row0[10:15] == "00:55", row0  # 54.5 s left
        assert "CHL 19" in row1, row1
        # pause on the key's leading edge, resume on its release (TSO § 4.1)
        pico.press(PAUSE, 12000, bounce=(1, 2), hold_ms=200)
        pico.run_to(14000)
        row0, row1 = pico.lcd.text_rows()
        assert "PAUSE" in row1 and row0[2:7] == "00:56", (row0, row1)
        pico.press(PAUSE, 15000, hold_ms=100)
        run_start = pico.stats()
        # left runs through the tick wrap (30 s) into overtime: -mm:ss and a
        # penalty for the started minute (TSO § 5.2: 10 points)
        pico.run_to(73600)
        row0, row1 = pico.lcd.text_rows()
        assert row0[1:7] == "-00:02", row0
        assert row1.startswith("P10"), row1
        running = pico.stats()
    finally:
        pico.stop()                      # the power cut, with the clock running
    pico = target.Pico(flash).start()
    try:
        pico.run_to(3000)
        row0, row1 = pico.lcd.text_rows()
        assert row1.strip() == "GAME RESTORED", row1
        # the newest checkpoint: the flag instant or a 4 s one after it
        assert row0[2:7] == "00:00" or row0[1:6] == "-00:0", row0
        assert row0[10:15] == "00:55", row0
        # the game log, pulled off the clock through its USB REPL with the
        # real mpremote, replays to the live (restored, paused) clock
        dest = tmp_path / "pulled"
        dest.mkdir()     # mpremote 1.28 `fs cp -r` needs it (host_sim/logs.py)
        rc, out = pico.with_pty(lambda pty: [target.tool("mpremote"), "connect", pty,
                                             "fs", "cp", "-r", ":games", str(dest)])
        assert rc == 0, out
    finally:
        pico.stop()
    from host_sim import logs, replay
    names = sorted(os.listdir(dest / "games"))
    assert names == ["g0001.txt"], names
    log = logs.read_log(str(dest / "games" / names[0]))
    assert log.restored == 1 and log.torn is None
    rep = logs.final_state(log)
    assert replay.state_word(rep) == "paused", rep
    assert rep["right"]["remaining_ms"] // 1000 + 1 == 55           # LCD: 00:55
    left = rep["left"]
    shown = row0[1:7].strip()
    if shown == "00:00":
        assert left["remaining_ms"] == 0 and left["overtime_ms"] < 1000, left
    else:
        assert left["overtime_ms"] // 1000 == int(shown[-2:]), (left, shown)
    erases = running["erases"] - run_start["erases"]
    # issue 11 "Flash erases": no erase while a clock runs (the rp2 port
    # erases with interrupts off, ~45 ms a sector); the checkpoints and the
    # flag went into the journal as page programs only
    assert erases == 0
    assert running["programs"] - run_start["programs"] >= 58 // 4
    return ("flash while a clock ran 58.5 s: %d erases, %d page programs"
            % (erases, running["programs"] - run_start["programs"]))


@pytest.fixture(scope="module")
def sdev_image(tmp_path_factory):
    need(target.pico_missing())
    d = tmp_path_factory.mktemp("pico-sdev")
    img = d / "fs.img"
    img.write_bytes(target.bundle_image(str(d), extra={"settings.json": SDEV_1MIN}))
    return str(img)


# the answer's timeline (simulated ms): the journal set up in ready first
# (test_bundle_boots...: by 7 s), right runs 2 s, left 1 s, paused, END?
ANSWER_L, ANSWER_R = 14600, 14700
ANSWER_YES = ANSWER_R + 1000          # both down 1 s: yes (SPEC v5 §4)


def _answer_until(image, flash, cut_ms):
    """END? answered on the emulated Pico, the power cut at `cut_ms`."""
    pico = target.Pico(flash, fs_image=image).start()
    try:
        pico.run_to(8000)
        pico.press(LEFT, 8000)            # right runs
        pico.press(RIGHT, 10000)          # left runs
        pico.press(PAUSE, 11000)          # paused(left): left 00:59, right 00:58
        pico.press(PAUSE, 12000, hold_ms=2200)
        pico.run_to(14400)
        assert "END?" in pico.lcd.text_rows()[1], pico.lcd.text_rows()
        pico.run_to(ANSWER_L)
        pico.pin(LEFT, 0)
        pico.run_to(ANSWER_R)
        pico.pin(RIGHT, 0)
        pico.run_to(cut_ms)
        return pico.lcd.text_rows()
    finally:
        pico.stop()                       # kill -9: the power cut, both still held


@pytest.mark.parametrize("after", (-400, 20, 200))
def test_the_answer_survives_a_power_cut_on_the_pico(sdev_image, tmp_path, after):
    """SPEC v5 §4 (issue 36): END? is answered at the instant both player
    buttons have been down 1 s, and a power cut after it keeps the answer;
    one during the hold keeps the game as it was (v4 kept the first press as
    a move and lost the end), through the journal on the emulated Pico's
    flash.  Cut 400 ms before the yes: the game comes back paused, 00:59 /
    00:58, and the pause key runs left's clock; 20 and 200 ms after it: the
    times stay, the pause key runs nothing (the game is over)."""
    flash = str(tmp_path / "flash.bin")
    rows = _answer_until(sdev_image, flash, ANSWER_YES + after)
    assert rows[0] == "‖ 00:59   00:58 " or rows[0][2:7] == "00:59", rows
    pico = target.Pico(flash).start()
    try:
        pico.run_to(3000)
        r0 = pico.lcd.text_rows()[0]
        assert r0[2:7] == "00:59" and r0[10:15] == "00:58", pico.lcd.text_rows()
        pico.press(PAUSE, 3100)
        pico.run_to(5300)
        r1 = pico.lcd.text_rows()[0]
        if after < 0:
            assert r1[2:7] == "00:57" and r1[10:15] == "00:58", r1    # left ran 2 s
        else:
            assert r1 == r0, (r0, r1)                                  # over: nothing runs
    finally:
        pico.stop()


def test_make_deploy_onto_an_empty_pico(tmp_path):
    """`make deploy BOARD=pico PORT=...` through the real mpremote onto a
    freshly formatted emulated Pico; after a power cycle the app boots."""
    need(target.pico_missing())
    flash = str(tmp_path / "flash.bin")
    pico = target.Pico(flash).start()        # no filesystem: the port formats one
    try:
        pico.run_to(500)
        assert pico.lcd.text_rows() == [" " * 16] * 2    # nothing of ours yet
        rc, out = pico.with_pty(lambda pty: ["make", "-s", "-C", target.ROOT, "deploy",
                                             "BOARD=pico", "PORT=" + pty])
        assert rc == 0, out
    finally:
        pico.stop()
    pico = target.Pico(flash).start()
    try:
        pico.run_to(1500)
        assert pico.lcd.text_rows()[0].strip() == "Scrabble clock"
        pico.run_to(3000)
        assert pico.lcd.text_rows()[1].strip() == READY_WHO
    finally:
        pico.stop()


def test_scripted_game_on_the_emulated_pico(scripted_game):
    """play_scripted_game (above): its emulation and every assertion of it ran
    in the module's thread; an assertion that failed there fails here."""
    print(scripted_game.result())


def test_bench_slots_bound_the_emulators_and_lower_their_priority(fs_image, tmp_path,
                                                                   monkeypatch):
    """Issue 30 ("a bench people run"): make bench runs at most EMULATORS
    emulators at a time whichever thread starts them (target.Pico.slots: a
    slot taken at start, given back at stop, also when the start fails), and
    niced, so that the hall's counts measured beside them get the CPU first."""
    import threading
    slots = threading.BoundedSemaphore(1)
    monkeypatch.setattr(target.Pico, "slots", slots)
    monkeypatch.setattr(target.Pico, "nice", 10)
    pico = target.Pico(str(tmp_path / "flash.bin"), fs_image=fs_image).start()
    try:
        assert not slots.acquire(blocking=False)       # the one slot is taken
        assert os.getpriority(os.PRIO_PROCESS, pico.proc.pid) >= 10
    finally:
        pico.stop()
    assert slots.acquire(blocking=False)               # and given back
    slots.release()
    broken = target.Pico(str(tmp_path / "flash2.bin"), uf2=str(tmp_path / "no.uf2"))
    with pytest.raises(Exception):
        broken.start()
    assert slots.acquire(blocking=False)               # a failed start gives it back
    slots.release()


PATIENCE_PROBE = r"""
import sys, types
from mpremote import transport_serial as ts
from host_sim import usb
clock = [0.0]
ts.time = types.SimpleNamespace(monotonic=lambda: clock[0],
                                sleep=lambda s: clock.__setitem__(0, clock[0] + s))
class Silent:                      # a board that sends nothing
    def inWaiting(self):
        return 0
t = ts.SerialTransport.__new__(ts.SerialTransport)
t.serial = Silent()
t.read_until(1, b"\x04")                              # exec_raw's wait (10 s)
between = clock[0]
clock[0] = 0.0
t.read_until(1, b">", timeout=None, timeout_overall=10)   # enter_raw_repl's
print(round(between), round(clock[0]), usb.TIMEOUT_S)
"""


@pytest.mark.parametrize("patient", [False, True])
def test_host_programs_on_the_emulated_board_get_patient_limits(patient):
    """Issue 37: mpremote gives up on a board silent for 10 s (between
    characters, and entering the raw REPL), deploy and logs on an mpremote
    command after usb.TIMEOUT_S; the emulated Pico on a loaded host is far
    slower than a real one, so the programs Pico.with_pty and plug() run get
    each limit target.PATIENCE times longer (target.patient_env): the real
    mpremote, on a clock of its own here (no wall-clock time passes)."""
    import subprocess
    import sys
    from host_sim import usb
    env = target.patient_env() if patient else dict(os.environ, PYTHONPATH="")
    proc = subprocess.run([sys.executable, "-c", PATIENCE_PROBE], capture_output=True,
                          text=True, cwd=target.ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    k = target.PATIENCE if patient else 1
    assert proc.stdout.split() == [str(10 * k), str(10 * k), str(usb.TIMEOUT_S * k)]


def test_a_busy_flashs_polls_wait_for_it_and_change_nothing_else(fs_image, tmp_path):
    """Issue 37: at the W25Q16's 400 ms an erase the boot ROM polls the status
    register some 650 000 times, each emulated (the watchdog's run spent
    most of its CPU there).  A poll of the busy flash now gets its answer
    when the flash is ready (target/harness.js waitReady): the same first
    power-up (the journal set up, erase after erase) with every poll
    emulated and without gives the same erases, the same flash busy time,
    the same core busy time and the watchdog's longest gap to a poll's
    length, the same screen; only the polls are fewer."""
    need(target.pico_missing())
    runs = {}
    for every in (True, False):
        pico = target.Pico(str(tmp_path / ("flash%d.bin" % every)), fs_image=fs_image,
                           erase_ms=target.Pico.ERASE_MS[1],
                           program_us=target.Pico.PROGRAM_US[1], every_poll=every).start()
        try:
            pico.run_to(4000)
            runs[every] = (pico.stats(), pico.lcd.text_rows())
        finally:
            pico.stop()
    (slow, slow_lcd), (fast, fast_lcd) = runs[True], runs[False]
    assert fast_lcd == slow_lcd
    assert fast["erases"] == slow["erases"] >= 2, (fast, slow)   # the journal's, begun
    assert fast["flash_busy_us"] == slow["flash_busy_us"]
    assert fast["wdt_triggers"] == slow["wdt_triggers"] == 0
    poll_us = 2                    # one status poll: well under 2 us on the chip
    assert abs(fast["wdt_max_gap_us"] - slow["wdt_max_gap_us"]) <= poll_us * 1000, (fast, slow)
    assert abs(fast["busy_ns"] - slow["busy_ns"]) <= slow["busy_ns"] // 100, (fast, slow)
    per_erase = target.Pico.ERASE_MS[1] * 1000 // poll_us
    assert slow["status_reads"] > slow["erases"] * per_erase // 4
    assert fast["status_reads"] * 100 < slow["status_reads"], (fast, slow)
