"""Where the pieces of a game state lie on the table: crowded, touching, as players leave them.

Given what every cell holds, pieces are placed one by one on an occupancy grid
of the table (``GRID_PX_PER_MM``): Supply Centers over their circles first, then
peeps, then beans. Beans of one player cluster and touch; some lie across a cell
border (only their centre decides their cell); beans may sit half under their
own peep, which stands on them. Every bean keeps at least about half of itself
in view, so what the ground truth says is what a careful person could see: given
the camera's place, a peep hides what lies under its picture, which a tilted camera
sees beyond its foot (:func:`vision.render.sprites.lift_mm`), so a bean goes where
at least half of it shows in the picture.
Vertex markers are mostly kept clear, as the tiles must stay findable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM, hexagon_mm, parse_cell
from vision.kit_layout import tile_slots
from vision.render.cutouts import Cutout
from vision.render.layout import PlacedTile
from vision.render.scene import physical_cells
from vision.render.sprites import middle_seen_mm

GRID_PX_PER_MM = 2.0
MARGIN_MM = 60.0
BEAN_CENTRE_MARGIN_MM = 3.0  # a bean's centre lies at least this far inside its cell
PEEP_CENTRE_MARGIN_MM = 5.0
MIN_SHOWN = {"bean": 0.55, "peep": 0.8, "understudy": 0.8}  # share of a piece left in view


@dataclass(frozen=True)
class Placement:
    """One piece on the table: what it is, whose, in which cell, where and its picture."""

    kind: str  # "bean", "peep", "understudy", "egg" or "token"
    player: str | None
    cell: str
    centre_mm: tuple[float, float]
    angle_deg: float
    sprite: Cutout
    sprite_ppm: float


# "peep_seen": where a peep's picture lies over the beans' pictures, in the beans' own
# frame: its footprint carried as much farther from the camera as its middle stands
# above a bean's (the footprint itself when the camera's place is not given).
BITS = {"bean": 1, "peep": 2, "egg": 4, "keepout": 8, "hand": 16, "tile": 32,
        "peep_seen": 64}


class Occupancy:
    """The table as a grid of bits: which pieces cover each spot, tiles, marker keep-outs.

    Bit ``tile`` is set where exactly one tile lies (pieces are not put where two
    overlap: which one is on top would be a guess).
    """

    def __init__(self, tiles: list[PlacedTile]) -> None:
        hexes = [t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in tiles]
        pts = np.vstack(hexes)
        self.origin = pts.min(axis=0) - MARGIN_MM
        size = np.ceil((pts.max(axis=0) + MARGIN_MM - self.origin) * GRID_PX_PER_MM).astype(int)
        self.shape = (int(size[1]), int(size[0]))
        count = np.zeros(self.shape, np.uint8)
        for poly in hexes:
            one = np.zeros(self.shape, np.uint8)
            cv2.fillPoly(one, [self._px(poly)], 1)
            count += one
        self.bits = np.where(count == 1, BITS["tile"], 0).astype(np.uint8)
        keep = np.zeros(self.shape, np.uint8)
        for t in tiles:
            for s in tile_slots()[:6]:
                corners = t.pose.apply(s.corners_mm)
                c = corners.mean(axis=0)
                grown = c + (corners - c) * (s.size_mm + 4.0) / s.size_mm
                cv2.fillPoly(keep, [self._px(grown)], BITS["keepout"])
        self.bits |= keep

    def _px(self, pts_mm: np.ndarray) -> np.ndarray:
        return np.round((np.asarray(pts_mm) - self.origin) * GRID_PX_PER_MM).astype(np.int32)

    def footprint(self, small_alpha: np.ndarray, centre, angle: float
                  ) -> tuple[np.ndarray, int, int]:
        """A piece's coverage (bool patch) turned by ``angle``, and the patch's top-left cell.

        ``small_alpha`` is the piece's alpha already at the grid's scale.
        """
        h, w = small_alpha.shape
        size = int(np.ceil(np.hypot(h, w))) + 2
        m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
        m[:, 2] += (size / 2 - w / 2, size / 2 - h / 2)
        mask = cv2.warpAffine(small_alpha, m, (size, size)) > 0.5
        cx, cy = (np.asarray(centre) - self.origin) * GRID_PX_PER_MM
        return mask, int(round(cx - size / 2)), int(round(cy - size / 2))

    def _patch(self, mask: np.ndarray, x0: int, y0: int):
        h, w = mask.shape
        gx0, gy0 = max(x0, 0), max(y0, 0)
        gx1, gy1 = min(x0 + w, self.shape[1]), min(y0 + h, self.shape[0])
        if gx1 <= gx0 or gy1 <= gy0:
            return None
        return (mask[gy0 - y0:gy1 - y0, gx0 - x0:gx1 - x0], (slice(gy0, gy1), slice(gx0, gx1)))

    def overlaps(self, mask: np.ndarray, x0: int, y0: int) -> dict[str, float]:
        """Share of ``mask`` lying on each kind of thing (bits), parts off the grid left out."""
        total = int(mask.sum()) or 1
        patch = self._patch(mask, x0, y0)
        if patch is None:
            return {k: 0.0 for k in BITS}
        sub, sl = patch
        under = self.bits[sl][sub]
        return {k: float(np.count_nonzero(under & b)) / total for k, b in BITS.items()}

    def add(self, layer: str, mask: np.ndarray, x0: int, y0: int) -> None:
        patch = self._patch(mask, x0, y0)
        if patch is not None:
            sub, sl = patch
            self.bits[sl][sub] |= BITS[layer]

    def tiles_at(self, pt) -> int:
        """1 where exactly one tile lies at ``pt`` (mm), else 0."""
        x, y = np.round((np.asarray(pt) - self.origin) * GRID_PX_PER_MM).astype(int)
        if not (0 <= x < self.shape[1] and 0 <= y < self.shape[0]):
            return 0
        return int(bool(self.bits[y, x] & BITS["tile"]))

    def add_polygon(self, layer: str, pts_mm: np.ndarray) -> None:
        m = np.zeros(self.shape, np.uint8)
        cv2.fillPoly(m, [self._px(pts_mm)], BITS[layer])
        self.bits |= m

    def coverage(self, layer: str, poly_mm: np.ndarray) -> float:
        """Share of a polygon's area covered by ``layer``."""
        px = self._px(poly_mm)
        x0, y0 = np.maximum(px.min(axis=0), 0)
        x1, y1 = px.max(axis=0) + 1
        m = np.zeros((max(y1 - y0, 1), max(x1 - x0, 1)), np.uint8)
        cv2.fillPoly(m, [px - (x0, y0)], 1)
        sub = self.bits[y0:y0 + m.shape[0], x0:x0 + m.shape[1]]
        m = m[:sub.shape[0], :sub.shape[1]] > 0
        n = int(m.sum()) or 1
        return float(np.count_nonzero(sub[m] & BITS[layer])) / n


