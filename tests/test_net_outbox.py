"""The hall's QoS 1 queue on flash (firmware/net.py OUTBOX; issue 14, 2:
"the final result (retained, QoS 1, sent again until acknowledged)"): kept
from the game's end until each PUBACK, written atomically, read again at
boot.  On the fake flash of tests/test_power_loss.py, no broker needed (the
real Mosquitto run is tests/test_hall.py::test_unacknowledged_result_survives_a_power_cut)."""
import json
import os

from host_sim.sim import load_board
from hall.rehearsal.clocks import attach
import hallmsg
import net
import outbox
import rig as gestures
from rig import Rig, LEFT, RIGHT
from test_power_loss import FakeFlash, PowerCut
from hallkit import pki_dir

CFG = {"host": "127.0.0.1", "port": 1, "event": "cup", "table": 5, "password": "pw"}
SETTINGS = (b'{"v": 1, "profile": "sdev", "base_left": 60000, "base_right": 60000, '
            b'"lang": "en", "sound": false}')


def boot(flash):
    rig = Rig(load_board("sim"), "", fs=flash)
    attach(rig.app, CFG, "t005")  # never connects here
    return rig


def play_to_the_end(rig):
    rig.run(2000)
    rig.press(LEFT)
    rig.run(3000)
    rig.press(RIGHT)
    rig.run(2000)
    rig.perform(gestures.end_game(True))
    assert rig.clock.state == 3


def queue(n):
    return [m.line for m in n.q1]


class Capture:
    """A socket that takes everything it is given (for Wire.send())."""

    def __init__(self):
        self.data = bytearray()

    def send(self, b):
        self.data.extend(b)
        return len(b)


def packet(n, m):
    """Message m of n's queue as the link would carry it, whole (a game
    log: streamed from its file, issue 30)."""
    w = n.wire
    w.sock = Capture()
    if m.log is None:
        w.start(m.packet)
    else:
        assert n.msg.stream(w, m)
    while w.busy():
        w.send(0)
    out = bytes(w.sock.data)
    w.sock = None
    return out


def test_a_finished_game_is_queued_on_flash_and_read_again_at_boot():
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    rig = boot(flash)
    play_to_the_end(rig)
    n = rig.app.net
    assert queue(n)[0].startswith("R scrabble/cup/5/result/1/5 {")
    assert queue(n)[1] == "L scrabble/cup/5/log/1/5 1"
    assert flash.files[outbox.OUTBOX].decode().split("\n")[:-1] == queue(n)
    after = boot(flash).app.net               # the power came back
    assert queue(after) == queue(n)
    # the same result, byte for byte; the log as its file is now (the boot
    # may have added its power-restored comment)
    assert packet(after, after.q1[0]) == packet(n, n.q1[0])
    assert packet(after, after.q1[1]).find(packet(n, n.q1[1])[4:]) > 0
    # The log's PUBACK takes its line off the flash; the result's does not
    # (issue 19: the broker may still lose it): only the recorder's
    # confirmation, its body echoed, does; the last line removes the file.
    for m in after.q1:
        m.sent = True                           # both written on the link
    result, log = after.q1
    after.on_puback(0, result.pid)
    assert result.acked and flash.files[outbox.OUTBOX].decode() == "\n".join(queue(n)) + "\n"
    after.on_puback(0, log.pid)
    assert flash.files[outbox.OUTBOX].decode() == queue(n)[0] + "\n"
    after.on_publish(0, after.msg.confirm_b, b"{}")  # not its body: kept
    assert after.q1 == [result]
    after.on_publish(0, b"scrabble/cup/confirm/6", result.echo)  # another clock's
    assert after.q1 == [result]
    after.on_publish(0, after.msg.confirm_b, result.echo)
    assert after.q1 == [] and outbox.OUTBOX not in flash.files and after.box.acked == 0


def test_a_power_cut_while_the_queue_is_written_leaves_the_old_or_the_new():
    """At every flash step of the write (temp file, each byte, rename), a
    boot finds either the queue before or the queue after, never a torn one."""
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    rig = boot(flash)
    play_to_the_end(rig)
    n = rig.app.net
    old = queue(n)
    n.box.add("scrabble/cup/5/state/5", b"", "C scrabble/cup/5/state/5", True)
    new = queue(n)
    before = dict(flash.files)
    seen = set()
    k = 0
    while True:
        flash.files = dict(before)
        flash.budget = k
        try:
            n.box.save()
            done = True
        except PowerCut:
            done = False
        flash.budget = None
        got = queue(boot(FakeFlash(flash.files, flash.dirs)).app.net)
        assert got in (old, new), (k, got)
        seen.add(len(got))
        if done:
            assert got == new
            break
        k += 1
    assert k > 10 and seen == {len(old), len(new)}


