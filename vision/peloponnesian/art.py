"""The printed pieces of A Peloponnesian War, and the printed map: how each is drawn.

- An orientation counter is a square of its city's colour (Sparta red, Athens
  blue, Thebes green) with the city's letter in white (Λ, A, Θ) for people;
  the camera reads the colour.
- A chit carries its name on a band along the top, for people, and under it a
  square code for the camera: a black border round 3 x 3 modules. The fifteen
  codes (five kinds, nine Special chits, and the back every chit shares, which
  the camera reads as face down) are at least four modules apart, so one
  misread module is corrected and two are refused, never taken for another
  chit. A chit lies the right way up on the map (its name readable from the
  map's bottom edge, within about 45 degrees), as a person reading it lays it;
  so the codes need not survive a turn.

The same functions draw the sheet for printing and for the renderer, so the two
cannot disagree.

>>> len(CODES), min(bin(a ^ b).count("1") for a in CODES for b in CODES if a != b)
(15, 4)
>>> code_bits(CODES[0]).tolist()
[[1, 1, 0], [0, 1, 1], [0, 0, 1]]
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from companion.rules.peloponnesian.chits import KINDS, load_chits
from vision.mm_canvas import MmCanvas, blank
from vision.peloponnesian.layout import (
    BOX_MM,
    CHIT_MM,
    CHIT_ROW_Y,
    CHIT_XS,
    CODE_MM,
    COUNTER_MM,
    COUNTER_ROW_Y,
    COUNTER_XS,
    NAME_BAND_MM,
    MapLayout,
    link_segment,
)

# Printed colours (BGR, sRGB): saturated, far apart in hue, none near skin.
PLAYER_BGR = {"sparta": (40, 35, 200), "athens": (185, 95, 25), "thebes": (60, 150, 30)}
LETTER = {"sparta": "L", "athens": "A", "thebes": "O"}  # drawn as Λ, A, Θ
# 3 x 3 codes, row-major, most significant bit first; 1 = black. Found by a greedy search
# for codes with three to six black modules at least four modules apart.
CODES = (409, 59, 468, 162, 261, 334, 310, 181, 361, 87, 124, 451, 428, 158, 205)
HIDDEN = "hidden"
CODE_GRID = 5  # modules across a code: the border and 3 x 3
INK = (40, 40, 40)


def code_bits(code: int) -> np.ndarray:
    """A code's 3 x 3 modules, 1 = black."""
    return np.array([(code >> (8 - i)) & 1 for i in range(9)], np.uint8).reshape(3, 3)


@lru_cache(maxsize=1)
def chit_types() -> tuple[str, ...]:
    """What each code means, in code order: the kinds, the default Special chits, the back.

    A group's own chit file keeps its Special chits in its own order; code 5 + k is
    its k-th Special chit (so printed Special chits are numbered, 1 to 9, too).
    """
    specials = tuple(s.id for s in load_chits(None).specials)
    return (*KINDS, *specials, HIDDEN)


def chit_names() -> dict[str, str]:
    mix = load_chits(None)
    names = {k: k.capitalize() for k in KINDS}
    names.update({s.id: s.name for s in mix.specials})
    names[HIDDEN] = "Peloponnesian War"
    return names


def _rot(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _square(centre, side: float, angle_deg: float, frac=(0, 0, 1, 1)) -> np.ndarray:
    """Corners TL, TR, BR, BL of the part ``frac`` (x0, y0, x1, y1 in 0..1) of a square."""
    x0, y0, x1, y1 = frac
    pts = (np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) - 0.5) * side
    return pts @ _rot(angle_deg).T + np.asarray(centre, float)


