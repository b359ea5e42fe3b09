"""python -m hall [ACTION] ...  (see --help; docs/hall.md)."""
import sys

from hall import cli

if __name__ == "__main__":
    sys.exit(cli.main())
