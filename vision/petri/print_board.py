"""The printable Petri board: the 121-hole star on A3 with ArUco markers to find it.

Holes are printed rings 20 mm apart (a marble or peg of 12-16 mm covers one),
each named small below it; the six homes are numbered at their tips. Eight
markers of the kit's dictionary sit around the star (ids
``vision.kit_layout.PETRI_MARKER_IDS``, above the Peep War tiles' and below the
colour card's), so the board is found
even when hands hide half of them. All positions are in mm from the sheet's
top-left corner, x right, y down (table standard, section 7).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from vision.kit_layout import PETRI_MARKER_IDS, square_corners
from vision.mm_canvas import MmCanvas, blank
from vision.petri.holes import HOLE_NAMES, TIPS, hole_mm, holes_mm
from vision.print_files import Printed, need_suffix

SHEET_MM = (420.0, 297.0)  # A3 landscape
PITCH_MM = 20.0
HOLE_R_MM = 6.0  # printed ring radius
RING_MM = 0.8
LABEL_MM = 1.8  # height of the hole names
CORNER_MARKER_MM = 30.0
EDGE_MARKER_MM = 24.0



@dataclass(frozen=True)
class BoardLayout:
    width_mm: float
    height_mm: float
    pitch_mm: float
    holes: dict[str, tuple[float, float]]  # hole name -> centre, mm from the top-left
    markers: dict[int, np.ndarray]  # marker id -> (4, 2) corners TL, TR, BR, BL in mm

    @property
    def centre_mm(self) -> tuple[float, float]:
        return (self.width_mm / 2, self.height_mm / 2)

    def to_json(self) -> dict:
        """The JSON of the table standard, section 7."""
        return {"width_mm": self.width_mm, "height_mm": self.height_mm,
                "pitch_mm": self.pitch_mm,
                "holes": {n: [round(x, 3), round(y, 3)] for n, (x, y) in self.holes.items()}}


@cache
def board_layout() -> BoardLayout:
    w, h = SHEET_MM
    cx, cy = w / 2, h / 2
    pts = holes_mm(PITCH_MM) + (cx, cy)
    holes = {n: (float(x), float(y)) for n, (x, y) in zip(HOLE_NAMES, pts, strict=True)}
    c, e = CORNER_MARKER_MM / 2 + 10, EDGE_MARKER_MM / 2 + 10
    centres = [(c, c), (w - c, c), (w - c, h - c), (c, h - c),  # corners
               (c, cy), (w - c, cy),  # left and right of the side tips
               (cx, e), (cx, h - e)]  # between the star's upper and lower points
    sizes = [CORNER_MARKER_MM] * 6 + [EDGE_MARKER_MM] * 2
    markers = {mid: square_corners(centre, size, 90.0)
               for mid, centre, size in zip(PETRI_MARKER_IDS, centres, sizes, strict=True)}
    return BoardLayout(w, h, PITCH_MM, holes, markers)


def board_image(px_per_mm: float) -> np.ndarray:
    """The printable board as a BGR image, exactly the A3 sheet, edge to edge."""
    layout = board_layout()
    canvas = MmCanvas(blank(round(layout.width_mm * px_per_mm),
                            round(layout.height_mm * px_per_mm)), px_per_mm, (0.0, 0.0))
    ink = (70, 70, 70)
    cx, cy = layout.centre_mm
    for k, (tq, tr) in enumerate(TIPS):
        x, y = hole_mm(tq, tr, PITCH_MM)
        below = y >= 0  # clear of the hole names, which are below each hole
        canvas.text(f"home {k}", (cx + x, cy + y + (14.0 if below else -10.5)), 3.5,
                    (40, 40, 40), 0.45)
    ring_px = max(1, round(RING_MM * px_per_mm))
    for name, centre in layout.holes.items():
        # cv2's own anti-aliased ring: MmCanvas.circle masks the whole sheet for each one.
        c = np.round((canvas.to_px([centre])[0] - 0.5) * 16).astype(int)
        cv2.circle(canvas.image, (int(c[0]), int(c[1])), round(HOLE_R_MM * px_per_mm * 16), ink,
                   ring_px, cv2.LINE_AA, 4)
        canvas.circle(centre, 1.0, ink, None)  # a dot: where the piece goes
        canvas.text(name, (centre[0], centre[1] + HOLE_R_MM + 1.9), LABEL_MM, (90, 90, 90), 0.25)
    for mid, corners in layout.markers.items():
        canvas.marker(mid, corners, quiet_modules=1.0)
    canvas.text("Table Companion - Petri board (A3, print at 100%)", (cx, layout.height_mm - 4),
                3.0, (90, 90, 90), 0.35)
    return canvas.image


def print_command(args: argparse.Namespace) -> Printed:
    """``companion print petri-board`` (Petri's bundle names it): the PNG and the JSON."""
    import json

    from vision.png_dpi import png_bytes

    missing = [f"--{n}" for n in ("out", "json") if not getattr(args, n)]
    if missing:
        raise ValueError(f"print {args.kind} needs {' and '.join(missing)}")
    need_suffix("--out", args.out, ".png", "the board")
    need_suffix("--json", args.json, ".json", "the board's layout")
    img = board_image(args.dpi / 25.4)
    layout = board_layout()
    return Printed(
        f"Petri board written to {args.out} and {args.json} ({layout.width_mm:g} x "
        f"{layout.height_mm:g} mm, A3; print at 100%)",
        (("the board", args.out, png_bytes(img, args.dpi)),
         ("the board's layout", args.json,
          (json.dumps(layout.to_json(), indent=2) + "\n").encode())))
