"""Hostile input to the host tools gets one clean line (issue 12, item 3).

SPEC §5's contract for `python -m host_sim replay FILE --json`: exit 0 with
exactly one JSON object on stdout, or exit 2 with exactly one
`FILE:LINE: message` line on stderr; never a traceback, never a hang.

* Times no game reaches (replay.MAX_MS = logtime.LIMIT, about 8 years) are a
  `FILE:LINE:` error; `--at` beyond it is a one-line usage error.  (Before,
  `100000000000000000000 pause` or `--at 1e20` in digits ran the core in
  steps of ~2**30 ms and never finished.)
* Numbers of any length (Python refuses int() of more than 4300 digits)
  give the same clean error.
* A closed pipe (`replay ... | head -c1`) ends the tool quietly.
* The logs tool reads a `# 1e20 flag left` or a 5000-digit note without
  hanging or a traceback.
* A property-based fuzz test (hypothesis) mutates real replay files (bytes
  flipped, inserted, deleted, truncated; numbers replaced by huge, negative
  and odd ones; unicode, NUL, CRLF, BOM) and checks the contract on every
  case: in process (fast, with an alarm against hangs), plus a sample
  through the real command line.
"""
import contextlib
import io
import json
import os
import random
import re
import signal
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from conftest import ROOT
from host_sim import __main__ as cli
from host_sim import logs, replay

HANG_S = 20   # no case may take this long (a hang is what the bound prevents)
CASES = {"in process": 0, "command line": 0}


# -- running the tool ---------------------------------------------------------------

