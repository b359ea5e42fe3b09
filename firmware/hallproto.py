# The hall's protocol, defined once (issue 35, docs/hall.md "Topics and
# accounts"): the topic grammar, the id rules, the size limits, each
# message's fields and types, and the one rule for a player's name.  The
# clock builds its messages through it (hallmsg.py), every hall reader
# parses through it (hall/: the recorder, the filing, the tournament, the
# broker's ACL, the pairings), and the pages through hall/page/hallproto.js,
# which tools/hallproto_js.py generates from this file's data (the
# UPPER_CASE names below; tests/test_hall_proto.py runs one hostile corpus
# through both and requires the same verdict for every item).
#
# The rules, each a whole-string match on ASCII only (no regex: Python's `$`
# matches before a final newline, `\w` and str.isdigit() take letters and
# digits of every script):
#   a number    ASCII digits, no sign, no leading zero, at most 10 digits
#   a clock id  1..MAX_ID characters of ID_CHARS (so is an event's name)
#   a message   UTF-8, at most its kind's bytes; JSON bodies hold only
#               integers (no fraction, exponent, NaN or Infinity) nested at
#               most MAX_DEPTH deep
#   a name      NAME_MAX code points (not UTF-16 units, not bytes), without
#               control characters or bidi controls (clean_name removes them)
#
# Runs unchanged on CPython and MicroPython; nothing here is on the clock's
# main loop (hallmsg calls it when a message is built).
import json

INT_MAX = 2147483647      # the clocks' ints are 31-bit (not a small int on a board: compared only)
ROOT = "scrabble"
ID_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._-"
MAX_ID = 40               # a clock id, an event's name
MAX_DIGITS = 10
MAX_TABLE = 9999          # a table in a topic (the setup menu has 1-99)
MAX_TOPIC = 256           # characters of a topic
MAX_BODY = 4096           # bytes of a state, heartbeat or result (the clock's: ~400)
MAX_LOG = 20480           # bytes of a log message: the broker's message_size_limit
LOG_CUT = 16384           # the clock cuts a longer log here (hallmsg.py), then one line
LOG_HEAD_LINES = 8        # the `# clock <id>` line is among a log's first lines
MAX_DEPTH = 3             # JSON nesting: the state's sides are objects in an object
NAME_MAX = 64             # a player's name, in code points
MAX_PROFILE = 40          # the profile's name in a state
MAX_SELFTEST = 80         # a state's self-test result ("fail keys lcd buzzer ...")
# Code points a name never keeps: C0 and C1 controls, DEL, the line and
# paragraph separators, the bidi embeddings, overrides, isolates and marks
# (one of them in one name reversed the opponent's on the page: issue 35),
# and lone surrogates (a string that is no text).  Inclusive ranges.
NAME_DROP = ((0x0, 0x1F), (0x7F, 0x9F), (0x61C, 0x61C), (0x200E, 0x200F),
             (0x2028, 0x202E), (0x2066, 0x2069), (0xD800, 0xDFFF))

# The kinds of topic: scrabble/<event>/<table>/<kind>/<account> for these ...
CLOCK_KINDS = ("status", "state", "heartbeat")
# ... scrabble/<event>/<table>/<kind>/<game>/<account> for these ...
GAME_KINDS = ("result", "log")
# ... and the hall's own, scrabble/<event>/<kind>[/<arg>], written by the
# recorder only: the round (and /<table>: its seating), a clock's owner
# (/<clock id>), the alarm, a clock account's confirmations (/<account>).
HALL_KINDS = ("round", "owner", "alarm", "confirm")
STATUS = ("online", "offline")
SIDE_NAMES = ("left", "right")

# A field: (name, type, lo, hi); types: "int" (lo..hi), "bool", "side"
# (null, "left" or "right"), "id" (a clock id), "text" (a string of at most
# hi code points, none of NAME_DROP: is_text), "text?" (absent, null or
# such a text), "bool?" (absent or
# true/false), "int?" (absent or lo..hi: a field a clock before it lacks),
# "obj" (SIDE_FIELDS).
SIDE_FIELDS = (("remaining_ms", "int", -INT_MAX, INT_MAX),
               ("overtime_ms", "int", 0, INT_MAX),
               ("penalty", "int", -INT_MAX, INT_MAX),
               ("flag", "bool", 0, 0),
               ("forfeit", "bool", 0, 0),
               ("lateness_ms", "int?", 0, INT_MAX))   # SPEC v5 §5 (older clocks: absent)
