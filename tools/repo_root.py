"""A tool run by its path (`python tools/x.py`) finds its own repository.

Python puts tools/ first on sys.path for such a script; `import repo_root`
then puts the repository above it there too, so the tool imports this
checkout's host_sim and hall (also in a copy of the tree), and host_sim's
importer finds the firmware (pytest.ini's `pythonpath`, the one list of
it; host_sim/paths.py).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
