"""The clock knows the hall (issue 21): a mark on the LCD says connected /
connecting / no hall, and the setup menu says the network's state in words
with the table the clock publishes under (firmware/net.py Net.hall,
view.py's hall mark, menu.py's S_HALL; docs/hall.md "The clock's side")."""
import pytest

from hallkit import PATIENT_S, needs_broker, running_hall, until
from hall import clients
from hall.rehearsal import clocks as rehearsal

import clockcore as cc
import lang
import menu
import setupmenu
import net
import profiles
import settings as st
import source
import hd44780
import view

G = {net.HALL_DOWN: view.GLYPH_CHARS[view.G_HALL],
     net.HALL_WAIT: view.GLYPH_CHARS[view.G_HALL + 1],
     net.HALL_UP: view.GLYPH_CHARS[view.G_HALL + 2]}


def screen(v, clock):
    """v: (cols, rows, hall)."""
    return hd44780.text_of(clock, v[0], v[1], hall=v[2])


def clock(rules=None):
    return cc.Clock(rules or profiles.make_rules("sdev"), 0, lambda a, b: a - b,
                    lambda a, b: a + b)


@pytest.mark.parametrize("state", [net.HALL_DOWN, net.HALL_WAIT, net.HALL_UP])
def test_the_mark_in_the_free_last_column(state):
    """16x2: the last column of row 1; 20x4: the header's last column; the
    three states are three different glyphs."""
    c = clock()
    plain = screen((16, 2, -1), c)
    rows = screen((16, 2, state), c)
    assert rows[0] == plain[0] and rows[1][:15] == plain[1][:15]
    assert plain[1][15] == " " and rows[1][15] == G[state]
    assert len(set(G.values())) == 3
    assert len(set(view.GLYPHS)) == 7 and all(len(p) == 8 for p in view.GLYPHS.values())


def test_no_hall_configured_no_mark():
    rows = screen((16, 2, -1), clock())
    assert not any(ch in "".join(rows) for ch in G.values())


def test_a_right_side_word_takes_the_column_and_the_mark_comes_back():
    """The penalty of the right side ends in the last column (TSO § 5.2 b):
    the number is never overwritten; without it the mark is back."""
    c = clock(profiles.make_rules("sdev", {"base": "00:01"}))
    v = (16, 2, net.HALL_UP)
    c.press(cc.LEFT, 0)              # right runs
    c.update(62000)                  # right 61 s over: 20 points
    rows = screen(v, c)
    assert rows[1].endswith("P20") and G[net.HALL_UP] not in "".join(rows)
    c.pause(62000)
    c.adjust(cc.RIGHT, 62000, 62000)  # the referee gives the time back
    rows = screen(v, c)
    assert "P20" not in rows[1] and rows[1][15] == G[net.HALL_UP], rows


# -- the real net.py against the real Mosquitto ------------------------------------------
@pytest.fixture
def hall(tmp_path):
    with running_hall(tmp_path, tables=4) as h:
        yield h


def lcd(c):
    return c.rig.screen()