def draw_counter(canvas: MmCanvas, centre, player: str, angle_deg: float = 0.0,
                 colour: tuple[int, int, int] | None = None) -> None:
    """A counter of ``player``, centred at ``centre`` (mm), turned ``angle_deg``."""
    s = COUNTER_MM
    canvas.fill_polygon(_square(centre, s, angle_deg), colour or PLAYER_BGR[player])
    r = _rot(angle_deg)
    c = np.asarray(centre, float)

    def p(x: float, y: float) -> np.ndarray:  # the letter fills the middle of the square
        return c + r @ np.array([x, y]) * s * 0.75

    white, w = (255, 255, 255), 0.07 * s
    letter = LETTER[player]
    if letter == "L":  # Λ, Sparta's lambda
        canvas.segment(p(-0.25, 0.28), p(0, -0.3), white, w)
        canvas.segment(p(0, -0.3), p(0.25, 0.28), white, w)
    elif letter == "A":
        canvas.segment(p(-0.25, 0.28), p(0, -0.3), white, w)
        canvas.segment(p(0, -0.3), p(0.25, 0.28), white, w)
        canvas.segment(p(-0.13, 0.06), p(0.13, 0.06), white, w)
    else:  # Θ
        t = np.linspace(0, 2 * math.pi, 40)
        ring = np.stack([0.22 * np.cos(t), 0.3 * np.sin(t)], axis=1)
        canvas.polyline([p(x, y) for x, y in ring], white, w)
        canvas.segment(p(-0.12, 0), p(0.12, 0), white, w)


def draw_chit(canvas: MmCanvas, centre, chit: str, angle_deg: float = 0.0,
              label: bool = True) -> None:
    """A chit, face up (``chit`` a type of :func:`chit_types`) or face down (``hidden``),
    its code's centre at ``centre`` (mm)."""
    code = CODES[chit_types().index(chit)]
    # The chit's paper: the code square plus margins, and the label band above it.
    side_margin = (CHIT_MM - CODE_MM) / 2
    top = CHIT_MM - CODE_MM - 0.5
    r = _rot(angle_deg)
    c = np.asarray(centre, float)
    paper = np.array([[-CODE_MM / 2 - side_margin, -CODE_MM / 2 - top],
                      [CODE_MM / 2 + side_margin, -CODE_MM / 2 - top],
                      [CODE_MM / 2 + side_margin, CODE_MM / 2 + 0.5],
                      [-CODE_MM / 2 - side_margin, CODE_MM / 2 + 0.5]])
    canvas.fill_polygon(paper @ r.T + c, (250, 250, 250))
    canvas.fill_polygon(_square(c, CODE_MM, angle_deg), (20, 20, 20))
    bits = code_bits(code)
    for j in range(3):
        for i in range(3):
            if not bits[j, i]:
                f = ((i + 1) / CODE_GRID, (j + 1) / CODE_GRID, (i + 2) / CODE_GRID,
                     (j + 2) / CODE_GRID)
                canvas.fill_polygon(_square(c, CODE_MM, angle_deg, f), (250, 250, 250))
    if label:
        name = chit_names()[chit]
        k = chit_types().index(chit)
        if 5 <= k < 14:
            name = f"{k - 4} {name}"
        at = c + r @ np.array([0.0, -CODE_MM / 2 - top / 2 - 0.1])
        size = min(2.0, 2.0 * 16 / max(len(name), 1) * 0.85)
        canvas.text(name.upper() if len(name) < 12 else name, at, size, INK, 0.22)


def map_image(lay: MapLayout, px_per_mm: float) -> np.ndarray:
    """The printable map as a BGR image, exactly the A3 sheet, edge to edge."""
    canvas = MmCanvas(blank(round(lay.width_mm * px_per_mm), round(lay.height_mm * px_per_mm)),
                      px_per_mm, (0.0, 0.0))
    for a, b, kind in lay.links:
        p, q = link_segment(lay, a, b)
        if kind == "sea":
            d = q - p
            n = max(1, int(np.hypot(*d) / 4))
            for k in range(n):
                if k % 2 == 0:
                    canvas.segment(p + d * k / n, p + d * (k + 1) / n, (190, 170, 150), 1.0)
        else:
            canvas.segment(p, q, (160, 160, 160), 1.4)
    for area in lay.areas.values():
        x0, y0, x1, y1 = area.box
        fill = (236, 240, 242) if not area.island else (244, 238, 232)
        canvas.fill_polygon(area.polygon, fill)
        # A light outline: a chit lying across it stays a dark square of its own.
        canvas.polyline(area.polygon, (165, 165, 165), 0.6)
        canvas.text(area.name, (x0 + 18 + 0.9 * len(area.name), y0 + NAME_BAND_MM / 2 + 0.6),
                    3.0, INK, 0.35)
        note = []
        if area.home:
            note.append(f"home of {area.home.capitalize()}")
        if area.delphi:
            note.append("Delphi")
        if note:
            canvas.text(", ".join(note), (x1 - 13, y0 + NAME_BAND_MM / 2 + 0.6), 1.8,
                        (90, 90, 90), 0.2)
        faint = (205, 205, 205)
        for x in COUNTER_XS:
            canvas.polyline(_square((x0 + x, y0 + COUNTER_ROW_Y), COUNTER_MM + 1, 0), faint,
                            0.25)
        for side, x in CHIT_XS.items():
            canvas.polyline(_square((x0 + x, y0 + CHIT_ROW_Y), CHIT_MM, 0), faint, 0.25)
            canvas.text(side.capitalize(), (x0 + x, y0 + CHIT_ROW_Y), 2.2, faint, 0.25)
    for mid, corners in lay.markers.items():
        canvas.marker(mid, corners, quiet_modules=1.0)
    if lay.spare is not None:
        x, y = lay.spare
        lines = ["A Peloponnesian War", lay.title, "Table Companion: A3, print at 100%",
                 "land link: line; sea link: dashes", "chits: Sparta left, Thebes middle,",
                 "Athens right, the right way up"]
        for k, line in enumerate(lines):
            canvas.text(line, (x + BOX_MM[0] / 2, y + 5 + 6 * k), 3.0 if k == 0 else 2.2,
                        (90, 90, 90), 0.3 if k == 0 else 0.22)
    return canvas.image


