"""The MicroPython suites keep their files apart (jfix item 3): each run of
tests/mp/ gets its own folder (SCLOCK_MP_TMP, read by tests/mp/mptest.py
tmp_path()), so two runs at once, e.g. two worktrees' `make test` on one
machine, do not write the same files."""
import os
import threading

import test_micropython as mp


def test_two_runs_at_once_write_into_their_own_folders(tmp_path):
    folders = [tmp_path / "a", tmp_path / "b"]
    procs = [None, None]

    for f in folders:        # what an earlier run left there
        (f / "scrabble_persist_mp").mkdir(parents=True)
        (f / "scrabble_persist_mp" / "left.over").write_bytes(b"x")

    def run(k):
        procs[k] = mp.run_micropython(
            [os.path.join(mp.MP_DIR, "mptest.py"), "test_power_loss"], tmp=folders[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in (0, 1):
        out = procs[k].stdout + procs[k].stderr
        assert procs[k].returncode == 0 and " 0 failed" in out, out
        # the suite worked in this run's folder: it cleared it first and
        # removed it at its end (tests/test_power_loss.py _rm_tree)
        assert not (folders[k] / "scrabble_persist_mp").exists(), out


def test_the_folder_is_the_runners():
    proc = mp.run_micropython(
        ["-c", "import mptest; print(mptest.tmp_path('x'))"], tmp="/some/run")
    assert proc.stdout.strip() == "/some/run/x", proc.stdout + proc.stderr
