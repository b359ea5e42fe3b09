"""The state's JSON written in place (firmware/jsonout.py, report.emit,
hallmsg.report): what a clock on the hall's Wi-Fi publishes at each press
and heartbeat reads back as the very report report.state() builds (the one
list of its fields), hostile strings included; it allocates nothing once
warm (SPEC §6: no garbage collection in a game); what does not fit is
refused whole, nothing written past the buffer.

Written once for both interpreters (tests/mp/mptest.py): pytest runs it on
CPython, tests/test_micropython.py inside the real MicroPython, and
tests/test_target_qemu.py on the 32-bit image."""
import json

import clockcore
import hallmsg
import hallproto as hp
import jsonout
import profiles
import report
from mptest import eq, heap_bytes, micropython_only


def clock():
    return clockcore.Clock(profiles.make_rules("sdev", {}), 0, lambda a, b: a - b,
                           lambda t, d: t + d)


def written(c, t, size=1024, extra=()):
    buf = bytearray(size)
    o = jsonout.JSONOut(buf)
    o.begin()
    report.emit(c, t, o)
    for k, v in extra:
        o.field(k, v)
    o.end()
    return o, bytes(buf[:o.n])


def states():
    """Clocks in the states a game passes: ready, running, paused, a side
    in overtime (negative time), late (SPEC v5's lateness account), over."""
    c = clock()
    yield "ready", c, 0
    c.press(0, 1000)
    yield "running", c, 61000
    c.pause(62000)
    yield "paused", c, 62000
    d = clock()
    d.press(0, 0)
    yield "overtime", d, 26 * 60 * 1000 + 17
    e = clock()
    e.start_late(0, 1000)
    e.pause(91000)
    yield "late", e, 91000


def test_the_written_state_is_the_report_in_every_state():
    for name, c, t in states():
        o, b = written(c, t)
        eq(o.over, False, name)
        eq(json.loads(b), report.state(c, t), name)


def test_hostile_strings_read_back_as_json_writes_them():
    # a stolen account's profile or self-test text: quotes, backslashes,
    # controls, another field's text inside, bidi controls, Polish and
    # German letters, a formula
    for s in ('a"b', "back\\slash", "new\nline\r\t", '","table":99,"x":"', "\u202edcba",
              "\u017c\u00f3\u0142\u0107 \u00e4\u00df", "=1+2", "", "fail keys lcd buzzer"):
        o, b = written(clock(), 0, extra=(("selftest", s), ("clock", s)))
        d = json.loads(b)
        eq((d["selftest"], d["clock"]), (s, s), repr(s))
        eq(sorted(d), sorted(list(report.state(clock(), 0)) + ["selftest", "clock"]), repr(s))


def test_ints_at_the_protocols_limits():
    for v in (0, 7, -1, 10, -10, hp.INT_MAX, -hp.INT_MAX, 1000000007):
        buf = bytearray(64)
        o = jsonout.JSONOut(buf)
        o.begin()
        o.field("v", v)
        o.end()
        eq(json.loads(bytes(buf[:o.n])), {"v": v}, str(v))


def test_what_does_not_fit_is_refused_and_nothing_is_written_past_it():
    c = clock()
    o, whole = written(c, 0)
    for size in (1, len(whole) // 2, len(whole) - 1):
        buf = bytearray(size)
        o = jsonout.JSONOut(buf)
        o.begin()
        report.emit(c, 0, o)
        o.end()
        eq((o.over, o.n <= size, len(buf)), (True, True, size), "size %d" % size)
    o, b = written(c, 0, size=len(whole))
    eq((o.over, b), (False, whole), "exactly its size")


class _Src:
    """The state source as hallmsg reads it (firmware/source.py)."""

    def __init__(self, c, selftest=None, low=False):
        self.c = c
        self.st = selftest
        self.lowbat = low

    def table(self):
        return 0

    def tabled(self, t):
        pass

    def state(self):
        return self.c.state

    def emit(self, now, o):
        report.emit(self.c, now, o)

    def report(self, now):
        return report.state(self.c, now)

    def game(self):
        return 7

    def low(self):
        return self.lowbat

    def selftest(self):
        return self.st


def publish(p):
    """(topic, payload, retain) of one whole QoS 0 PUBLISH (MQTT 3.1.1 § 3.3)."""
    eq((p[0] >> 4, p[0] & 6), (3, 0), "a QoS 0 PUBLISH")
    n, i, shift = 0, 1, 0
    while True:
        n |= (p[i] & 127) << shift
        shift += 7
        i += 1
        if not p[i - 1] & 128:
            break
    eq(len(p), i + n, "the remaining length")
    t = p[i] << 8 | p[i + 1]
    return p[i + 2:i + 2 + t].decode(), p[i + 2 + t:], bool(p[0] & 1)


def test_the_publish_framed_in_place_is_the_state_on_its_topic():
    c = clock()
    c.press(0, 1000)
    m = hallmsg.Messages({"table": 12, "event": "cup", "user": "12"}, _Src(c, "pass"),
                         "e6614c3113462e2f", 0)
    for state in (True, False):
        eq(m.report(5000, state) is m.pkt, True, "in place")
        topic, payload, retain = publish(m.packet())
        eq((topic, retain), (m.topic("state" if state else "heartbeat"), state), "topic")
        want = m.fields(5000)
        want["selftest"] = "pass"
        eq(json.loads(payload), want, "payload")
        eq(hp.parse("cup", topic, payload).why, None, "the hall's check")


def test_the_longest_state_the_protocol_allows_fits_the_buffer():
    # every text at its longest in the widest characters json writes
    # (CPython: \\uXXXX for each; MicroPython: UTF-8), ints at INT_MAX
    # digits with a sign, the longest topic
    c = clock()
    c.rules.name = "\u017c" * hp.MAX_PROFILE
    c.press(0, 1000)
    m = hallmsg.Messages({"table": hp.MAX_TABLE, "event": "e" * hp.MAX_ID,
                          "user": "u" * hp.MAX_ID}, _Src(c, "f" * hp.MAX_SELFTEST, True),
                         "c" * hp.MAX_ID, 0)
    buf = m.report(hp.INT_MAX, True)
    eq(buf is m.pkt, True, "written in place (PACKET is enough)")
    eq(m.out.n - hallmsg.PAYLOAD_AT < hallmsg.PACKET - hallmsg.PAYLOAD_AT, True, "room")
    topic, payload, _r = publish(m.packet())
    eq(json.loads(payload)["profile"], c.rules.name, "the profile")


def test_a_state_too_long_for_the_buffer_goes_out_the_ordinary_way():
    c = clock()
    c.rules.name = "x" * (hallmsg.PACKET + 1)          # (no such profile is allowed)
    m = hallmsg.Messages({"table": 3, "event": "cup", "user": "3"}, _Src(c), "sim003", 0)
    p = m.report(0, True)
    eq(p is m.pkt, False, "a packet of its own")
    topic, payload, retain = publish(m.packet())
    eq(json.loads(payload)["profile"], c.rules.name, "whole")


@micropython_only
def test_writing_a_state_allocates_nothing():
    c = clock()
    c.press(0, 1000)
    m = hallmsg.Messages({"table": 12, "event": "cup", "user": "12"}, _Src(c),
                         "e6614c3113462e2f", 0)
    eq(heap_bytes(lambda: m.report(5000, True), 50), 0, "a state's PUBLISH (SPEC §6)")
    eq(heap_bytes(lambda: m.report(5000, False), 50), 0, "a heartbeat's")

