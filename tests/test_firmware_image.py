"""One firmware file per clock (issue 30): `make firmware` builds MicroPython
v1.28.0 with the app and the board frozen in (tools/fwimage.py), and the
emulated Pico (host_sim/target.py, rp2040js) runs the very file an
organizer copies onto a Pico in BOOTSEL mode:

* a second build of unchanged sources is the first one's image (the cache's
  key, no make run);
* a blank Pico boots the image to READY, with no other step;
* a board.py on the filesystem overrides the frozen one;
* an upgrade (a new image copied over a used clock) keeps the settings, the
  results and the game logs;
* the hall's per-table image carries its table's net.json (0600) in the
  table block, the clock takes it, and the folder gets its manifest and
  label sheet;
* every image for the chip keeps its filesystem in the same place, and a
  table's image changes only that table's account and table: one chip is
  given pico.uf2, a table's image, pico_w.uf2, another table's image and
  pico.uf2 again, the way the boot ROM writes a UF2, and keeps its
  settings, both game logs and the unsent result throughout (issue 37);
* BOARD=esp32 without ESP-IDF is one line.

The images are built once per session, in a thread of the session's
`background` from its start (tests/conftest.py), and cached outside the
repository by the hash of what goes in, so a later session (a fresh CI
clone on the same machine) copies them without building.
Under CI=true a missing toolchain, image or emulator fails the run.
"""
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

import fwimage
import provision
from bench.target_bench import both_keys, long_pause  # the end: long pause, both keys
from conftest import ROOT, need
from host_sim import target

LEFT, RIGHT, PAUSE = 14, 15, 13      # boards/pico.py
SDEV_1MIN = (b'{"v": 1, "profile": "sdev", "base_left": 60000, "base_right": 60000, '
             b'"lang": "en", "sound": true}')
REGION = target.IMAGE_LFS_BLOCKS * target.LFS_BLOCK    # every image's littlefs region
UPGRADE_COMMIT = "upgrade"           # the commit stamped into the "new" image


def images_missing():
    """One line if the images cannot be built here, else None."""
    for tool in ("cmake", "arm-none-eabi-gcc", "make"):
        if shutil.which(tool) is None:
            return "firmware image: %s not installed (make deps)" % tool
    try:
        fwimage.find_sources()
    except fwimage.FirmwareError as e:
        return "firmware image: %s" % e
    return None


def build_images(out):
    """The images the tests boot, into `out`: the pico image, the pico_w app
    on an RPI_PICO (the emulated Pico has no CYW43), and the pico image with
    another commit (the upgrade)."""
    return {"pico": fwimage.build("pico", out=os.path.join(out, "pico.uf2")),
            "pico_w": fwimage.build("pico_w", "RPI_PICO", out=os.path.join(out, "pico_w.uf2")),
            "upgrade": fwimage.build("pico", out=os.path.join(out, "upgrade.uf2"),
                                     commit=UPGRADE_COMMIT)}


def start_images(request, background, tmp_path_factory):
    """Start building the images in the session's background (when a test
    of this module is selected); the job, or None."""
    if not any(item.module.__name__ == __name__ and "images" in item.fixturenames
               for item in request.session.items):
        return None
    if "firmware images" not in background.jobs:
        if images_missing():
            return None
        background.start("firmware images", build_images,
                         str(tmp_path_factory.mktemp("firmware")))
    return background.jobs["firmware images"]


@pytest.fixture(scope="module")
def images(request, background, tmp_path_factory):
    need(images_missing())
    start_images(request, background, tmp_path_factory)
    return background.result("firmware images")


@pytest.fixture
def pico_ok():
    need(target.pico_missing())


def fs_files(flash):
    """{path: bytes} of the filesystem on an emulated Pico's flash file."""
    with open(flash, "rb") as f:
        return fwimage.littlefs_files(f.read(), REGION)


def region_image(tmp_path, files):
    p = tmp_path / "fs.img"
    p.write_bytes(fwimage.littlefs_region(files, REGION))
    return str(p)


# -- the build ----------------------------------------------------------------------