STATE_FIELDS = (("table", "int", 1, MAX_TABLE),
                ("game", "int", 0, INT_MAX),
                ("clock", "id", 0, 0),
                ("profile", "text", 0, MAX_PROFILE),
                ("t_ms", "int", 0, INT_MAX),
                ("running", "side", 0, 0),
                ("late", "side", 0, 0),
                ("paused", "bool", 0, 0),
                ("over", "bool", 0, 0),
                ("challenge_ms", "int", 0, INT_MAX),
                ("lowbat", "bool?", 0, 0),
                # the last self-test since power-up (firmware/selftest.py
                # Result.summary(): null, "pass", "fail <item> ..."; issue 37)
                ("selftest", "text?", 0, MAX_SELFTEST),
                ("left", "obj", 0, 0),
                ("right", "obj", 0, 0))
# What a JSON body may hold outside its strings (the scan in _integers()).
JSON_CHARS = " \t\n\r{}[]:,-0123456789truefalsn"
# Printable ASCII, U+0020..U+007E: no code point of NAME_DROP (is_text's
# quick answer).  (Not the protocol's data: the pages' copy has no need of it.)
_PRINTABLE = (" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
              "abcdefghijklmnopqrstuvwxyz{|}~")


# -- building topics (the clock, the ACL, the subscriptions) --------------------------
def topic(event, table, kind, account, game=None):
    """scrabble/<event>/<table>/<kind>[/<game>]/<account>; any part may be
    "+" (a subscription, an ACL line)."""
    if game is None:
        return "%s/%s/%s/%s/%s" % (ROOT, event, table, kind, account)
    return "%s/%s/%s/%s/%s/%s" % (ROOT, event, table, kind, game, account)


def prefix(event, table):
    """What every topic of a clock at `table` begins with (hallmsg.py)."""
    return "%s/%s/%s/" % (ROOT, event, table)


def hall_topic(event, kind, arg=None):
    """scrabble/<event>/<kind>[/<arg>] (round, owner, alarm, confirm)."""
    if arg is None:
        return "%s/%s/%s" % (ROOT, event, kind)
    return "%s/%s/%s/%s" % (ROOT, event, kind, arg)


def confirm_topic(event, account):
    return hall_topic(event, "confirm", account)


# -- the rules --------------------------------------------------------------------------
def num(s, lo=1, hi=MAX_TABLE):
    """The number a topic level (or a typed table) spells: canonical ASCII
    decimal lo..hi, or None."""
    if not isinstance(s, str) or not 0 < len(s) <= MAX_DIGITS:
        return None
    for c in s:
        if c < "0" or c > "9":
            return None
    if s[0] == "0" and len(s) > 1:
        return None
    n = int(s)
    return n if lo <= n <= hi else None


def is_id(s):
    """A clock id (or an event's name): 1..MAX_ID of ID_CHARS, nothing else."""
    if not isinstance(s, str) or not 0 < len(s) <= MAX_ID:
        return False
    return not s.strip(ID_CHARS)      # (what strip leaves: a character not of ID_CHARS)


def is_account(s):
    """A clock account's name: its table number at the deploy."""
    return num(s, 1, INT_MAX) is not None


def _dropped(o):
    for lo, hi in NAME_DROP:
        if lo <= o <= hi:
            return True
    return False


def clean_name(s):
    """The name as the hall keeps and shows it: the code points of
    NAME_DROP removed, then cut to NAME_MAX code points."""
    out = []
    for c in s:
        if not _dropped(ord(c)):
            out.append(c)
            if len(out) == NAME_MAX:
                break
    return "".join(out)


def is_text(v, most):
    """A text of at most `most` code points, none of NAME_DROP."""
    if not isinstance(v, str):
        return False
    if len(v) <= most and not v.strip(_PRINTABLE):
        return True               # (printable ASCII: none of NAME_DROP)
    n = 0
    for c in v:
        n += 1
        if n > most or _dropped(ord(c)):
            return False
    return True


def is_name(v):
    """A name as clean_name() leaves it."""
    return is_text(v, NAME_MAX)


