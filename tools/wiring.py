#!/usr/bin/env python3
"""Wiring diagrams and wiring tables, generated from the board files.

    python tools/wiring.py pico            # writes docs/wiring/pico.svg
    python tools/wiring.py --all           # every board with a known header,
                                           # and the tables in docs/build.md
    python tools/wiring.py --table pico    # print the Markdown wiring table

The pictures and the tables in docs/build.md are made from boards/<BOARD>.py,
so they cannot disagree with what the firmware drives (`make wiring`
regenerates them; tests/test_boards.py checks they are up to date).  The
output is deterministic: no dates, fixed number formatting.
"""
import argparse
import os
import re
import sys

import repo_root  # noqa: F401  (this checkout's host_sim)
from host_sim import ROOT
from host_sim import boards as boardfiles  # the one board loader

BOARDS = boardfiles.BOARDS_DIR
WIRING_DIR = os.path.join(ROOT, "docs", "wiring")
BUILD_MD = os.path.join(ROOT, "docs", "build.md")
README_MD = os.path.join(ROOT, "README.md")
README_BOARDS = ("pico",)  # the README shows the reference board's table


# -- the boards' headers -----------------------------------------------------

class Header:
    """Where a GPIO is on a board's pin header, and what power pins it has."""

    def __init__(self, short, gpio_pos, gnd, supply, supply_note, adc_name,
                 pin_name, orient, supply_3v3=None):
        self.short = short  # board name in the picture
        self.supply_3v3 = supply_3v3  # label of the 3.3 V pin (3.3 V logic parts)
        self.gpio_pos = gpio_pos  # gpio -> (side, position, position label)
        self.gnd = gnd  # [(side, position, label)]
        self.supply = supply  # label of the 5 V pin for the LCD
        self.supply_note = supply_note
        self.adc_name = adc_name  # gpio -> "ADC2" etc.
        self.pin_name = pin_name  # gpio -> "GP14" / "IO25"
        self.orient = orient  # how to hold the board to count pins

    def has(self, gpio):
        return gpio in self.gpio_pos

    def label(self, gpio, adc=False):
        if gpio not in self.gpio_pos:
            raise ValueError("GPIO %r is not on the %s header" % (gpio, self.short))
        name = self.pin_name(gpio)
        if adc:
            name += "/" + self.adc_name[gpio]
        return "%s (%s)" % (name, self.gpio_pos[gpio][2])

    def nearest_gnd(self, gpio):
        side, pos, _ = self.gpio_pos[gpio]
        same = [g for g in self.gnd if g[0] == side] or self.gnd
        return min(same, key=lambda g: (abs(g[1] - pos), g[1]))[2]


def _pico():
    # Raspberry Pi Pico / Pico W pinout (Pico datasheet, "Pinout"): pins 1-20
    # down the left edge, 21-40 up the right edge, USB at the top, seen from
    # above.  GPIO23-25 and 29 are not on the header (used on the board).
    phys = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12,
            10: 14, 11: 15, 12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22,
            18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
    pos = {g: (0 if p <= 20 else 1, p, "pin %d" % p) for g, p in phys.items()}
    gnd = [(0 if p <= 20 else 1, p, ("AGND" if p == 33 else "GND") + " (pin %d)" % p)
           for p in (3, 8, 13, 18, 23, 28, 33, 38)]
    return Header(
        "Raspberry Pi Pico / Pico W", pos, gnd, "VSYS (pin 39)",
        "VSYS: USB 5 V less a diode drop, or the battery",
        {26: "ADC0", 27: "ADC1", 28: "ADC2"}, lambda g: "GP%d" % g,
        "pin 1 top left with the USB socket up, seen from above; "
        "pins 1-20 down the left edge, 21-40 up the right edge",
        "3V3(OUT) (pin 36)")


