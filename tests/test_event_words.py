"""The replay format's event words are one table (issue 13 point 3):
firmware/gamelog.py writes each core event with gamelog.WORDS, and the
replay tool (SPEC §5) reads exactly those words back, with their side and
adjustment, so any log line the clock writes replays as the same event."""
import clockcore as cc
import gamelog
import profiles
from host_sim import replay


def logged_lines(tmp_path, events):
    lg = gamelog.GameLog(folder=str(tmp_path / "games"))
    lg.begin(profiles.make_rules("sdev", []))
    for i, (code, side, delta) in enumerate(events):
        lg.event(1000 * i, code, side, delta, 1500000, 1500000)
    name = lg.name
    lg.close()
    with open(name) as f:
        return f.read().splitlines()


def test_every_logged_event_word_replays_as_that_event(tmp_path):
    events = []
    for code in gamelog.WORDS:
        for side in (cc.LEFT, cc.RIGHT):
            if code == cc.EV_BASE:   # the new base time, ms (SPEC v4)
                events.append((code, side, 25 * 60000 if side else 99 * 60000 + 59000))
            elif code == cc.EV_LATENESS:   # the lateness account, ms (SPEC v5)
                events.append((code, side, 14 * 60000 + 59999 if side else 0))
            else:
                events.append((code, side, -60000 if side else 30000))
    lines = logged_lines(tmp_path, events)
    parsed = replay.parse(lines).events
    assert len(parsed) == len(events)
    for (code, side, delta), ev in zip(events, parsed):
        assert ev.kind == gamelog.WORDS[code]
        if code in (cc.EV_ADJUST, cc.EV_BASE, cc.EV_LATENESS):
            assert (ev.side, ev.delta) == (side, delta)
        elif code in gamelog.SIDED:
            assert ev.side == side


def test_the_replay_knows_no_word_the_log_cannot_write():
    assert set(replay.EVENTS) == set(gamelog.WORDS.values())
    assert set(replay.SIDED) == {gamelog.WORDS[k] for k in gamelog.SIDED}
    assert len(set(gamelog.WORDS.values())) == len(gamelog.WORDS)


def test_time_triggered_events_are_comments_the_replay_recomputes(tmp_path):
    """SPEC §4 Game log: flag, forfeit, window closed, over are notes."""
    notes = [(cc.EV_FLAG, cc.LEFT, 0), (cc.EV_FORFEIT, cc.RIGHT, 0),
             (cc.EV_WINDOW, -1, 0), (cc.EV_OVER, -1, 0)]
    lines = logged_lines(tmp_path, notes)
    assert all(l.startswith("#") for l in lines[-4:])
    assert replay.parse(lines).events == []