def test_a_second_build_of_unchanged_sources_reuses_the_first(images, tmp_path):
    """Issue 30: "a second build with unchanged sources reuses the first
    one's work": the same key, the cached image, no make run."""
    first = images["pico"]
    runs = fwimage.make_runs(first["tree"])
    again = fwimage.build("pico", out=str(tmp_path / "again.uf2"))
    assert again["reused"] is True
    assert again["key"] == first["key"]
    assert fwimage.make_runs(first["tree"]) == runs      # make never ran
    with open(first["path"], "rb") as a, open(again["path"], "rb") as b:
        assert a.read() == b.read()
    with open(again["path"] + ".json") as f:
        assert json.load(f)["reused"] is True


def test_the_key_covers_every_input():
    """Anything that changes the image changes the key: a frozen file, the
    board file, the sources, the MicroPython board, an option."""
    files = fwimage.app_files("pico", "abc1234")
    key = fwimage.image_key("s" * 64, "rp2", "RPI_PICO", [], [], files)
    assert key == fwimage.image_key("s" * 64, "rp2", "RPI_PICO", [], [], dict(files))
    changed = dict(files, **{"clockcore.py": files["clockcore.py"] + b"\n"})
    others = [fwimage.image_key("s" * 64, "rp2", "RPI_PICO", [], [], changed),
              fwimage.image_key("s" * 64, "rp2", "RPI_PICO", [], [],
                                fwimage.app_files("pico_2004", "abc1234")),
              fwimage.image_key("s" * 64, "rp2", "RPI_PICO", [], [],
                                fwimage.app_files("pico", "abc1235")),
              fwimage.image_key("t" * 64, "rp2", "RPI_PICO", [], [], files),
              fwimage.image_key("s" * 64, "rp2", "RPI_PICO_W", [], [], files),
              fwimage.image_key("s" * 64, "rp2", "RPI_PICO", [("MICROPY_PY_SSL", "1")], [],
                                files)]
    assert len({key, *others}) == 1 + len(others)


def test_the_image_holds_the_app_the_board_and_its_commit(images):
    """The frozen modules are the board's package (no network code on a
    pico) and the display families its DISPLAY names (the LCD's only: no
    TM1637 driver in a pico image, issue 28), board.py and buildinfo.py
    with the commit, which the image's flash bytes carry."""
    pico, w = images["pico"], images["pico_w"]
    from host_sim import CORE, NET, board_files, firmware_files
    made = ["board.py", "buildinfo.py", "_boot.py"]      # (_boot.py: provision.boot())
    assert sorted(pico["frozen"]) == sorted(firmware_files(package=CORE) + ["hd44780.py"]
                                            + made)
    assert sorted(pico["frozen"]) == sorted(board_files("pico") + made)
    assert "tm1637.py" not in pico["frozen"]
    assert sorted(w["frozen"]) == sorted(board_files("pico_w") + made)
    flash = b"".join(p for _a, p in fwimage.uf2_blocks(images["upgrade"]["path"]))
    assert UPGRADE_COMMIT.encode() in flash
    # a firmware-only image writes nothing into the table block or the
    # filesystem region (the same for every image: firmware/provision.py)
    for img in (pico, w, images["upgrade"]):
        top = max(a + len(p) for a, p in fwimage.uf2_blocks(img["path"]))
        assert top <= fwimage.XIP_BASE + provision.BLOCK_OFFSET
    assert fwimage.XIP_BASE + fwimage.FLASH_BYTES - REGION == 0x1012C000


# -- on the emulated Pico -----------------------------------------------------------

def test_a_blank_pico_boots_the_image_to_ready(images, pico_ok, tmp_path):
    """Issue 30 "A fresh Pico, one file": the image copied onto a blank Pico
    boots to READY, the splash naming the app's commit; the app is in the
    image, so the filesystem holds none of its modules."""
    flash = str(tmp_path / "flash.bin")
    pico = target.Pico(flash, uf2=images["pico"]["path"]).start()
    try:
        pico.run_to(600)
        splash = pico.lcd.text_rows()
        pico.run_to(2400)
        # READY and who presses to start (issue 37, lang READY_WHO)
        assert pico.lcd.text_rows() == ["  30:00   30:00 ", "READY 2nd press "]
    finally:
        pico.stop()
    assert splash[0].strip() == "Scrabble clock"
    assert splash[1].split() == [images["pico"]["commit"], "sdev"], splash
    left = [n for n in fs_files(flash) if n.endswith((".py", ".mpy"))]
    assert left == [], left