def _devkitc():
    # ESP32-DevKitC V4 header (Espressif's user guide, "Header Block"): J2 on
    # the left, J3 on the right, both numbered from the antenna end.
    j2 = {3: 36, 4: 39, 5: 34, 6: 35, 7: 32, 8: 33, 9: 25, 10: 26, 11: 27,
          12: 14, 13: 12, 15: 13, 16: 9, 17: 10, 18: 11}
    j3 = {2: 23, 3: 22, 4: 1, 5: 3, 6: 21, 8: 19, 9: 18, 10: 5, 11: 17, 12: 16,
          13: 4, 14: 0, 15: 2, 16: 15, 17: 8, 18: 7, 19: 6}
    pos = {}
    for side, (hdr, table) in enumerate((("J2", j2), ("J3", j3))):
        for p, g in table.items():
            pos[g] = (side, p, "%s-%d" % (hdr, p))
    gnd = [(0, 14, "GND (J2-14)"), (1, 1, "GND (J3-1)"), (1, 7, "GND (J3-7)")]
    adc = {36: "ADC1_CH0", 37: "ADC1_CH1", 38: "ADC1_CH2", 39: "ADC1_CH3",
           32: "ADC1_CH4", 33: "ADC1_CH5", 34: "ADC1_CH6", 35: "ADC1_CH7"}
    return Header(
        "ESP32-DevKitC (WROOM-32)", pos, gnd, "5V (J2-19)",
        "5V: USB 5 V, or the battery on the 5V pin",
        adc, lambda g: "IO%d" % g,
        "antenna end up, seen from above; J2 is the left header, J3 the right, "
        "both counted from the antenna end",
        "3V3 (J2-1)")


PICO = _pico()
DEVKITC = _devkitc()


# The header each MCU's boards are wired to (the board file's MCU names it).
HEADERS = {"rp2040": PICO, "esp32": DEVKITC}


def header_for(ns):
    """The header a board file is wired to, from its MCU (None: no wiring,
    e.g. the simulator's board)."""
    return HEADERS.get(ns.get("MCU"))


# -- what goes where ---------------------------------------------------------

def load_board(board, boards_dir=BOARDS):
    """The board's names as a dict (host_sim/boards.py loads it)."""
    return vars(boardfiles.load(board, boards_dir))


def resistor_k(num, den):
    """Divider resistors (R1 top, R2 bottom) for V_bat = V_pin * num/den,
    with R2 = 100 k: R1 = 100 k * (num - den) / den."""
    r1 = 100 * (num - den) / den
    text = ("%d" % r1) if r1 == int(r1) else ("%.1f" % r1)
    return text + " k\u03a9", "100 k\u03a9"


def groups(ns, hdr):
    """The parts and their connections: [(kind, title, [(part pin, board
    pin label, gpio or None, board.py name or None)])]."""
    out = []
    sda, scl = ns["I2C_SDA"], ns["I2C_SCL"]
    lcd = "LCD %dx%d + PCF8574 backpack (I2C 0x%02X)" % (
        ns["LCD_COLS"], ns["LCD_ROWS"], ns["LCD_ADDR"])
    out.append(("lcd", lcd, [
        ("GND", hdr.nearest_gnd(sda), None, None),
        ("VCC", hdr.supply, None, None),
        ("SDA", hdr.label(sda), sda, "I2C_SDA"),
        ("SCL", hdr.label(scl), scl, "I2C_SCL"),
    ]))
    for side in ("LEFT", "RIGHT"):
        clk, dio = ns.get("TM_%s_CLK" % side), ns.get("TM_%s_DIO" % side)
        if clk is None:
            continue
        out.append(("lcd", "TM1637 4-digit display, %s player's" % side.lower(), [
            ("GND", hdr.nearest_gnd(clk), None, None),
            ("VCC", hdr.supply_3v3, None, None),
            ("CLK", hdr.label(clk), clk, "TM_%s_CLK" % side),
            ("DIO", hdr.label(dio), dio, "TM_%s_DIO" % side),
        ]))
    for const, title in (("BTN_LEFT", "Left player button"),
                         ("BTN_PAUSE", "Pause key"),
                         ("BTN_RIGHT", "Right player button")):
        g = ns[const]
        out.append(("button", title, [
            ("contact 1", hdr.label(g), g, const),
            ("contact 2", hdr.nearest_gnd(g), None, None),
        ]))
    if ns["BUZZER"] is not None:
        g = ns["BUZZER"]
        out.append(("buzzer", "Piezo buzzer (PWM)", [
            ("+", hdr.label(g), g, "BUZZER"),
            ("\u2212", hdr.nearest_gnd(g), None, None),
        ]))
    for const, title in (("LED_LEFT", "Left LED"), ("LED_RIGHT", "Right LED")):
        g = ns[const]
        if g is None:
            continue
        out.append(("led", title, [
            ("anode, through 330 \u03a9", hdr.label(g), g, const),
            ("cathode (short leg)", hdr.nearest_gnd(g), None, None),
        ]))
    if ns["BATTERY_ADC"] is not None:
        g = ns["BATTERY_ADC"]
        num, den = ns["BATTERY_DIVIDER"]
        r1, r2 = resistor_k(num, den)
        out.append(("battery", "Battery divider (R1 %s, R2 %s)" % (r1, r2), [
            ("R1 (%s) top" % r1, "battery +", None, None),
            ("R1/R2 midpoint", hdr.label(g, adc=True), g, "BATTERY_ADC"),
            ("R2 (%s) bottom" % r2, hdr.nearest_gnd(g), None, None),
        ]))
    return out


