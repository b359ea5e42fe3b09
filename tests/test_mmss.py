"""One mm:ss rule for every time a person reads (SPEC §4 display rounding,
TSO § 5.2 a; issue 13 point 3): the LCD (view.py), the game log's comments
(gamelog.py), the replay tool's summary and the logs tool's line
(host_sim) must print the same text for the same clock, across profiles,
around 0, at every second boundary, in overtime and over long games."""
import random

import clockcore as cc
import gamelog
import profiles
import report
import view
from host_sim import logs, replay

# SPEC §4, written out by hand: remaining rounds up (00:00 exactly when time
# runs out), overtime rounds down with "-" from one whole second over.
SPEC_CASES = [
    (0, "00:00"), (1, "00:01"), (999, "00:01"), (1000, "00:01"), (1001, "00:02"),
    (59999, "01:00"), (60000, "01:00"), (60001, "01:01"), (-1, "00:00"),
    (-999, "00:00"), (-1000, "-00:01"), (-1999, "-00:01"), (-2000, "-00:02"),
    (-59999, "-00:59"), (-60000, "-01:00"), (-301000, "-05:01"),
    (1500000, "25:00"), (5999000, "99:59"), (-5999000, "-99:59"),
]


def plain(name):
    return cc.Clock(profiles.make_rules(name, []), 0, lambda a, b: a - b,
                    lambda t, d: t + d)


def lcd_times(clock):
    """The two 6-column time fields of the 16x2 LCD, spaces stripped."""
    row = view.to_text(view.View(16, 2).render(clock)[0])
    return row[1:7].strip(), row[9:15].strip()


def log_times(clock, tmp_path):
    """The `# L .. R ..` comment the game log writes for the clock's times."""
    lg = gamelog.GameLog(folder=str(tmp_path / "games"))
    lg.begin(clock.rules)
    lg.event(0, cc.EV_PAUSE, -1, 0, clock.rem[0], clock.rem[1])
    name = lg.name
    lg.close()
    with open(name) as f:
        last = f.read().splitlines()[-1]
    words = last.split("#", 1)[1].split()
    assert words[0] == "L" and words[2] == "R", last
    return words[1], words[3]


def tool_times(clock):
    """The replay summary's and the logs tool's texts for both sides."""
    rep = report.state(clock, 0)
    rep["lcd"] = ["x" * 16]
    out = []
    for name in ("left", "right"):
        line = [l for l in replay.summary(rep).splitlines() if l.startswith(name)][0]
        summary_t = line.split()[1]
        logs_t = logs._side(rep, name).split()[1]
        assert summary_t == logs_t == replay.shown_time(rep[name])
        out.append(summary_t)
    return tuple(out)


def all_agree(clock, tmp_path, want=None):
    lcd = lcd_times(clock)
    text = tuple(profiles.fmt_time(r) for r in clock.rem)
    assert lcd == text, (clock.rem, lcd, text)
    assert tool_times(clock) == text, clock.rem
    if tmp_path is not None:
        assert log_times(clock, tmp_path) == text, clock.rem
    if want is not None:
        assert text == want, clock.rem


def test_the_spec_rounding_on_every_output(tmp_path):
    for ms, want in SPEC_CASES:
        c = plain("sdev")
        c.rem = [ms, -ms]
        neg = profiles.fmt_time(-ms)
        assert gamelog.fmt_time(ms) == profiles.fmt_time(ms) == want
        assert profiles.shown_secs(ms) == (int(want[-5:-3]) * 60 + int(want[-2:])) * \
            (-1 if want[0] == "-" else 1)
        all_agree(c, tmp_path, (want, neg))


def test_every_millisecond_around_each_second_boundary_agrees():
    c = plain("sdev")
    for sec in (0, 1, 59, 60, 61, 599, 3600, 5998):
        for d in range(-3, 4):
            for ms in (sec * 1000 + d, -(sec * 1000 + d)):
                c.rem = [ms, -ms]
                all_agree(c, None)


def test_random_games_in_every_profile_agree(tmp_path):
    """Random presses at random ms gaps, into overtime, in each profile: at
    every step the LCD, the log, the replay and the logs tool agree."""
    rng = random.Random(13)
    for name in profiles.PROFILES:
        c = plain(name)
        t = 0
        side = cc.LEFT
        checks = 0
        while c.state != cc.OVER and t < 3 * 3600 * 1000:
            c.press(side, t)
            side = 1 - side
            t += rng.choice((1, 999, 1000, 1001, rng.randrange(1, 400000)))
            c.update(t)
            all_agree(c, tmp_path if checks % 25 == 0 else None)
            checks += 1
        assert checks > 5, name


def test_the_lcd_caps_at_99_59_where_its_columns_end():
    """Beyond 99:59 (only a replay's adjustment gets there) the 6 LCD columns
    show 99:59; the text formatter prints the whole minutes."""
    c = plain("sdev")
    c.rem = [6000000, -6000000]
    assert lcd_times(c) == ("99:59", "-99:59")
    assert profiles.fmt_time(6000000) == "100:00"


def test_durations_counting_up_round_down():
    """Base times and elapsed time (settings, the replay's `at`) round down,
    like overtime and lateness on the LCD."""
    for ms in (0, 1, 999, 1000, 61999, 1500000):
        assert profiles.fmt_mmss(ms) == profiles.fmt_time(-ms).lstrip("-")
