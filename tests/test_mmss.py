"""One mm:ss rule for every time a person reads (SPEC §4 display rounding,
TSO § 5.2 a; issue 13 point 3): the LCD (view.py), the game log's comments
(gamelog.py), the replay tool's summary and the logs tool's line
(host_sim) must print the same text for the same clock, across profiles,
around 0, at every second boundary, in overtime and over long games.

Every expected text is written by hand in the tables below (issue 22: never
computed by the code under test); each printer is compared with them."""
import clockcore as cc
import gamelog
import profiles
import report
import hd44780
from host_sim import logs, replay

# SPEC §4, written out by hand: remaining rounds up (00:00 exactly when time
# runs out), overtime rounds down with "-" from one whole second over.
# (ms, the text for ms, the text for -ms): every expected text is typed here,
# none is computed by the code under test.
SPEC_CASES = [
    (0, "00:00", "00:00"), (1, "00:01", "00:00"), (999, "00:01", "00:00"),
    (1000, "00:01", "-00:01"), (1001, "00:02", "-00:01"), (1999, "00:02", "-00:01"),
    (2000, "00:02", "-00:02"), (59999, "01:00", "-00:59"), (60000, "01:00", "-01:00"),
    (60001, "01:01", "-01:00"), (301000, "05:01", "-05:01"), (1500000, "25:00", "-25:00"),
    (5999000, "99:59", "-99:59"),
]

# Around each second boundary S (ms): the texts for S-1, S, S+1 and for
# -(S-1), -S, -(S+1), by hand from the same rule.
BOUNDARIES = [
    (1000, ("00:01", "00:01", "00:02"), ("00:00", "-00:01", "-00:01")),
    (59000, ("00:59", "00:59", "01:00"), ("-00:58", "-00:59", "-00:59")),
    (60000, ("01:00", "01:00", "01:01"), ("-00:59", "-01:00", "-01:00")),
    (61000, ("01:01", "01:01", "01:02"), ("-01:00", "-01:01", "-01:01")),
    (599000, ("09:59", "09:59", "10:00"), ("-09:58", "-09:59", "-09:59")),
    (3600000, ("60:00", "60:00", "60:01"), ("-59:59", "-60:00", "-60:00")),
    (5998000, ("99:58", "99:58", "99:59"), ("-99:57", "-99:58", "-99:58")),
]


def plain(name):
    return cc.Clock(profiles.make_rules(name, []), 0, lambda a, b: a - b,
                    lambda t, d: t + d)


def lcd_times(clock):
    """The two 6-column time fields of the 16x2 LCD, spaces stripped."""
    row = hd44780.text_of(clock)[0]
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


def all_show(clock, want, tmp_path=None):
    """Every printer shows `want` (left, right), typed by hand: the LCD, the
    text formatter, the game log's comment (when given a folder), the replay
    summary and the logs tool."""
    assert lcd_times(clock) == want, (clock.rem, "LCD")
    assert tuple(profiles.fmt_time(r) for r in clock.rem) == want, (clock.rem, "profiles")
    assert tuple(gamelog.fmt_time(r) for r in clock.rem) == want, (clock.rem, "gamelog")
    assert tool_times(clock) == want, (clock.rem, "replay/logs")
    if tmp_path is not None:
        assert log_times(clock, tmp_path) == want, (clock.rem, "game log")


def test_the_spec_rounding_on_every_output(tmp_path):
    for ms, text, neg in SPEC_CASES:
        c = plain("sdev")
        c.rem = [ms, -ms]
        all_show(c, (text, neg), tmp_path)


def test_every_printer_around_each_second_boundary():
    c = plain("sdev")
    for sec_ms, up, over in BOUNDARIES:
        for d, text, neg in zip((-1, 0, 1), up, over):
            c.rem = [sec_ms + d, -(sec_ms + d)]
            all_show(c, (text, neg))


def test_a_game_into_overtime_and_a_flag_on_every_printer(tmp_path):
    """A 1-minute game played on the core, where the left's time runs out:
    overtime shown from one whole second over (sdev, TSO § 5.2 a), 00:00
    held at the flag (pfs § 6.2.1).  (ms since the left's clock started,
    what sdev shows, what pfs shows), by hand."""
    steps = [(30000, ("00:30", "01:00"), ("00:30", "01:00")),
             (59999, ("00:01", "01:00"), ("00:01", "01:00")),
             (60000, ("00:00", "01:00"), ("00:00", "01:00")),
             (60999, ("00:00", "01:00"), ("00:00", "01:00")),
             (61000, ("-00:01", "01:00"), ("00:00", "01:00")),
             (125000, ("-01:05", "01:00"), ("00:00", "01:00"))]
    for col, name in ((1, "sdev"), (2, "pfs")):
        c = cc.Clock(profiles.make_rules(name, {"base": "01:00"}), 0, lambda a, b: a - b,
                     lambda t, d: t + d)
        c.press(cc.RIGHT, 0)                # the right presses: the left's clock runs
        for row in steps:
            c.update(row[0])
            all_show(c, row[col], tmp_path if row[0] == 61000 else None)


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
    for ms, want in ((0, "00:00"), (1, "00:00"), (999, "00:00"), (1000, "00:01"),
                     (61999, "01:01"), (1500000, "25:00"), (5999999, "99:59")):
        assert profiles.fmt_mmss(ms) == want, ms


def test_shown_seconds_by_hand():
    """profiles.shown_secs, the number behind every printer (SPEC §4)."""
    for ms, want in ((1, 1), (999, 1), (1000, 1), (1001, 2), (0, 0), (-999, 0),
                     (-1000, -1), (-1999, -1), (-2000, -2), (1500000, 1500)):
        assert profiles.shown_secs(ms) == want, ms
