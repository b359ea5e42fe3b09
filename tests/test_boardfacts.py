"""Every platform fact is in the board file (issue 28): a board file lacking
a name it must have stops the clock with one line naming it, before any pin
is touched; one lacking a platform fact gets the default firmware/
boardfacts.py documents (boards/README.md), the same for every reader (the
keys, the battery, the watchdog, the journal's raw flash, the TLS thread).
Nothing in firmware/ learns a platform fact any other way."""
import os
import re
import subprocess
import sys
import types

import pytest

import boardfacts
import hw
import machine
import net
from conftest import ROOT, venv_tool
from host_sim import boards as boardfiles

FIRMWARE = os.path.join(ROOT, "firmware")


def board_without(*missing, base="pico"):
    """boards/<base>.py as a module, less the names `missing`."""
    b = types.SimpleNamespace(**{k: v for k, v in vars(boardfiles.load(base)).items()
                                 if not k.startswith("_") and k not in missing})
    return b


def test_a_complete_board_passes():
    for name in boardfiles.names():
        assert boardfacts.check(boardfiles.load(name)) is None, name


@pytest.mark.parametrize("name", boardfacts.REQUIRED)
def test_a_missing_required_name_is_one_line_naming_it(name):
    why = boardfacts.check(board_without(name))
    assert why is not None and "\n" not in why
    assert why.startswith("board.py: %s is missing" % name), why


@pytest.mark.parametrize("name,bad", [("WDT_MS", -1), ("WDT_MS", "8000"),
                                      ("TLS_THREAD_STACK", None)])
def test_a_bad_number_is_one_line(name, bad):
    b = board_without()
    setattr(b, name, bad)
    why = boardfacts.check(b)
    assert why == "board.py: %s must be a whole number >= 0, not %r" % (name, bad)


def test_main_stops_with_the_one_line_under_micropython(tmp_path):
    """firmware/main.py as the board runs it, in the real MicroPython, with a
    board.py that lacks BTN_PAUSE: exactly the one line, no traceback, and
    nothing after it (the app is never imported)."""
    exe = venv_tool("micropython")
    assert exe, "micropython not installed: run `make venv`"
    src = boardfiles.source("pico")
    src = re.sub(r"(?m)^BTN_PAUSE = .*$", "", src)
    (tmp_path / "board.py").write_text(src)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(tmp_path), FIRMWARE]))
    proc = subprocess.run([exe, os.path.join(FIRMWARE, "main.py")], cwd=str(tmp_path),
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout == ("board.py: BTN_PAUSE is missing (boards/README.md lists "
                           "every name); the clock cannot start\n"), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


# -- the defaults -------------------------------------------------------------

def test_without_hard_irq_the_keys_use_soft_interrupts():
    machine.reset_world()
    b = board_without("HARD_IRQ")
    hw.buttons(b, machine, lambda: 0, lambda a, b: a - b)
    assert boardfacts.DEFAULTS["HARD_IRQ"] is False
    assert all(machine.pin(n).hard is False for n in (b.BTN_LEFT, b.BTN_RIGHT, b.BTN_PAUSE))


def test_without_adc_attn_the_battery_pin_is_not_attenuated():
    machine.reset_world()
    bat = hw.battery(board_without("ADC_ATTN", base="esp32"), machine,
                     lambda a, b: a - b, lambda a, b: a + b)
    assert bat.adc is not None and bat.adc.attenuation is None


class _WDT:
    made = []

    def __init__(self, timeout):
        self.timeout = timeout
        _WDT.made.append(self)

    def feed(self):
        pass


def test_the_watchdog_takes_the_boards_timeout_or_the_default():
    m = types.SimpleNamespace(WDT=_WDT)
    _WDT.made.clear()
    b = board_without()
    b.WDT_MS = 5000
    assert hw.watchdog(b, m) is not None and _WDT.made[-1].timeout == 5000
    assert hw.watchdog(board_without("WDT_MS"), m) is not None
    assert _WDT.made[-1].timeout == boardfacts.DEFAULTS["WDT_MS"] == 8000
    b.WDT_MS = 0                                 # no watchdog wanted
    assert hw.watchdog(b, m) is None and len(_WDT.made) == 2
    assert hw.watchdog(board_without(), types.SimpleNamespace()) is None  # a port without


class _Flash:
    pass


def test_the_raw_flash_is_the_one_the_board_names(monkeypatch):
    """rp2.Flash() only where the board says "rp2", the ESP32 partition with
    the board's label only where it says "esp32:<label>"; a board naming
    none (the default), or a port lacking the module, has no journal."""
    rp2 = types.SimpleNamespace(Flash=_Flash)
    parts = {"vfs": ["the vfs partition"]}
    esp32 = types.SimpleNamespace(Partition=types.SimpleNamespace(
        TYPE_DATA=1, find=lambda t, label: parts.get(label, [])))
    b = board_without("RAW_FLASH")
    assert hw.raw_flash(b) is None                    # (the default: None)
    b.RAW_FLASH = "rp2"
    assert hw.raw_flash(b) is None                    # CPython: no rp2 module
    monkeypatch.setitem(sys.modules, "rp2", rp2)
    monkeypatch.setitem(sys.modules, "esp32", esp32)
    assert isinstance(hw.raw_flash(b), _Flash)
    assert hw.raw_flash(board_without("RAW_FLASH")) is None   # present, not named
    b.RAW_FLASH = "esp32:vfs"
    assert hw.raw_flash(b) == "the vfs partition"
    b.RAW_FLASH = "esp32:nvs"
    assert hw.raw_flash(b) is None
    assert hw.filesystem(board_without("RAW_FLASH")).raw() is None


def test_the_tls_thread_stack_reaches_the_handshake(tmp_path, monkeypatch):
    """The board's TLS_THREAD_STACK is the handshake thread's stack (0: the
    handshake in the loop's steps); without it, the default."""
    class Src:
        def table(self):
            return 0

        def mark(self, h):
            pass

        def tabled(self, t):
            pass

    import fsys
    cfg = {"host": "127.0.0.1", "port": 1, "event": "e", "table": 1, "password": "p",
           "ca": None}

    class Ctx:
        pass

    def made(**kw):
        n = net.Net(cfg, Src(), fsys.OsFS(), str(tmp_path) + "/", lambda: 0,
                    lambda a, b: a - b, lambda a, b: a + b, "c", **kw)
        n.wire.close()
        return n
    # (a context is needed for a handshake at all: "ca" None is in clear)
    assert made().wire.hs is None
    cfg["ca"] = "x"
    monkeypatch.setattr(net.netcfg, "tls_context", lambda pem: Ctx())
    assert made(stack=0).wire.hs.stack == 0
    assert made(stack=12288).wire.hs.stack == 12288
    assert made().wire.hs.stack == boardfacts.DEFAULTS["TLS_THREAD_STACK"]


def test_no_firmware_file_probes_the_platform():
    """The platform is the board file's to say: no firmware module imports
    rp2 or esp32 but hw.py (where the board's RAW_FLASH names it), and none
    looks at sys.platform or machine.freq."""
    for f in sorted(os.listdir(FIRMWARE)):
        if not f.endswith(".py"):
            continue
        with open(os.path.join(FIRMWARE, f), encoding="utf-8") as fh:
            code = [line.split("#")[0] for line in fh]
        text = "\n".join(code)
        assert "sys.platform" not in text and "machine.freq" not in text, f
        if f != "hw.py":
            assert not re.search(r"import\s+(rp2|esp32)\b", text), f