def test_a_foreign_outbox_is_one_line_and_the_clock_plays(capsys):
    flash = FakeFlash({"settings.json": SETTINGS, outbox.OUTBOX: b"\xff\xfegarbage\n"},
                      dirs={"games"})
    rig = boot(flash)
    assert capsys.readouterr().out == "net.out: not a queue of this clock's messages; ignored\n"
    assert rig.app.net.q1 == []
    play_to_the_end(rig)  # and its own result replaces the file
    assert flash.files[outbox.OUTBOX].startswith(b"R scrabble/cup/5/result/1/5 ")


def test_with_the_journal_the_result_waits_until_its_log_is_on_flash():
    """With the running-clock journal (firmware/journal.py) a game that ends
    while a clock runs (here a forfeit, TSO § 5.2 a: overtime past 5 min)
    has its last lines in the journal until the session folds them into the
    log file, in the steps after the game ended.  The hall's result and log
    (issue 14, 2: "at the end, the final result ... the game's log") go out
    only then, so the published log ends with the game's end."""
    from norfs import NorFS
    fs = NorFS()
    fs.mkdir("games")
    f = fs.open("settings.json", "wb")
    f.write(SETTINGS)
    f.close()
    rig = boot(fs)
    assert rig.app.session.sp.j is not None      # the journal is on (raw flash)
    rig.run(2000)
    rig.press(LEFT)                           # right runs: 60 s + 5 min overtime
    n = rig.app.net
    for _ in range(400):
        rig.run(1000)
        if rig.clock.state == 3:
            break
    assert rig.clock.state == 3               # game over while the clock ran
    rig.run(50)
    assert not rig.app.session.pending()
    log = [packet(n, m) for m in n.q1 if m.line.startswith("L ")]
    assert len(log) == 1, queue(n)
    text = fs.read("games/g0001.txt")
    end = text.splitlines()[-2:]               # the game's end (SPEC v4 §5:
    assert b"forfeit" in end[0] and end[1].startswith(b"# 361000 over"), text  # a forfeit, then `# <ms> over`) ...
    assert log[0].endswith(text)              # ... is in the published log


