# Screen words in English, German and Polish, as LCD character codes.
#
# The HD44780 A00 ROM has no Polish letters and only some German ones (ä ö ü ß
# at 0xE1 0xEF 0xF5 0xE2), so every word here is written with ROM characters
# only: German umlauts use those ROM codes, Polish words are written with their
# diacritics here and shown without them (PAUZA, Sędzia -> Sedzia), which
# Polish players read naturally on such displays.
#
# The terms follow the regulations:
#   German (TSO 2017): Bedenkzeit (§ 1.1, § 2.4), Zeitüberschreitung shown
#     "im Count-Up-Modus" = Hochzählen (§ 1.4.2 a ii, § 5.2),
#     Strafpunkte/Zeitstrafen (§ 5.2 b), Anfechtperiode (§ 1.4.2 a iv),
#     Schiedsrichter, Verspätung (§ 2.4), Reset der Uhr (§ 1.4.1 a), verloren
#     (§ 5.2 c), Ton.
#   Polish (PFS): czas na partię (§ 1.2), przekroczenie czasu / chorągiewka
#     (§ 6.2.1), kara, sprawdzenie (§ 4.7), sędzia, spóźnienie (§ 6.3),
#     walkower (§ 6.3.4, § 7.2), koniec gry, dźwięk.
#
# Every key exists in every language, and every word fits the field it is
# drawn in (WIDTH, in LCD columns after encoding; tests/test_lang.py checks
# both), so a 16x2 layout never truncates a word.
#
#   view.py (game screen): READY PAUSE END CHAL PEN LOST FLAG RESTORED LOWBAT
#     LATE; READY_WHO (15: READY and who presses to start), LOST_L LOST_R (11:
#     the final screen names the side that lost); app prompts (16): ASK_END
#     ASK_NEW
#   the menus (menu.py), row 0 labels (16): T_*
#   the menus, row 1 values between the arrows (12): V_*
#   the menus, 20x4 only: TITLE_* (14, beside "nn/nn"), HINT (20)
#   app/settings notice (16): SETRESET STATELOST LCDBACK
#   setupmenu.py, the language item (12): LANG, the language's own name
#   setupmenu.py, the hall item: T_HALL (13, the table number after it), V_HALL_*
#   resultsmenu.py, "Last games": what a game came to (16): RES_OK RES_LOST_L/R
#     RES_FLAG_L/R; RES_PEN (8) before the points, RES_L RES_R (1) the
#     side letters in front of them
#   setupmenu.py, the version item: T_VERSION (7, the app's commit after
#     it); the self-test item T_SELFTEST (10: the verdict after it on its
#     result page), V_ST_* its last result
#   selftest.py: ST_* its pages' rows (16), ST_I_* its pages' titles (9,
#     the verdict after them), ST_PASS ST_FAIL (6), ST_FREE (8, after the
#     number), ST_S_* the items on the result page (3)
# The rule profiles' names, the same in every language, are their labels in
# profiles.py (custom's is a word here: V_CUSTOM).

