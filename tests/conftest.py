"""Shared pytest helpers.

The import path (firmware/, host_sim/fakehw/, tests/mp/, tools/) is
pytest.ini's `pythonpath`; the folder names come from host_sim, the one host
helper that knows them.
"""
import os
import shutil

import pytest

from host_sim import FAKEHW, FIRMWARE, MP_TESTS, ROOT  # noqa: F401  (the tests import them from here)


def venv_tool(name):
    """A tool from the project's .venv (or PATH); None if not installed."""
    cand = os.path.join(ROOT, ".venv", "bin", name)
    if os.path.exists(cand):
        return cand
    return shutil.which(name)


def need(why):
    """A target-run prerequisite is missing (`why`, one line, or None): skip,
    or fail under CI=true, where the target run must not be skipped."""
    if why:
        import pytest
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


class Background:
    """Long runs started early and awaited later, each in a thread of its
    own (tests/test_target_pico.py's scripted game: an emulated Pico for
    ~77 simulated seconds runs on the second core from the session's start
    while other modules' tests run on the first).  start(name, fn, *args) once per name;
    result(name) waits for it and returns fn's value or raises what it
    raised (a failed assertion in fn fails the test that asks)."""

    def __init__(self):
        from concurrent.futures import ThreadPoolExecutor
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.jobs = {}

    def start(self, name, fn, *args):
        if name not in self.jobs:
            self.jobs[name] = self.pool.submit(fn, *args)
        return self.jobs[name]

    def result(self, name):
        return self.jobs[name].result()

    def close(self):
        self.pool.shutdown(wait=True)


@pytest.fixture(scope="session")
def background():
    """The session's Background (above); its runs are awaited at the end."""
    jobs = Background()
    yield jobs
    jobs.close()


@pytest.fixture(scope="session", autouse=True)
def longest_run_first(request, background, tmp_path_factory):
    """The suite's longest run, tests/test_target_pico.py's scripted game on
    an emulated Pico (minutes of CPU), starts with the session: it has the
    second core while the first runs the single-threaded modules, and its
    test, last in that module, waits for it.  Nothing starts when that test
    is not selected or the emulated Pico is missing (the test then says so).

    Under pytest-xdist (`make test`: -n 2 --dist loadfile) nothing starts
    early: every worker collects every test, and which one is given
    test_target_pico.py is decided later, so each such module starts its
    own run when its first test asks (its module fixture), on its worker."""
    if hasattr(request.config, "workerinput"):
        return
    # the firmware images (tests/test_firmware_image.py: minutes of make on
    # a cold cache, a copy on a warm one) are built from the start too
    from test_firmware_image import start_images
    start_images(request, background, tmp_path_factory)
    from host_sim import target
    if target.pico_missing():
        return
    from test_target_pico import start_scripted_game
    start_scripted_game(request, background, tmp_path_factory)
