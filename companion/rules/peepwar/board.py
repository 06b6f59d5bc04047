"""Peep War board geometry, exactly as the table standard (section 2) fixes it.

Tiles are flat-top hexagons 180 mm across flats on an axial lattice; each has a
central cell and six border cells. Cells are named ``"q,r/c"`` and ``"q,r/k"``.
The same module gives the table-frame geometry in millimetres, so the camera
pipeline and the rules can never disagree about where a cell is.

>>> cell_name((1, -1), 3)
'1,-1/3'
>>> parse_cell("0,0/c")
Cell(tile=(0, 0), slot='c')
>>> sorted(cell_neighbours(parse_cell("0,0/0"), {(0, 0), (1, 0)}))
['0,0/1', '0,0/5', '0,0/c', '1,0/3']
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterator
from typing import NamedTuple

from companion.errors import clipped, quoted

Hex = tuple[int, int]

ACROSS_FLATS_MM = 180.0
R_MM = ACROSS_FLATS_MM / math.sqrt(3)  # circumradius, ~103.92 mm
CENTRAL_ACROSS_FLATS_MM = 80.0
CENTRAL_R_MM = CENTRAL_ACROSS_FLATS_MM / math.sqrt(3)
SUPPLY_CIRCLE_DIAMETER_MM = 40.0

# Neighbour across side k: (q, r) + D[k]; its side (k + 3) mod 6 is the shared side.
DIRECTIONS: tuple[Hex, ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
NEUTRAL: Hex = (0, 0)
CENTRE = "c"

# A coordinate has at most MAX_COORD_DIGITS digits: a table holds a few tiles, and a name
# with thousands of digits would otherwise fail in int() with Python's own words.
MAX_COORD_DIGITS = 4
_COORD = rf"(-?\d{{1,{MAX_COORD_DIGITS}}})"
_CELL_RE = re.compile(rf"^\s*{_COORD}\s*,\s*{_COORD}\s*/\s*([0-5c])\s*$")
_TILE_RE = re.compile(rf"^\s*{_COORD}\s*,\s*{_COORD}\s*$")


class Cell(NamedTuple):
    tile: Hex
    slot: str  # "c" or "0".."5"

    def __str__(self) -> str:
        return cell_name(self.tile, self.slot)

    @property
    def is_central(self) -> bool:
        return self.slot == CENTRE


def cell_name(tile: Hex, slot: int | str) -> str:
    return f"{tile[0]},{tile[1]}/{slot}"


def tile_name(tile: Hex) -> str:
    """``q,r``; a runaway coordinate sent as an action (4,000 digits) is cut for the refusal
    naming it."""
    return f"{clipped(str(tile[0]), 20)},{clipped(str(tile[1]), 20)}"


def parse_cell(text: str) -> Cell:
    """A cell from its name; raises ValueError with the expected form."""
    m = _CELL_RE.match(text)
    if not m:
        raise ValueError(
            f"{quoted(text)} is not a cell name: write q,r/c for a central cell or q,r/k "
            "(k = 0..5) for a border cell, e.g. 0,0/c or 1,-1/3"
        )
    return Cell((int(m.group(1)), int(m.group(2))), m.group(3))


def parse_tile(text: str) -> Hex:
    """A tile position ``"q,r"``; raises ValueError with the expected form."""
    m = _TILE_RE.match(text)
    if not m:
        raise ValueError(f"{quoted(text)} is not a hex position: write q,r, e.g. 1,-1")
    return int(m.group(1)), int(m.group(2))


def neighbour(tile: Hex, side: int) -> Hex:
    dq, dr = DIRECTIONS[side % 6]
    return tile[0] + dq, tile[1] + dr


def tile_neighbours(tile: Hex) -> Iterator[Hex]:
    for k in range(6):
        yield neighbour(tile, k)


def tiles_touch(a: Hex, b: Hex) -> bool:
    return (b[0] - a[0], b[1] - a[1]) in DIRECTIONS


def cells_of(tile: Hex) -> list[str]:
    return [cell_name(tile, CENTRE)] + [cell_name(tile, k) for k in range(6)]


def cell_neighbours(cell: Cell, tiles: Collection[Hex]) -> Iterator[str]:
    """Names of the cells that share a side with ``cell`` on a table holding ``tiles``."""
    tile, slot = cell
    if slot == CENTRE:
        for k in range(6):
            yield cell_name(tile, k)
        return
    k = int(slot)
    yield cell_name(tile, CENTRE)
    yield cell_name(tile, (k - 1) % 6)
    yield cell_name(tile, (k + 1) % 6)
    other = neighbour(tile, k)
    if other in tiles:
        yield cell_name(other, (k + 3) % 6)


def cells_touch(a: str, b: str, tiles: Collection[Hex]) -> bool:
    return b in set(cell_neighbours(parse_cell(a), tiles))


# --- table-frame geometry (mm; origin at the Neutral centre, y towards the viewer) ---


def tile_centre_mm(tile: Hex) -> tuple[float, float]:
    q, r = tile
    return 1.5 * R_MM * q, math.sqrt(3) * R_MM * (r + q / 2)


def hexagon_mm(centre: tuple[float, float], radius: float) -> list[tuple[float, float]]:
    """Vertices 0..5 of a flat-top hexagon; vertex i at angle 60*i."""
    cx, cy = centre
    return [
        (cx + radius * math.cos(math.radians(60 * i)), cy + radius * math.sin(math.radians(60 * i)))
        for i in range(6)
    ]


def cell_polygon_mm(cell: Cell) -> list[tuple[float, float]]:
    """The outline of a cell in the table frame, in mm."""
    centre = tile_centre_mm(cell.tile)
    inner = hexagon_mm(centre, CENTRAL_R_MM)
    if cell.is_central:
        return inner
    outer = hexagon_mm(centre, R_MM)
    k = int(cell.slot)
    return [outer[k], outer[(k + 1) % 6], inner[(k + 1) % 6], inner[k]]


def cell_centre_mm(cell: Cell) -> tuple[float, float]:
    pts = cell_polygon_mm(cell)
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