def test_a_board_py_on_the_filesystem_overrides_the_frozen_one(images, pico_ok, tmp_path):
    """boards/README.md: an organizer who wired differently edits board.py
    in Thonny.  The pico image with pico_2004's board.py on its filesystem
    drives a 20x4 LCD."""
    from host_sim import boards
    img = region_image(tmp_path, {"board.py": boards.source("pico_2004").encode()})
    pico = target.Pico(str(tmp_path / "flash.bin"), fs_image=img, cols=20, rows=4,
                       uf2=images["pico"]["path"]).start()
    try:
        pico.run_to(2400)
        rows = pico.lcd.text_rows()
    finally:
        pico.stop()
    assert len(rows) == 4 and "READY" in "".join(rows) and "30:00" in "".join(rows), rows


def test_an_upgrade_keeps_settings_results_and_game_logs(images, pico_ok, tmp_path):
    """Issue 30: "a firmware-only image never touches the filesystem, so an
    upgrade keeps the settings, the results and the game logs".  A clock
    with its settings plays a game to its end; a new image (another commit)
    is copied over it in BOOTSEL mode; the clock boots the new firmware,
    restores the ended game as it was, and the settings and the game's log
    are there, byte for byte."""
    flash = str(tmp_path / "flash.bin")
    img = region_image(tmp_path, {"settings.json": SDEV_1MIN})
    pico = target.Pico(flash, fs_image=img, uf2=images["pico"]["path"]).start()
    try:
        pico.run_to(2400)
        # READY and who presses to start (issue 37, lang READY_WHO)
        assert pico.lcd.text_rows() == ["  01:00   01:00 ", "READY 2nd press "]
        pico.press(LEFT, 2500)
        pico.press(RIGHT, 5000)
        pico.press(LEFT, 7000)
        pico.press(PAUSE, 9000)
        long_pause(pico, 9600)
        both_keys(pico, 12200)
        pico.run_to(16000)
        ended = pico.lcd.text_rows()
    finally:
        pico.stop()
    before = fs_files(flash)
    log = before.get("games/g0001.txt", b"")
    assert b"\n5000 right" in log or b" right  #" in log, log
    assert b" end  #" in log, log
    assert ("# firmware 1.0.0 %s\n" % images["pico"]["commit"]).encode() in log, log
    # (the results menu reads the results back from the game logs)
    kept = {n: d for n, d in before.items() if n == "settings.json" or n.startswith("games/")}
    assert "settings.json" in kept and "games/g0001.txt" in kept, sorted(before)

    pico = target.Pico(flash, uf2=images["upgrade"]["path"], reflash=True).start()
    try:
        pico.run_to(600)
        splash = pico.lcd.text_rows()
        pico.run_to(2400)
        ready = pico.lcd.text_rows()
    finally:
        pico.stop()
    assert splash[1].split() == [UPGRADE_COMMIT, "sdev"], splash   # the new firmware runs
    # the ended game comes back as it was (its state survived too)
    assert ready[0] == ended[0] and ready[1].strip() == "GAME RESTORED", (ended, ready)
    after = fs_files(flash)
    for name, data in sorted(kept.items()):
        # (a restored game's log may gain its restore line: gamelog.restored)
        assert after.get(name, b"")[:len(data)] == data, (name, data, after.get(name))
    with open(flash, "rb") as f:
        mem = f.read()
    for addr, payload in fwimage.uf2_blocks(images["upgrade"]["path"]):
        off = addr - fwimage.XIP_BASE
        assert mem[off:off + len(payload)] == payload


def ready_with_hall_mark(uf2, flash):
    """Boot `uf2` on a blank flash to READY: whether the READY row shows
    the hall mark (glyph 4-6: view.G_HALL + net.HALL_*, net.py running)."""
    pico = target.Pico(flash, uf2=uf2).start()
    try:
        pico.run_to(2400)
        rows = pico.lcd.text_rows()
        codes = pico.lcd.row_codes(1)
    finally:
        pico.stop()
    assert "READY" in rows[1], rows
    return any(4 <= c <= 6 for c in codes)