# -- Markdown table ----------------------------------------------------------

def markdown_table(board, boards_dir=BOARDS):
    ns = load_board(board, boards_dir)
    hdr = header_for(ns)
    if hdr is None:
        raise ValueError("boards/%s.py is not wired to a known header" % board)
    lines = [
        "| Part | Part pin | Board pin | GPIO | board.py |",
        "|---|---|---|---|---|",
    ]
    for kind, title, conns in groups(ns, hdr):
        part = {"lcd": "LCD backpack", "battery": "Battery divider"}.get(kind, title)
        if title.startswith("TM1637"):
            part = title.replace(" 4-digit display,", "").replace("'s", "")
        for part_pin, label, gpio, const in conns:
            lines.append("| %s | %s | %s | %s | %s |" % (
                part, part_pin, label,
                "\u2014" if gpio is None else gpio,
                "`%s`" % const if const else ""))
    return "\n".join(lines) + "\n"


def markers(board):
    return ("<!-- wiring-table:%s (generated by tools/wiring.py; do not edit) -->" % board,
            "<!-- /wiring-table:%s -->" % board)


def replace_table(text, board, table):
    start, end = markers(board)
    pat = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.S)
    if not pat.search(text):
        return text, False
    return pat.sub(lambda m: start + "\n" + table + end, text), True


def table_in_doc(text, board):
    start, end = markers(board)
    m = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), text, re.S)
    return m.group(1) if m else None


# -- SVG ---------------------------------------------------------------------

