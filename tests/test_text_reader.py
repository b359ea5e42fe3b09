"""One reader for replay files and game logs (issue 13 point 3): `replay`
and `logs` decode the bytes the same way and name the same line for a byte
that is not UTF-8 (SPEC §5: one `FILE:LINE:` line, never a traceback)."""
import io

from host_sim import logs, replay

LOG = b"profile sdev\n0 left  # L 25:00 R 25:00\n1000 right\n"


def test_a_byte_order_mark_is_not_text_and_a_torn_line_is_kept_apart(tmp_path):
    p = tmp_path / "g0001.txt"
    p.write_bytes(b"\xef\xbb\xbf" + LOG + b"2000 le")
    lines = replay.read_lines(str(p))
    assert lines[0] == "profile sdev" and lines[-1] == "2000 le"
    log = logs.read_log(str(p))
    assert log.torn == "2000 le"
    assert [e.kind for e in log.game.events] == ["left", "right"]


def test_both_tools_name_the_same_line_for_a_byte_that_is_not_utf8(tmp_path):
    p = tmp_path / "g0002.txt"
    p.write_bytes(LOG + b"2000 pa\xffuse\n")
    err = io.StringIO()
    assert replay.load_or_report(str(p), err) is None
    assert err.getvalue() == "%s:4: not a text file (UTF-8): byte 0xff\n" % p
    assert logs.describe(str(p)) == \
        "g0002.txt  unreadable: line 4: not a text file (UTF-8): byte 0xff"