# The languages, in the language menu's order: (code, every word).  This is
# the one list: settings, the menus, the simulator's --lang and the screens
# tool all take it from here.  Adding a language is one entry here (every key
# of the English table; tests/test_lang.py) plus its quick-reference card
# docs/quickref.<code>.md (tests/test_docs.py); `make screens` draws its
# pictures.
_TABLES = (
    ("en", {
        "LANG": "English",  # its own name, for the language menu
        # -- game screen (view.py) --
        "READY": "READY",      # center field, 6 columns
        # READY and who presses to start (SPEC §4: a player button starts
        # the other side's clock, so the player who moves second presses):
        # the READY screen's row, 15 columns (the 16th is the hall mark's)
        "READY_WHO": "READY 2nd press",
        "PAUSE": "PAUSE",
        "END": "END",
        "CHAL": "CHL",         # challenge window label, 3 columns
        "PEN": "P",            # penalty points prefix, 1 column
        "LOST": "LOST",        # forfeit, 5 columns
        "LOST_L": "LEFT LOST",  # the final screen names the loser: 11 columns
        "LOST_R": "RIGHT LOST",
        "FLAG": "TIME",        # out of time (flag profiles), 5 columns
        "RESTORED": "GAME RESTORED",  # after a power cut: the status row, 16 columns
        "LOWBAT": "BATT",
        "LATE": "LATE",        # a late player's clock runs, 5 columns
        "ASK_END": "END? hold L+R",      # the end needs a confirmation, 16
        "ASK_NEW": "NEW GAME? L+R",      # ... and so does a new game
        # -- setup menu labels --
        "T_PROFILE": "Rules",
        "T_BASE": "Time per player",
        "T_BASE_L": "Time: left",
        "T_BASE_R": "Time: right",
        "T_ZERO": "At 00:00",
        "T_PENALTY": "Penalty/minute",
        "T_FORFEIT": "Forfeit after",
        "T_WINDOW": "Challenge time",
        "T_LANG": "Language",
        "T_SOUND": "Sound",
        "T_TABLE": "Table number",
        "T_HALL": "Hall, table",       # then the table number, 13 columns
        # -- referee menu labels --
        "T_ADJ_L_S": "Left +/- 1 s",
        "T_ADJ_L_M": "Left +/- 1 min",
        "T_ADJ_R_S": "Right +/- 1 s",
        "T_ADJ_R_M": "Right +/- 1 min",
        "T_LATE_L": "Late arrival L",
        "T_LATE_R": "Late arrival R",
        "T_RESET": "Reset game",
        "T_EXIT": "Exit",
        "T_VOID_L": "5.2d: refund L",   # TSO § 5.2 d, by the referee
        "T_VOID_R": "5.2d: refund R",
        "T_RESUME": "Resume game",
        "T_APPLY": "Apply new times?",  # the time changes, as a whole
        "T_RESULTS": "Last games",
        # -- values --
        "V_CUSTOM": "Custom",
        "V_OVERTIME": "Overtime",
        "V_FLAG": "Flag",
        "V_NONE": "none",
        "V_NEVER": "never",
        "V_ON": "on",
        "V_OFF": "off",
        "V_CONFIRM": "L+R 1s = yes",    # both player buttons held: yes
        # the referee menu's Exit item (its arrows leave): how to move on
        "V_MENU_KEYS": "Pause=next",
        "V_HALL_UP": "connected",      # the hall's network (net.HALL_*)
        "V_HALL_WAIT": "connecting",
        "V_HALL_DOWN": "no hall",
        "V_WIFI_BADPASS": "bad password",   # no hall: the AP refused the Wi-Fi password (net.WIFI_BADAUTH)
        # -- 20x4 extras, notices --
        "TITLE_SETUP": "Setup",
        "TITLE_REF": "Referee",
        "HINT": "Pause=next hold=OK",
        "SETRESET": "Settings reset",
        "STATELOST": "SAVED GAME LOST",
        "LCDBACK": "DISPLAY RESTORED",  # the display's bus answered again
        # -- "Last games": what each game came to (results.py verdict) --
        "RES_OK": "Ended in time",
        "RES_PEN": "Penalty",          # then "L20 R10": points per side
        "RES_L": "L",
        "RES_R": "R",
        "RES_LOST_L": "Left lost: time",   # TSO § 5.2 c
        "RES_LOST_R": "Right lost: time",
        "RES_FLAG_L": "Time out: left",    # flag profiles, PFS § 6.2.1
        "RES_FLAG_R": "Time out: right",
        # -- the setup menu's version item and the self-test (selftest.py) --
        "T_VERSION": "Version",         # then the app's commit, 7 columns
        "T_SELFTEST": "Self-test",
        "V_ST_NONE": "not run",         # no self-test since power-up
        "V_ST_PASS": "passed",
        "V_ST_FAIL": "FAILED",
        "ST_KEYS": "Press every key",
        "ST_ASK": "OK? L=no R=yes",     # the organizer judges what was shown
        "ST_NEXT": "Pause 2s: next",    # how to leave each page (no key alone)
        "ST_EXIT": "Pause 2s: exit",
        "ST_PASS": "PASS",
        "ST_FAIL": "FAIL",
        "ST_FREE": "KB free",           # the flash's free space, after the number
        "ST_I_KEYS": "Keys",            # the items, their page's title (9: the verdict after it)
        "ST_I_LCD": "Display",
        "ST_I_DIG": "Digits",
        "ST_I_BEEP": "Buzzer",
        "ST_I_LEDS": "LEDs",
        "ST_I_FLASH": "Flash",
        "ST_I_BAT": "Battery",
        "ST_S_KEYS": "KEY",             # ... and on the result page, 3 columns
        "ST_S_LCD": "LCD",
        "ST_S_DIG": "DIG",
        "ST_S_BEEP": "SND",
        "ST_S_LEDS": "LED",
        "ST_S_FLASH": "FLS",
        "ST_S_BAT": "BAT",
    }),
    ("de", {
        "LANG": "Deutsch",  # its own name, for the language menu
        "READY": "BEREIT",
        "READY_WHO": "BEREIT 2.drückt",   # der Nachziehende drückt (TSO § 2.3)
        "PAUSE": "PAUSE",
        "END": "ENDE",
        "CHAL": "ANF",         # Anfechtung
        "PEN": "S",            # Strafpunkte
        "LOST": "VERL.",       # verloren (TSO § 5.2 c)
        "LOST_L": "L VERLOREN",
        "LOST_R": "R VERLOREN",
        "FLAG": "ZEIT",
        "RESTORED": "SPIEL FORTGES.",
        "LOWBAT": "AKKU",
        "LATE": "VERSP",       # Verspätung (TSO § 2.4)
        "ASK_END": "ENDE? L+R halten",
        "ASK_NEW": "NEUES SPIEL? L+R",
        "T_PROFILE": "Regelwerk",
        "T_BASE": "Bedenkzeit",
        "T_BASE_L": "Bedenkz. links",
        "T_BASE_R": "Bedenkz. rechts",
        "T_ZERO": "Bei 00:00",
        "T_PENALTY": "Strafpunkte/Min.",
        "T_FORFEIT": "Verloren nach",
        "T_WINDOW": "Anfechtperiode",
        "T_LANG": "Sprache",
        "T_SOUND": "Ton",
        "T_TABLE": "Tischnummer",
        "T_HALL": "Netz, Tisch",
        "T_ADJ_L_S": "Links +/- 1 s",
        "T_ADJ_L_M": "Links +/- 1 min",
        "T_ADJ_R_S": "Rechts +/- 1 s",
        "T_ADJ_R_M": "Rechts +/- 1 min",
        "T_LATE_L": "Verspätung L",
        "T_LATE_R": "Verspätung R",
        "T_RESET": "Reset der Uhr",
        "T_EXIT": "Zurück",
        "T_VOID_L": "5.2d: zurück L",
        "T_VOID_R": "5.2d: zurück R",
        "T_RESUME": "Weiterspielen",
        "T_APPLY": "Zeiten ändern?",
        "T_RESULTS": "Letzte Partien",
        "V_CUSTOM": "Eigene",
        "V_OVERTIME": "Hochzählen",   # Count-Up-Modus, TSO § 1.4.2 a ii
        "V_FLAG": "Fallblatt",
        "V_NONE": "keine",
        "V_NEVER": "nie",
        "V_ON": "an",
        "V_OFF": "aus",
        "V_CONFIRM": "L+R 1s = ja",
        "V_MENU_KEYS": "Pause=weiter",
        "V_HALL_UP": "verbunden",
        "V_HALL_WAIT": "verbinde...",
        "V_HALL_DOWN": "kein Netz",
        "V_WIFI_BADPASS": "PW falsch",
        "TITLE_SETUP": "Einstellungen",
        "TITLE_REF": "Schiedsrichter",
        "HINT": "Pause=weiter lang=OK",
        "SETRESET": "Standardwerte",
        "STATELOST": "SPIELST. DEFEKT",
        "LCDBACK": "ANZEIGE ZURÜCK",
        "RES_OK": "Ende in der Zeit",
        "RES_PEN": "Strafe",           # Strafpunkte, TSO § 5.2 b
        "RES_L": "L",
        "RES_R": "R",
        "RES_LOST_L": "Links verloren",   # Partie verloren, TSO § 5.2 c
        "RES_LOST_R": "Rechts verloren",
        "RES_FLAG_L": "Zeit um: links",
        "RES_FLAG_R": "Zeit um: rechts",
        "T_VERSION": "Version",
        "T_SELFTEST": "Selbsttest",
        "V_ST_NONE": "ungetestet",
        "V_ST_PASS": "bestanden",
        "V_ST_FAIL": "FEHLER",
        "ST_KEYS": "Jede Taste drück",
        "ST_ASK": "OK? L=nein R=ja",
        "ST_NEXT": "Pause 2s: weiter",
        "ST_EXIT": "Pause 2s: Ende",
        "ST_PASS": "OK",
        "ST_FAIL": "FEHLER",
        "ST_FREE": "KB frei",
        "ST_I_KEYS": "Tasten",
        "ST_I_LCD": "Anzeige",
        "ST_I_DIG": "Ziffern",
        "ST_I_BEEP": "Summer",
        "ST_I_LEDS": "LEDs",
        "ST_I_FLASH": "Speicher",
        "ST_I_BAT": "Akku",
        "ST_S_KEYS": "TAS",
        "ST_S_LCD": "LCD",
        "ST_S_DIG": "ZIF",
        "ST_S_BEEP": "TON",
        "ST_S_LEDS": "LED",
        "ST_S_FLASH": "SPE",
        "ST_S_BAT": "AKK",
    }),
    ("pl", {
        "LANG": "Polski",  # its own name, for the language menu
        "READY": "GOTOWY",
        "READY_WHO": "GOTOWY 2.włącza",   # przeciwnik włącza zegar (PFS § 2.4)
        "PAUSE": "STOP",        # not PAUZA: in PFS § 3.4 "pauza" is a pass
        "END": "KONIEC",
        "CHAL": "SPR",         # sprawdzenie
        "PEN": "K",            # kara
        "LOST": "PRZEG",       # przegrana
        "LOST_L": "L PRZEGRAŁ",
        "LOST_R": "P PRZEGRAŁ",
        "FLAG": "CZAS",        # koniec czasu
        "RESTORED": "GRA PRZYWROCONA",
        "LOWBAT": "BAT",
        "LATE": "SPÓŹN",       # spóźnienie (PFS § 6.3)
        "ASK_END": "KONIEC? L+P 1 s",
        "ASK_NEW": "NOWA GRA? L+P",
        "T_PROFILE": "Regulamin",
        "T_BASE": "Czas na partię",
        "T_BASE_L": "Czas lewy",
        "T_BASE_R": "Czas prawy",
        "T_ZERO": "Przy 00:00",
        "T_PENALTY": "Kara za minutę",
        "T_FORFEIT": "Walkower po",
        "T_WINDOW": "Czas sprawdzenia",
        "T_LANG": "Język",
        "T_SOUND": "Dźwięk",
        "T_TABLE": "Numer stołu",
        "T_HALL": "Sieć, stół",
        "T_ADJ_L_S": "Lewy +/- 1 s",     # L = lewy, P = prawy
        "T_ADJ_L_M": "Lewy +/- 1 min",
        "T_ADJ_R_S": "Prawy +/- 1 s",
        "T_ADJ_R_M": "Prawy +/- 1 min",
        "T_LATE_L": "Spóźnienie L",
        "T_LATE_R": "Spóźnienie P",
        "T_RESET": "Reset zegara",
        "T_EXIT": "Wyjście",
        "T_VOID_L": "5.2d: zwrot L",
        "T_VOID_R": "5.2d: zwrot P",
        "T_RESUME": "Wznów grę",
        "T_APPLY": "Zmienić czasy?",
        "T_RESULTS": "Ostatnie partie",
        "V_CUSTOM": "Własny",
        "V_OVERTIME": "Liczy dalej",
        "V_FLAG": "Chorągiewka",      # PFS § 6.2.1
        "V_NONE": "brak",
        "V_NEVER": "nigdy",
        "V_ON": "włączony",
        "V_OFF": "wyłączony",
        "V_CONFIRM": "L+P 1s = tak",
        "V_MENU_KEYS": "Pauza=dalej",
        "V_HALL_UP": "połączony",
        "V_HALL_WAIT": "łączenie...",
        "V_HALL_DOWN": "brak sieci",
        "V_WIFI_BADPASS": "złe hasło",
        "TITLE_SETUP": "Ustawienia",
        "TITLE_REF": "Sędzia",
        "HINT": "Pauza=dalej długo=OK",
        "SETRESET": "Ustaw. domyślne",
        "STATELOST": "ZAPIS USZKODZONY",
        "LCDBACK": "EKRAN WZNOWIONY",
        "RES_OK": "Koniec w czasie",
        "RES_PEN": "Kara",
        "RES_L": "L",
        "RES_R": "P",                  # prawy
        "RES_LOST_L": "Lewy przegrał",
        "RES_LOST_R": "Prawy przegrał",
        "RES_FLAG_L": "Czas minął: L",   # PFS § 6.2.1
        "RES_FLAG_R": "Czas minął: P",
        "T_VERSION": "Wersja",
        "T_SELFTEST": "Autotest",
        "V_ST_NONE": "nie wykonany",
        "V_ST_PASS": "zaliczony",
        "V_ST_FAIL": "BŁĄD",
        "ST_KEYS": "Wciśnij klawisze",
        "ST_ASK": "OK? L=nie P=tak",
        "ST_NEXT": "Pauza 2s: dalej",
        "ST_EXIT": "Pauza 2s: koniec",
        "ST_PASS": "OK",
        "ST_FAIL": "BŁĄD",
        "ST_FREE": "KB wolne",
        "ST_I_KEYS": "Klawisze",
        "ST_I_LCD": "Ekran",
        "ST_I_DIG": "Cyfry",
        "ST_I_BEEP": "Brzęczyk",
        "ST_I_LEDS": "Diody",
        "ST_I_FLASH": "Pamięć",
        "ST_I_BAT": "Bateria",
        "ST_S_KEYS": "KLA",
        "ST_S_LCD": "LCD",
        "ST_S_DIG": "CYF",
        "ST_S_BEEP": "DZW",
        "ST_S_LEDS": "LED",
        "ST_S_FLASH": "PAM",
        "ST_S_BAT": "BAT",
    }),
)
LANGS = tuple([t[0] for t in _TABLES])
_TEXT = dict(_TABLES)

