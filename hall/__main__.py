"""python -m hall [ACTION] ...  (see --help; docs/hall.md)."""
import sys

from hall import cli

if __name__ == "__main__":
    if sys.argv[1:2] == ["sim"]:   # issue 37: the terminal simulator as a clock of a hall
        from hall.rehearsal import join
        sys.exit(join.main(sys.argv[2:]))
    sys.exit(cli.main())
