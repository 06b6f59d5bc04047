"""What lies on the table: tiles, each cell's pieces and where every piece rests.

Everything here is decided in the table frame of the spec (mm, y towards the
viewer) and from one random generator, before any rendering. Pieces are laid
the way players lay them: inside their cell, bean against bean and against
peeps, some resting on others; a piece that finds no room is left out and the
truth says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from companion.rules.peepwar.board import (
    NEUTRAL,
    Cell,
    cell_polygon_mm,
    cells_of,
    parse_cell,
    tile_centre_mm,
    tile_neighbours,
)
from vision.geometry import Pose2D
from vision.kit_layout import MAX_TILES, NEUTRAL_ID
from vision.render3d.colours import EGG_COLOURS, FAMILIES, srgb_to_linear, varied

BEAN_CIRCLES = ((-4.5, 6.5), (4.5, 6.5))  # footprint: (offset along the long axis, radius)
PEEP_CIRCLES = ((-15.0, 14.0), (0.0, 15.0), (15.0, 13.0))
EGG_R = (22.0, 27.0)


@dataclass(frozen=True)
class Tile:
    tile_id: int
    hex: tuple[int, int]
    pose: Pose2D  # tile frame -> table frame (the print as it lies)
    rotation: int  # sixths of a turn the print is turned

    def cell_outline(self, name: str) -> np.ndarray:
        """The outline (table mm) of lattice cell ``name`` of this tile."""
        frame = Pose2D(self.pose.x, self.pose.y, self.pose.angle_deg - 60 * self.rotation)
        return frame.apply(np.asarray(cell_polygon_mm(Cell(NEUTRAL, parse_cell(name).slot))))


@dataclass
class Piece:
    kind: str  # "bean", "peep" or "egg"
    player: str | None
    cell: str
    x: float  # table mm
    y: float
    yaw: float  # degrees, long axis in the table frame
    z: float = 0.0  # lift (resting on other pieces), mm
    pitch: float = 0.0
    roll: float = 0.0
    colour: np.ndarray = field(default_factory=lambda: np.ones(3))  # linear RGB
    size: float = 1.0

    def circles(self) -> list[tuple[float, float, float]]:
        shape = {"bean": BEAN_CIRCLES, "peep": PEEP_CIRCLES}.get(self.kind)
        if shape is None:
            return [(self.x, self.y, self.size)]
        a = math.radians(self.yaw)
        return [(self.x + o * self.size * math.cos(a), self.y + o * self.size * math.sin(a),
                 r * self.size) for o, r in shape]


def random_tiles(rng: np.random.Generator, n: int) -> list[Tile]:
    """``n`` tiles grown from the Neutral one, each laid by hand a little off its place."""
    hexes = [NEUTRAL]
    while len(hexes) < n:
        frontier = sorted({h for t in hexes for h in tile_neighbours(t)} - set(hexes))
        hexes.append(frontier[int(rng.integers(len(frontier)))])
    ids = [NEUTRAL_ID] + [int(i) for i in rng.choice(np.arange(1, MAX_TILES), n - 1, False)]
    tiles = []
    for tile_id, hx in zip(ids, hexes, strict=True):
        cx, cy = tile_centre_mm(hx)
        rot = 0 if hx == NEUTRAL else int(rng.integers(6))
        r, a = rng.uniform(0, 3.0), rng.uniform(0, 2 * math.pi)
        jitter = 0.0 if hx == NEUTRAL else rng.normal(0, 1.2)
        tiles.append(Tile(tile_id, hx, Pose2D(cx + r * math.cos(a) * (hx != NEUTRAL),
                                              cy + r * math.sin(a) * (hx != NEUTRAL),
                                              60 * rot + jitter), rot))
    return tiles


def _inside(poly: np.ndarray, x: float, y: float, margin: float) -> bool:
    """Whether (x, y) lies in the convex polygon at least ``margin`` from every side."""
    n = len(poly)
    area = sum(poly[i, 0] * poly[(i + 1) % n, 1] - poly[(i + 1) % n, 0] * poly[i, 1]
               for i in range(n))
    sign = 1.0 if area > 0 else -1.0
    for i in range(n):
        ax, ay = poly[i]
        bx, by = poly[(i + 1) % n]
        ex, ey = bx - ax, by - ay
        d = sign * (ex * (y - ay) - ey * (x - ax)) / math.hypot(ex, ey)
        if d < margin:
            return False
    return True


def _fits(piece: Piece, poly: np.ndarray, margin: float) -> bool:
    return all(_inside(poly, cx, cy, margin) for cx, cy, _ in piece.circles())


def _overlap(a: Piece, b: Piece) -> float:
    """How deep two footprints overlap (mm; <= 0 when apart)."""
    return max(ra + rb - math.hypot(ax - bx, ay - by)
               for ax, ay, ra in a.circles() for bx, by, rb in b.circles())


class Table:
    """Pieces laid so far, cell by cell."""

    def __init__(self, rng: np.random.Generator, tiles: list[Tile]) -> None:
        self.rng = rng
        self.tiles = tiles
        self.outline = {name: t.cell_outline(name) for t in tiles for name in cells_of(t.hex)}
        self.pieces: list[Piece] = []

    def _near(self, cell: str) -> list[Piece]:
        return [p for p in self.pieces if p.cell == cell]

    def _candidate(self, cell: str, kind: str, player: str | None) -> tuple[float, float]:
        poly = self.outline[cell]
        mates = [p for p in self._near(cell) if p.kind in ("bean", "peep")]
        if mates and self.rng.uniform() < 0.6:  # players push beans together
            m = mates[int(self.rng.integers(len(mates)))]
            reach = {"bean": 11.0, "peep": 22.0}[m.kind] + (11.0 if kind == "bean" else 22.0)
            a = self.rng.uniform(0, 2 * math.pi)
            d = reach * self.rng.uniform(0.55, 1.0)
            return m.x + d * math.cos(a), m.y + d * math.sin(a)
        lo, hi = poly.min(0), poly.max(0)
        return self.rng.uniform(lo[0], hi[0]), self.rng.uniform(lo[1], hi[1])

    def egg(self, cell: str) -> Piece:
        cx, cy = self.outline[cell].mean(0)
        r = float(self.rng.uniform(*EGG_R))
        colour = srgb_to_linear(EGG_COLOURS[int(self.rng.integers(len(EGG_COLOURS)))])
        p = Piece("egg", None, cell, cx + self.rng.normal(0, 1.5), cy + self.rng.normal(0, 1.5),
                  0.0, colour=colour, size=r)
        self.pieces.append(p)
        return p

    def place(self, cell: str, kind: str, player: str, rgb) -> Piece | None:
        """One bean or peep of ``player`` in ``cell``, or None when it finds no room."""
        poly = self.outline[cell]
        size = float(self.rng.uniform(0.9, 1.08)) if kind == "bean" else \
            float(self.rng.uniform(0.92, 1.05))
        for attempt in range(80):
            x, y = self._candidate(cell, kind, player)
            p = Piece(kind, player, cell, x, y, float(self.rng.uniform(0, 360)),
                      colour=varied(self.rng, rgb), size=size)
            if not _fits(p, poly, 2.5 if kind == "bean" else 4.0):
                continue
            others = self._near(cell)
            depth = {id(o): _overlap(p, o) for o in others}
            hits = [o for o in others if depth[id(o)] > 0.5]
            if not hits:
                self.pieces.append(p)
                return p
            if kind == "bean" and attempt >= 30 and all(o.kind in ("bean", "peep") for o in hits):
                # A heap: the bean rests on (or leans against) what it overlaps.
                lift = 0.0
                for o in hits:
                    d = depth[id(o)]
                    if o.kind == "bean" and o.z < 6 and d < 9:
                        lift = max(lift, o.z + min(9.0, 1.1 * d))
                    elif o.kind == "peep" and d < 5:
                        lift = max(lift, 0.6 * d)
                    else:
                        lift = -1
                        break
                if lift < 0:
                    continue
                p.z = lift
                p.pitch = float(self.rng.uniform(-25, 25))
                p.roll = float(self.rng.uniform(-25, 25))
                self.pieces.append(p)
                return p
        return None


@dataclass
class Layout:
    tiles: list[Tile]
    players: list[str]
    pieces: list[Piece]
    cells: dict[str, dict]  # the truth, in the observation's terms


def random_layout(rng: np.random.Generator, n_tiles: int, n_players: int,
                  players_rng: np.random.Generator | None = None) -> Layout:
    """A random position: lone stacks, combat cells, peeps, Supply Centers, crowded cells.
    The players are drawn from ``players_rng`` when given (a game night's), else ``rng``."""
    tiles = random_tiles(rng, n_tiles)
    players = sorted(str(p) for p in (players_rng or rng).choice(list(FAMILIES), n_players,
                                                                replace=False))
    table = Table(rng, tiles)
    cells: dict[str, dict] = {}
    want: dict[str, dict[str, dict]] = {}
    for t in tiles:
        for name in cells_of(t.hex):
            central = parse_cell(name).is_central
            if central and rng.uniform() < 0.5:
                table.egg(name)
                cells[name] = {"supply_center": True, "pieces": {}}
            if rng.uniform() < 0.45:
                two = n_players > 1 and rng.uniform() < 0.18
                chosen = rng.choice(players, 2 if two else 1, replace=False)
                for p in chosen:
                    peep = bool(rng.uniform() < 0.3)
                    troops = int(rng.integers(0 if peep else 1, 6 if not two else 4))
                    if not two and rng.uniform() < 0.04:
                        troops = int(rng.integers(6, 9))
                    want.setdefault(name, {})[str(p)] = {"troops": troops, "peep": peep}
    for name, pieces in want.items():
        got: dict[str, dict] = {}
        for player, w in pieces.items():
            if w["peep"]:
                placed = table.place(name, "peep", player, FAMILIES[player][1])
                got[player] = {"troops": 0, "peep": placed is not None}
        for player, w in pieces.items():
            got.setdefault(player, {"troops": 0, "peep": False})
            for _ in range(w["troops"]):
                if table.place(name, "bean", player, FAMILIES[player][0]) is not None:
                    got[player]["troops"] += 1
        got = {p: v for p, v in sorted(got.items()) if v["troops"] or v["peep"]}
        if got or name in cells:
            cells.setdefault(name, {"supply_center": False, "pieces": {}})["pieces"] = got
    return Layout(tiles, players, table.pieces, cells)