# Widest field (LCD columns) each word is drawn in.
LABEL = 16   # menu row 0 on a 16x2 display
VALUE = 12   # menu value between "< " and " >" on 16 columns
WIDTH = {"READY": 6, "READY_WHO": 15, "PAUSE": 6, "END": 6, "CHAL": 3, "PEN": 1,
         "LOST": 5, "LOST_L": 11, "LOST_R": 11,
         "FLAG": 5, "RESTORED": 16, "LOWBAT": 6, "LATE": 5, "ASK_END": 16,
         "ASK_NEW": 16,
         "TITLE_SETUP": 14, "TITLE_REF": 14, "HINT": 20, "SETRESET": 16,
         "STATELOST": 16, "LCDBACK": 16, "RES_OK": 16, "RES_PEN": 8, "RES_L": 1,
         "RES_R": 1, "RES_LOST_L": 16, "RES_LOST_R": 16, "RES_FLAG_L": 16,
         "RES_FLAG_R": 16, "T_HALL": 13,
         "T_VERSION": 7, "ST_KEYS": 16, "ST_ASK": 16, "ST_NEXT": 16, "ST_EXIT": 16,
         "ST_PASS": 6, "ST_FAIL": 6, "ST_FREE": 8,
         "ST_I_KEYS": 9, "ST_I_LCD": 9, "ST_I_DIG": 9, "ST_I_BEEP": 9,
         "ST_I_LEDS": 9, "ST_I_FLASH": 9, "ST_I_BAT": 9, "T_SELFTEST": 10,
         "ST_S_KEYS": 3, "ST_S_LCD": 3, "ST_S_DIG": 3, "ST_S_BEEP": 3,
         "ST_S_LEDS": 3, "ST_S_FLASH": 3, "ST_S_BAT": 3}


