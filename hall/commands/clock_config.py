"""hall clock-config --table T --host IP [--ssid ..] [--out FILE]: a clock's net.json."""
import json

from hall.accounts import write_secret
from hall.errors import HallError


def command(hall, args):
    if not args.host:
        raise HallError("clock-config needs --host: the hall computer's address "
                        "on the Wi-Fi (make deploy ... BROKER=192.168.1.10)")
    text = json.dumps(hall.clock_config(args.table, args.host, args.ssid,
                                        args.wifi_password))
    if args.out:
        write_secret(args.out, text + "\n")   # its password: 0600 from the start
    else:
        print(text)
    return 0
