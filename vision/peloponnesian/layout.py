"""Where everything sits on the printed map of A Peloponnesian War, in millimetres.

The map file gives each area a drawing position; the printed A3 sheet puts
every area in a box of the same size on a 6 x 5 grid, the grid cell chosen
near the area's drawing position and near the areas it links to (a small
local search, the same result every time for the same map). A box of the same
size everywhere means every area has room for its counters and chits, and the
camera reads every area alike:

- the name band along the top;
- the counter row: four spots, for up to two counters each of two players;
- the chit row: three spots, Sparta's on the left, Thebes' in the middle,
  Athens' on the right, as the rules place the chits on an area's sides.

ArUco markers of the kit's dictionary (``PELOPONNESIAN_MARKER_IDS``) run along
the top and bottom margins. Positions are mm from the sheet's top-left corner,
x right, y down (table standard, section 8).

>>> lay = map_layout(None)
>>> len(lay.areas), lay.to_json()["width_mm"], lay.areas["attica"].name
(25, 420.0, 'Attica')
>>> lay.side_of("attica", lay.areas["attica"].box[0] + 3)
'sparta'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from companion.rules.peloponnesian.mapdata import CITIES, GreekMap, load_map
from vision.kit_layout import PELOPONNESIAN_MARKER_IDS, square_corners

SHEET_MM = (420.0, 297.0)  # A3 landscape
GRID = (6, 5)  # columns, rows
BOX_MM = (62.0, 42.0)
GAP_MM = (5.0, 9.0)
NAME_BAND_MM = 6.0
COUNTER_MM = 12.0  # a counter's side
CHIT_MM = 19.0  # a chit's side; its code square is CODE_MM, under a label band
CODE_MM = 15.0
CHIT_LABEL_MM = 3.5
COUNTER_ROW_Y = 12.5  # counter spots' centres, from the box's top
COUNTER_XS = (8.5, 23.5, 38.5, 53.5)
CHIT_ROW_Y = 29.5  # chit spots' centres
CHIT_XS = {"sparta": 10.5, "thebes": 31.0, "athens": 51.5}
MARKER_MM = 18.0
SIDES = ("sparta", "thebes", "athens")  # left to right


class LayoutError(ValueError):
    """A map that cannot be printed on the sheet (one line saying why)."""


@dataclass(frozen=True)
class AreaBox:
    id: str
    name: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in mm
    home: str | None = None  # the city whose home this is
    delphi: bool = False
    island: bool = False

    @property
    def polygon(self) -> list[list[float]]:
        x0, y0, x1, y1 = self.box
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return ((x0 + x1) / 2, (y0 + y1) / 2)


@dataclass(frozen=True)
class MapLayout:
    width_mm: float
    height_mm: float
    areas: dict[str, AreaBox]
    links: tuple[tuple[str, str, str], ...]
    markers: dict[int, np.ndarray]  # marker id -> (4, 2) corners TL, TR, BR, BL in mm
    title: str
    spare: tuple[float, float] | None = None  # a grid cell no area uses: the title goes there

    def to_json(self) -> dict[str, Any]:
        """The printed map's JSON of the table standard, section 8."""
        return {"width_mm": self.width_mm, "height_mm": self.height_mm,
                "areas": {a.id: {"name": a.name, "polygon_mm": a.polygon}
                          for a in self.areas.values()}}

    def side_of(self, area: str, x_mm: float) -> str:
        """Whose side of ``area`` the point at ``x_mm`` is on: thirds of the box."""
        x0, _, x1, _ = self.areas[area].box
        third = int(np.clip((x_mm - x0) / (x1 - x0) * 3, 0, 2))
        return SIDES[third]

    def counter_spots(self, area: str) -> list[tuple[float, float]]:
        x0, y0, _, _ = self.areas[area].box
        return [(x0 + x, y0 + COUNTER_ROW_Y) for x in COUNTER_XS]

    def chit_spot(self, area: str, side: str) -> tuple[float, float]:
        x0, y0, _, _ = self.areas[area].box
        return (x0 + CHIT_XS[side], y0 + CHIT_ROW_Y)


def _cells() -> list[tuple[float, float]]:
    """Top-left corner of every grid cell's box, row by row."""
    cols, rows = GRID
    w = cols * BOX_MM[0] + (cols - 1) * GAP_MM[0]
    h = rows * BOX_MM[1] + (rows - 1) * GAP_MM[1]
    x0, y0 = (SHEET_MM[0] - w) / 2, (SHEET_MM[1] - h) / 2
    return [(x0 + c * (BOX_MM[0] + GAP_MM[0]), y0 + r * (BOX_MM[1] + GAP_MM[1]))
            for r in range(rows) for c in range(cols)]