@needs_broker
def test_mark_follows_the_connection(hall):
    """Issue 21 ("a small mark on the LCD shows connected / connecting / no
    hall"): connecting from the boot, connected at the CONNACK, no hall when
    the broker goes (and stays so while the clock retries), connected again
    when it is back, connecting after a new table number in the menu."""
    fleet = rehearsal.Fleet(hall, 1, speed=40, scripts={1: []})
    c = fleet.clocks[0]
    n = c.net
    try:
        assert n.hall == net.HALL_WAIT and c.rig.app.frame.hall == net.HALL_WAIT
        assert fleet.run(seconds=PATIENT_S, until=lambda: lcd(c)[1][15] == G[net.HALL_UP])
        assert n.st == net.UP and n.hall == net.HALL_UP
        hall.stop()
        assert fleet.run(seconds=PATIENT_S, until=lambda: lcd(c)[1][15] == G[net.HALL_DOWN])
        seen = set()
        fleet.run(seconds=2, until=lambda: seen.add(lcd(c)[1][15]) and False)
        assert seen == {G[net.HALL_DOWN]}, "no flicker while it retries"
        hall.start()
        assert fleet.run(seconds=PATIENT_S, until=lambda: lcd(c)[1][15] == G[net.HALL_UP])
        c.rig.app.settings.table = 3
        c.rig.app.leave_setup(c.rig.now)    # the menu's new table (as the app does)
        c.rig.run(40)                        # the next loop draws it
        assert n.hall == net.HALL_WAIT and lcd(c)[1][15] == G[net.HALL_WAIT]
        assert fleet.run(seconds=PATIENT_S, until=lambda: lcd(c)[1][15] == G[net.HALL_UP])
    finally:
        fleet.close()


@needs_broker
def test_no_wifi_is_no_hall_after_the_wait(hall):
    """Wi-Fi that never comes up: connecting for WAIT_MS, then no hall."""
    fleet = rehearsal.Fleet(hall, 1, speed=40, scripts={1: []})
    c = fleet.clocks[0]
    c.link.up = False
    try:
        fleet.run(seconds=PATIENT_S, until=lambda: c.rig.ms() >= net.WAIT_MS - 1000)
        assert lcd(c)[1][15] == G[net.HALL_WAIT]
        assert fleet.run(seconds=PATIENT_S, until=lambda: lcd(c)[1][15] == G[net.HALL_DOWN])
        assert c.rig.ms() >= net.WAIT_MS
    finally:
        fleet.close()


# -- the setup menu ------------------------------------------------------------------------
def _hall(state, table, settings=None):
    """The real door (source.Source) as net.py leaves it: the hall's state
    marked, the table it publishes under told."""
    h = source.Source(None, None, None, settings or st.Settings(), None, lambda h: None)
    if state >= 0:
        h.mark(state)
    h.tabled(table)
    return h


def _goto_hall(m):
    for _ in range(20):
        if m.item == setupmenu.S_HALL:
            return
        m.handle(menu.A_NEXT)
    raise AssertionError("no hall item")


def test_the_setup_menu_has_no_hall_item_without_a_hall():
    s = st.Settings()
    for profile, zero in (("sdev", 0), ("custom", profiles.ZERO_FLAG), ("custom", 0)):
        s.profile, s.zero = profile, zero
        assert setupmenu.S_HALL not in setupmenu.SetupMenu(s).items()
        assert setupmenu.S_HALL not in setupmenu.SetupMenu(s, _hall(-1, 0)).items()
        items = setupmenu.SetupMenu(s, _hall(net.HALL_UP, 4)).items()
        assert items[-4:] == (setupmenu.S_HALL, setupmenu.S_RESULTS, setupmenu.S_SELFTEST,
                              setupmenu.S_VERSION)     # (issue 37: the last two)
        assert items.index(setupmenu.S_TABLE) == items.index(setupmenu.S_HALL) - 1


@pytest.mark.parametrize("lg, words", [
    ("en", ("Hall, table", "no hall", "connecting", "connected")),
    ("de", ("Netz, Tisch", "kein Netz", "verbinde...", "verbunden")),
    ("pl", ("Siec, stol", "brak sieci", "laczenie...", "polaczony")),
])
@pytest.mark.parametrize("cols, rows", [(16, 2), (20, 4)])
def test_the_setup_menu_says_the_state_and_the_table(lg, words, cols, rows):
    """Issue 21: the setup menu shows the network state (in the clock's
    language) and the table number it publishes under; the item is only
    shown: the arrows change nothing."""
    s = st.Settings()
    s.lang = lg
    h = _hall(net.HALL_DOWN, 12, s)
    m = setupmenu.SetupMenu(s, h)
    _goto_hall(m)
    buf = [bytearray(cols) for _ in range(rows)]
    k = 1 if rows >= 4 else 0
    for state in (net.HALL_DOWN, net.HALL_WAIT, net.HALL_UP):
        h.mark(state)
        m.render(buf)
        label, value = view.to_text(buf[k]), view.to_text(buf[k + 1])
        assert label.startswith(words[0]) and label.endswith(" 12"), label
        assert value.strip() == words[1 + state] and "<" not in value and ">" not in value
    before = (s.table, s.profile, s.lang)
    assert m.handle(menu.A_LEFT) is None and m.handle(menu.A_RIGHT) is None
    assert (s.table, s.profile, s.lang) == before
    h.tabled(7)
    m.render(buf)
    assert view.to_text(buf[k]).endswith("  7")


