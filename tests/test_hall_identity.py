"""A record's identity comes from its account (issue 35): results and logs
are filed under the table and clock of the account that published them (the
topic, which the broker's ACL pins to that account), never under a name the
payload gives.  The recorder (hall/recorder.py) with its real files,
message by message as the broker delivers them:

- no account replaces, extends or takes the name of another clock's log
  (the filing believed the log's `# clock` line: a longer copy replaced the
  real log, a copy published first moved it to `-2`);
- a game resumed on its own clock (a referee's `Resume game`, a power cut)
  still replaces its own shorter copy, and a new game under the same number
  (a clock counting from 1 again) is filed beside it as `-2`;
- a log is filed under the clock of its account's own result for the game
  (whatever its `# clock` line says), else under its `# clock` line's clock
  if that is the account's; a log with no `# clock` line is refused.

Each refusal is one warning, counted on the alarm topic (issue 35: the
director's page shows the count and the last reason)."""
import json
import os

import hallproto as hp

from bench import hall_attacks as A
from hall import filing
from hall import recorder as REC


def state(table, clock, game=1, over=False):
    return {"profile": "sdev", "t_ms": 1000, "running": None if over else "left",
            "paused": False, "over": over, "challenge_ms": 0, "late": None, "lowbat": False,
            "left": {"remaining_ms": 1, "overtime_ms": 0, "penalty": 0, "flag": False,
                     "forfeit": False},
            "right": {"remaining_ms": 2, "overtime_ms": 0, "penalty": 0, "flag": False,
                      "forfeit": False},
            "clock": clock, "table": table, "game": game}


class Hall:
    """A recorder on a folder, fed as the broker would; the alarms it sent."""

    def __init__(self, folder):
        self.folder = folder
        self.sent = []
        self.rec = REC.Recorder(folder, "cup", lambda t, p, q, r: self.sent.append((t, p)))

    def send(self, account, kind, table, body, game=None, retained=False):
        topic = hp.topic("cup", table, kind, account, game)
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.rec.message(topic, payload, retained)
        self.rec.tick()

    def alarm(self):
        got = [p for t, p in self.sent if t == REC.ALARM_TOPIC % "cup"]
        return json.loads(got[-1])

    def logs(self):
        return {os.path.basename(p): open(p, "rb").read()
                for _t, p in filing.filed(self.folder, 1)}


def log(clock, table, game, *lines):
    return A._log_text(clock, table, game, lines)


def test_no_account_replaces_or_takes_another_clocks_log(tmp_path):
    h = Hall(str(tmp_path))
    h.send(4, "state", 4, state(4, "c4"))          # clock c4 switched on: account 4's
    h.send(3, "state", 3, state(3, "c3"))
    real = log("c4", 4, 1)
    h.send(4, "log", 4, real, 1, True)
    assert h.logs() == {"c4-g0001.txt": real}
    # account 3, on its own topic at table 4, a longer copy naming c4: refused
    h.send(3, "log", 4, real + b"2000 right\n", 1, True)
    # ... and first, a log naming c4's next game
    h.send(3, "log", 4, log("c4", 4, 2, "# thief"), 2, True)
    h.send(3, "log", 3, log("c4", 3, 2, "# thief"), 2, True)
    mine = log("c4", 4, 2)
    h.send(4, "log", 4, mine, 2, True)
    assert h.logs() == {"c4-g0001.txt": real, "c4-g0002.txt": mine}
    a = h.alarm()
    assert a["refused"] == 3 and "clock c4 belongs to account 4, not to account 3" in a["last"], a
    # the thief's own clock's log is filed, under its own name only
    own = log("c3", 4, 2)
    h.send(3, "log", 4, own, 2, True)
    assert h.logs()["c3-g0002.txt"] == own and len(h.logs()) == 3


def test_a_resumed_game_replaces_its_own_shorter_copy_a_new_game_goes_beside_it(tmp_path):
    h = Hall(str(tmp_path))
    h.send(4, "state", 4, state(4, "c4"))
    short = log("c4", 4, 1)
    h.send(4, "log", 4, short, 1, True)
    h.send(4, "log", 4, short, 1, True)                  # the retained copy again: nothing
    longer = short + b"2000 right\n"                     # Resume game / a power cut: it went on
    h.send(4, "log", 4, longer, 1, True)
    assert h.logs() == {"c4-g0001.txt": longer}
    other = log("c4", 4, 1, "# a new game 1")            # the clock counts from 1 again
    h.send(4, "log", 4, other, 1, True)
    assert h.logs() == {"c4-g0001.txt": longer, "c4-g0001-2.txt": other}
    assert h.alarm()["refused"] == 0


def test_a_log_is_filed_under_the_clock_of_its_own_accounts_result(tmp_path):
    """The result (checked: its clock is its account's) names the game's
    clock: the log of that game is filed under it, whatever its `# clock`
    line says (another account's clock: no file of that clock is touched);
    without a result, a `# clock` line of another account's clock is
    refused; a log without a `# clock` line is refused by the protocol."""
    h = Hall(str(tmp_path))
    h.send(4, "state", 4, state(4, "c4"))
    h.send(3, "state", 3, state(3, "c3"))
    h.send(3, "result", 3, state(3, "c3", 1, over=True), 1)
    assert [t for t, _p in h.sent if t == hp.confirm_topic("cup", "3")]
    mine = log("c4", 3, 1)
    h.send(3, "log", 3, mine, 1, True)                   # its line names c4: filed as c3's
    assert h.logs() == {"c3-g0001.txt": mine}
    h.send(3, "log", 3, log("c4", 3, 2), 2, True)        # no result: c4 is account 4's
    h.send(3, "log", 3, b"profile sdev  # game 3\n1000 left\n", 3, True)
    assert list(h.logs()) == ["c3-g0001.txt"]
    a = h.alarm()
    assert a["refused"] == 2 and "`# clock <id>`" in a["last"], a


def test_results_are_filed_under_the_publishing_account(tmp_path):
    """Account 3's result at table 4 naming account 4's clock is refused;
    its result for its own clock at table 4 is its own row (account 3),
    never account 4's."""
    h = Hall(str(tmp_path))
    h.send(4, "state", 4, state(4, "c4"))
    h.send(3, "state", 3, state(3, "c3"))
    h.send(3, "result", 4, state(4, "c4", 1, over=True), 1)
    h.send(3, "result", 4, state(4, "c3", 1, over=True), 1)
    h.send(4, "result", 4, state(4, "c4", 1, over=True), 1)
    recs = REC.read_records(str(tmp_path), lambda m: None)
    assert sorted((r["account"], r["table"], r["result"]["clock"]) for r in recs) == [
        ("3", 4, "c3"), ("4", 4, "c4")]
    assert h.alarm()["refused"] == 1
