# The setup menu (SPEC §4 Setup): the organizer's settings before a game,
# one item at a time (menu.py: the keys, the layout, the codes, the
# drawing).  It edits the settings.py data object in place; the app
# saves them when the menu is left (SAVE).
import appversion
import lang
import profiles
import settings as st
from menu import A_LEFT, A_RIGHT, A_NEXT, A_DONE, SAVE, RESULTS, SELFTEST, \
    center, center_num, center_mmss, lim, arrows, step, cycle, base_step, \
    can_shift, frame, both_mmss
from rows import put, num, ndigits, word

# Items (the label key in lang.py is the comment).
S_PROFILE = 0   # T_PROFILE  profiles.NAMES (cycles)
S_BASE = 1      # T_BASE     both sides, 1-min steps, BASE_MIN..BASE_MAX
S_BASE_L = 2    # T_BASE_L   custom only: left side alone
S_BASE_R = 3    # T_BASE_R   custom only: right side alone
S_ZERO = 4      # T_ZERO     custom only: overtime / flag (cycles)
S_PENALTY = 5   # T_PENALTY  custom + overtime only: 0..50 points, step 5
S_FORFEIT = 6   # T_FORFEIT  custom + overtime only: none, 1:00..10:00
S_WINDOW = 7    # T_WINDOW   custom only: 0..60 s, step 5 (0 = none)
S_LANG = 8      # T_LANG     lang.LANGS (cycles)
S_SOUND = 9     # T_SOUND    on / off (cycles)
S_RESULTS = 10  # T_RESULTS  the last games' results (either arrow opens them)
S_TABLE = 11    # T_TABLE    table number, 0 (none)..TABLE_MAX, on every log
S_HALL = 12     # T_HALL     a clock on the hall's network only: its state
                #            (read only) and the table it publishes under
S_SELFTEST = 13  # T_SELFTEST the self-test (either arrow starts it,
                #            selftest.py); its last result shown
S_VERSION = 14  # T_VERSION  the app's commit (appversion.LABEL) and the
                #            interpreter's release (RUNTIME), read only

_S_LABEL = ("T_PROFILE", "T_BASE", "T_BASE_L", "T_BASE_R", "T_ZERO",
            "T_PENALTY", "T_FORFEIT", "T_WINDOW", "T_LANG", "T_SOUND",
            "T_RESULTS", "T_TABLE", "T_HALL", "T_SELFTEST", "T_VERSION")
# Every list ends with the results, the self-test and the version (_END).
_END = (S_RESULTS, S_SELFTEST, S_VERSION)
_S_STD = (S_PROFILE, S_BASE, S_LANG, S_SOUND, S_TABLE) + _END
_S_CUSTOM_OVERTIME = (S_PROFILE, S_BASE, S_BASE_L, S_BASE_R, S_ZERO,
                      S_PENALTY, S_FORFEIT, S_WINDOW, S_LANG, S_SOUND,
                      S_TABLE) + _END
# With a flag at 00:00 there is no overtime, so penalty and forfeit are moot.
_S_CUSTOM_FLAG = (S_PROFILE, S_BASE, S_BASE_L, S_BASE_R, S_ZERO, S_WINDOW,
                  S_LANG, S_SOUND, S_TABLE) + _END
# A clock on the hall's network (its hall reader, source.py, has a state)
# adds S_HALL after the table number.
_S_STD_NET = _S_STD[:-3] + (S_HALL,) + _END
_S_CUSTOM_OVERTIME_NET = _S_CUSTOM_OVERTIME[:-3] + (S_HALL,) + _END
_S_CUSTOM_FLAG_NET = _S_CUSTOM_FLAG[:-3] + (S_HALL,) + _END
_ST_WORD = ("V_ST_NONE", "V_ST_PASS", "V_ST_FAIL")  # by selftest.Result.verdict
_COMMIT = appversion.LABEL.encode()     # (made once: render allocates nothing)
_RUNTIME = appversion.RUNTIME.encode()
_HALL_WORD = ("V_HALL_DOWN", "V_HALL_WAIT", "V_HALL_UP")  # by source.HALL_*