@pytest.mark.parametrize("lg, word, down", [("en", "bad password", "no hall"), ("de", "PW falsch", "kein Netz"),
                                            ("pl", "zle haslo", "brak sieci")])
def test_a_wrong_wifi_password_says_so_in_the_setup_menu(lg, word, down):
    """No hall because the access point refused the Wi-Fi password
    (WLAN.status() STAT_WRONG_PASSWORD: net.py tells the source
    WIFI_BADAUTH): the Hall item says so instead of "connecting" or "no
    hall"; with no access point of the name it says "no hall"."""
    s = st.Settings()
    s.lang = lg
    h = _hall(net.HALL_DOWN, 12, s)
    m = setupmenu.SetupMenu(s, h)
    _goto_hall(m)
    buf = [bytearray(16) for _ in range(2)]
    h.wifi(net.WIFI_BADAUTH)
    for state in (net.HALL_WAIT, net.HALL_DOWN):    # connecting or not: the password is wrong
        h.mark(state)
        m.render(buf)
        assert view.to_text(buf[1]).strip() == word
    h.wifi(net.WIFI_NONET)
    m.render(buf)
    assert view.to_text(buf[1]).strip() == down


class _Link:
    """A Wi-Fi link that never connects, its status() as a port's."""
    def __init__(self, status):
        self.st = status

    def isconnected(self):
        return False

    def status(self):
        return self.st


def test_net_tells_why_there_is_no_wifi():
    """net.py's _open with the link down reads its status(): a wrong
    password (STAT_WRONG_PASSWORD, -3) and no such network (-2) each noted
    and told to the source once; a link without status() says no reason."""
    told, marks = [], []

    class Src:
        def wifi(self, w):
            told.append(w)

        def mark(self, h):
            marks.append(h)

    n = net.Net.__new__(net.Net)       # only what _open's no-Wi-Fi branch reads
    n.src, n.add, n.diff = Src(), (lambda a, b: a + b), (lambda a, b: a - b)
    n.hall, n.wait_until, n.wifi = net.HALL_WAIT, 10 ** 9, net.WIFI_OK
    n._join, n.linked = None, False
    for status, why, note, hall in (
            (-2, net.WIFI_NONET, "no Wi-Fi: no such network", net.HALL_WAIT),
            (1, net.WIFI_OK, "no Wi-Fi", net.HALL_WAIT),
            # a refused password: "no hall" at once, long before WAIT_MS
            (-3, net.WIFI_BADAUTH, "no Wi-Fi: wrong password", net.HALL_DOWN)):
        n.link = _Link(status)
        n._status = n.link.status
        n._open(0)
        n._open(500)
        assert (n.wifi, n.note, n.hall) == (why, note, hall)
    assert told == [net.WIFI_NONET, net.WIFI_OK, net.WIFI_BADAUTH]
    assert marks == [net.HALL_DOWN]


class _Joiner(_Link):
    """A link up or down at will (status() STAT_CONNECTING, as a Pico W's
    after its AP left), each connect() noted."""
    def __init__(self):
        super().__init__(1)
        self.up, self.joins = True, []

    def isconnected(self):
        return self.up

    def connect(self, ssid, key):
        self.joins.append((ssid, key))