def test_the_per_table_image_carries_its_net_json(images, pico_ok, tmp_path):
    """Issue 30 `make firmware-tables`: one image per table with that table's
    net.json (its hall account); files 0600 in a 0700 folder.  Issue 37:
    the account rides in the table block below the filesystem (no block of
    the filesystem region), the folder gets manifest.csv (table, file,
    SHA-256, commit, event, broker) and labels.pdf (one label per table).
    On a blank Pico the table's image boots to READY and the clock takes
    its net.json: the hall mark shows (net.py started)."""
    from hall.folder import Hall
    out = tmp_path / "tables"
    written = fwimage.tables("pico_w", [3, 12], "192.168.1.10", event="open",
                             hall_dir=str(tmp_path / "hall"), port_board_override="RPI_PICO",
                             out_dir=str(out), say_=lambda s: None)
    assert [os.path.basename(p) for p in written] == ["table-03.uf2", "table-12.uf2"]
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o700
    for p in written:
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    hall = Hall(str(tmp_path / "hall"), "open", tables=100)
    password = hall.passwords()[12]
    fs_base = fwimage.XIP_BASE + provision.FS_OFFSET
    blocks = fwimage.uf2_blocks(written[1])
    assert not [a for a, _p in blocks if a >= fs_base]          # no filesystem block
    table_block = b"".join(p for a, p in blocks if a >= fwimage.XIP_BASE + provision.BLOCK_OFFSET)
    payload, _digest = provision.payload_of(table_block[:provision.HEAD],
                                            lambda at, n: table_block[at:at + n])
    cfg = json.loads(payload)
    assert (cfg["table"], cfg["user"], cfg["password"], cfg["host"]) == \
        (12, "12", password, "192.168.1.10")
    rows = manifest_rows(out)
    assert [(r["table"], r["file"], r["event"], r["broker"], r["commit"]) for r in rows] == \
        [("3", "table-03.uf2", "open", "192.168.1.10", images["pico_w"]["commit"]),
         ("12", "table-12.uf2", "open", "192.168.1.10", images["pico_w"]["commit"])]
    for r, p in zip(rows, written):
        assert r["sha256"] == fwimage.file_sha(p)
    assert password not in (out / fwimage.MANIFEST).read_text()
    if shutil.which("pdftotext") and shutil.which("chromium"):    # (tests/test_cards.py's)
        text = subprocess.run(["pdftotext", "-layout", str(out / fwimage.LABELS), "-"],
                              capture_output=True, text=True, timeout=60).stdout
        assert "Table 3" in text and "Table 12" in text and "table-12.uf2" in text, text

    flash = str(tmp_path / "flash.bin")
    assert ready_with_hall_mark(written[1], flash) is True
    files = fs_files(flash)
    assert json.loads(files["net.json"]) == cfg
    assert json.loads(files["settings.json"])["table"] == 12


