"""Shared pytest helpers.

The import path (firmware/, host_sim/fakehw/, tests/mp/, tools/) is
pytest.ini's `pythonpath`; the folder names come from host_sim, the one host
helper that knows them.
"""
import os
import shutil

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
