"""The hall's own folders and files, in one place (host_sim/paths.py holds
the repository's): the pages it serves, the page's MQTT library, the
default hall folder.

In a checkout the hall folder is build/hall and the page's MQTT library
comes from `make hall-page` (build/npm); installed (pip install, the
`scrabble-hall` command), the library is shipped inside hall/page/ and the
default hall folder is $XDG_DATA_HOME/scrabble-hall (~/.local/share/...):
one per user, whatever folder the command is typed in.
"""
import os

from host_sim.paths import CHECKOUT, ROOT

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE_DIR = os.path.join(HERE, "page")
NPM_MQTT_JS = os.path.join(ROOT, "build", "npm", "node_modules", "mqtt", "dist", "mqtt.min.js")
MQTT_JS = NPM_MQTT_JS if CHECKOUT else os.path.join(PAGE_DIR, "mqtt.min.js")
DEFAULT_DIR = (os.path.join(ROOT, "build", "hall") if CHECKOUT else
               os.path.join(os.environ.get("XDG_DATA_HOME")
                            or os.path.join(os.path.expanduser("~"), ".local", "share"),
                            "scrabble-hall"))
# where `python -m hall ...` runs its own processes (the recorder, `hall
# start`'s hall) from: the folder holding the hall package
PACKAGE_PARENT = os.path.dirname(HERE)
