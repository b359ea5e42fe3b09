"""No message stops a reader (issue 35): whatever the protocol
(firmware/hallproto.py) refuses is dropped with one warning and counted, and
every other clock's results go on being stored.

- Through the real Mosquitto and the real recorder: a stolen clock account
  publishes thousands of malformed topics and payloads (the hostile corpus
  of bench/hall_attacks.py and seeded mutations of it: Unicode digits,
  newlines, homoglyphs, bidi controls, surrogates, cut and flipped bytes,
  other clocks' ids) while honest simulated clocks (the device app +
  firmware/net.py) play a round: every honest result is stored exactly once
  and confirmed, the recorder is the same process throughout, and its alarm
  topic counts what it refused.
- The recorder itself, message by message: the corpus and its mutations
  never raise and leave no traceback; a recorder started again on files an
  earlier one (or a hand, or a crash) left poisoned (the issue's killers: a
  clock id ending in a newline, superscript digits, torn lines) stores the
  next honest result at once.
"""
import json
import os
import random
import threading

import hallproto as hp

from hallkit import PATIENT_S, needs_broker, new_hall, running_hall, state_body, until
from bench import hall_attacks as A
from hall import recorder as REC
from hall.rehearsal import clocks as rehearsal

SPEED = 40          # virtual ms per real ms (tests/test_hall.py's): a game in a few seconds
HONEST = 4          # clocks 1..4 play; account THIEF's clock is stolen
THIEF = 5
MESSAGES = 3000     # the fuzz's bound (a few seconds on a quiet machine)

STATE = state_body(lowbat=False, clock="sim%03d" % THIEF, table=THIEF)

JUNK = ["\u00b9", "\uff15", "\u0665", "\n", "\r", "\u202e", "\u2066", "\ud800", "\u0455",
        "\u200b", "0", "-", "+", "#", " ", "%u", "..", "x" * 300, "", "sim001", "sim002\n"]


def mutations(account, n, honest, seed=35):
    """n (topic, payload) pairs: the corpus for `account`'s own topics (at
    its table and at every honest clock's), then seeded mutations of it:
    a level or a byte replaced, a payload cut or grown, another clock's id
    (one of `honest`, the honest clocks' ids)."""
    rnd = random.Random(seed)
    base = []
    for table in [THIEF] + list(range(1, HONEST + 1)):
        good = dict(STATE, table=table)
        base += A.hostile_messages("cup", table, account, good)
    out = list(base)
    while len(out) < n:
        t, p = rnd.choice(base)
        how = rnd.randrange(6)
        if how == 0:                         # a topic level replaced (not the account's)
            lv = t.split("/")
            i = rnd.randrange(len(lv) - 1)
            lv[i] = rnd.choice(JUNK) if rnd.random() < 0.7 else lv[i] + rnd.choice(JUNK)
            t = "/".join(lv)
        elif how == 1 and p:                 # a byte flipped
            i = rnd.randrange(len(p))
            p = p[:i] + bytes([rnd.randrange(256)]) + p[i + 1:]
        elif how == 2 and p:                 # cut anywhere
            p = p[:rnd.randrange(len(p))]
        elif how == 3:                       # another text inside
            i = rnd.randrange(len(p) + 1)
            p = p[:i] + rnd.choice(JUNK).encode("utf-8", "surrogatepass") + p[i:]
        elif how == 4:                       # another clock's id in the body
            p = p.replace(b'"sim%03d"' % THIEF, b'"%s"' % rnd.choice(honest).encode())
        else:                                # a value of another type
            p = p.replace(b"false", rnd.choice([b"0", b'"false"', b"null", b"[]", b"1.5"]), 1)
        out.append((t, p))
    return out[:n]


def broker_takes(topic):
    """Would Mosquitto take this topic in a PUBLISH (MQTT 3.1.1 § 4.7.3:
    UTF-8, no wildcard; Mosquitto also refuses control characters)?"""
    return "+" not in topic and "#" not in topic and topic and not any(
        ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF for c in topic)


@needs_broker
def test_a_stolen_account_flooding_garbage_stops_no_honest_result(tmp_path):
    with running_hall(tmp_path, tables=THIEF + 1) as h:
        pid = h.rec_proc.pid
        fleet = rehearsal.Fleet(h, HONEST, speed=SPEED)
        # the clocks are on at their tables before the round (the recorder
        # knows each one's account: a clock the hall never saw can be claimed
        # first by another account, docs/hall.md "The threat model")
        # (each rehearsal clock's own id: its machine.unique_id() in hex)
        ids = {c.id: str(c.table) for c in fleet.clocks}
        assert len(ids) == HONEST
        assert fleet.run(seconds=PATIENT_S, until=lambda: all(
            REC.read_owners(h.folder, lambda m: None).get(i) == a for i, a in ids.items()))
        thief = A._client(h, str(THIEF), h.passwords()[THIEF])
        # (a topic no broker takes, a control character or "+" in it, ends the
        # thief's connection: tests/test_hall_proto.py and the test below give
        # those to the recorder directly)
        msgs = [m for m in mutations(str(THIEF), MESSAGES * 2, sorted(ids))
                if broker_takes(m[0])][:MESSAGES]
        sent = []

        def flood():
            for i, (t, p) in enumerate(msgs):
                info = thief.publish(t, p, qos=1 if i % 50 == 0 else 0, retain=i % 7 == 0)
                if i % 50 == 0:             # (bounded in flight: the broker keeps up)
                    info.wait_for_publish(5)
                sent.append(i)

        try:
            th = threading.Thread(target=flood, daemon=True)
            th.start()
            done = fleet.run(seconds=PATIENT_S, until=lambda: not th.is_alive() and
                             fleet.finished() == HONEST and all(
                                 not c.net.q1 and c.net.confirmed for c in fleet.clocks))
            assert done, [(c.net.note, len(c.net.q1), c.net.confirmed, c.over())
                          for c in fleet.clocks]
            assert len(sent) == MESSAGES and thief.is_connected()
            A._close(thief)
            # the recorder counted what it refused, on the alarm topic (the page's path)
            alarm = until(lambda: json.loads(h.collect(REC.ALARM_TOPIC % "cup").get(
                REC.ALARM_TOPIC % "cup", b"{}") or b"{}"), lambda a: a.get("refused", 0) > 500)
            assert alarm["refused"] > 500 and alarm["last"], alarm
            assert alarm["writing"] is None, alarm
            assert h.rec_proc.poll() is None and h.rec_proc.pid == pid, "the recorder stopped"
        finally:
            fleet.close()
    recs = REC.read_records(h.folder, lambda m: None)
    honest = [(r["account"], r["table"], r["result"]["clock"], r["game"]) for r in recs
              if r["account"] != str(THIEF)]
    assert sorted(honest) == sorted((a, int(a), i, 1) for i, a in ids.items())
    # the thief's records are its own (under its account), none names an honest clock
    assert not [r for r in recs if r["account"] == str(THIEF)
                and r["result"]["clock"] in ids]


