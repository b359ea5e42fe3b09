"""A person's clock in a running hall (issue 37: "the simulator cannot join a
hall as a clock a person plays (`make sim` against a running hall, with its
own account)"): `python -m hall sim --table 3` runs the terminal simulator
(in a real tmux pane, keys sent as a person types them) with the hall's
network part, logged in to the real Mosquitto of a running hall with clock
account 3's password from the hall folder; a press at the keyboard reaches
the hall: the retained state of table 3 names the running side and the
simulator's clock id, and the recorder writes the game's start line (the
game begun at table 3, in the hall's round).  Without a running hall, or
for an account the hall has not, it is one line."""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import ROOT
from hallkit import needs_broker, new_hall, until
from hall import tournament as T
from hall.rehearsal import join

pytestmark = needs_broker

TMUX = shutil.which("tmux")
ENV = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
ENV.pop("TMUX", None)


class Pane:
    def __init__(self, sock, argv):
        self.sock = sock
        shell = "cd %s && %s; echo EXIT=$?; sleep 600" % (shlex.quote(ROOT), shlex.join(argv))
        self.tmux("new-session", "-d", "-s", "sim", "-x", "80", "-y", "24", shell)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null"] + list(args),
                              env=ENV, capture_output=True, text=True, timeout=20)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "sim").stdout

    def send(self, key):
        self.tmux("send-keys", "-t", "sim", key)


def test_without_a_running_hall_it_is_one_line(tmp_path):
    h = new_hall(tmp_path, tables=2)            # written, not started
    proc = subprocess.run([sys.executable, "-m", "hall", "sim", "--dir", h.folder,
                           "--table", "1"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "no hall runs in" in proc.stderr


@pytest.mark.skipif(TMUX is None, reason="tmux missing (apt-get install tmux)")
def test_the_simulator_plays_at_a_table_of_the_running_hall(tmp_path):
    h = new_hall(tmp_path, tables=4)
    h.start()
    d = tempfile.mkdtemp(prefix="hallsim-", dir="/tmp")
    pane = None
    try:
        bad = subprocess.run([sys.executable, "-m", "hall", "sim", "--dir", h.folder,
                              "--table", "9"], cwd=ROOT, capture_output=True, text=True,
                             timeout=60)
        assert bad.returncode == 2 and "no clock account 9 (tables 1-4)" in bad.stderr, \
            bad.stderr
        pane = Pane(os.path.join(d, "s"), [sys.executable, "-m", "hall", "sim", "--dir",
                                           h.folder, "--table", "3", "--state-dir",
                                           str(tmp_path / "clock")])
        scr = until(pane.screen, lambda s: "30:00" in s and "table 3" in s)
        assert "hall cup table 3 (clock %s)" % join.clock_id(3) in scr, scr
        topic = "scrabble/cup/3/state/3"

        def shown():
            got = h.collect(topic).get(topic)
            return json.loads(got) if got else None
        st = until(shown, lambda s: s is not None, every=0.5)
        assert st["clock"] == join.clock_id(3) and st["running"] is None, st
        pane.send("a")                 # the left player's button: right's clock runs
        st = until(shown, lambda s: s and s["running"] == "right", every=0.5)
        assert st["running"] == "right" and st["table"] == 3, st

        def starts():
            try:
                with open(os.path.join(h.folder, T.GAMES)) as f:
                    return [json.loads(x) for x in f if x.strip()]
            except FileNotFoundError:
                return []
        got = until(starts, lambda s: s)
        assert [(s["table"], s["account"], s["clock"], s["round"]) for s in got] == \
            [(3, "3", join.clock_id(3), 1)], got
        pane.send("q")
        until(pane.screen, lambda s: "EXIT=0" in s)
    finally:
        if pane is not None:
            pane.tmux("kill-server")
        shutil.rmtree(d, ignore_errors=True)
        h.stop()
