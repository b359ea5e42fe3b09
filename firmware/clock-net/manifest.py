# The clock app with the tournament hall's network code: boards with Wi-Fi
# (board.WIFI = True: boards/pico_w.py, boards/esp32.py) get this package.
# It requires clock-core (firmware/clock-core/manifest.py explains the
# layout) and adds the modules only the network needs.  This is the one list
# of them: a network module listed in clock-core would put network code on
# a Pico without Wi-Fi (tests/test_deploy.py checks a pico bundle has none).
metadata(description="Scrabble tournament clock: the app with the hall's network", version="3")

require("clock-core")

module("net.py", base_path="..")      # the hall's client: when what goes out
module("netcfg.py", base_path="..")   # net.json read and checked, the TLS context
module("hallmsg.py", base_path="..")  # what it publishes: topics, state, result, log
module("jsonout.py", base_path="..")  # the state's JSON written in place (nothing allocated)
module("hallproto.py", base_path="..")  # the hall's protocol: topics, ids, limits, fields
module("outbox.py", base_path="..")   # the QoS 1 queue and its file
module("mqtt.py", base_path="..")     # the MQTT 3.1.1 wire under it
module("tlsjob.py", base_path="..")   # the TLS handshake, on its own thread
module("source.py", base_path="..")   # the clock as net.py sees it (App.hall_source())
