# Screen words in English, German and Polish, as LCD character codes.
#
# The HD44780 A00 ROM has no Polish letters and only some German ones (ä ö ü ß
# at 0xE1 0xEF 0xF5 0xE2), so every word here is written with ROM characters
# only: German umlauts use those ROM codes, Polish words use the letters
# without diacritics (PAUZA, KONIEC), which Polish players read naturally on
# such displays.  The terms follow the regulations: Anfechtung (TSO § 3.1.4),
# Zeitüberschreitung (TSO § 5.2), pauza / sprawdzenie / przekroczenie czasu
# (PFS).  Each entry is at most the width noted beside it, so a 16x2 layout
# never truncates a word.
#
# Keys: READY PAUSE END CHAL(3) PEN(1) LOST(5) FLAG(5) RESTORED(6)
#       plus the menu and notice words used by menu.py and app.py.

LANGS = ("en", "de", "pl")

_TEXT = {
    "en": {
        "READY": "READY",      # center field, 6 columns
        "PAUSE": "PAUSE",
        "END": "END",
        "CHAL": "CHL",         # challenge window label, 3 columns
        "PEN": "P",            # penalty points prefix, 1 column
        "LOST": "LOST",        # forfeit, 5 columns
        "FLAG": "TIME",        # out of time (flag profiles), 5 columns
        "RESTORED": "RESTOR",  # game restored after power loss, 6 columns
        "LOWBAT": "BATT",
    },
    "de": {
        "READY": "BEREIT",
        "PAUSE": "PAUSE",
        "END": "ENDE",
        "CHAL": "ANF",         # Anfechtung
        "PEN": "S",            # Strafpunkte
        "LOST": "VERL.",       # verloren (TSO § 5.2 c)
        "FLAG": "ZEIT",
        "RESTORED": "WIEDER",
        "LOWBAT": "AKKU",
    },
    "pl": {
        "READY": "GOTOWY",
        "PAUSE": "PAUZA",
        "END": "KONIEC",
        "CHAL": "SPR",         # sprawdzenie
        "PEN": "K",            # kara
        "LOST": "PRZEG",       # przegrana
        "FLAG": "CZAS",        # koniec czasu
        "RESTORED": "PRZYWR",
        "LOWBAT": "BAT",
    },
}

_cache = {}


def table(lang):
    """The words of `lang` as bytes (LCD codes), built once per language."""
    t = _cache.get(lang)
    if t is None:
        src = _TEXT.get(lang) or _TEXT["en"]
        t = {}
        for k in src:
            t[k] = encode(src[k])
        _cache[lang] = t
    return t


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