def width(key):
    """The field width (columns) the word `key` must fit."""
    w = WIDTH.get(key)
    if w is not None:
        return w
    if key[:2] == "T_":
        return LABEL
    return VALUE  # V_*, L_*, P_*


_cache = {}


def table(lang):
    """The words of `lang` as bytes (LCD codes), built once per language.
    An unknown language gives the English table."""
    t = _cache.get(lang)
    if t is None:
        src = _TEXT.get(lang) or _TEXT["en"]
        t = {}
        for k in src:
            t[k] = encode(src[k])
        _cache[lang] = t
    return t


def word(lang, key):
    """One word of `lang` as LCD codes (bytes)."""
    return table(lang)[key]


def text(lang, key):
    """One word of `lang` as the Unicode text it was written in."""
    src = _TEXT.get(lang) or _TEXT["en"]
    return src[key]


def keys(lang="en"):
    """Every key of a language's table."""
    return list(_TEXT[lang])


# Unicode letters the A00 ROM has outside ASCII.
_ROM = {"ä": 0xE1, "ö": 0xEF, "ü": 0xF5, "ß": 0xE2, "Ä": 0xE1, "Ö": 0xEF,
        "Ü": 0xF5}
# Readable fallbacks for letters it lacks.
_FALLBACK = {"ą": "a", "ć": "c", "ę": "e", "ł": "l", "ń": "n", "ó": "o",
             "ś": "s", "ź": "z", "ż": "z", "Ą": "A", "Ć": "C", "Ę": "E",
             "Ł": "L", "Ń": "N", "Ó": "O", "Ś": "S", "Ź": "Z", "Ż": "Z"}


def encode(text):
    """Unicode text -> bytes of HD44780 A00 codes (ROM letters or fallbacks)."""
    out = bytearray()
    for ch in text:
        if ch in _ROM:
            out.append(_ROM[ch])
        elif ch in _FALLBACK:
            out.extend(_FALLBACK[ch].encode())
        elif ord(ch) < 0x80:
            out.append(ord(ch))
        else:
            out.append(0x3F)  # '?'
    return bytes(out)