def run_inprocess(args):
    """main(args) in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HANG_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(args)
            except SystemExit as e:   # argparse's usage errors
                status = e.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return status, out.getvalue(), err.getvalue()


def _hung(sig, frame):
    raise AssertionError("the tool did not finish in %d s" % HANG_S)


def run_cli(*args, stdout=subprocess.PIPE):
    proc = subprocess.run([sys.executable, "-m", "host_sim"] + [str(a) for a in args],
                          cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE,
                          timeout=HANG_S * 3, env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    out = proc.stdout.decode("utf-8") if proc.stdout is not None else ""
    return proc.returncode, out, proc.stderr.decode("utf-8")


def check_contract(path, status, out, err):
    """SPEC §5: exit 0 + exactly one JSON object, or exit 2 + exactly one
    `FILE:LINE: message` line; no traceback either way."""
    assert "Traceback" not in err, err
    if status == 0:
        obj = json.loads(out)            # the whole of stdout is one JSON value
        assert isinstance(obj, dict) and out.count("\n") == 1, out
        assert 0 <= obj["t_ms"] <= replay.MAX_MS
        return "ok"
    assert status == 2, (status, out, err)
    assert out == "", out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert re.match(r"^%s:[1-9]\d*: \S" % re.escape(str(path)), lines[0]), lines[0]
    return "error"


# -- the bounds ------------------------------------------------------------------------

HUGE = "1" + "0" * 20                       # 10**20 ms
DIGITS_5000 = "9" * 5000                    # past Python's int-string limit


@pytest.mark.parametrize("content, line, needle", [
    ("profile custom\n0 left\n%s pause\n" % HUGE, 3, "beyond what a game can reach"),
    ("profile custom\n0 left\n%d pause\n" % (replay.MAX_MS + 1), 3, "beyond"),
    ("profile sdev\n0 left\n%s right\n" % DIGITS_5000, 3, "5000 characters"),
    ("profile sdev\n0 pause\n100 adjust left -%s\n" % HUGE, 3, "beyond"),
    ("profile sdev\n0 pause\n100 adjust left +%s\n" % DIGITS_5000, 3, "beyond"),
    ("profile sdev\nset window=%s\n" % DIGITS_5000, 2, None),
    ("profile sdev\nset base=%s:00\n" % DIGITS_5000, 2, None),
    ("profile sdev\n-%s left\n" % DIGITS_5000, 2, "expected"),
])
@pytest.mark.parametrize("how", ["in process", "command line"])
def test_times_no_game_reaches_and_numbers_of_any_length(tmp_path, content, line, needle, how):
    """Issue 12 item 3: `FILE:LINE:` error, exit 2, at once (no hang, no
    traceback), and the line stays short even for a 5000-digit number."""
    path = tmp_path / "hostile.replay"
    path.write_text(content)
    run = run_inprocess if how == "in process" else (lambda a: run_cli(*a))
    status, out, err = run(["replay", str(path), "--json"])
    assert check_contract(path, status, out, err) == "error"
    assert err.startswith("%s:%d: " % (path, line)), err
    assert len(err) < 400, err
    if needle:
        assert needle in err, err


def test_the_bound_itself_is_a_reachable_time(tmp_path):
    """MAX_MS itself is accepted (the error starts just past it)."""
    path = tmp_path / "edge.replay"
    path.write_text("profile custom\n0 left\n%d pause\n" % replay.MAX_MS)
    status, out, err = run_inprocess(["replay", str(path), "--json"])
    assert status == 0, err
    assert json.loads(out)["t_ms"] == replay.MAX_MS


@pytest.mark.parametrize("at", [HUGE, str(replay.MAX_MS + 1), DIGITS_5000])
def test_at_beyond_the_bound_is_a_one_line_usage_error(tmp_path, at):
    """Issue 12 item 3: `--at` is bounded the same way: one line naming
    --at, exit 2, nothing on stdout."""
    path = tmp_path / "g.replay"
    path.write_text("profile sdev\n0 left\n")
    status, out, err = run_cli("replay", path, "--at", at, "--json")
    assert status == 2 and out == "", (status, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and "--at" in lines[0] and "beyond" in lines[0], err
    assert len(lines[0]) < 300 and "Traceback" not in err
    status, out, err = run_cli("replay", path, "--at", str(replay.MAX_MS), "--json")
    assert status == 0 and json.loads(out)["t_ms"] == replay.MAX_MS, err


@pytest.mark.parametrize("args", [["--json"], []])
def test_a_closed_pipe_ends_quietly(tmp_path, args):
    """Issue 12 item 3: `replay ... | head -c1`: the reader is gone before
    the report is written; the tool ends with no traceback (status 1)."""
    path = tmp_path / "g.replay"
    path.write_text("profile sdev\n0 left\n1000 right\n")
    r, w = os.pipe()
    os.close(r)                      # the reader has already gone
    try:
        status, _, err = run_cli("replay", path, *args, stdout=w)
    finally:
        os.close(w)
    assert err == "" and status == 1, err
    proc = subprocess.run("%s -m host_sim replay %s | head -c1" % (sys.executable, path),
                          shell=True, cwd=ROOT, capture_output=True, timeout=60)
    assert proc.returncode == 0 and len(proc.stdout) == 1 and proc.stderr == b""


def test_logs_reads_hostile_notes_without_hanging(tmp_path):
    """Issue 12 item 3: the logs tool takes the latest `# <ms> ...` note as
    the game's end; a note no clock writes (`# 1e20 flag left`, a number
    beyond MAX_MS, 5000 digits) is a person's comment: skipped, no hang,
    no traceback."""
    path = tmp_path / "g0001.txt"
    path.write_text("profile sdev\n0 left\n# 1e20 flag left\n# %s flag left\n# %s flag left\n"
                    "# 2500 window closed\n" % (HUGE, DIGITS_5000))
    status = {}
    old = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HANG_S)
    try:
        log = logs.read_log(str(path))
        line = logs.describe(str(path))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert log.last_ms == 2500
    assert line.startswith("g0001.txt") and "running: right" in line, line
    bad = tmp_path / "g0002.txt"
    bad.write_text("profile sdev\n0 left\n%s right\n" % DIGITS_5000)
    assert "unreadable: line 3:" in logs.describe(str(bad))


# -- the fuzz test ------------------------------------------------------------------

def _examples():
    out = []
    for name in sorted(os.listdir(os.path.join(ROOT, "examples"))):
        with open(os.path.join(ROOT, "examples", name), "rb") as f:
            out.append(f.read())
    return out


SEEDS = _examples() + [
    b"profile sdev  # game 12\n# clock e6614c311b5f2a37 table 12\nset base=25:00\n"
    b"0 left  # L 25:00 R 25:00\n41250 right  # L 24:59 R 24:19\n# 61250 window closed\n"
    b"300000 pause\n300500 adjust left -60000\n300900 right\n1800000 end\n",
    b"profile pfs\n0 left\n60000 right\n# 1260000 flag left\n1261000 pause\n",
    b"profile custom\nset zero=overtime penalty=10 forfeit=05:00 window=20 base_left=01:00\n"
    b"0 right\n500 left\n90000 right\n# 400000 forfeit left\n",
    # SPEC v2 events: late arrival, void (TSO 5.2 d), resume after an end
    b"profile sdev\nset late=15:00\n0 late left\n120000 left\n121000 right\n"
    b"200000 end\n200500 resume\n201000 left\n2000000 end\n2000100 void right\n",
    b"profile pfs\n0 late right\n# 1200000 forfeit right\n1300000 pause\n",
]

NUMBERS = st.one_of(
    st.integers(-10 ** 12, 10 ** 12).map(str),
    st.integers(10, 6000).map(lambda n: "9" * n),           # huge, to past int()'s limit
    st.integers(1, 60).map(lambda n: "-" + "1" * n),        # negative
    st.sampled_from([str(replay.MAX_MS), str(replay.MAX_MS + 1), "+5", "-0", "007",
                     "1e20", "1_000", "\u00b2", "\u0661\u0662", "0x10", "1.5"]),
)
POS = st.integers(0, 1 << 20)
OPS = st.one_of(
    st.tuples(st.just("flip"), POS, st.integers(0, 255)),
    st.tuples(st.just("insert"), POS, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), POS, st.integers(1, 40)),
    st.tuples(st.just("truncate"), POS),
    st.tuples(st.just("number"), POS, NUMBERS),
    st.tuples(st.just("unicode"), POS, st.text(min_size=1, max_size=6)),
    st.tuples(st.just("nul"), POS),
    st.tuples(st.just("crlf")),
    st.tuples(st.just("bom")),
    st.tuples(st.just("line"), POS, st.sampled_from(
        [b"set window=%s", b"set late=%s", b"%s adjust right %s", b"%s pause",
         b"# %s flag left", b"%s end", b"%s late left", b"%s void right", b"%s resume"]),
        NUMBERS, NUMBERS),
)


def mutate(data, ops):
    data = bytearray(data)
    for op in ops:
        kind = op[0]
        at = op[1] % (len(data) + 1) if len(op) > 1 else 0
        if kind == "flip" and data:
            data[at % len(data)] = op[2]
        elif kind == "insert":
            data[at:at] = op[2]
        elif kind == "delete":
            del data[at:at + op[2]]
        elif kind == "truncate":
            del data[at:]
        elif kind == "number":
            nums = list(re.finditer(rb"\d+", bytes(data)))
            if nums:
                m = nums[op[1] % len(nums)]
                data[m.start():m.end()] = op[2].encode("utf-8")
        elif kind == "unicode":
            data[at:at] = op[2].encode("utf-8", "surrogatepass")
        elif kind == "nul":
            data[at:at] = b"\x00"
        elif kind == "crlf":
            data = bytearray(bytes(data).replace(b"\n", b"\r\n"))
        elif kind == "bom":
            data[0:0] = b"\xef\xbb\xbf"
        elif kind == "line":
            nl = bytes(data).rfind(b"\n", 0, at) + 1
            n = op[2].count(b"%s")
            text = op[2] % tuple(x.encode("utf-8") for x in (op[3], op[4])[:n])
            data[nl:nl] = text + b"\n"
    return bytes(data)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck),
          database=None)
@given(seed=st.sampled_from(range(len(SEEDS))), ops=st.lists(OPS, min_size=1, max_size=6),
       at=st.one_of(st.none(), NUMBERS))
def test_fuzz_mutated_replay_files_keep_the_contract(tmp_path_factory, seed, ops, at):
    """Issue 12 item 3: on every mutated file, exit 0 with exactly one JSON
    object, or exit 2 with exactly one `FILE:LINE:` line (in process)."""
    path = tmp_path_factory.getbasetemp() / "fuzz.replay"
    path.write_bytes(mutate(SEEDS[seed], ops))
    status, out, err = run_inprocess(["replay", str(path), "--json"])
    outcome = check_contract(path, status, out, err)
    CASES["in process"] += 1
    CASES[outcome] = CASES.get(outcome, 0) + 1
    if at is not None:   # --at: a report, or one usage line naming --at
        status, out, err = run_inprocess(["replay", str(path), "--json", "--at", at])
        if status == 2 and err.startswith("python -m host_sim replay: error: argument --at"):
            assert out == "" and len(err.splitlines()) == 1, err
        else:
            check_contract(path, status, out, err)


@pytest.mark.parametrize("case", range(12))
def test_fuzz_through_the_real_command_line(tmp_path, case):
    """A sample of mutated files through `python -m host_sim replay --json`,
    the program a referee runs: the same contract."""
    rnd = random.Random(1200 + case)
    data = SEEDS[case % len(SEEDS)]
    for _ in range(rnd.randint(1, 4)):
        kind = rnd.choice(["flip", "number", "truncate", "nul", "crlf", "bom", "unicode"])
        pos = rnd.randrange(1 << 20)
        op = {"flip": ("flip", pos, rnd.randrange(256)),
              "number": ("number", pos, rnd.choice([HUGE, DIGITS_5000, "-7", "12"])),
              "truncate": ("truncate", pos), "nul": ("nul", pos), "crlf": ("crlf",),
              "bom": ("bom",), "unicode": ("unicode", pos, "\u2028\u00e9\U0001f600")}[kind]
        data = mutate(data, [op])
    path = tmp_path / "fuzz.replay"
    path.write_bytes(data)
    status, out, err = run_cli("replay", path, "--json")
    check_contract(path, status, out, err)
    CASES["command line"] += 1