def test_a_full_queue_drops_logs_before_results():
    """issue 19 (no result lost): when the queue is full (outbox.MAX_QOS1), the
    oldest log or emptied topic goes first; a result only when nothing but
    results is left (and that is counted in dropped)."""
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    n = boot(flash).app.net
    for g in range(1, outbox.MAX_QOS1 // 2 + 1):
        t = "scrabble/cup/5/result/%d/5" % g
        n.box.add(t, "{}", "R %s {}" % t, False, b"{}")
        t = "scrabble/cup/5/log/%d/5" % g
        n.box.add(t, "log", "L %s %d" % (t, g), True)
    assert len(n.q1) == outbox.MAX_QOS1
    for g in range(10, 10 + outbox.MAX_QOS1 // 2):
        t = "scrabble/cup/5/result/%d/5" % g
        n.box.add(t, "{}", "R %s {}" % t, False, b"{}")
    kinds = [m.line[0] for m in n.q1]
    assert kinds == ["R"] * outbox.MAX_QOS1, kinds          # every log went first
    assert n.box.dropped == outbox.MAX_QOS1 // 2 and n.box.unsent == outbox.MAX_QOS1
    t = "scrabble/cup/5/result/99/5"
    n.box.add(t, "{}", "R %s {}" % t, False, b"{}")
    assert n.q1[0].line.startswith("R scrabble/cup/5/result/2/5")   # the oldest result
    assert n.box.dropped == outbox.MAX_QOS1 // 2 + 1


def _wifi_board():
    b = load_board("sim")
    b.WIFI = True
    return b


def test_net_json_and_the_queue_are_read_through_the_apps_filesystem(tmp_path, monkeypatch,
                                                                  capsys):
    """issue 22 (narrow doors): net.py reads net.json, and reads and writes
    net.out, through the filesystem the app was given, never the builtin
    open(): a net.json on the fake flash is found, one in the working folder
    is not; a broken one there is one line and the clock plays."""
    monkeypatch.chdir(tmp_path)
    ca = open(os.path.join(pki_dir(), "ca.crt")).read()
    (tmp_path / "net.json").write_text(json.dumps({"host": "10.0.0.9", "port": 1883,
                                                   "event": "x", "table": 9,
                                                   "password": "pw", "ca": ca}))
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    assert Rig(_wifi_board(), "", fs=flash).app.net is None   # not on its flash
    flash.files["net.json"] = json.dumps({"host": "10.0.0.2", "port": 1883, "event": "cup",
                                          "table": 5, "password": "pw", "ca": ca}).encode()
    rig = Rig(_wifi_board(), "", fs=flash)
    n = rig.app.net
    assert n is not None and n.msg.prefix == "scrabble/cup/5/" and n.link is None
    assert rig.app.source is n.src and n.src.hall_table() == 5   # the menu's "Hall" item
    play_to_the_end(rig)
    assert flash.files[outbox.OUTBOX].startswith(b"R scrabble/cup/5/result/1/5 {")
    assert not (tmp_path / outbox.OUTBOX).exists()
    flash = FakeFlash({"settings.json": SETTINGS, "net.json": b"\xff\xfe{"}, dirs={"games"})
    capsys.readouterr()
    rig = Rig(_wifi_board(), "", fs=flash)
    assert rig.app.net is None and rig.app.source.hall() == -1   # no "Hall" item
    assert capsys.readouterr().out == "net.json: not valid JSON; the clock stays off the network\n"
    play_to_the_end(rig)                       # it still plays


def test_the_hall_mark_reaches_the_app_through_its_callback():
    """issue 22: net.py tells the app its hall state through the state
    source's mark() (App.show_hall), never by writing into App: connecting
    from the boot (issue 21), no hall once a connect fails (port 1 refuses)."""
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    rig = boot(flash)
    n = rig.app.net
    assert n.hall == net.HALL_WAIT and rig.app.frame.hall == net.HALL_WAIT
    for _ in range(200):
        rig.run(20)
        if n.hall != net.HALL_WAIT:
            break
    assert n.hall == net.HALL_DOWN and rig.app.frame.hall == net.HALL_DOWN, n.note


def test_a_log_longer_than_log_max_is_cut_between_two_characters():
    """A game log longer than hallmsg.LOG_MAX is published cut, with a line
    saying so; the cut never splits a UTF-8 character (a player's name with
    an umlaut in the header of a long game): the payload is valid text."""
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    rig = boot(flash)
    play_to_the_end(rig)
    n = rig.app.net
    text = ("x" * (hallmsg.LOG_MAX - 1) + "\u00e4" + "tail\n").encode()   # ä: 2 bytes over the cut
    flash.files["games/g0001.txt"] = text
    log = [m for m in n.q1 if m.line.startswith("L ")][0]
    p = packet(n, log)
    body = p[p.index(b"log/1/5") + len(b"log/1/5") + 2:]    # after the topic and the id
    note = ("\n# cut at %d bytes\n" % hallmsg.LOG_MAX).encode()
    assert body == text[:hallmsg.LOG_MAX - 1] + note
    body.decode("utf-8")


def test_a_memory_error_while_queueing_the_result_and_log_loses_neither():
    """Issue 30: final_due is cleared only once the result and the log are
    queued (and kept on flash); a MemoryError on the way (a fragmented heap)
    leaves it set, the next poll queues them, and nothing is queued twice."""
    flash = FakeFlash({"settings.json": SETTINGS}, dirs={"games"})
    rig = boot(flash)
    n = rig.app.net
    save = n.box.save
    fail = [True]

    def save_outbox():
        if fail[0]:
            fail[0] = False
            raise MemoryError("memory allocation failed, allocating 6528 bytes")
        save()

    n.box.save = save_outbox
    try:
        play_to_the_end(rig)
    except MemoryError:
        pass
    assert not fail[0]                    # it failed once, at the game's end
    assert n.msg.final_due
    rig.run(100)                          # the next steps: queued now
    assert not n.msg.final_due
    assert [x[:2] for x in queue(n)] == ["R ", "L "], queue(n)
    assert flash.files[outbox.OUTBOX].decode().split("\n")[:-1] == queue(n)