ROW = 30  # height of one connection row
GAP = 22  # between groups
BOX_X, BOX_W = 30, 270  # the board
PIN_X = BOX_X + BOX_W
PART_X = 440  # where the parts start
WIDTH = 900
COLORS = {"GND": "#222222", "VCC": "#d62728", "SDA": "#1f77b4", "SCL": "#e6a700",
          "DIO": "#1f77b4", "CLK": "#e6a700",
          "button": "#2ca02c", "buzzer": "#9467bd", "led": "#ff7f0e",
          "battery": "#8c564b"}


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Svg:
    def __init__(self):
        self.items = []

    def add(self, s):
        self.items.append(s)

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#222222",
             style=""):
        extra = ' font-weight="bold"' if weight == "bold" else ""
        extra += (' font-style="%s"' % style) if style else ""
        self.add('<text x="%d" y="%d" font-size="%d" text-anchor="%s" fill="%s"%s>%s</text>'
                 % (x, y, size, anchor, fill, extra, esc(s)))

    def line(self, x1, y1, x2, y2, color="#222222", width=2):
        self.add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%d"/>'
                 % (x1, y1, x2, y2, color, width))

    def rect(self, x, y, w, h, fill="none", stroke="#222222", rx=0, width=2):
        self.add('<rect x="%d" y="%d" width="%d" height="%d" rx="%d" fill="%s" '
                 'stroke="%s" stroke-width="%d"/>' % (x, y, w, h, rx, fill, stroke, width))

    def circle(self, x, y, r, fill="none", stroke="#222222"):
        self.add('<circle cx="%d" cy="%d" r="%d" fill="%s" stroke="%s" stroke-width="2"/>'
                 % (x, y, r, fill, stroke))

    def poly(self, pts, fill="none", stroke="#222222"):
        self.add('<polygon points="%s" fill="%s" stroke="%s" stroke-width="2"/>'
                 % (" ".join("%d,%d" % p for p in pts), fill, stroke))

    def ground(self, x, y):
        """Ground symbol hanging from (x, y)."""
        self.line(x, y, x, y + 8)
        self.line(x - 10, y + 8, x + 10, y + 8)
        self.line(x - 6, y + 12, x + 6, y + 12)
        self.line(x - 2, y + 16, x + 2, y + 16)


def board_pin(svg, y, label, color):
    svg.text(PIN_X - 12, y + 4, label, anchor="end")
    svg.rect(PIN_X - 5, y - 5, 10, 10, fill=color, stroke=color, width=1)


def svg_for(board, boards_dir=BOARDS):
    ns = load_board(board, boards_dir)
    hdr = header_for(ns)
    if hdr is None:
        raise ValueError("boards/%s.py is not wired to a known header" % board)
    gs = groups(ns, hdr)
    s = Svg()
    y = 110
    top = y - 40
    for kind, title, conns in gs:
        if kind == "lcd":
            y += 0 if y == 110 else 16  # room for a second display's title
            y = _lcd(s, y, title, conns)
        elif kind in ONE_PIN_PARTS:
            y = _one_pin_part(s, y, kind, title, conns)
        elif kind == "battery":
            y = _battery(s, y, title, conns, ns)
        y += GAP
    bottom = y - GAP + 10
    # (text, draw a ground symbol before it)
    notes = [
        ("= any GND pin of the board (docs/build.md names the nearest one).", True),
        ("Buttons: momentary, normally open, between the pin and GND; internal "
         "pull-ups, no resistors.", False),
        ("LCD backpack powered from %s (%s)." % (hdr.supply, hdr.supply_note), False),
        ("Its SDA/SCL pull-ups go to that supply: see docs/build.md on 3.3 V logic "
         "levels.  Address 0x%02X (0x3F on some backpacks)." % ns["LCD_ADDR"], False),
    ]
    if ns.get("TM_LEFT_CLK") is not None:
        notes.append(("TM1637 modules powered from %s, never 5 V: their CLK/DIO pull-ups "
                      "go to that supply." % hdr.supply_3v3, False))
    if ns["BATTERY_ADC"] is not None:
        num, den = ns["BATTERY_DIVIDER"]
        notes.append(("Battery: V_bat = V_pin \u00d7 %d/%d, low warning below %d mV.  "
                      "No divider fitted: set BATTERY_ADC = None in board.py."
                      % (num, den, ns["BATTERY_LOW_MV"]), False))
    notes += [
        ("Pin positions: %s." % hdr.orient, False),
        ("Generated from boards/%s.py by tools/wiring.py (make wiring): do not edit."
         % board, False),
    ]
    height = bottom + 30 + 18 * len(notes) + 10
    head = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif">'
        % (WIDTH, height, WIDTH, height),
        '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (WIDTH, height),
    ]
    t = Svg()
    t.text(30, 32, "Scrabble clock wiring: %s" % ns["NAME"], size=18, weight="bold")
    t.text(30, 52, "boards/%s.py \u2192 board.py on the device" % board, size=12,
           fill="#666666")
    t.rect(BOX_X, top, BOX_W, bottom - top, fill="#eef5ee", stroke="#2b5d2b", rx=8)
    t.text(BOX_X + 14, top + 22, hdr.short, size=14, weight="bold", fill="#2b5d2b")
    ny = bottom + 30
    for n, gnd in notes:
        if gnd:
            t.ground(38, ny - 14)
            t.text(56, ny, n, size=12, fill="#444444")
        else:
            t.text(30, ny, n, size=12, fill="#444444")
        ny += 18
    # the board box goes under the wires and pins
    return "\n".join(head + t.items + s.items + ["</svg>"]) + "\n"