def _labels():
    """Each profile's label (profiles.py) as LCD codes, made once; custom's
    is a word of the language (V_CUSTOM)."""
    out = {}
    for name in profiles.NAMES:
        label = profiles.PROFILES[name]["label"]
        if label is not None:
            out[name] = lang.encode(label)
    return out


_LABEL = _labels()


def _profile(value, name, w):
    label = _LABEL.get(name)
    center(value, label if label is not None else w["V_CUSTOM"])


class SetupMenu:
    """Before a game (SPEC §4 Setup): profile, base times, language, sound,
    and the custom profile's rules.  Edits `settings` (data only) in place;
    handle() returns SAVE on A_DONE (the app saves and goes back to ready),
    RESULTS on the results item's arrows, SELFTEST on the self-test's, else
    None.  `hall`: what the clock knows of the hall (source.Source: hall(),
    hall_table()), None on a clock without one; `tested`: the last
    self-test's selftest.Result (None: not shown as run)."""

    def __init__(self, settings, hall=None, tested=None):
        self.settings = settings
        self.hall = hall
        self.tested = tested
        self.item = S_PROFILE

    def items(self):
        """The items shown for the current settings (a constant tuple)."""
        s = self.settings
        h = self.hall
        net = h is not None and h.hall() >= 0
        if s.profile != "custom":
            return _S_STD_NET if net else _S_STD
        if s.zero == profiles.ZERO_FLAG:
            return _S_CUSTOM_FLAG_NET if net else _S_CUSTOM_FLAG
        return _S_CUSTOM_OVERTIME_NET if net else _S_CUSTOM_OVERTIME

    def handle(self, action, t=None):
        if action == A_DONE:
            return SAVE
        if action == A_NEXT:
            items = self.items()
            self.item = cycle(items, self.item, True)
        elif self.item == S_RESULTS and (action == A_LEFT or action == A_RIGHT):
            return RESULTS  # the app saves, then shows the results
        elif self.item == S_SELFTEST and (action == A_LEFT or action == A_RIGHT):
            return SELFTEST  # the app saves, then runs the self-test
        elif action == A_LEFT or action == A_RIGHT:
            self._change(action == A_RIGHT)
        return None

    def _change(self, up):
        s = self.settings
        it = self.item
        if it == S_PROFILE:
            s.set_profile(cycle(profiles.NAMES, s.profile, up))
        elif it == S_BASE:
            if can_shift(s.base_left, s.base_right, up):
                s.put("base_left", base_step(s.base_left, up))
                s.put("base_right", base_step(s.base_right, up))
        elif it == S_BASE_L:
            s.put("base_left", step(s.base_left, st.BASE_STEP, up, st.BASE_MIN,
                                    st.BASE_MAX))
        elif it == S_BASE_R:
            s.put("base_right", step(s.base_right, st.BASE_STEP, up, st.BASE_MIN,
                                     st.BASE_MAX))
        elif it == S_ZERO:
            s.put("zero", profiles.ZERO_FLAG if s.zero == profiles.ZERO_OVERTIME
                  else profiles.ZERO_OVERTIME)
        elif it == S_PENALTY:
            s.put("penalty", step(s.penalty, st.PENALTY_STEP, up, 0, st.PENALTY_MAX))
        elif it == S_FORFEIT:
            f = s.forfeit
            if f < 0:
                if up:
                    s.put("forfeit", st.FORFEIT_MIN)
            elif not up and f <= st.FORFEIT_MIN:
                s.put("forfeit", -1)
            else:
                s.put("forfeit", step(f, st.FORFEIT_STEP, up, st.FORFEIT_MIN,
                                      st.FORFEIT_MAX))
        elif it == S_WINDOW:
            s.put("window", step(s.window, st.WINDOW_STEP, up, 0, st.WINDOW_MAX))
        elif it == S_LANG:
            s.put("lang", cycle(lang.LANGS, s.lang, up))
        elif it == S_SOUND:
            s.put("sound", not s.sound)
        elif it == S_TABLE:
            s.put("table", step(s.table, 1, up, 0, st.TABLE_MAX))

    def mark(self):
        self._saved = (self.item, self.settings.as_dict())

    def undo(self, t=None):
        self.item = self._saved[0]
        self.settings.restore(self._saved[1])

    def _limits(self):
        """Whether the current item can decrease (bit 0) / increase (bit 1)."""
        s = self.settings
        it = self.item
        if it == S_BASE:
            return lim(can_shift(s.base_left, s.base_right, False),
                        can_shift(s.base_left, s.base_right, True))
        if it == S_BASE_L or it == S_BASE_R:
            v = s.base_left if it == S_BASE_L else s.base_right
            return lim(v > st.BASE_MIN, v < st.BASE_MAX)
        if it == S_PENALTY:
            return lim(s.penalty > 0, s.penalty < st.PENALTY_MAX)
        if it == S_FORFEIT:
            return lim(s.forfeit >= 0, s.forfeit < st.FORFEIT_MAX)
        if it == S_WINDOW:
            return lim(s.window > 0, s.window < st.WINDOW_MAX)
        if it == S_TABLE:
            return lim(s.table > 0, s.table < st.TABLE_MAX)
        if it == S_RESULTS or it == S_SELFTEST:
            return 2  # ">" opens them
        if it == S_HALL or it == S_VERSION:
            return 0  # shown, not chosen
        return 3  # choices cycle

    def render(self, rows):
        s = self.settings
        w = lang.table(s.lang)
        k = frame(rows, w["TITLE_SETUP"], self.items(), self.item)
        label, value = rows[k], rows[k + 1]
        if k:
            put(rows[3], 0, w["HINT"])
        it = self.item
        put(label, 0, w[_S_LABEL[it]])
        lim = self._limits()
        arrows(value, lim & 1, lim & 2)
        if it == S_PROFILE:
            _profile(value, s.profile, w)
        elif it == S_BASE:
            both_mmss(value, s.base_left, s.base_right)
        elif it == S_BASE_L:
            center_mmss(value, s.base_left)
        elif it == S_BASE_R:
            center_mmss(value, s.base_right)
        elif it == S_ZERO:
            center(value, w["V_FLAG" if s.zero == profiles.ZERO_FLAG
                             else "V_OVERTIME"])
        elif it == S_PENALTY:
            if s.penalty:
                center_num(value, s.penalty, 0)
            else:
                center(value, w["V_NONE"])
        elif it == S_FORFEIT:
            if s.forfeit >= 0:
                center_mmss(value, s.forfeit * 1000)
            else:
                center(value, w["V_NEVER"])
        elif it == S_WINDOW:
            if s.window:
                center_num(value, s.window // 1000, 0x73)  # "20 s"
            else:
                center(value, w["V_NONE"])
        elif it == S_LANG:
            center(value, w["LANG"])     # the language's own name
        elif it == S_SOUND:
            center(value, w["V_ON" if s.sound else "V_OFF"])
        elif it == S_TABLE:
            if s.table:
                center_num(value, s.table, 0)
            else:
                center(value, w["V_NONE"])
        elif it == S_HALL:
            self._hall(label, value, w)
        elif it == S_SELFTEST:
            t = self.tested
            center(value, w[_ST_WORD[t.verdict if t is not None else 0]])
        elif it == S_VERSION:
            # "Version  a1b2c3d" / "MicroPy 1.28.0": the commit wins the
            # columns the label would need (appversion.py)
            c = _COMMIT
            put(label, len(label) - len(c) if len(c) < len(label) else 0, c)
            word(value, 0, len(value), _RUNTIME, 2)
        return rows

    def _hall(self, label, value, w):
        """'Hall, table   12' / 'connected': the hall's state in words and
        the table the clock publishes under now (the menu's new number
        takes effect when the menu is left)."""
        h = self.hall
        t = h.hall_table()
        num(label, len(label) - ndigits(t), t)
        k = _HALL_WORD[h.hall()]
        if h.bad_password():
            k = "V_WIFI_BADPASS"
        center(value, w[k])
