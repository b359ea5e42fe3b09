"""The repository's folders, in one place (host_sim/__init__.py re-exports
them; host_sim/boards.py takes them from here, so the package and its board
reader import each other in no circle)."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
BOARDS = os.path.join(ROOT, "boards")