def test_the_recorder_never_raises_and_restarts_on_poisoned_files(tmp_path, capfd):
    folder = str(tmp_path)
    sent = []
    rec = REC.Recorder(folder, "cup", lambda t, p, q, r: sent.append((t, p)))
    good = json.dumps(dict(STATE, table=1, clock="sim001")).encode()
    rec.message(hp.topic("cup", 1, "state", 1), good)
    msgs = mutations(str(THIEF), 4000, ["sim%03d" % t for t in range(1, HONEST + 1)])
    refused = sum(1 for t, p in msgs if hp.parse("cup", t, p).kind == "refused")
    for t, p in msgs:
        rec.message(t, p, True)
    rec.tick()
    assert rec.alarm.refused >= refused > 2000
    err = capfd.readouterr().err
    assert "Traceback" not in err and "could not handle" not in err
    # poisoned files, as an older recorder (or a crash, or a hand) left them
    with open(os.path.join(folder, REC.OWNERS), "a") as f:
        f.write(json.dumps({"clock": "sim009\n", "account": "9", "how": "first"}) + "\n")
        f.write(json.dumps({"clock": "sim008", "account": "\u00b9", "how": "first"}) + "\n")
        f.write('{"clock": "sim00')                          # torn
    with open(os.path.join(folder, "games.jsonl"), "a") as f:
        f.write(json.dumps({"clock": "sim009\n", "account": "9", "table": 9, "game": 1,
                            "round": 1, "seen": "x"}) + "\n{\n")
    with open(os.path.join(folder, REC.RESULTS), "a") as f:
        bad = dict(STATE, table=9, clock="sim009\n", over=True)
        f.write(json.dumps({"topic": "scrabble/cup/9/result/1/9", "account": "9", "table": 9,
                            "game": 1, "seen": "x", "result": bad}) + "\n")
        f.write(json.dumps({"topic": "scrabble/cup/\u00b9/result/1/9", "account": "9",
                            "table": 1, "game": 1, "seen": "x", "result": bad}) + "\n{")
    rec.journal.close()
    sent.clear()
    again = REC.Recorder(folder, "cup", lambda t, p, q, r: sent.append((t, p)))
    result = json.dumps(dict(STATE, table=1, clock="sim001", over=True)).encode()
    again.message(hp.topic("cup", 1, "result", 1, 1), result)
    assert (hp.confirm_topic("cup", "1"), result) in sent
    clocks = [r["result"]["clock"] for r in REC.read_records(folder, lambda m: None)]
    assert clocks.count("sim001") == 1 and all(hp.is_id(c) for c in clocks)
    again.journal.close()
    assert "Traceback" not in capfd.readouterr().err


@needs_broker
def test_a_recorder_whose_stderr_is_a_full_disk_lives_on(tmp_path):
    """The recorder's own lines cannot be written (its stderr a file on the
    full disk it reports: /dev/full answers every write with ENOSPC): it
    stores, confirms and says what it refused on the alarm topic all the
    same (issue 35: it died writing its alarm)."""
    h = new_hall(tmp_path, tables=2)
    with open("/dev/full", "w") as full:
        h.start_broker()
        try:
            h.start_recorder(stderr=full)
            c = A._client(h, "1", h.passwords()[1], subscribe=[hp.confirm_topic("cup", "1")])
            A._publish(c, hp.topic("cup", "\u00b9", "state", 1), b"{}")
            A._publish(c, hp.topic("cup", 1, "state", 1), b"not json")
            result = json.dumps(dict(STATE, table=1, clock="sim001", over=True)).encode()
            A._publish(c, hp.topic("cup", 1, "result", 1, 1), result)
            got = until(lambda: list(c.got), lambda g: g)
            A._close(c)
            assert got == [(hp.confirm_topic("cup", "1"), result)]
            alarm = json.loads(h.collect(REC.ALARM_TOPIC % "cup")[REC.ALARM_TOPIC % "cup"])
            assert alarm["refused"] == 2 and "not JSON" in alarm["last"], alarm
            assert h.rec_proc.poll() is None
        finally:
            h.stop()