def _grid_alpha(sprite: Cutout, ppm: float) -> np.ndarray:
    """A sprite's alpha at the grid's scale."""
    f = GRID_PX_PER_MM / ppm
    h, w = sprite.alpha.shape
    return cv2.resize(sprite.alpha, (max(1, round(w * f)), max(1, round(h * f))),
                      interpolation=cv2.INTER_AREA)


def _inside(poly: np.ndarray, pt, margin: float) -> bool:
    d = cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2),
                             (float(pt[0]), float(pt[1])), True)
    return d >= margin




@dataclass(frozen=True)
class Limits:
    """How much a new piece may lie on what is already there (shares of its own area)."""

    bean: float
    peep: float
    egg: float
    keepout: float
    on_tile: float = 0.75  # share that must lie on a single tile (not the table, no overlap)

    def relaxed(self, k: float) -> Limits:
        """Looser limits for a crowded cell; never so loose that a bean hides (half shows)."""
        return Limits(min(0.15, self.bean * k), min(max(self.peep, 0.1), self.peep * k),
                      min(max(self.egg, 0.1), self.egg * k),
                      min(max(self.keepout, 0.2), self.keepout * k), self.on_tile)


class Crowd:
    """Places pieces cell by cell on one table."""

    def __init__(self, rng: np.random.Generator, tiles: list[PlacedTile],
                 eye_mm: np.ndarray | None = None) -> None:
        self.rng = rng
        self.eye_mm = eye_mm  # the camera's x, y and height, when the pieces are seen lifted
        self.grid = Occupancy(tiles)
        self.cells: dict[str, np.ndarray] = {}
        self.centres: dict[tuple[int, int], np.ndarray] = {}
        for t in tiles:
            self.cells.update(physical_cells(t))
            self.centres[t.hex] = np.array([t.pose.x, t.pose.y])
        self.placed: list[Placement] = []
        self._spots: dict[tuple[str, float], np.ndarray] = {}
        self.supplied: set[str] = set()  # cells with a Supply Center down

    def random_point(self, cell: str, margin: float) -> np.ndarray:
        """A random point (mm) at least ``margin`` inside ``cell``, on one tile, off the markers."""
        key = (cell, margin)
        if key not in self._spots:
            g = self.grid
            px = g._px(self.cells[cell])
            x0, y0 = np.maximum(px.min(axis=0) - 1, 0)
            x1, y1 = np.minimum(px.max(axis=0) + 2, (g.shape[1], g.shape[0]))
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(m, [px - (x0, y0)], 1)
            r = max(1, int(round(margin * GRID_PX_PER_MM)))
            m = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
            bits = g.bits[y0:y1, x0:x1]
            ok = (m > 0) & ((bits & BITS["tile"]) > 0) & ((bits & BITS["keepout"]) == 0)
            ys, xs = np.nonzero(ok)
            if len(xs) == 0:
                ys, xs = np.nonzero(m > 0)
            pts = np.stack([xs + x0, ys + y0], axis=1) / GRID_PX_PER_MM
            self._spots[key] = pts + g.origin
        spots = self._spots[key]
        if len(spots) == 0:
            return self.cells[cell].mean(axis=0)
        return spots[self.rng.integers(len(spots))] + self.rng.uniform(-0.25, 0.25, 2)

    def _try(self, kind: str, sprite: Cutout, ppm: float, cell: str, propose, limits: Limits,
             margin: float, player: str | None, layer: str,
             along=None) -> Placement | None:
        """Propose positions until one fits ``limits``, relaxing them when crowded.

        ``along`` (degrees, or a function of the proposed centre) is a preferred
        direction for the piece's long axis.
        """
        poly = self.cells[cell]
        small = _grid_alpha(sprite, ppm)
        best = None
        for attempt in range(240):
            lim = limits.relaxed(1.0 + attempt // 60)
            centre = propose()
            if not _inside(poly, centre, margin) or self.grid.tiles_at(centre) != 1:
                continue
            prefer = along(centre) if callable(along) else along
            angle = float(self.rng.uniform(0, 360)) if prefer is None or self.rng.uniform() < 0.3 \
                else prefer + float(self.rng.normal(0, 12)) + 180 * int(self.rng.integers(2))
            mask, x0, y0 = self.grid.footprint(small, centre, angle)
            over = self.grid.overlaps(mask, x0, y0)
            # What stays in view: on a tile, not under what is drawn later (beans, then peeps,
            # whose pictures lie over a bean's where the camera sees them).
            shown = over["tile"] - (over["peep_seen"] + over["bean"] if kind == "bean"
                                    else over["peep"])
            bad = max(over["bean"] - lim.bean, over["peep"] - lim.peep, over["egg"] - lim.egg,
                      over["keepout"] - lim.keepout, lim.on_tile - over["tile"],
                      MIN_SHOWN.get(kind, 0.0) - shown)
            if best is None or bad < best[0]:
                best = (bad, centre, angle, mask, x0, y0)
            if bad <= 0:
                break
        if best is None or best[0] > 0:
            return None  # no room: the piece is left out (and out of the truth)
        _, centre, angle, mask, x0, y0 = best
        self.grid.add(layer, mask, x0, y0)
        p = Placement(kind, player, cell, (float(centre[0]), float(centre[1])), angle, sprite, ppm)
        self.placed.append(p)
        if kind == "peep":
            self._add_seen(p, mask, x0, y0)
        return p

    def _add_seen(self, p: Placement, mask: np.ndarray, x0: int, y0: int) -> None:
        """Mark where peep ``p``'s picture lies over the beans' pictures (``peep_seen``)."""
        if self.eye_mm is None:
            self.grid.add("peep_seen", mask, x0, y0)
            return
        a = middle_seen_mm("peep", p.centre_mm, self.eye_mm)
        b = middle_seen_mm("bean", p.centre_mm, self.eye_mm)
        dx, dy = ((a[0] - b[0]) * GRID_PX_PER_MM, (a[1] - b[1]) * GRID_PX_PER_MM)
        self.grid.add("peep_seen", mask, x0 + int(round(dx)), y0 + int(round(dy)))

    def supply_center(self, cell: str, sprite: Cutout, ppm: float, kind: str) -> Placement:
        tile = parse_cell(cell).tile
        centre = self.centres[tile] + self.rng.normal(0, 0.8, 2)
        mask, x0, y0 = self.grid.footprint(_grid_alpha(sprite, ppm), centre, 0.0)
        self.grid.add("egg", mask, x0, y0)
        self.supplied.add(cell)
        p = Placement(kind, None, cell, (float(centre[0]), float(centre[1])), 0.0, sprite, ppm)
        self.placed.append(p)
        return p

    def peep(self, cell: str, player: str, sprite: Cutout, ppm: float, kind: str
             ) -> Placement | None:
        along = None
        if not parse_cell(cell).is_central:
            # A border cell is 50 mm deep and its ends hold markers: a 60 mm peep fits
            # lying across it, nose over the central cell or the tile's edge.
            a, b = self.cells[cell][0], self.cells[cell][1]
            along = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) + 90
        # Peeps stand well inside their cell (a border cell's middle), rarely at an edge.
        inner = PEEP_CENTRE_MARGIN_MM if self.rng.uniform() < 0.2 else 12.0
        if parse_cell(cell).is_central and cell in self.supplied:
            inner = PEEP_CENTRE_MARGIN_MM  # beside the egg: at the rim, over the border cells
        return self._try(kind, sprite, ppm, cell,
                         lambda: self.random_point(cell, inner),
                         Limits(bean=0.0, peep=0.05, egg=0.2, keepout=0.12, on_tile=0.88),
                         PEEP_CENTRE_MARGIN_MM, player, "peep", along)

    def beans(self, cell: str, player: str, sprites: list[Cutout], ppm: float,
              near: Placement | None) -> list[Placement]:
        """A player's beans in a cell: a touching cluster, half under ``near`` (a peep) if given."""
        rng = self.rng
        group: list[np.ndarray] = []
        on_peep = near is not None

        def propose() -> np.ndarray:
            if on_peep and rng.uniform() < 0.5:
                # Around the peep's middle, so the bean lies partly under it.
                a = rng.uniform(0, 2 * math.pi)
                return np.asarray(near.centre_mm) + rng.uniform(12, 24) * np.array(
                    [math.cos(a), math.sin(a)])
            if group and rng.uniform() < 0.8:
                a = rng.uniform(0, 2 * math.pi)
                base = group[rng.integers(len(group))]
                return base + rng.uniform(12.5, 17.0) * np.array([math.cos(a), math.sin(a)])
            return self.random_point(cell, BEAN_CENTRE_MARGIN_MM)

        limits = Limits(bean=0.07, peep=0.45 if on_peep else 0.03, egg=0.12, keepout=0.08)
        along = None
        if cell in self.supplied:  # around the egg: beans lie along its rim
            middle = self.centres[parse_cell(cell).tile]

            def along(c):
                return math.degrees(math.atan2(c[1] - middle[1], c[0] - middle[0])) + 90

        out = []
        for sprite in sprites:
            p = self._try("bean", sprite, ppm, cell, propose, limits, BEAN_CENTRE_MARGIN_MM,
                          player, "bean", along)
            if p is not None:
                group.append(np.asarray(p.centre_mm))
                out.append(p)
        return out

    def hand_coverage(self, outlines_mm: list[np.ndarray]) -> dict[str, float]:
        """Share of every cell covered by the hands' outlines."""
        for o in outlines_mm:
            self.grid.add_polygon("hand", o)
        return {name: self.grid.coverage("hand", poly) for name, poly in self.cells.items()}