def test_a_lost_wifi_is_joined_again_every_rejoin_ms():
    """issue 38: a Pico W's cyw43 driver never joins its access point again
    by itself once the AP left (cyw43_ctrl.c: a LINK down only takes the
    link down), so net.py's _open asks connect() again, with net.json's
    SSID and passphrase, REJOIN_MS after it saw the link lost, then every
    REJOIN_MS while the link stays down, and never while it is up (the
    boot's own join, start()'s, gets REJOIN_MS too)."""
    class Src:
        def wifi(self, w):
            pass

        def mark(self, h):
            pass

    class Wire:
        def open(self, now, host, port):
            return False          # (IDLE stays IDLE: only the Wi-Fi matters here)

    cfg = {"ssid": "hall", "wifi_password": "pw"}
    n = net.Net.__new__(net.Net)
    n.src, n.add, n.diff, n.wire = Src(), (lambda a, b: a + b), (lambda a, b: a - b), Wire()
    n.hall, n.wait_until, n.wifi, n.host, n.port = net.HALL_WAIT, 0, net.WIFI_OK, "h", 1
    n.link = _Joiner()
    n._status = n.link.status
    n.ssid, n.wifi_key, n._join = cfg["ssid"], cfg["wifi_password"], n.link.connect
    n.linked, n.rejoins, n.rejoin_at = False, 0, net.REJOIN_MS
    lost = 3000
    asked = []
    for t in range(0, lost + 3 * net.REJOIN_MS + 1, 500):
        n.link.up = t < lost or t >= lost + 3 * net.REJOIN_MS
        k = len(n.link.joins)
        n._open(t)
        asked += [t] * (len(n.link.joins) - k)
    assert asked == [lost + net.REJOIN_MS, lost + 2 * net.REJOIN_MS], asked
    assert set(n.link.joins) == {("hall", "pw")} and n.rejoins == 2


def test_the_hall_words_fit():
    for lg in lang.LANGS:
        assert len(lang.word(lg, "T_HALL")) + 3 <= 16
        for k in ("V_HALL_UP", "V_HALL_WAIT", "V_HALL_DOWN", "V_WIFI_BADPASS"):
            assert 0 < len(lang.word(lg, k)) <= lang.VALUE


def _retained(hall, topic, ok=lambda st: True, timeout=5.0):
    """The retained state on `topic` once the broker has it (net.dirty is
    cleared when the publish is written to the socket, not when the broker
    has stored it): read again until `ok` holds or `timeout` passes."""
    import json

    def read():
        got = clients.collect(hall.port, topic, folder=hall.folder, quiet_s=0.2)
        return json.loads(got[topic]) if got.get(topic) else None

    st = until(read, lambda st: st is not None and ok(st), seconds=timeout, every=0.1)
    assert st is not None, "no retained state on %s" % topic
    return st


@needs_broker
def test_a_low_battery_is_published_when_it_changes(hall):
    """Issue 21 (the projector's low battery alert): the clock's state says
    lowbat, and a change of it is published even with no game event."""
    import json
    fleet = rehearsal.Fleet(hall, 1, speed=40, scripts={1: []})
    c = fleet.clocks[0]
    topic = "scrabble/cup/1/state/1"
    try:
        assert fleet.run(seconds=PATIENT_S, until=lambda: c.net.st == net.UP and not c.net.dirty)
        assert _retained(hall, topic, lambda st: "lowbat" in st)["lowbat"] is False
        c.rig.app.battery.adc.level_u16 = 30000          # 1510 mV at the pin: low
        assert fleet.run(seconds=PATIENT_S,
                         until=lambda: c.rig.app.battery.low and not c.net.dirty)
        assert _retained(hall, topic, lambda st: st["lowbat"])["lowbat"] is True
    finally:
        fleet.close()