def manifest_rows(folder):
    import csv
    with open(os.path.join(str(folder), fwimage.MANIFEST), newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and list(rows[0]) == list(fwimage.MANIFEST_FIELDS), rows
    return rows


def play_a_game(pico, t0):
    """A one-minute game from READY to its end (two moves, the pause key,
    the long pause and both keys): the clock's log and, on a clock in a
    hall, its result."""
    pico.press(LEFT, t0 + 100)
    pico.press(RIGHT, t0 + 2600)
    pico.press(LEFT, t0 + 4600)
    pico.press(PAUSE, t0 + 6600)
    long_pause(pico, t0 + 7200)
    both_keys(pico, t0 + 9800)
    pico.run_to(t0 + 13600)
    return pico.lcd.text_rows()


def test_one_chip_given_every_image_in_turn_keeps_all_it_holds(images, pico_ok, tmp_path):
    """Issue 37 "an image never destroys what another of the project's
    images left on the same chip".  One emulated Pico's flash, each image
    copied onto it the way the boot ROM writes a UF2 (each 4 KB sector a
    block lands in erased, then programmed; the others keep their data):

    1. pico.uf2 on a chip with settings: a game played to its end;
    2. table-12.uf2: the clock takes table 12's net.json and table, keeps
       the settings and the first game; a second game ends with its result
       unsent (no hall: net.out);
    3. pico_w.uf2 (the plain image, an upgrade): nothing changes;
    4. table-03.uf2: table 3's account and table, nothing else changes;
    5. pico.uf2 again (the Pico W as a plain clock): nothing changes.

    Each boot finds the settings, both game logs and the unsent result as
    they were (a restored game's log may gain its restore line).  Before,
    step 2 left only net.json, and 3 and 5 reformatted another region."""
    out = tmp_path / "tables"
    t12, t3 = [os.path.join(str(out), "table-%02d.uf2" % t) for t in (12, 3)]
    fwimage.tables("pico_w", [12, 3], "192.168.1.10", event="open",
                   hall_dir=str(tmp_path / "hall"), port_board_override="RPI_PICO",
                   out_dir=str(out), say_=lambda s: None, labels=False)
    flash = str(tmp_path / "flash.bin")
    img = region_image(tmp_path, {"settings.json": SDEV_1MIN})
    kept = {}

    def boot(uf2, first=False, **kw):
        pico = target.Pico(flash, uf2=uf2, reflash=not first, **kw).start()
        pico.run_to(2400)
        return pico

    def ours(name):
        """What the organizer and the players would miss: the settings, the
        account, the game logs (the results menu's source) and the unsent
        result (the state store and the journal change at every boot)."""
        return name in ("settings.json", "net.json", "net.out") or name.startswith("games/")

    def unchanged(files, but=()):
        for name, data in sorted(kept.items()):
            if name in but:
                continue
            assert files.get(name, b"")[:len(data)] == data, (name, data, files.get(name))

    pico = boot(images["pico"]["path"], first=True, fs_image=img)          # 1
    try:
        play_a_game(pico, 2400)
    finally:
        pico.stop()
    kept = {n: d for n, d in fs_files(flash).items() if ours(n)}
    assert "games/g0001.txt" in kept and "settings.json" in kept, sorted(kept)

    pico = boot(t12)                                                        # 2
    try:
        rows = pico.lcd.text_rows()
        assert "GAME RESTORED" in rows[1], rows    # game 1, as it ended (the hall mark beside)
        long_pause(pico, 2500)                  # a new game from the final screen
        both_keys(pico, 5100)
        pico.run_to(6900)
        assert "READY" in pico.lcd.text_rows()[1], pico.lcd.text_rows()
        play_a_game(pico, 7000)
    finally:
        pico.stop()
    files = fs_files(flash)
    unchanged(files, but=("settings.json",))
    assert json.loads(files["net.json"])["table"] == 12
    s = json.loads(files["settings.json"])
    assert s["table"] == 12 and s["base_left"] == 60000 and s["profile"] == "sdev", s
    assert b" end  #" in files.get("games/g0002.txt", b""), sorted(files)
    assert files.get("net.out", b"").startswith(b"R "), files.get("net.out")  # unsent
    kept = {n: d for n, d in files.items() if ours(n)}

    pico = boot(images["pico_w"]["path"])                                   # 3
    pico.stop()
    files = fs_files(flash)
    unchanged(files)

    pico = boot(t3)                                                         # 4
    pico.stop()
    files = fs_files(flash)
    unchanged(files, but=("settings.json", "net.json"))
    assert json.loads(files["net.json"])["table"] == 3
    assert json.loads(files["settings.json"])["table"] == 3
    kept = {n: d for n, d in files.items() if ours(n)}

    pico = boot(images["pico"]["path"])                                     # 5
    pico.stop()
    unchanged(fs_files(flash))


def test_the_older_layouts_files_are_moved_not_formatted_over(images, pico_ok, tmp_path):
    """A clock whose files an image of the older layout left (the Pico's
    filesystem at 0x100a0000, 1408 KB: pico.uf2 before issue 37, and the
    official RPI_PICO MicroPython after `make deploy`).  The new region is
    that one's last 848 KB, where the port's _boot.py would have formatted;
    the image's boot (provision.boot) moves the files there instead: the
    settings (the clock starts at 01:00), the game log and the unsent
    result byte for byte, board.py too; not the journal or the app's .mpy
    files (they would shadow the frozen app)."""
    from host_sim import boards
    old = {"settings.json": SDEV_1MIN, "games/g0001.txt": b"# scrabble clock\n0 start\n",
           "net.out": b"R scrabble/open/12/result {}\n", "journal.bin": b"\xff" * 8192,
           "clockcore.mpy": b"M\x06", "board.py": boards.source("pico").encode()}
    legacy = tmp_path / "old.img"             # the harness puts it at the flash's end
    legacy.write_bytes(fwimage.littlefs_region(old, target.LFS_BLOCKS * target.LFS_BLOCK,
                                               dirs=("games",)))
    flash = str(tmp_path / "flash.bin")
    pico = target.Pico(flash, fs_image=str(legacy), uf2=images["pico"]["path"]).start()
    try:
        pico.run_to(2400)
        rows = pico.lcd.text_rows()
    finally:
        pico.stop()
    # READY and who presses to start (issue 37, lang READY_WHO)
    assert rows == ["  01:00   01:00 ", "READY 2nd press "], rows
    files = fs_files(flash)
    for name in ("settings.json", "games/g0001.txt", "net.out", "board.py"):
        assert files.get(name) == old[name], (name, sorted(files))
    assert "clockcore.mpy" not in files
    assert files.get("journal.bin") != old["journal.bin"]      # (the clock's own, new)


def test_moving_keeps_the_newest_logs_within_its_budget():
    """Past MOVE_MOST (only a flash holding more than the clock's own files)
    the oldest game logs stay behind, and boot() says how many."""
    big = b"x" * (provision.MOVE_MOST // 3)
    files = [("settings.json", b"{}"), ("games", None)] + [
        ("games/g%04d.txt" % n, big) for n in range(1, 6)]
    kept, left = provision.within(files)
    assert left == 3 and [p for p, _d in kept] == ["settings.json", "games", "games/g0005.txt",
                                                  "games/g0004.txt"]
    assert provision.within(files[:3]) == (files[:3], 0)
    assert not provision.moved("journal.bin") and not provision.moved("app.mpy")
    assert not provision.moved("main.py") and provision.moved("board.py")


def test_a_pico_w_image_without_net_json_shows_no_hall_mark(images, pico_ok, tmp_path):
    """The counterpart of the per-table image: the same firmware with no
    net.json stays off the network (no mark)."""
    assert ready_with_hall_mark(images["pico_w"]["path"], str(tmp_path / "flash.bin")) is False


# -- ESP32 ----------------------------------------------------------------------------

def test_esp32_without_esp_idf_is_one_line(tmp_path):
    """`make firmware BOARD=esp32` where ESP-IDF is absent: one line naming
    it, a non-zero exit, nothing built."""
    env = {k: v for k, v in os.environ.items() if k != "IDF_PATH"}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not os.path.exists(os.path.join(p, "idf.py")))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "fwimage.py"), "build",
                           "--board", "esp32", "--out", str(tmp_path / "esp32.bin")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == fwimage.EXIT_MISSING
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "ESP-IDF" in lines[0], proc.stderr
    assert not os.path.exists(tmp_path / "esp32.bin")


def test_make_firmware_calls_the_tool():
    """The Makefile's targets run tools/fwimage.py with the board."""
    out = subprocess.run(["make", "-n", "-o", ".venv/.installed", "firmware", "BOARD=pico_2004",
                          "MICROPY_SRC=/x/mp.tar.xz"], capture_output=True, text=True,
                         cwd=ROOT, timeout=60).stdout
    assert "tools/fwimage.py build --board pico_2004" in out and "--src \"/x/mp.tar.xz\"" in out
    out = subprocess.run(["make", "-n", "-o", ".venv/.installed", "firmware-tables",
                          "BOARD=pico_w", "TABLES=1-40", "BROKER=10.0.0.2", "SSID=Hall"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60).stdout
    assert "tools/fwimage.py tables --board pico_w --tables \"1-40\"" in out, out
    assert "--broker \"10.0.0.2\"" in out and "--ssid \"Hall\"" in out