def _assign(m: GreekMap) -> dict[str, int]:
    """A grid cell for each area: near its drawing position and near its links' areas."""
    cols, rows = GRID
    ids = list(m.areas)
    if len(ids) > cols * rows:
        raise LayoutError(f"the map has {len(ids)} areas; the printed sheet holds at most "
                          f"{cols * rows}")
    grid = [(float(i % cols), float(i // cols)) for i in range(cols * rows)]
    sx, sy = m.size_mm
    want = [(m.areas[a].at[0] / sx * cols - 0.5, m.areas[a].at[1] / sy * rows - 0.5)
            for a in ids]
    index = {a: i for i, a in enumerate(ids)}
    links = [(index[a], index[b]) for a, b, _ in m.links]

    def cost(cell: list[int]) -> float:
        pos = [grid[g] for g in cell]
        c = sum((p[0] - w[0]) ** 2 + (p[1] - w[1]) ** 2 for p, w in zip(pos, want, strict=True))
        for a, b in links:
            dx, dy = abs(pos[a][0] - pos[b][0]), abs(pos[a][1] - pos[b][1])
            c += 0.6 * (max(0.0, max(dx, dy) - 1) ** 2 + (dx + dy > 1) * 0.3)
        return c

    # Start from the nearest free cell in order of the areas, then swap while it helps.
    cell: list[int] = []
    free = set(range(len(grid)))
    for k in range(len(ids)):
        best = min(free, key=lambda g: ((grid[g][0] - want[k][0]) ** 2
                                        + (grid[g][1] - want[k][1]) ** 2, g))
        cell.append(best)
        free.discard(best)
    now = cost(cell)
    for _ in range(20):
        improved = False
        for a, b in itertools.combinations(range(len(ids)), 2):
            cell[a], cell[b] = cell[b], cell[a]
            c = cost(cell)
            if c < now - 1e-9:
                now, improved = c, True
            else:
                cell[a], cell[b] = cell[b], cell[a]
        for a in range(len(ids)):
            for g in sorted(free):
                old = cell[a]
                cell[a] = g
                c = cost(cell)
                if c < now - 1e-9:
                    now, improved = c, True
                    free.discard(g)
                    free.add(old)
                else:
                    cell[a] = old
        if not improved:
            break
    return {a: cell[i] for i, a in enumerate(ids)}


def _markers() -> dict[int, np.ndarray]:
    """Seven markers along the top margin and seven along the bottom one."""
    w, h = SHEET_MM
    top = (SHEET_MM[1] - (GRID[1] * BOX_MM[1] + (GRID[1] - 1) * GAP_MM[1])) / 2
    ys = (top / 2, h - top / 2)
    xs = np.linspace(MARKER_MM / 2 + 8, w - MARKER_MM / 2 - 8, 7)
    centres = [(float(x), y) for y in ys for x in xs]
    return {mid: square_corners(c, MARKER_MM, 90.0)
            for mid, c in zip(PELOPONNESIAN_MARKER_IDS, centres, strict=True)}


def layout_for(m: GreekMap) -> MapLayout:
    """The printed layout of map ``m``."""
    cells = _cells()
    homes = {area: city for city, area in m.homes.items()}
    areas = {}
    where = _assign(m)
    for a, g in where.items():
        x, y = cells[g]
        info = m.areas[a]
        areas[a] = AreaBox(a, info.name, (x, y, x + BOX_MM[0], y + BOX_MM[1]), homes.get(a),
                           a == m.delphi, info.island)
    used = set(where.values())
    spare = next((cells[g] for g in range(len(cells)) if g not in used), None)
    return MapLayout(SHEET_MM[0], SHEET_MM[1], areas, m.links, _markers(), m.name, spare)


@lru_cache(maxsize=8)
def _cached(key: str) -> MapLayout:
    import json

    return layout_for(load_map(json.loads(key)) if key else load_map(None))


def map_layout(source: str | Mapping[str, Any] | GreekMap | None) -> MapLayout:
    """The printed layout of a map: a map, its file, its data, or None for the default."""
    import json

    if isinstance(source, GreekMap):
        return _cached(json.dumps(source.data, sort_keys=True))
    if isinstance(source, str) and source:
        return _cached(json.dumps(load_map(source).data, sort_keys=True))
    if isinstance(source, Mapping):
        return _cached(json.dumps(load_map(source).data, sort_keys=True))
    return _cached("")


def link_segment(lay: MapLayout, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    """Where the line of a link is drawn: between the two boxes' edges, centre to centre."""
    ca, cb = np.array(lay.areas[a].centre), np.array(lay.areas[b].centre)
    d = cb - ca
    half = np.array(BOX_MM) / 2

    def exit_(t_dir: np.ndarray) -> float:
        with np.errstate(divide="ignore"):
            tx = half[0] / abs(t_dir[0]) if t_dir[0] else math.inf
            ty = half[1] / abs(t_dir[1]) if t_dir[1] else math.inf
        return min(tx, ty)

    t = exit_(d)
    return ca + d * t, cb - d * t


__all__ = ["MapLayout", "AreaBox", "LayoutError", "map_layout", "layout_for", "SIDES",
           "CITIES"]
