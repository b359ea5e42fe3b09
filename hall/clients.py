"""The hall's own MQTT clients (paho, TLS trusting only the hall's CA):
the read-only viewer that reads the retained messages (`hall status`), and
the login probe that proves a revoked password refused (`hall revoke`).
"""
import secrets
import signal
import time

from hall import tls as TLS
from hall.accounts import VIEWER
from hall.errors import HallError
from hall.files import service_passwords
from hall.paths import DEFAULT_DIR
from hall.supervise import send


def login(port, user, password, timeout=2.0, folder=DEFAULT_DIR):
    """A paho client logged in (loop running; TLS, trusting the CA of the
    hall in `folder`), None if the broker refused the password; HallError if
    the broker does not answer."""
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="chk-" + secrets.token_hex(6))
    c.username_pw_set(user, password)
    TLS.paho_tls(c, folder)
    got = []
    c.on_connect = lambda cl, u, f, rc, p=None: got.append(rc)
    try:
        c.connect("127.0.0.1", port)
    except OSError as e:
        raise HallError("the broker on port %d does not answer: %s" % (port, e))
    c.loop_start()
    end = time.monotonic() + timeout
    while not got and time.monotonic() < end:
        time.sleep(0.01)
    if got and not got[0].is_failure:
        return c
    c.loop_stop()
    c.disconnect()
    if not got:
        raise HallError("the broker on port %d does not answer a CONNECT" % port)
    return None


def prove_revoked(broker, port, user, old, within_s=1.0, folder=DEFAULT_DIR):
    """SIGHUP the broker (it reads the password file again) and prove that
    account `user`'s old password no longer works: a connection opened with
    it before is dropped and a new one is refused, within `within_s`.  The
    words for the director; HallError if not."""
    probe = login(port, user, old, folder=folder)
    if not send(broker, signal.SIGHUP):
        if probe is not None:
            probe.loop_stop()
            probe.disconnect()
        raise HallError("the broker (pid %d) is gone: the new password counts when the hall "
                        "starts again" % broker["pid"])
    t0 = time.monotonic()
    dropped = probe is None
    refused = False
    while time.monotonic() - t0 < within_s:
        dropped = dropped or not probe.is_connected()
        if dropped and not refused:
            c = login(port, user, old, timeout=within_s, folder=folder)
            refused = c is None
            if c is not None:
                c.loop_stop()
                c.disconnect()
        if dropped and refused:
            break
        time.sleep(0.02)
    took = time.monotonic() - t0
    if probe is not None:
        probe.loop_stop()
        probe.disconnect()
    if not (dropped and refused):
        raise HallError("the running broker (pid %d) still %s account %s's old password %.1f s "
                        "after reloading: restart the hall (hall stop, then hall)"
                        % (broker["pid"], "accepts" if not refused else "keeps a connection "
                           "of", user, took))
    return ("the running broker (pid %d) reloaded it: the old password is refused and a "
            "connection open with it was dropped (checked, %.2f s)" % (broker["pid"], took)
            if probe is not None else "the running broker (pid %d) reloaded it: the old "
            "password is refused (checked, %.2f s)" % (broker["pid"], took))


# -- reading the hall ---------------------------------------------------------------
def viewer_client(port, host="127.0.0.1", client_id="", password=None, folder=None):
    """A paho client logged in as the read-only viewer (password: given, or
    from the hall folder's service.json)."""
    import paho.mqtt.client as mqtt
    if password is None:
        password = service_passwords(folder or DEFAULT_DIR).get(VIEWER, "")
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    c.username_pw_set(VIEWER, password)
    TLS.paho_tls(c, folder or DEFAULT_DIR)
    c.connect(host, port)
    return c


def collect(port, topic, host="127.0.0.1", quiet_s=0.5, timeout=10.0, folder=None):
    """{topic: payload} of the retained messages under `topic` (a wildcard),
    read until quiet_s passes with nothing new."""
    got = {}
    last = [time.monotonic()]
    done = []

    def on_connect(c, u, flags, rc, props=None):
        if rc != 0:
            done.append("refused: %s" % rc)
        c.subscribe(topic, qos=1)

    def on_message(c, u, m):
        if m.retain:
            got[m.topic] = m.payload
        last[0] = time.monotonic()

    c = viewer_client(port, host, folder=folder)
    c.on_connect = on_connect
    c.on_message = on_message
    c.loop_start()
    end = time.monotonic() + timeout
    while time.monotonic() < end and not done:
        time.sleep(0.05)
        if time.monotonic() - last[0] > quiet_s:
            break
    c.loop_stop()
    c.disconnect()
    if done:
        raise HallError(done[0])
    return got


def result_topics(event):
    """Every clock's results: scrabble/<event>/<table>/result/<game>/<clock account>."""
    return "scrabble/%s/+/result/+/+" % event