def _check(d, fields, where):
    for k, kind, lo, hi in fields:
        v = d.get(k)
        if kind == "int":
            if type(v) is not int or not lo <= v <= hi:   # (inline: the recorder's hot path)
                return "%s%s is not a number %d..%d" % (where, k, lo, hi)
        elif kind == "bool":
            if type(v) is not bool:
                return "%s%s is not true/false" % (where, k)
        elif kind == "bool?":
            if k in d and type(v) is not bool:
                return "%s%s is not true/false" % (where, k)
        elif kind == "int?":
            if k in d and (type(v) is not int or not lo <= v <= hi):
                return "%s%s is not a number %d..%d" % (where, k, lo, hi)
        elif kind == "side":
            if k not in d or v not in (None, "left", "right"):
                return "%s%s is not a side" % (where, k)
        elif kind == "id":
            if not is_id(v):
                return "%s%s is not a clock id" % (where, k)
        elif kind == "text":
            if not is_text(v, hi):
                return "%s%s is not a text of %d characters at most" % (where, k, hi)
        elif kind == "text?":
            if v is not None and not is_text(v, hi):
                return "%s%s is not null or a text of %d characters at most" % (where, k, hi)
        elif not isinstance(v, dict):
            return "%s%s is not an object" % (where, k)
        else:
            why = _check(v, SIDE_FIELDS, k + ".")
            if why:
                return why
    return None


def check_state(body, table):
    """None if `body` (parsed JSON) is a clock's state for this table, else
    the reason (the state, heartbeat and result bodies are all one)."""
    if not isinstance(body, dict):
        return "not a JSON object"
    why = _check(body, STATE_FIELDS, "")
    if why:
        return why
    if body["table"] != table:
        return "its table %d is not the topic's %d" % (body["table"], table)
    return None


def check_result(body, table, game):
    """None if `body` is a clock's final result for this table and game."""
    why = check_state(body, table)
    if why:
        return why
    if body["game"] != game:
        return "its game %d is not the topic's %d" % (body["game"], game)
    if body["over"] is not True:
        return "not a finished game"
    return None


def _integers(text):
    """None if JSON text holds only integers, true, false, null, strings
    and at most MAX_DEPTH levels of objects and arrays; else the reason.
    (Python's json takes NaN, 1e400 and 5.0; the pages' JSON.parse makes
    5.0 an integer: this is the one rule both keep.)  A string is skipped
    whole (str.find to its closing quote), the text between strings is
    scanned a character at a time."""
    depth = 0
    i = 0
    n = len(text)
    prev = ""
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i + 1, n)
        elif c in "{[":
            depth += 1
            if depth > MAX_DEPTH:
                return "nested too deep"
        elif c in "}]":
            depth -= 1
        elif c not in JSON_CHARS or (c == "e" and "0" <= prev <= "9"):
            return "not JSON of integers"
        prev = c
        i += 1
    return None


def _string_end(text, i, n):
    """The index of the quote that closes the string whose text begins at i
    (a backslash takes the character after it), or n if it never closes."""
    while True:
        q = text.find('"', i)
        if q < 0:
            return n
        b = text.find("\\", i, q)
        if b < 0:
            return q
        i = b + 2               # (the escaped character, whichever it is;
                                # past the end, find() says -1: n)


class Message:
    """One message, parsed once: `kind` is a kind of the protocol (CLOCK_KINDS,
    GAME_KINDS, HALL_KINDS), "clear" (an emptied retained state: the row goes),
    "empty" (any other emptied message), "refused" (`why` says why) or
    "other" (not the hall's: a topic outside scrabble/<event>/).  The levels
    are named: table, game, account (the topic's: the broker pinned the
    account), arg (a hall kind's last level); value: the parsed JSON body,
    a status's word, a log's text, or a hall kind's payload text."""

    def __init__(self, kind, why=None, table=None, game=None, account=None, arg=None):
        self.kind = kind
        self.why = why
        self.table = table
        self.game = game
        self.account = account
        self.arg = arg
        self.value = None
        self.clock = None     # a state's or result's clock id, a log's `# clock` line's


def _refused(why):
    return Message("refused", why)


def parse_topic(event, t):
    """The Message of topic t with its levels (no value yet)."""
    if not isinstance(t, str) or len(t) > MAX_TOPIC:
        return _refused("not a topic of the hall")
    p = t.split("/")
    if len(p) < 3 or p[0] != ROOT or p[1] != event:
        return Message("other")
    kind = p[2]
    if kind in HALL_KINDS:
        if len(p) == 3 and kind in ("round", "alarm"):
            return Message(kind)
        if len(p) == 4 and kind == "round" and num(p[3]) is not None:
            return Message("round", arg=p[3], table=num(p[3]))
        if len(p) == 4 and kind == "owner" and is_id(p[3]):
            return Message(kind, arg=p[3])
        if len(p) == 4 and kind == "confirm" and is_account(p[3]):
            return Message(kind, arg=p[3], account=p[3])
        return _refused("not a topic of the hall's %s" % kind)
    kind = p[3] if len(p) > 3 else ""
    if kind in CLOCK_KINDS:
        if len(p) != 5:
            return _refused("not a clock's topic")
        game = None
    elif kind in GAME_KINDS:
        if len(p) != 6:
            return _refused("not a clock's topic")
        game = num(p[4], 1, INT_MAX)
        if game is None:
            return _refused("not a game number in the topic")
    else:
        return _refused("not a kind of the hall's topics")
    table = num(p[2])
    if table is None:
        return _refused("not a table number in the topic")
    if not is_account(p[-1]):
        return _refused("not a clock account in the topic")
    return Message(kind, None, table, game, p[-1])