def _wire(s, y, x2, color):
    s.line(PIN_X + 5, y, x2, y, color)


def _lcd(s, y, title, conns):
    x0, w = PART_X, 300
    h = ROW * len(conns) + 10
    s.rect(x0, y - 20, w, h, fill="#e8eef8", stroke="#1f3b73", rx=6)
    s.text(x0 + 70, y - 28, title, size=12, weight="bold", fill="#1f3b73")
    # a little screen
    s.rect(x0 + 120, y - 8, 160, h - 34, fill="#9fc76a", stroke="#4a6b2a", rx=3)
    big = title.startswith("TM1637")
    s.text(x0 + 200, y + (h - 34) // 2 - 2, "88:88" if big else title.split(" ")[1],
           size=16, anchor="middle", fill="#2f4a16", weight="bold")
    for i, (part_pin, label, _gpio, _const) in enumerate(conns):
        yy = y + i * ROW
        color = COLORS.get(part_pin, "#222222")
        board_pin(s, yy, label, color)
        _wire(s, yy, x0, color)
        s.text(x0 + 10, yy + 4, part_pin, weight="bold")
    return y + ROW * len(conns)


def _one_pin_part(s, y, kind, title, conns):
    """A part between one board pin and ground: the pin, its wire to the
    part, the part's symbol (ONE_PIN_PARTS), the ground, the title."""
    c = COLORS[kind]
    wire_to, symbol = ONE_PIN_PARTS[kind]
    _part_pin, label, _gpio, _const = conns[0]
    board_pin(s, y, label, c)
    _wire(s, y, wire_to, c)
    symbol(s, y, c)
    s.ground(PART_X + 80, y)
    s.text(PART_X + 110, y + 4, title)
    return y + ROW + 4


# Each symbol ends in its lead to the ground at PART_X + 80.
def _switch(s, y, c):
    s.circle(PART_X + 14, y, 4)
    s.circle(PART_X + 50, y, 4)
    s.line(PART_X + 16, y - 3, PART_X + 48, y - 16)
    s.line(PART_X + 32, y - 22, PART_X + 32, y - 10, width=1)
    s.line(PART_X + 54, y, PART_X + 80, y)


def _buzzer(s, y, c):
    s.rect(PART_X + 10, y - 11, 40, 22, fill="#f3eefa", stroke=c, rx=11)
    s.text(PART_X + 17, y + 4, "+", weight="bold")
    s.line(PART_X + 50, y, PART_X + 80, y)


def _led(s, y, c):
    s.rect(PART_X, y - 7, 36, 14, fill="#ffffff")
    s.text(PART_X + 18, y - 12, "330 \u03a9", size=10, anchor="middle")
    s.line(PART_X + 36, y, PART_X + 50, y)
    s.poly([(PART_X + 50, y - 9), (PART_X + 50, y + 9), (PART_X + 66, y)], fill="#ffd8a8",
           stroke=c)
    s.line(PART_X + 66, y - 9, PART_X + 66, y + 9)
    s.line(PART_X + 66, y, PART_X + 80, y)


# kind -> (where its wire from the board pin ends, its symbol)
ONE_PIN_PARTS = {"button": (PART_X + 10, _switch), "buzzer": (PART_X + 10, _buzzer),
                 "led": (PART_X, _led)}


