"""The printed Peep War tile: cells, supply-center circle, tile id and fiducials.

The image is the tile's hexagon centred in a white margin, at an exact scale,
so the same art serves the printer (at a stated dpi) and the scene renderer (at
a few pixels per mm).
"""

from __future__ import annotations

import math

import numpy as np

from companion.rules.peepwar.board import (
    CENTRAL_R_MM,
    NEUTRAL,
    R_MM,
    SUPPLY_CIRCLE_DIAMETER_MM,
    Cell,
    cell_centre_mm,
    cell_polygon_mm,
    hexagon_mm,
)
from vision.kit_layout import MAX_TILES, marker_id, tile_slots
from vision.mm_canvas import MmCanvas, blank

MARGIN_MM = 5.0  # white paper around the hexagon so the cut line is clear of the edge
CUT_LINE_MM = 0.3
CELL_LINE_MM = 0.8
CELL_LINE = (110, 110, 110)
LABEL = (120, 120, 120)


def tile_image_size(px_per_mm: float) -> tuple[int, int]:
    """(width, height) in pixels of a tile image at ``px_per_mm``."""
    w = math.ceil((2 * R_MM + 2 * MARGIN_MM) * px_per_mm)
    h = math.ceil((math.sqrt(3) * R_MM + 2 * MARGIN_MM) * px_per_mm)
    return w, h


def tile_image(tile_id: int, px_per_mm: float) -> np.ndarray:
    """The printable tile ``tile_id`` as a BGR image, the hexagon centre at the image centre.

    Markers are drawn last, over the cell lines, so lines never spoil a marker's
    quiet zone; the tile id is printed large inside the supply-center circle.
    """
    if not 0 <= tile_id < MAX_TILES:
        raise ValueError(f"tile id {tile_id} is out of range: use 0..{MAX_TILES - 1}")
    w, h = tile_image_size(px_per_mm)
    canvas = MmCanvas(blank(w, h), px_per_mm, (w / 2, h / 2))
    origin = (0.0, 0.0)

    canvas.polyline(cell_polygon_mm(Cell(NEUTRAL, "c")), CELL_LINE, CELL_LINE_MM)
    outer = hexagon_mm(origin, R_MM)
    inner = hexagon_mm(origin, CENTRAL_R_MM)
    for a, b in zip(inner, outer, strict=True):
        canvas.segment(a, b, CELL_LINE, CELL_LINE_MM)
    canvas.circle(origin, SUPPLY_CIRCLE_DIAMETER_MM / 2, CELL_LINE, CELL_LINE_MM)

    for k in range(6):
        # Slot numbers sit towards the inner edge of each border cell, clear of pieces' centres.
        cx, cy = cell_centre_mm(Cell(NEUTRAL, str(k)))
        a = math.radians(60 * k + 30)
        canvas.text(str(k), (cx - 14 * math.cos(a), cy - 14 * math.sin(a)), 4.0, LABEL)
    canvas.text("c", (0.0, -SUPPLY_CIRCLE_DIAMETER_MM / 2 - 3.5), 3.0, LABEL)

    digits = str(tile_id)
    canvas.text(digits, origin, 16.0 if len(digits) == 1 else 13.0, (40, 40, 40), 2.2)
    if tile_id == 0:
        canvas.text("NEUTRAL", (0.0, SUPPLY_CIRCLE_DIAMETER_MM / 2 + 4), 3.0, LABEL)

    for s in tile_slots():
        canvas.marker(marker_id(tile_id, s.slot), s.corners_mm)

    canvas.polyline(outer, (0, 0, 0), CUT_LINE_MM)
    return canvas.image


def tile_mask(px_per_mm: float) -> np.ndarray:
    """255 inside the cut hexagon of a tile image at ``px_per_mm``, 0 outside."""
    w, h = tile_image_size(px_per_mm)
    canvas = MmCanvas(np.zeros((h, w, 3), np.uint8), px_per_mm, (w / 2, h / 2))
    canvas.fill_polygon(hexagon_mm((0.0, 0.0), R_MM), (255, 255, 255))
    return canvas.image[:, :, 0].copy()
