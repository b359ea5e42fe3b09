# The device scenarios (tests/mp/device_scenarios.py) under the real
# MicroPython interpreter, and the main loop's heap allocation in a running
# game (issue budget: 0 bytes per iteration in steady state).
import os
import sys

import device_scenarios as ds
import sim as board          # boards/sim.py (boards/ is on MICROPYPATH)
import clockcore as cc
from mptest import eq, heap_bytes, tmp_path
from rig import Rig, LEFT

BASE = tmp_path("sclock_mp_device")


def _root(name):
    try:
        os.mkdir(BASE)
    except OSError:
        pass
    return ds.fresh_dir(BASE + "/" + name)


def test_boot_setup_menu():
    ds.scenario_boot_setup_menu(board, _root("boot_setup_menu"))


def test_sdev_overtime_forfeit():
    ds.scenario_sdev_overtime_forfeit(board, _root("sdev_overtime_forfeit"))


def test_pfs_flag():
    ds.scenario_pfs_flag(board, _root("pfs_flag"))


def test_bounce_trains():
    ds.scenario_bounce_trains(board, _root("bounce_trains"))


def test_both_buttons_together():
    ds.scenario_both_buttons_together(board, _root("both_buttons_together"))


def test_end_keeps_the_last_movers_turn():
    ds.scenario_end_keeps_the_last_movers_turn(board, _root("end_last_turn"))


def test_void_after_a_stop():
    ds.scenario_void_after_a_stop(board, _root("void_stop"))
















def test_late_pfs_walkover():
    ds.scenario_late_pfs(board, _root("late_pfs"))








def test_pfs_flag_then_pause():
    ds.scenario_pfs_flag_then_pause(board, _root("pfs_flag_pause"))


def test_referee_gesture():
    ds.scenario_referee_gesture(board, _root("referee_gesture"))


def test_press_during_lcd_write():
    ds.scenario_press_during_lcd_write(board, _root("press_during_lcd_write"))


def test_power_cut():
    ds.scenario_power_cut(board, _root("power_cut"))


def test_20x4_layout():
    import sim_2004
    ds.scenario_20x4_layout(sim_2004, _root("20x4"))


def test_main_loop_allocates_nothing_in_a_running_game():
    root = _root("alloc")
    ds.write_settings(root, "sdev", 600)
    rig = Rig(board, root)
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
    app.session.last_save = rig.now               # no checkpoint write in the window
    crossing = heap_bytes(one_s, 2)        # warm-up + 2 boundaries < 4 s
    print("heap bytes: steady %d per loop, across a second boundary %d per loop"
          % (steady // 300, crossing // 2))
    eq(crossing, 0, "heap bytes across two second boundaries (LCD rewrites)")


# The long scenarios (minutes of virtual play each: eighteen chord boots, a
# 15-minute lateness, 30 days, a minute of a flaky bus) run on the unix port;
# on the 32-bit image under qemu (tests/test_target_qemu.py), where every
# virtual second costs real seconds of emulation, the suite runs the others.
if sys.maxsize > (1 << 31):

    def test_void_after_a_forfeit():
        ds.scenario_void_after_a_forfeit(board, _root("void_forfeit"))

    def test_all_six_chord_orders_at_0_150_300_ms():
        ds.scenario_chords(board, _root("chords"))

    def test_second_hold_on_the_final_screen():
        ds.scenario_second_hold_on_the_final_screen(board, _root("second_hold"))

    def test_late_sdev_15_01():
        ds.scenario_late_sdev(board, _root("late_sdev"))

    def test_late_arrival_begins_the_game():
        ds.scenario_late_arrival_begins_the_game(board, _root("late_arrival"))

    def test_results_of_the_last_games():
        ds.scenario_results_of_the_last_games(board, _root("results"))

    def test_bus_faults_1s_10s_and_60s_flaky():
        ds.scenario_bus_faults(board, _root("bus_faults"))

    def test_thirty_days_idle_paused_running():
        ds.scenario_thirty_days(board, _root("thirty_days"))

    def test_pause_held_through_a_challenge():
        ds.scenario_pause_held_through_a_challenge(board, _root("challenge_hold"))

    def test_slow_referee():
        ds.scenario_slow_referee(board, _root("slow_referee"))