COUNTERS_PER_PLAYER = 12


def pieces_image(px_per_mm: float) -> np.ndarray:
    """One A4 sheet: twelve counters of each city, and every chit as a strip to fold
    (face on the left half, the back on the right half)."""
    w, h = 210.0, 297.0
    canvas = MmCanvas(blank(round(w * px_per_mm), round(h * px_per_mm)), px_per_mm, (0.0, 0.0))
    canvas.text("A Peloponnesian War - counters and chits (A4, print at 100%)", (w / 2, 8), 3.2,
                INK, 0.35)
    y = 20.0
    pitch = COUNTER_MM + 3.5
    for player in PLAYER_BGR:
        canvas.text(f"{player.capitalize()}: cut out each square", (40, y - 4), 2.5, INK, 0.3)
        for k in range(COUNTERS_PER_PLAYER):
            draw_counter(canvas, (12 + k * pitch, y + COUNTER_MM / 2 + 1), player)
        y += COUNTER_MM + 9
    canvas.text("Chits: cut out each strip, fold on the middle line, glue; lay them the right "
                "way up", (w / 2, y), 2.5, INK, 0.3)
    y += 5
    mix = load_chits(None)
    chits = [k for k, n in mix.mix for _ in range(n)]
    chits += [s.id for s in mix.specials]
    per_row, sx, sy = 4, 2 * CHIT_MM + 9, CHIT_MM + 6
    for n, chit in enumerate(chits):
        col, row = n % per_row, n // per_row
        x, top = 14 + col * sx, y + row * sy
        cy = top + CHIT_MM - CODE_MM / 2 - 0.5
        draw_chit(canvas, (x + CHIT_MM / 2, cy), chit)
        draw_chit(canvas, (x + 1.5 * CHIT_MM, cy), HIDDEN)
        outline = np.array([[x, top], [x + 2 * CHIT_MM, top], [x + 2 * CHIT_MM, top + CHIT_MM],
                            [x, top + CHIT_MM]])
        canvas.polyline(outline, (150, 150, 150), 0.2)
        for k in range(6):  # the fold: a dashed line
            yy = top + k * CHIT_MM / 6
            canvas.segment((x + CHIT_MM, yy), (x + CHIT_MM, yy + CHIT_MM / 12), (150, 150, 150),
                           0.2)
    return canvas.image


def code_image(chit: str, px_per_module: int = 8) -> np.ndarray:
    """A chit's code alone, black on white, for tests: CODE_GRID modules plus a margin."""
    n = CODE_GRID + 2
    img = np.full((n * px_per_module, n * px_per_module), 255, np.uint8)
    cv2.rectangle(img, (px_per_module, px_per_module),
                  ((n - 1) * px_per_module - 1, (n - 1) * px_per_module - 1), 0, -1)
    bits = code_bits(CODES[chit_types().index(chit)])
    for j in range(3):
        for i in range(3):
            if not bits[j, i]:
                x, y = (i + 2) * px_per_module, (j + 2) * px_per_module
                img[y:y + px_per_module, x:x + px_per_module] = 255
    return img
