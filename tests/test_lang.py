"""Screen words (firmware/lang.py): complete in every language, fit their
LCD fields, and use only characters the HD44780 A00 ROM has."""
import pytest

import lang

# Codes the A00 ROM shows as the intended letter: printable ASCII without
# 0x7E/0x7F (arrows on A00; 0x5C is the yen sign, so no backslash either),
# plus ä ö ü ß.
ROM_SAFE = set(range(0x20, 0x7E)) - {0x5C} | {0xE1, 0xEF, 0xF5, 0xE2}

# Words that are legitimately the same in another language.
SAME_OK = {("de", "PAUSE"), ("de", "RES_L"), ("de", "RES_R"),  # links, rechts
           ("pl", "RES_L"),                                     # lewy
           # issue 37: the self-test's and the version item's words that
           # German and Polish share with English
           ("de", "T_VERSION"), ("de", "ST_I_LEDS"), ("de", "ST_S_LCD"),
           ("de", "ST_S_LEDS"), ("pl", "ST_S_LCD"), ("pl", "ST_S_LEDS"),
           ("pl", "ST_S_BAT")}


@pytest.mark.parametrize("lg", lang.LANGS)
def test_same_key_set_in_every_language(lg):
    assert set(lang.table(lg)) == set(lang.table("en"))
    assert set(lang.keys(lg)) == set(lang.table(lg))


@pytest.mark.parametrize("lg", [lg for lg in lang.LANGS if lg != "en"])
def test_no_english_left_in_translations(lg):
    leftover = [k for k in lang._TEXT[lg]
                if lang.text(lg, k) == lang.text("en", k) and (lg, k) not in SAME_OK]
    assert leftover == []


@pytest.mark.parametrize("lg", lang.LANGS)
def test_every_word_fits_its_field(lg):
    too_long = [(k, lang.text(lg, k)) for k, v in lang.table(lg).items()
                if len(v) > lang.width(k) or len(v) == 0]
    assert too_long == []


def test_menu_fields_fit_a_16_column_display():
    # Row 0 labels use the full 16 columns, values sit between "< " and " >".
    assert lang.LABEL == 16 and lang.VALUE == 12
    for lg in lang.LANGS:
        for k, v in lang.table(lg).items():
            if k.startswith("T_"):
                assert len(v) <= 16, (lg, k)
            if k.startswith(("V_", "L_", "P_")):
                assert len(v) <= 12, (lg, k)


@pytest.mark.parametrize("lg", lang.LANGS)
def test_encode_gives_only_rom_safe_codes(lg):
    for k, v in lang.table(lg).items():
        bad = [hex(b) for b in v if b not in ROM_SAFE]
        assert bad == [], (lg, k, lang.text(lg, k))


def test_german_umlauts_use_rom_codes_and_polish_falls_back():
    assert lang.encode("Zurück") == b"Zur\xf5ck"
    assert lang.encode("Verspätung") == b"Versp\xe1tung"
    assert lang.word("de", "V_OVERTIME") == b"Hochz\xe1hlen"
    assert lang.word("pl", "TITLE_REF") == b"Sedzia"          # sędzia
    assert lang.word("pl", "T_SOUND") == b"Dzwiek"            # dźwięk
    assert lang.word("pl", "V_FLAG") == b"Choragiewka"        # chorągiewka, PFS § 6.2.1
    assert lang.encode("\u20ac") == b"?"


def test_regulation_terms_are_used():
    """TSO and PFS words, so organizers and referees recognize the items."""
    de = {k: lang.text("de", k) for k in lang.keys("de")}
    pl = {k: lang.text("pl", k) for k in lang.keys("pl")}
    assert de["T_BASE"] == "Bedenkzeit"                    # TSO § 1.1 b
    assert de["T_PENALTY"].startswith("Strafpunkte")       # TSO § 5.2 b
    assert de["T_WINDOW"] == "Anfechtperiode"              # TSO § 1.4.2 a iv
    assert de["TITLE_REF"] == "Schiedsrichter"
    assert de["T_SOUND"] == "Ton"
    assert de["T_LATE_L"].startswith("Verspätung")         # TSO § 2.4
    assert "Reset" in de["T_RESET"]                        # TSO § 1.4.1 a
    assert pl["T_BASE"].startswith("Czas")                 # PFS § 1.2
    assert pl["T_PENALTY"].startswith("Kara")
    assert pl["T_WINDOW"] == "Czas sprawdzenia"            # PFS § 4.7
    assert pl["TITLE_REF"] == "Sędzia"
    assert pl["T_SOUND"] == "Dźwięk"
    assert pl["T_LATE_L"].startswith("Spóźnienie")         # PFS § 6.3
    assert pl["END"] == "KONIEC"


def test_view_keys_still_there():
    for lg in lang.LANGS:
        t = lang.table(lg)
        for k in ("READY", "PAUSE", "END", "CHAL", "PEN", "LOST", "FLAG",
                  "RESTORED", "LOWBAT"):
            assert isinstance(t[k], bytes)
    assert lang.table("xx") is not None and lang.table("xx")["READY"] == b"READY"


# -- one language table (issue 13: "add a language" = the table + the card) ------

def test_the_table_is_the_one_list():
    """settings, the menu, the simulator's --lang and the screens tool take
    their languages from lang.LANGS, in its order (the menu's cycle)."""
    import settings
    from host_sim import sim
    from tools import screens
    assert lang.LANGS == ("en", "de", "pl")
    assert settings.LANGS is lang.LANGS
    assert sim.LANGS is lang.LANGS and screens.LANGS is lang.LANGS
    assert set(lang._TEXT) == set(lang.LANGS)


def test_menu_cycles_the_table_and_shows_each_languages_own_name():
    """SPEC §4 Setup (language): the setup menu steps through every language
    of the table in its order and names each in its own language."""
    import menu
    import setupmenu
    import settings
    import view
    s = settings.Settings()
    m = setupmenu.SetupMenu(s)
    for _ in range(20):
        if view.to_text(m.render([bytearray(16), bytearray(16)])[0]).strip() == \
                lang.text("en", "T_LANG"):
            break
        m.handle(menu.A_NEXT)
    seen = []
    for _ in range(len(lang.LANGS)):
        rows = m.render([bytearray(b" " * 16), bytearray(b" " * 16)])
        seen.append((s.lang, view.to_text(rows[1]).strip("<> ")))
        m.handle(menu.A_RIGHT)
    assert seen == [(c, lang.text(c, "LANG")) for c in lang.LANGS]
    assert s.lang == lang.LANGS[0]          # round the cycle


def test_a_language_the_table_lacks_is_a_settings_reset():
    """settings.py: a value out of range gives all defaults and the notice."""
    import settings

    class Fs:
        def __init__(self, text):
            self.text = text

        def open(self, path, mode="r"):
            import io
            if path.endswith(".tmp") or self.text is None:
                raise OSError(2)
            return io.StringIO(self.text)

    good = settings.Settings.load("s.json", Fs('{"v": 1, "lang": "%s"}' % lang.LANGS[-1]))
    assert good.lang == lang.LANGS[-1] and not good.notice
    bad = settings.Settings.load("s.json", Fs('{"v": 1, "lang": "xx"}'))
    assert bad.lang == "en" and bad.notice


@pytest.mark.parametrize("lg", lang.LANGS)
def test_every_language_has_its_card(lg):
    import os
    from conftest import ROOT
    assert os.path.isfile(os.path.join(ROOT, "docs", "quickref.%s.md" % lg))
