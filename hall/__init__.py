"""The tournament hall (docs/hall.md): the command line, the broker's
configuration and supervision, the recorder and the filing of results and
game logs, the tournament (rounds, seating, scores, TSH), the results desk,
the hall's TLS and the pages.  hall/rehearsal/ holds the simulated clocks a
director rehearses with; the test drivers (attacks, sniffer, browser) live
in bench/, never here.

The hall imports the simulator's package (host_sim: the firmware's flat
modules, the replay that reads a game log), never the other way round
(tests/test_layers.py).
"""
import host_sim  # noqa: F401  (the firmware's flat modules: profiles, netcfg, hallmsg)