def _battery(s, y, title, conns, ns):
    c = COLORS["battery"]
    y = y + 56  # room for R1 above the row
    _part_pin, label, _gpio, _const = conns[1]
    board_pin(s, y, label, c)
    nx = PART_X + 40
    _wire(s, y, nx, c)
    s.circle(nx, y, 3, fill="#222222")
    # R1 up to battery +
    s.line(nx, y, nx, y - 12)
    s.rect(nx - 7, y - 40, 14, 28, fill="#ffffff")
    s.line(nx, y - 40, nx, y - 52)
    s.circle(nx, y - 55, 3)
    s.text(nx + 10, y - 51, "battery +", size=12, weight="bold")
    r1, r2 = resistor_k(*ns["BATTERY_DIVIDER"])
    s.text(nx + 14, y - 22, r1, size=11)
    # R2 down to ground
    s.line(nx, y, nx, y + 10)
    s.rect(nx - 7, y + 10, 14, 28, fill="#ffffff")
    s.text(nx + 14, y + 28, r2, size=11)
    s.line(nx, y + 38, nx, y + 44)
    s.ground(nx, y + 44)
    s.text(PART_X + 110, y + 4, "Battery voltage divider")
    return y + 70


# -- command line ------------------------------------------------------------

def wired_boards(boards_dir=BOARDS):
    return [b for b in boardfiles.names(boards_dir)
            if header_for(load_board(b, boards_dir)) is not None]


def write_svg(board, out_dir=WIRING_DIR, boards_dir=BOARDS):
    if not os.path.isdir(out_dir):
        os.makedirs(out_dir)
    path = os.path.join(out_dir, board + ".svg")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(svg_for(board, boards_dir))
    return path


def add_section(text, board, table, boards_dir=BOARDS):
    """A new board's picture and table, after the doc's last table (None if
    the doc has no table to follow)."""
    ends = list(re.finditer(r"<!-- /wiring-table:\w+ -->\n", text))
    if not ends:
        return None
    start, end = markers(board)
    name = load_board(board, boards_dir)["NAME"]
    section = ("\n#### %s (`BOARD=%s`)\n\n![%s wiring](wiring/%s.svg)\n\n%s\n%s%s\n"
               % (name, board, name, board, start, table, end))
    at = ends[-1].end()
    return text[:at] + section + text[at:]


def update_doc(boards, doc=BUILD_MD, boards_dir=BOARDS, add=False):
    """Refresh the tables between the markers in docs/build.md; with `add`,
    a board without markers gets a new section after the last table (so a
    new board file is all `make wiring` needs).  Returns the boards whose
    markers are still missing."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    missing = []
    for b in boards:
        table = markdown_table(b, boards_dir)
        text, found = replace_table(text, b, table)
        if not found and add:
            added = add_section(text, b, table, boards_dir)
            if added is not None:
                text, found = added, True
        if not found:
            missing.append(b)
    with open(doc, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return missing


def main(argv=None):
    ap = argparse.ArgumentParser(prog="wiring.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("boards", nargs="*", help="board names (boards/NAME.py)")
    ap.add_argument("--all", action="store_true",
                    help="every board with a known header, and docs/build.md's tables")
    ap.add_argument("--table", action="store_true", help="print the Markdown table instead")
    ap.add_argument("--out", default=WIRING_DIR, help="folder for the SVGs (docs/wiring)")
    args = ap.parse_args(argv)
    boards = wired_boards() if args.all else args.boards
    if not boards:
        ap.error("name a board, or give --all")
    try:
        for b in boards:
            if args.table:
                sys.stdout.write(markdown_table(b))
            else:
                print(os.path.relpath(write_svg(b, args.out), os.getcwd()))
        if args.all and not args.table and os.path.exists(BUILD_MD):
            for b in update_doc(boards, add=True):
                print("wiring.py: docs/build.md has no table markers for %s" % b,
                      file=sys.stderr)
            for b in update_doc(README_BOARDS, README_MD):
                print("wiring.py: README.md has no table markers for %s" % b,
                      file=sys.stderr)
    except (OSError, ValueError, KeyError) as e:
        print("wiring.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