def log_clock(text):
    """The clock id of a log's `# clock <id> ...` line (among its first
    LOG_HEAD_LINES lines), or None."""
    lines = text.split("\n", LOG_HEAD_LINES)
    for line in lines[:LOG_HEAD_LINES]:
        w = line.split(" ")
        if len(w) >= 3 and w[0] == "#" and w[1] == "clock":
            return w[2] if is_id(w[2]) else None
    return None


def _text(payload, limit):
    """(text, None) of a payload of at most `limit` bytes of UTF-8, else
    (None, why)."""
    if isinstance(payload, str):
        try:
            payload = payload.encode("utf-8")
        except UnicodeError:          # (a lone surrogate: no text)
            return None, "not UTF-8"
    if len(payload) > limit:
        return None, "longer than %d bytes" % limit
    try:
        return str(payload, "utf-8"), None
    except UnicodeError:
        return None, "not UTF-8"


def parse(event, t, payload):
    """The Message of one published message: topic t (str), payload (bytes
    or str).  Never raises."""
    m = parse_topic(event, t)
    if m.kind in ("refused", "other"):
        return m
    if m.kind in HALL_KINDS:       # (their bodies: the recorder's, checked by their readers)
        text, why = _text(payload, MAX_LOG)
        if why:
            return _refused(why)
        m.value = text
        return m
    if not payload:
        m.kind = "clear" if m.kind == "state" else "empty"
        return m
    text, why = _text(payload, MAX_LOG if m.kind == "log" else MAX_BODY)
    if why:
        return _refused("%s: %s" % (m.kind, why))
    if m.kind == "status":
        if text not in STATUS:
            return _refused("status is not online/offline")
        m.value = text
        return m
    if m.kind == "log":
        m.clock = log_clock(text)
        if m.clock is None:
            return _refused("log: no `# clock <id>` line in its head")
        m.value = text
        return m
    try:
        body = json.loads(text)
    except Exception:             # (ValueError; CPython: RecursionError, "[" * 5000)
        body = _NOT_JSON
    if not (_plain(text, body) and _check_body(m, body) is None):
        # the full rules, in their order: the text's scan first (its
        # reason, whatever the JSON), then the JSON, then the fields
        why = _integers(text)
        if why is None and body is _NOT_JSON:
            why = "not JSON"
        if why is None:
            why = _check_body(m, body)
        if why:
            return _refused("%s: %s" % (m.kind, why))
    m.value = body
    m.clock = body["clock"]
    return m


_NOT_JSON = object()
# [the state's keys, the objects' keys (its sides), a side's keys]: made at
# the first _plain() (only a reader parses: nothing on a clock's heap)
_KEYS = []


def _keys():
    if not _KEYS:
        _KEYS.append(set([f[0] for f in STATE_FIELDS]))
        _KEYS.append(tuple([f[0] for f in STATE_FIELDS if f[1] == "obj"]))
        _KEYS.append(set([f[0] for f in SIDE_FIELDS]))
    return _KEYS


def _check_body(m, body):
    if m.kind == "result":
        return check_result(body, m.table, m.game)
    return check_state(body, m.table)


def _plain(text, body):
    """True if `text` is `body` as json.dumps writes it (no duplicate key,
    one way to write each value) and body has the state's fields only, its
    sides the side's fields only: then, once _check_body() passes, every
    value is an integer, a bool, null, a string or a side nested two deep,
    so _integers(text) has nothing to refuse (parse()'s quick path for a
    clock's own messages; anything else takes the full rules)."""
    state, objs, sides = _keys()
    if type(body) is not dict or not set(body).issubset(state):
        return False
    for k in objs:
        side = body.get(k)
        if type(side) is dict and not set(side).issubset(sides):
            return False
    return json.dumps(body) == text
