"""Reading what stands in every cell: beans, peeps, Supply Centers, and what is covered.

Works on the table-frame mosaic (:mod:`vision.peepwar.mosaic`), where sizes are known
in millimetres, with per-pixel players from :mod:`vision.peepwar.piece_pixels`:

1. **Supply Centers.** Over each central cell's circle, the foreground region
   holding the circle's middle is measured by its distance transform: an egg
   half or token leaves a round region at least ``SC_MIN_RADIUS_MM`` thick all
   round the middle, which a peep (35 mm wide) never does; one partly under a
   card shows most of its rim instead. Its disc is then set aside, so an egg in
   a player's colour is not read as their pieces.
2. **Occlusion.** Hands, arms and sleeves (:mod:`vision.peepwar.occlusion`) cover the
   cells they touch: those cells are reported ``occluded``, never empty. So are
   cells the camera does not fully see.
3. **Peeps.** On all pieces' foreground together, whatever is thicker than a
   cluster of beans can be (distance to the edge over ``PEEP_CORE_MM``) and
   mostly in its owner's *peep* colour rather than their bean colour is a
   peep's body; its owner is the majority player over it. Two peeps touching
   make one core whose thickness peaks twice: it is split between the peaks.
   Else a core holding two players' colours (their peeps side by side) is
   split into one per player; one player's cores too near for two peeps (a
   gap between tiles cuts a peep lying across it) are one peep. A core in its
   owner's bean colour waits for the beans: with no bean found near its middle,
   it is a peep after all (shaded like a bean, or an understudy card).
4. **Beans.** Round every region of pieces with a player's colour in it, the
   bean net (:mod:`vision.peepwar.bean_net`) marks each bean's centre: it has learnt
   from rendered tables how touching beans, beans half under a peep and dark
   glossy beans look, which outlines and areas alone do not tell. A bean is
   the player's whose colour lies round its centre (off the peeps first), and
   belongs to the cell under its centre; a greyish bean's (blackberry) peaks
   run cooler, and count from a lower heat; one lying on a central marker is as
   dark as the ink (no region of pieces) but hides the marker from the detector,
   so the net also looks over those markers. A faint peak on its own player's
   peep is a bean half under it where it is bean-coloured, and the peep's own
   shading where it is as peep-coloured as the rest of the peep. A peep with a
   bean's centre near its middle was a heap of beans as thick as a peep, and is
   dropped.

Every count comes with a confidence and, when it is a close call, a warning
naming the cell ("cell 1,0/2: a bean between red and orange").
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

from calibration.profile import Profile
from companion.rules.peepwar.board import parse_cell
from vision.peepwar import bean_net
from vision.peepwar.mask_shapes import disk, fill_holes, fill_holes_below, long_side, nearest_seed
from vision.peepwar.mosaic import Mosaic
from vision.peepwar.occlusion import PIECE_MAX_MM2, find_occluders
from vision.peepwar.piece_pixels import (
    UNKNOWN,
    PixelClasses,
    classify,
    components,
    nearest_bean,
)

HOLE_MM2 = 100.0  # holes smaller than this in a piece are highlights or eyes
PEEP_CORE_MM = 11.0  # a peep is 35 mm wide; bean clusters are never this thick
MIN_PEEP_CORE_MM2 = 25.0
PEEP_PAIR_CORE_MM2 = 700.0  # one peep's core is about 400 mm2; a larger one may hold two
PEEP_PARTS_MM = 25.0  # one player's peep cores nearer are one peep (two touching: 35 mm apart)
PEEP_BODY_MM = 14.0  # a peep's body is this thick at its middle (17.5 mm, less a blurred rim) ...
# ... two such peaks this far apart are two peeps' middles (a split whose parts' centres
# fall nearer than that after all is joined again, as one peep's parts are) ...
PEEP_APART_MM = PEEP_PARTS_MM
PEEP_NECK_DIP_MM = 3.0  # ... when the pieces between them are thinner by more than this
PEEP_SURE_MM = 17.0  # no heap of beans is this thick: a peep whatever its shading says
# ... or this thick, with a core a peep's length long (a peep's is 38 mm; a heap's is
# under 30): a printed understudy is flat, and its colour is as near the beans' as a peep's.
PEEP_LONG_SURE_MM = 16.0
PEEP_LONG_CORE_MM = 30.0
# A core as thick as a peep's (PEEP_CORE_MM) in its owner's bean colour is a peep when no
# bean's centre is found this near its middle (over 500 scenes, 95 % of such cores that were
# heaps had one within 11 mm).
PEEP_ALONE_MM = 15.0
PEEP_ALONE_CLEAR_MM = 3.0  # ... and no hand is this near it
PEEP_NO_BEAN_MM = 10.0  # no bean's centre is found this near a peep's middle
PEEP_COLOUR_SHARE = 0.5  # of a peep's pixels nearer its owner's peep model than bean model
PEEP_CLEAR_SHARE = 0.75  # ... this many: the colour tells body from bean near its edge
BODY_REACH_MM = 9.0  # a peep's body whatever the colour: this near its core ...
BODY_REACH_CLEAR_MM = 6.0  # ... or this near when its colour is clear
MIN_FRAGMENT_MM2 = 40.0  # regions of pieces under 0.6 of this hold no peep
SC_MIN_RADIUS_MM = 19.5  # a Supply Center covers the 40 mm circle: thicker than any peep
SC_SEARCH_MM = 4.8  # ... that thick this near the tile's centre, where the egg is set
# ... unless it is one peep with beans packed round it: this much of the disc this wide
# round it in one player's peep colour, and that colour's piece there a peep's size (35 x
# 60 mm) and shape (measured over seeds 0-999: peeps 31-39 mm across, eggs in a peep's
# colour with one leaning on them longer or larger)
ONE_PEEP_SHARE = 0.45
ONE_PEEP_DISC_MM = 15.0
ONE_PEEP_REACH_MM = 40.0
ONE_PEEP_ACROSS_MM = (29.0, 40.0)
ONE_PEEP_LONG_MM = (55.0, 67.0)
ONE_PEEP_AREA_MM2 = (1300.0, 1750.0)
SC_RIM_OFFSET_MM = 5.0  # a partly covered egg or token: its centre this near the tile's ...
SC_RIM_MIDDLE_MM = 8.0  # ... foreground over half the disc this wide round the tile's centre ...
SC_RIM_MIN_MM = 20.0  # ... its radius from this ...
SC_RIM_MAX_MM = 29.0  # ... to this ...
SC_RIM_SHARE = 0.6  # ... with this much of its rim on the foreground's outline ...
SC_RIM_FILL = 0.6  # ... and this much of its disc foreground
SC_PEEP_MM = 15.0  # a covered egg's or token's visible part is centred this near the
# tile's centre (its own centre within SC_RIM_OFFSET_MM, the card over it shifts the rest)
SC_COVERED_RIM_SHARE = 0.4  # an egg under a card read as a lone peep: this much of its rim
SC_COVERED_MAX_MM = 28.0  # ... of a radius up to this (the largest ring is beans round a peep)
SC_COVERED_OFFSET_MM = 4.5  # ... centred this near the tile's centre
# ... and one of no player's colour (UNKNOWN) was taken for a hand: as for an egg under a
# card, when this share of the foreground in its middle and in its disc is of no player's.
SC_UNPLAYED_SHARE = 0.6
RIM_SECTORS = 36
OCCLUDED_MIN_SHARE = 0.006  # of a cell under a hand (grown by 2 mm): occluded
MAX_LEGAL_TROOPS = 5
BORDER_WARN_MM = 1.5
DOUBT_CONFIDENCE = 0.7  # a doubtful bean, or a peak that may be one more
# A greyish bean (its colour model's chroma, the length of its first two features, under
# this: the blackberry beans' is 0.1 to 0.16, the next greyest 0.57) shows the net little
# colour against shadow and print, and its peaks run cooler: from it, a peak of
# bean_net.DOUBT_LOW is a (doubtful) bean.
GREY_BEAN_CHROMA = 0.3
PRINT_BOX_MM = 6.0  # a marker the detector did not see is looked over this far round it
PRINT_SAME_BEAN_MM = 6.0  # ... and a peak there this near another found one bean
# Smaller regions of pieces are specks: the net is not run on them, nor on those with less
# of any player's colour. A dark bean on a marker or in shadow shows only a speck of
# foreground (15-25 mm2): the net, seeing the whole bean round it, still finds it.
NET_MIN_MM2 = 12.0
NET_MIN_COLOURED_MM2 = 12.0
EGG_RIM_BEAN_MM = 3.0  # a bean's centre this far inside an egg's measured rim is on it
EDGE_SNAP_MM = 4.0  # a bean centred this near a tile's cell map, but off it, is in it
PEEP_SNAP_MM = 6.0  # ... a peep this near (half a 7 mm gap between tiles, and the edge's 1.5)
WHOSE_MM = 5.0  # a bean's colour is read this near its centre ...
WHOSE_FAR_MM = 7.0  # ... or this near, when little of it shows there
# ... each pixel voting by its colour margin, within these bounds: half a vote for a close
# call, up to two for a clear one.
VOTE_MIN, VOTE_MAX = 0.5, 2.0
WHOSE_MIN_MM2 = 3.0  # ... from at least this much of a player's colour
WHOLE_BEAN_MAX_DISTANCE = 10.0  # a bean no pixel of which is near a model, read whole: this near
WHOSE_DARK_SHARE = 0.2  # ... read whole too when under this share of it is near one
# A faint peak on a peep of its own player: the player's pixels on the peep within
# ON_PEEP_NEAR_MM of it, and over the whole peep (as far as ON_PEEP_REACH_MM), nearer their
# peep model than their bean model. Under a bean's threshold, with at most HALF_UNDER_PEEPISH
# of those near it and at least HALF_UNDER_PEEP_PEEPISH of the whole peep so: bean-coloured
# there, a bean half under the peep.
ON_PEEP_NEAR_MM = 3.0
ON_PEEP_REACH_MM = 45.0
HALF_UNDER_PEEPISH = 0.25
HALF_UNDER_PEEP_PEEPISH = 0.5
# Under DOUBT_HIGH, this much peep-coloured near it and over the whole peep, and this deep
# inside the peep's body: the peep's own shading, no bean.
PEEP_OWN_PEEPISH = 0.95
PEEP_OWN_DEPTH_MM = 2.5


@dataclass
class CellRead:
    """What the reader found in one cell."""

    troops: dict[str, int] = field(default_factory=dict)
    peeps: dict[str, int] = field(default_factory=dict)
    supply_center: bool = False
    occluded: bool = False
    confidence: float = 1.0

    def lower(self, c: float) -> None:
        self.confidence = min(self.confidence, c)

    def to_json(self) -> dict | None:
        """The cell as the observation lists it; None for an empty cell (left out)."""
        if self.occluded:
            return {"occluded": True, "confidence": round(self.confidence, 3)}
        players = sorted(set(self.troops) | set(self.peeps))
        pieces = {p: {"troops": self.troops.get(p, 0), "peep": self.peeps.get(p, 0) > 0}
                  for p in players if self.troops.get(p, 0) or self.peeps.get(p, 0)}
        if not pieces and not self.supply_center:
            return None
        return {"supply_center": self.supply_center, "pieces": pieces,
                "confidence": round(self.confidence, 3)}


@dataclass
class PieceReading:
    cells: dict[str, CellRead]
    warnings: list[str]
    players: list[str]


def _cell_at(mosaic: Mosaic, pt) -> int:
    x, y = int(round(pt[0])), int(round(pt[1]))
    h, w = mosaic.cell_map.shape
    if 0 <= x < w and 0 <= y < h:
        return int(mosaic.cell_map[y, x])
    return -1


def _nearest(grid: np.ndarray, x: int, y: int, r: int, wanted) -> tuple[int, int] | None:
    """The value of ``grid`` nearest (x, y) within the square of half-side ``r`` where
    ``wanted(window)`` holds, and its squared distance; None if nowhere."""
    y0, x0 = max(y - r, 0), max(x - r, 0)
    win = grid[y0:y + r + 1, x0:x + r + 1]
    ys, xs = np.nonzero(wanted(win))
    if not len(ys):
        return None
    d = (ys + y0 - y) ** 2 + (xs + x0 - x) ** 2
    k = int(np.argmin(d))
    return int(win[ys[k], xs[k]]), int(d[k])


def _cell_near(mosaic: Mosaic, pt, reach_px: float) -> int:
    """The cell nearest ``pt`` within ``reach_px``, or -1."""
    x, y = int(round(pt[0])), int(round(pt[1]))
    near = _nearest(mosaic.cell_map, x, y, int(math.ceil(reach_px)), lambda win: win >= 0)
    return near[0] if near is not None and near[1] <= reach_px * reach_px else -1


def _near_border(mosaic: Mosaic, pt, cell: int) -> int:
    """Another cell within BORDER_WARN_MM of ``pt``, or -1."""
    d = BORDER_WARN_MM * mosaic.px_per_mm
    for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d)):
        other = _cell_at(mosaic, (pt[0] + dx, pt[1] + dy))
        if other not in (cell, -1):
            return other
    return -1


class _Reader:
    def __init__(self, mosaic: Mosaic, px: PixelClasses, profile: Profile) -> None:
        self.m = mosaic
        self.px = px
        self.profile = profile
        self.s = mosaic.px_per_mm
        self.cells = {name: CellRead() for name in mosaic.cell_names}
        self.warnings: list[str] = []
        h, w = mosaic.cell_map.shape
        self.egg = np.zeros((h, w), np.uint8)  # Supply Centers' discs: no pieces there
        self.egg_core = np.zeros((h, w), np.uint8)  # ... their parts no peep leans over
        self.occluder = np.zeros((h, w), np.uint8)
        self.body = np.zeros((h, w), np.uint8)  # peeps found
        self.eggs: list[tuple[float, float, float]] = []  # Supply Centers: x, y, radius (px)
        # Central cells where none was found: the region round the tile's centre (foreground,
        # closed and filled) and its box's top-left corner.
        self._no_supply_center: dict[str, tuple[np.ndarray, int, int]] = {}
        # Peeps found: cell, player, x, y (px), and the warnings they gave.
        self.peeps_at: list[tuple[str, str, float, float, list[str]]] = []
        self.beans_at: list[tuple[float, float]] = []  # centres (px) of beans at peaks >= 0.5
        self.counted_at: list[tuple[float, float]] = []  # centres (px) of every bean counted
        # Cores as thick as a peep's but in its owner's bean colour, and their pixels (flat
        # mosaic indices).
        self.maybe_peeps: list[tuple[_FoundPeep, np.ndarray]] = []
        # Regions of pieces (count, labels, stats as connectedComponentsWithStats gives).
        self.regions: tuple[int, np.ndarray, np.ndarray] = (
            1, np.zeros((h, w), np.uint16), np.zeros((1, 5), np.int32))
        self._planes: bean_net.Planes | None = None  # made once the peeps are found
        self._bean_threshold = [
            bean_net.DOUBT_LOW
            if float(np.hypot(*profile.colours[p].bean.mean[:2])) < GREY_BEAN_CHROMA
            else bean_net.THRESHOLD for p in px.players]

    def mm2(self, px_count: float) -> float:
        return px_count / (self.s * self.s)

    def warn(self, cell: str, text: str) -> None:
        self.warnings.append(f"cell {cell}: {text}")

    # --- Supply Centers -------------------------------------------------------------------

    def supply_centers(self) -> None:
        s = self.s
        fg = self.px.fg.astype(np.uint8)
        h, w = fg.shape
        for (q, r), centre in self.m.tile_centres_px.items():
            name = f"{q},{r}/c"
            cx, cy = centre
            rad = int(math.ceil(34 * s))
            x0, y0 = max(int(cx) - rad, 0), max(int(cy) - rad, 0)
            x1, y1 = min(int(cx) + rad + 1, w), min(int(cy) + rad + 1, h)
            if x1 - x0 < 3 or y1 - y0 < 3:
                continue
            crop = fg[y0:y1, x0:x1].copy()
            # Highlights on a glossy egg are paper-white: close them so the egg is solid.
            crop = cv2.morphologyEx(crop, cv2.MORPH_CLOSE, disk(1.5 * s))
            crop = fill_holes(crop)
            dt = cv2.distanceTransform(crop, cv2.DIST_L2, 5)
            near = ((np.arange(x0, x1) - cx) ** 2)[None, :] \
                + ((np.arange(y0, y1) - cy) ** 2)[:, None] <= (SC_SEARCH_MM * s) ** 2
            if not near.any():
                continue
            k = np.argmax(np.where(near, dt, -1))
            thick = float(dt.ravel()[k]) / s
            ey, ex = np.unravel_index(k, dt.shape)
            if thick >= SC_MIN_RADIUS_MM and not self._one_peep_at(int(ex + x0), int(ey + y0)):
                confidence = min(1.0, 0.5 + (thick - SC_MIN_RADIUS_MM) / 3)
                radius = min(thick, 30.0)
            else:
                rim = _egg_rim(crop, (cx - x0, cy - y0), s)
                said = "a Supply Center partly covered (its rim shows)"
                if rim is None:
                    rim = self._unplayed_egg_rim(crop, x0, y0, (cx, cy))
                    said = "a Supply Center in no player's colour, partly covered"
                if rim is None:
                    self._no_supply_center[name] = (crop, x0, y0)
                    continue
                ex, ey, radius, arc = rim
                confidence = 0.5 + 0.4 * arc
                self.warn(name, said)
            self.cells[name].supply_center = True
            self.cells[name].lower(confidence)
            cv2.circle(self.egg, (int(round(ex + x0)), int(round(ey + y0))),
                       int(round((radius + 1.5) * s)), 1, -1)
            # The thickest point lies off the tile's centre towards what leans on the egg
            # (a peep): the disc halfway back, as much smaller, is the egg's for certain.
            off = math.hypot(ex + x0 - cx, ey + y0 - cy) / s
            cv2.circle(self.egg_core, (int(round((ex + x0 + cx) / 2)),
                                       int(round((ey + y0 + cy) / 2))),
                       int(round((radius - off / 2 + 1.5) * s)), 1, -1)
            self.eggs.append((float(ex + x0), float(ey + y0), radius * s))

    def _unplayed_egg_rim(self, crop: np.ndarray, x0: int, y0: int,
                          centre: tuple[float, float]
                          ) -> tuple[float, float, float, float] | None:
        """An egg half or token in a colour no player plays, under an understudy's card:
        what shows of it is as short of an egg's thickness and rim as in
        :meth:`covered_eggs_not_peeps`, and, in no player's colour, was taken for a hand.
        Its rim (see :func:`_egg_rim`) as there, when the foreground round the tile's
        centre (``crop``, its box's corner at x0, y0) and within that rim is mostly of no
        player's colour (SC_UNPLAYED_SHARE); None otherwise."""
        s = self.s
        cx, cy = centre[0] - x0, centre[1] - y0
        h, w = crop.shape
        labels = self.px.label[y0:y0 + h, x0:x0 + w]
        fg = self.px.fg[y0:y0 + h, x0:x0 + w]
        yy, xx = np.ogrid[:h, :w]
        mid = SC_RIM_MIDDLE_MM * s
        middle = ((xx - cx) ** 2 + (yy - cy) ** 2 <= mid * mid) & fg
        if np.count_nonzero(labels[middle] == UNKNOWN) < SC_UNPLAYED_SHARE * np.count_nonzero(
                middle):
            return None
        rim = _covered_egg_rim(crop, (cx, cy), s)
        if rim is None:
            return None
        inside = ((xx - rim[0]) ** 2 + (yy - rim[1]) ** 2 <= (rim[2] * s) ** 2) & fg
        if np.count_nonzero(labels[inside] == UNKNOWN) < SC_UNPLAYED_SHARE * np.count_nonzero(
                inside):
            return None
        return rim

    def _one_peep_at(self, x: int, y: int) -> bool:
        """Whether what is as thick as a Supply Center at mosaic point (x, y) is one peep
        with beans packed round it: most of the disc of ONE_PEEP_DISC_MM round it in one
        player's peep colour, and that colour's piece there (its convex hull: an egg's
        highlight or shading cuts into it) of a peep's size and shape, not an egg's round.

        A peep is 35 mm wide: alone it is thinner than any Supply Center, but beans touching
        it all round make it as thick. An egg or token in a peep's colour is round, and with
        a peep leaning on it, larger than one peep."""
        s = self.s
        n_players = len(self.px.players)
        sl, disc = self._disc(x, y, ONE_PEEP_DISC_MM)
        label = self.px.label[sl][disc]
        counts = np.bincount(label[label < n_players], minlength=n_players)
        if not counts.any():
            return False
        p = int(np.argmax(counts))
        peep_coloured = np.count_nonzero((label == p) & self.px.peepish[sl][disc])
        if peep_coloured < ONE_PEEP_SHARE * np.count_nonzero(disc):
            return False
        sl, _ = self._disc(x, y, ONE_PEEP_REACH_MM)
        y0, x0 = sl[0].start, sl[1].start
        mine = ((self.px.label[sl] == p) & self.px.peepish[sl]).astype(np.uint8)
        mine = cv2.morphologyEx(mine, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, parts, stats, _ = cv2.connectedComponentsWithStats(mine, connectivity=8)
        if n < 2:
            return False
        k = int(parts[y - y0, x - x0]) or 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        outline, _ = cv2.findContours((parts == k).view(np.uint8), cv2.RETR_EXTERNAL,
                                      cv2.CHAIN_APPROX_SIMPLE)
        m = cv2.moments(cv2.convexHull(np.vstack(outline)))
        if m["m00"] <= 0:
            return False
        # A filled ellipse's axes are 4 standard deviations long.
        a, b, c = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
        half_gap = math.sqrt(((a - b) / 2) ** 2 + c * c)
        small, large = (a + b) / 2 - half_gap, (a + b) / 2 + half_gap
        across, length = 4 * math.sqrt(max(small, 0.0)) / s, 4 * math.sqrt(large) / s
        area = self.mm2(m["m00"])
        return (ONE_PEEP_ACROSS_MM[0] <= across <= ONE_PEEP_ACROSS_MM[1]
                and ONE_PEEP_LONG_MM[0] <= length <= ONE_PEEP_LONG_MM[1]
                and ONE_PEEP_AREA_MM2[0] <= area <= ONE_PEEP_AREA_MM2[1])

    # --- occlusion -------------------------------------------------------------------------

    def mark_occluded(self) -> None:
        occ = cv2.dilate(self.occluder, disk(2.0 * self.s)).view(bool)  # 0/1: found faster
        cm = self.m.cell_map
        n_cells = len(self.m.cell_names)

        def per_cell(mask: np.ndarray) -> np.ndarray:
            # Pixels off the tiles (-1) are counted in bin 0 and dropped.
            at = cm.ravel()[np.flatnonzero(mask)].astype(np.intp)
            return np.bincount(at + 1, minlength=n_cells + 1)[1:]

        covered = per_cell(occ)
        outside = per_cell(self.m.on_tiles & ~self.m.in_frame)
        if not (covered.any() or outside.any()):
            return
        # Cell areas, from a histogram of the cell map (shifted so off the tiles is bin 0).
        shifted = (cm + np.int16(1)).view(np.uint16)
        area = cv2.calcHist([shifted], [0], None, [n_cells + 1], [0, n_cells + 1]).ravel()[1:]
        for i, name in enumerate(self.m.cell_names):
            if area[i] == 0:
                continue
            share = covered[i] / area[i]
            if share >= OCCLUDED_MIN_SHARE or outside[i] / area[i] > 0.01:
                c = self.cells[name]
                c.occluded = True
                c.lower(min(1.0, 0.5 + share))

    # --- players' pieces -------------------------------------------------------------------

    def peeps(self) -> None:
        """Peeps from the shape of all players' pieces together; keeps the regions of pieces
        (``self.regions``) for the beans.

        Only the core of an egg's disc is set aside for peeps: a peep leaning on the egg
        pulls the disc's measured centre towards it, and the whole disc hid half the peep
        (it was not found, or found in the cell beside). The beans' regions leave out all
        of the disc (their boxes stay as found)."""
        s = self.s
        blocked = (self.egg_core > 0) | (self.occluder > 0)
        # Peeps are measured on all foreground: a peep's glossy top can be nearer no model.
        ours = (self.px.fg & ~blocked).astype(np.uint8)
        if not ours.any():
            return
        ours = cv2.morphologyEx(ours, cv2.MORPH_CLOSE, disk(1.2 * s))
        ours = fill_holes_below(ours, int(HOLE_MM2 * s * s))
        ours[blocked] = 0
        n, lab, stats, _ = components(ours, 8)
        self.regions = (n, lab, stats)
        found: list[_FoundPeep] = []  # cores, before a gap's parts are joined
        # Python ints: numpy scalars make each of these small tests cost microseconds.
        for i, (x, y, w, h, area) in enumerate(stats[1:].tolist(), 1):
            if self.mm2(area) < MIN_FRAGMENT_MM2 * 0.6:
                continue
            x0, y0 = max(x - 2, 0), max(y - 2, 0)
            x1, y1 = min(x + w + 2, ours.shape[1]), min(y + h + 2, ours.shape[0])
            # No pixel lies farther than (min(w, h) + 1) / 2 from its box's edge, so a thin
            # region cannot hold a peep's core (unless an egg beside it adds thickness);
            # one too large for pieces still goes to _peeps, which marks it an occluder.
            if (min(w, h) + 1 < 2 * PEEP_CORE_MM * s and self.mm2(area) <= PIECE_MAX_MM2
                    and not self.egg_core[y0:y1, x0:x1].any()):
                continue
            comp = (lab[y0:y1, x0:x1] == i).astype(np.uint8)
            found += self._peeps(comp, x0, y0)
        for player, centre, share in _whole_peeps(found, PEEP_PARTS_MM * s):
            self._peep(player, centre, share)
        for ex, ey, radius in self.eggs:
            # The disc round the core is no region's for the beans (in place: the peeps
            # are found).
            r = int(math.ceil(radius + 1.5 * s)) + 1
            box = (slice(max(int(ey) - r, 0), int(ey) + r + 1),
                   slice(max(int(ex) - r, 0), int(ex) + r + 1))
            lab[box][self.egg[box] > 0] = 0

    def planes(self) -> bean_net.Planes:
        if self._planes is not None:
            return self._planes
        blocked = (self.egg > 0) | (self.occluder > 0) | ~self.m.on_tiles | ~self.m.in_frame
        self._planes = bean_net.Planes(self.px.balanced, self.px.white,
                                       self.px.label < len(self.px.players), self.body,
                                       blocked, self.m.ink)
        return self._planes

    def beans_by_net(self) -> None:
        """Every bean's centre from the bean net, run over each region of pieces (grown by
        the net's context; boxes of one shape in one batch); whose bean by the colours round
        it. A peak seen from two regions' boxes belongs to the region nearest it of those the
        net was run over (a bean too faint to make its own region is still counted)."""
        n, lab, stats = self.regions
        s = self.s
        H, W = lab.shape
        ctx = int(math.ceil(bean_net.CONTEXT_MM * s))
        # Only regions with some player's colour can hold a bean of theirs.
        coloured = np.bincount(lab.ravel()[np.flatnonzero(self.px.label < len(self.px.players))],
                               minlength=n).tolist()
        ran = np.zeros(n, bool)
        boxes: list[tuple[int, tuple[int, int, int, int]]] = []
        for i, (x, y, w, h, area) in enumerate(stats[1:].tolist(), 1):
            if self.mm2(area) < NET_MIN_MM2 or self.mm2(coloured[i]) < NET_MIN_COLOURED_MM2:
                continue
            ran[i] = True
            boxes.append((i, (max(x - ctx, 0), max(y - ctx, 0),
                              min(x + w + ctx, W), min(y + h + ctx, H))))
        orphans: list[tuple[float, float, float]] = []  # peaks near no region run over
        for i, at, heat in self._peaks_in(boxes, bean_net.DOUBT_LOW):
            nearest = self._nearest_region(at, ran)
            if nearest == i:
                self._net_bean(at, heat)
            elif nearest == 0:
                orphans.append((heat, *at))
        self._grey_beans_on_markers(ran, orphans, [box for _, box in boxes])

    def _peaks_in(self, boxes: list[tuple[int, tuple[int, int, int, int]]], floor: float
                  ) -> Iterator[tuple[int, tuple[float, float], float]]:
        """The net's peaks hotter than ``floor`` in each of ``boxes`` (key, (x0, y0, x1, y1)),
        boxes of one shape run as one batch: (key, mosaic point, heat) each."""
        batches: dict[tuple[int, ...], list] = {}
        for key, box in boxes:
            x_in = bean_net.net_input(self.planes(), box, bean_net.BATCH_STEP)
            batches.setdefault(x_in.shape, []).append((key, box, x_in))
        answers = []  # (key, box, the net's answer): every batch's, for one peak search
        for group in batches.values():
            out = bean_net.run(np.stack([g[2] for g in group]))
            answers += [(key, box, one) for (key, box, _), one in zip(group, out, strict=True)]
        for (key, box, _), found in zip(answers, bean_net.peaks_of_batch(
                [one for _, _, one in answers], floor), strict=True):
            for p in found:
                yield key, (box[0] + p.x, box[1] + p.y), p.heat

    def _grey_beans_on_markers(self, ran: np.ndarray,
                               orphans: list[tuple[float, float, float]],
                               looked: list[tuple[int, int, int, int]]) -> None:
        """A greyish bean lying on a marker's print is about as dark as the ink and makes no
        region of pieces, but it hides the marker from the detector. Where a greyish player
        plays, the net also looks over every central marker not seen (unless a region's
        box in ``looked`` held it already). Its sure peaks there and the sure ``orphans``
        (heat, x, y: peaks found in a region's box but nearer no region) are beans when
        of a greyish player's colour; peaks this near one another from two boxes are one."""
        grey = [i for i, t in enumerate(self._bean_threshold) if t < bean_net.THRESHOLD]
        if not grey:
            return
        s = self.s
        H, W = self.m.ink.shape
        pad = PRINT_BOX_MM * s
        boxes: list[tuple[int, tuple[int, int, int, int]]] = []
        for corners in self.m.unseen_central_markers:
            (x0, y0), (x1, y1) = corners.min(axis=0) - pad, corners.max(axis=0) + pad
            box = (max(int(x0), 0), max(int(y0), 0), min(int(x1) + 1, W), min(int(y1) + 1, H))
            if box[2] - box[0] < 8 or box[3] - box[1] < 8 or any(  # (px): mostly off the mosaic
                    a[0] <= box[0] and a[1] <= box[1] and box[2] <= a[2] and box[3] <= a[3]
                    for a in looked):
                continue
            boxes.append((0, box))
        found = list(orphans)
        for _, at, heat in self._peaks_in(boxes, bean_net.THRESHOLD):
            if self._nearest_region(at, ran) == 0:
                found.append((heat, *at))
        taken = list(self.counted_at)
        near = PRINT_SAME_BEAN_MM * s
        for heat, x, y in sorted(found, reverse=True):
            if heat < bean_net.THRESHOLD or any(
                    (x - a) ** 2 + (y - b) ** 2 < near * near for a, b in taken):
                continue
            taken.append((x, y))
            self._net_bean((x, y), heat, only=grey)

    def _nearest_region(self, at: tuple[float, float], ran: np.ndarray) -> int:
        """The region of pieces at mosaic point ``at``, else the nearest within the net's
        context, of those with ``ran`` set (0: none)."""
        lab = self.regions[1]
        x, y = int(round(at[0])), int(round(at[1]))
        H, W = lab.shape
        if not (0 <= x < W and 0 <= y < H):
            return 0
        if ran[lab[y, x]]:
            return int(lab[y, x])
        near = _nearest(lab, x, y, int(math.ceil(bean_net.CONTEXT_MM * self.s)),
                        lambda win: ran[win])
        return 0 if near is None else near[0]

    def _net_bean(self, at: tuple[float, float], heat: float,
                  only: list[int] | None = None) -> None:
        """A peak of the bean net's heat at mosaic point ``at``: a bean (or a doubt) of the
        player whose colour lies round it, in the cell under it (dropped unless that player
        is in ``only``, when given)."""
        # Beans lie beside an egg half, never on its dome. The egg's radius is measured on
        # its foreground, which beans touching its rim widen: a bean's centre found a few
        # millimetres inside that radius is still beside the egg.
        deep = EGG_RIM_BEAN_MM * self.s
        if any((at[0] - ex) ** 2 + (at[1] - ey) ** 2 < (rad - deep) ** 2
               for ex, ey, rad in self.eggs if rad > deep):
            return
        ci = _cell_at(self.m, at)
        if ci < 0:
            # The cell map stops short of a tile's cut edge, where a bean's centre (found
            # a millimetre or two off) can fall: the nearest cell, if that near.
            ci = _cell_near(self.m, at, EDGE_SNAP_MM * self.s)
            if ci < 0:
                return
        pi, margin, second = self._whose(at)
        if pi < 0 or (only is not None and pi not in only):
            return
        player = self.px.players[pi]
        name = self.m.cell_names[ci]
        cell = self.cells[name]
        half_under = shading = False
        colour = self._on_own_peep(at, pi) if heat < bean_net.DOUBT_HIGH else None
        if colour is not None:
            # A faint peak on a peep of its own player: bean-coloured round it, a bean half
            # under the peep; as peep-coloured as all the peep, and inside it, the peep's
            # own shading (its nose, its tail).
            here, whole, depth = colour
            if heat < self._bean_threshold[pi]:
                half_under = here <= HALF_UNDER_PEEPISH and whole >= HALF_UNDER_PEEP_PEEPISH
            elif self._bean_threshold[pi] == bean_net.THRESHOLD:
                # (A greyish bean's peaks run cooler, and its colour is no peep's or bean's.)
                shading = min(here, whole) >= PEEP_OWN_PEEPISH and depth >= PEEP_OWN_DEPTH_MM
        if shading or (heat < self._bean_threshold[pi] and not half_under):
            cell.lower(DOUBT_CONFIDENCE)
            self.warn(name, f"perhaps one more {player} bean ({heat:.0%} sure)")
            return
        cell.troops[player] = cell.troops.get(player, 0) + 1
        self.counted_at.append((float(at[0]), float(at[1])))
        if heat >= bean_net.THRESHOLD:
            self.beans_at.append((float(at[0]), float(at[1])))
        if half_under:
            cell.lower(DOUBT_CONFIDENCE)
            self.warn(name, f"a {player} bean half under {player}'s peep ({heat:.0%} sure)")
        elif heat < bean_net.DOUBT_HIGH:
            cell.lower(DOUBT_CONFIDENCE)
            self.warn(name, f"a doubtful {player} bean ({heat:.0%} sure)")
        other = _near_border(self.m, at, ci)
        if other >= 0:
            self.warn(name, f"a {player} bean on the border with {self.m.cell_names[other]}")
            cell.lower(0.6)
        if second < 0:
            self.warn(name, f"a dark bean, read as {player}'s by its colour as a whole")
            cell.lower(DOUBT_CONFIDENCE)
        elif margin < 1.0:
            self.warn(name, f"a bean between {player} and {self.px.players[second]}")
            cell.lower(0.5)

    def _on_own_peep(self, at: tuple[float, float], pi: int
                     ) -> tuple[float, float, float] | None:
        """For a peak at mosaic point ``at``, read as player ``pi``'s, lying on a peep of
        theirs (most of its players' colour is theirs): the share of their pixels on the
        peep within ON_PEEP_NEAR_MM of it that are nearer their peep model than their bean
        model, the same share over the whole peep (as far as ON_PEEP_REACH_MM), and how
        deep (mm) inside the peep's body the peak lies. None when it is on no peep of
        theirs."""
        x, y = int(round(at[0])), int(round(at[1]))
        H, W = self.body.shape
        if not (0 <= x < W and 0 <= y < H) or not self.body[y, x]:
            return None
        sl, near = self._disc(x, y, ON_PEEP_NEAR_MM)
        mine = near & (self.body[sl] > 0) & (self.px.label[sl] == pi)
        n_mine = np.count_nonzero(mine)
        if n_mine < WHOSE_MIN_MM2 * self.s * self.s:
            return None
        here = np.count_nonzero(mine & self.px.peepish[sl]) / n_mine
        sl, _ = self._disc(x, y, ON_PEEP_REACH_MM)
        _, cc = cv2.connectedComponents(self.body[sl], connectivity=8)
        at_peak = (y - sl[0].start, x - sl[1].start)
        peep = cc == cc[at_peak]
        labels = self.px.label[sl][peep]
        theirs = labels == pi
        n_theirs = np.count_nonzero(theirs)
        if 2 * n_theirs < np.count_nonzero(labels < len(self.px.players)):
            return None
        whole = np.count_nonzero(self.px.peepish[sl][peep][theirs]) / n_theirs
        depth = cv2.distanceTransform(peep.view(np.uint8), cv2.DIST_L2, 3)[at_peak] / self.s
        return float(here), float(whole), float(depth)

    def _disc(self, x: int, y: int, radius_mm: float
              ) -> tuple[tuple[slice, slice], np.ndarray]:
        """The mosaic's box round (x, y) of half-side ``radius_mm`` (cut at the mosaic's
        edge), and which of its pixels lie within that radius."""
        H, W = self.px.label.shape
        r = int(math.ceil(radius_mm * self.s))
        y0, x0 = max(y - r, 0), max(x - r, 0)
        sl = (slice(y0, min(y + r + 1, H)), slice(x0, min(x + r + 1, W)))
        return sl, _round_window(r)[y0 - y + r:sl[0].stop - y + r, x0 - x + r:sl[1].stop - x + r]

    def _whose(self, at: tuple[float, float]) -> tuple[int, float, int]:
        """The player whose colour is commonest round ``at`` (off the peeps first: a bean
        half under a peep shows its own colour round its centre), with the median colour
        margin there and the commonest runner-up; (-1, 0, -1) when no player's colour is near."""
        s = self.s
        x, y = int(round(at[0])), int(round(at[1]))
        n_players = len(self.px.players)
        for radius_mm, off_peeps in ((WHOSE_MM, True), (WHOSE_FAR_MM, True),
                                     (WHOSE_MM, False)):
            sl, near = self._disc(x, y, radius_mm)
            if off_peeps:
                near = near & (self.body[sl] == 0)
            labels = self.px.label[sl][near]
            mine = labels < n_players
            n_mine = np.count_nonzero(mine)
            if n_mine < WHOSE_MIN_MM2 * s * s:
                continue
            if radius_mm == WHOSE_MM and off_peeps and n_mine < WHOSE_DARK_SHARE * len(labels):
                # A few pixels of a dark bean near some colour (a blackberry bean's
                # speckles, its rim against the paper) can name anyone: read it whole.
                whole = self._whole_bean(x, y)
                if whole >= 0:
                    return whole, math.inf, -1
            # Each pixel votes by how clearly it is its player's: a glossy bean's lit side
            # is paler than its colour, near the next colour (red lit looks orange).
            all_margins = self.px.margin[sl][near]
            # (np.clip's own overhead is twice this on so few pixels)
            sure = np.minimum(np.maximum(all_margins[mine], VOTE_MIN), VOTE_MAX)
            votes = np.bincount(labels[mine], weights=sure, minlength=n_players)
            pi = int(np.argmax(votes))
            theirs = labels == pi
            margins = all_margins[theirs]
            seconds = self.px.runner_up[sl][near][theirs]
            # A pixel the mode filter gave to pi can have pi as its own runner-up.
            second = np.bincount(seconds, minlength=n_players)
            second[pi] = -1
            return pi, _median(margins), int(second.argmax())
        # No pixel near any player's colour on its own: a glossy near-black bean. Its
        # foreground read as a whole names the player whose bean it is, if any is near.
        pi = self._whole_bean(x, y)
        return (pi, math.inf, -1) if pi >= 0 else (-1, 0.0, -1)

    def _whole_bean(self, x: int, y: int) -> int:
        """The player whose bean model most of the foreground off the peeps within
        WHOSE_FAR_MM of mosaic point (x, y) is nearest, if the median distance is under
        WHOLE_BEAN_MAX_DISTANCE; -1 otherwise."""
        s = self.s
        sl, near = self._disc(x, y, WHOSE_FAR_MM)
        near = near & (self.body[sl] == 0)
        seen = near & self.px.fg[sl]
        if np.count_nonzero(seen) < WHOSE_MIN_MM2 * s * s:
            # Not even foreground: a bean so dark and glossy that the net alone found it
            # (by its shape). What is darker than paper round it is bean (or print it hides).
            seen = near & self.px.shaded[sl]
            if np.count_nonzero(seen) < WHOSE_MIN_MM2 * s * s:
                return -1
        ys, xs = np.nonzero(seen)
        flat = (ys + sl[0].start) * self.px.label.shape[1] + (xs + sl[1].start)
        pi, distance = nearest_bean(self.px, self.profile, flat)
        return pi if pi >= 0 and distance <= WHOLE_BEAN_MAX_DISTANCE else -1

    def _peeps(self, comp: np.ndarray, x0: int, y0: int) -> list[_FoundPeep]:
        """Peeps in one region of pieces: cores thicker than any bean cluster, owner by vote.

        A peep leaning on an egg half keeps its thickness: the egg counts as more of
        the same for measuring it, though no peep is found inside the egg itself.
        """
        s = self.s
        sl = (slice(y0, y0 + comp.shape[0]), slice(x0, x0 + comp.shape[1]))
        egg = self.egg_core[sl]
        dt = cv2.distanceTransform(comp | egg, cv2.DIST_L2, 5) / s
        own = dt * (comp > 0)
        if self.mm2(int(comp.sum())) > PIECE_MAX_MM2:
            # Far too much colour for pieces: a sleeve or a hand in a player's colour. (Too
            # thick is for big_regions to judge: measured here, two peeps side by side are
            # as thick as a hand.)
            self.occluder[sl] |= comp
            return []
        if float(own.max()) < PEEP_CORE_MM:
            return []
        near_egg = cv2.dilate(egg, disk(2.0 * s)) > 0
        core = ((own >= PEEP_CORE_MM) & ~near_egg).astype(np.uint8)
        n, lab, stats, _ = components(core, 8)
        labels = self.px.label[sl]
        n_players = len(self.px.players)
        todo: list[tuple[np.ndarray, bool, np.ndarray | None]] = []
        # Two peeps touching make one core with two thick middles; measured without an egg
        # beside them, as a heap leaning on an egg is as thick as a peep there.
        alone = cv2.distanceTransform(comp, cv2.DIST_L2, 5) / s if egg.any() else own
        for j in range(1, n):
            if self.mm2(stats[j, cv2.CC_STAT_AREA]) < MIN_PEEP_CORE_MM2:
                continue
            one = (lab == j).view(np.uint8)
            parts = _touching_peeps(one, alone, s)
            if len(parts) > 1:
                # Each peep keeps the pieces nearer its own middle than the other's.
                todo += [(part, False, territory) for part, territory in parts]
                continue
            # Two players' peeps side by side can make one core of one thickness: split it by
            # colour. A core too small for two peeps is one, whatever colours its shading takes.
            by_player = np.bincount(labels[(one > 0) & (labels < n_players)], minlength=n_players)
            split = np.nonzero(by_player >= MIN_PEEP_CORE_MM2 * s * s)[0]
            if len(split) >= 2 and self.mm2(stats[j, cv2.CC_STAT_AREA]) >= PEEP_PAIR_CORE_MM2:
                todo += [(((one > 0) & (labels == p)).view(np.uint8), True, None) for p in split]
            else:
                todo.append((one, True, None))
        found: list[_FoundPeep] = []
        while todo:
            one, may_split, territory = todo.pop()
            reach = cv2.distanceTransform(1 - one, cv2.DIST_L2, 5) / s
            region = (reach <= PEEP_CORE_MM + 1.0) & (comp > 0)
            # Its centre: the part leaning over an egg counts too (it is there, unseen).
            whole = (reach <= PEEP_CORE_MM + 1.0) & ((comp > 0) | (egg > 0))
            if territory is not None:
                region &= territory
                whole &= territory
            votes = np.bincount(labels[region & (labels < len(self.px.players))],
                                minlength=len(self.px.players))
            if votes.sum() == 0:
                continue
            owner = int(np.argmax(votes))
            # A tight heap of beans can be as thick as a peep; its colour says bean -- unless
            # it is thicker than any heap, when the lamp has shaded a peep like a bean.
            mine = region & (labels == owner)
            if not mine.any():
                continue
            peep_share = float(np.mean(self.px.peepish[sl][mine]))
            peep_coloured = peep_share >= PEEP_COLOUR_SHARE
            thick = float(own[one > 0].max())
            if not peep_coloured and thick < PEEP_SURE_MM and not (
                    thick >= PEEP_LONG_SURE_MM and long_side(one) >= PEEP_LONG_CORE_MM * s):
                # ... unless no bean is found in it (peeps_not_heaps, once beans are).
                ys, xs = np.nonzero(whole)
                if len(xs):
                    self.maybe_peeps.append((_FoundPeep(
                        self.px.players[owner], float(xs.mean()) + x0, float(ys.mean()) + y0,
                        float(votes[owner]) / float(votes.sum()), len(xs)),
                        (ys + y0) * self.px.fg.shape[1] + (xs + x0)))
                continue
            if peep_coloured and may_split and self.mm2(int(one.sum())) >= PEEP_PAIR_CORE_MM2:
                parts = self._same_player_peeps(one, comp, labels == owner, sl)
                if len(parts) > 1:
                    todo += [(part, False, None) for part in parts]
                    continue
            # The body's rim: within reach of the core and in the peep's colour, so that a
            # bean tucked against the peep keeps its own pixels (by reach alone when the
            # colour does not tell). Inside that, the body whatever the colour (its shaded
            # side), less far where the peep is clearly in its peep colour, so that a bean
            # half under it keeps what shows.
            rim = (reach <= PEEP_CORE_MM + 1.8) & (comp > 0) & self.px.peepish[sl] \
                if peep_coloured else (reach <= PEEP_CORE_MM + 1.0) & (comp > 0)
            body_reach = BODY_REACH_CLEAR_MM if peep_share >= PEEP_CLEAR_SHARE else BODY_REACH_MM
            inner = (reach <= body_reach) & (comp > 0)
            if territory is not None:
                rim &= territory
                inner &= territory
            body = cv2.morphologyEx((rim | inner).astype(np.uint8), cv2.MORPH_CLOSE, disk(s))
            self.body[sl] |= body
            ys, xs = np.nonzero(whole)
            found.append(_FoundPeep(
                self.px.players[owner], float(xs.mean()) + x0, float(ys.mean()) + y0,
                float(votes[owner]) / float(votes.sum()), len(xs)))
        return found

    def _same_player_peeps(self, one: np.ndarray, comp: np.ndarray, owners: np.ndarray,
                           sl: tuple[slice, slice]) -> list[np.ndarray]:
        """Core ``one`` split into one core per peep when two of a player's peeps touch.

        Beans tucked between two peeps fill the notch where they meet, so measured on all
        pieces their cores run together; measured on the peep-coloured pixels alone the
        notch is back and each peep keeps a core of its own."""
        s = self.s
        body = (comp > 0) & owners & self.px.peepish[sl]
        body = cv2.morphologyEx(body.view(np.uint8), cv2.MORPH_CLOSE, disk(1.2 * s))
        dt = cv2.distanceTransform(body, cv2.DIST_L2, 5) / s
        inner = ((dt >= PEEP_CORE_MM) & (one > 0)).view(np.uint8)
        n, lab, stats, _ = components(inner, 8)
        big = [j for j in range(1, n)
               if self.mm2(stats[j, cv2.CC_STAT_AREA]) >= MIN_PEEP_CORE_MM2]
        if len(big) < 2:
            return [one]
        # Every pixel of the core goes with the peep core nearest it.
        seeds = np.zeros_like(inner, np.int32)
        for k, j in enumerate(big, 1):
            seeds[lab == j] = k
        split = nearest_seed(seeds)
        return [((split == k) & (one > 0)).view(np.uint8) for k in range(1, len(big) + 1)]

    def _peep(self, player: str, centre, share: float) -> str | None:
        """Player's peep centred at mosaic point ``centre``: the cell it stands in (None when
        it stands in none)."""
        ci = _cell_at(self.m, centre)
        across = ci < 0
        if across:
            # A peep lying across the gap between tiles is centred in it, or near it: it
            # stands in the cell nearest its centre.
            ci = _cell_near(self.m, centre, PEEP_SNAP_MM * self.s)
            if ci < 0:
                return None
        name = self.m.cell_names[ci]
        cell = self.cells[name]
        said = len(self.warnings)
        if across:
            self.warn(name, f"{player}'s peep lies across the gap between tiles")
            cell.lower(0.6)
        cell.peeps[player] = cell.peeps.get(player, 0) + 1
        cell.lower(min(1.0, 0.4 + share))
        if cell.peeps[player] > 1:
            self.warn(name, f"{cell.peeps[player]} of {player}'s peeps (one is the most)")
            cell.lower(0.5)
        other = _near_border(self.m, centre, ci)
        if other >= 0:
            self.warn(name, f"{player}'s peep stands on the border with "
                      f"{self.m.cell_names[other]}")
            cell.lower(0.6)
        self.peeps_at.append((name, player, float(centre[0]), float(centre[1]),
                              self.warnings[said:]))
        return name

    def peeps_not_heaps(self) -> None:
        """A core as thick as a peep's, in its owner's bean colour, with no bean counted near
        its middle: a peep (shaded like a bean, or an understudy card), not a heap. Not
        beside a hand (what shows of a peep under a hand is off its centre); parts across
        a gap between tiles are one peep, and none is taken where its owner's peep is."""
        if not self.maybe_peeps:
            return
        s = self.s
        hand = cv2.dilate(self.occluder, disk(PEEP_ALONE_CLEAR_MM * s)).ravel() \
            if self.occluder.any() else None
        clear = [part for part, at in self.maybe_peeps if hand is None or not hand[at].any()]
        beans = np.array(self.counted_at) if self.counted_at else np.zeros((0, 2))
        apart = PEEP_PARTS_MM * s
        found = [(p, x, y) for _, p, x, y, _ in self.peeps_at]
        for player, (x, y), share in _whole_peeps(clear, apart):
            if len(beans) and np.hypot(beans[:, 0] - x, beans[:, 1] - y).min() \
                    < PEEP_ALONE_MM * s:
                continue
            if any(p == player and (px - x) ** 2 + (py - y) ** 2 < apart**2
                   for p, px, py in found):
                continue
            name = self._peep(player, (x, y), share)
            if name is not None:
                self.warn(name, f"{player}'s peep, in the colour of {player}'s beans")
                self.peeps_at[-1][4].append(self.warnings[-1])  # goes with the peep
                self.cells[name].lower(DOUBT_CONFIDENCE)

    def eggs_not_peeps(self) -> None:
        """An egg half or token in a player's peep colour with cards or pieces over part of
        its rim is no Supply Center by its shape, but as thick and coloured as a peep: in a
        central cell where no Supply Center was found, a player's second peep (a player has
        one in a cell at most) whose middle is within SC_PEEP_MM of the tile's centre is the
        Supply Center. Its own warnings, and the other's "2 of" one, go."""
        s = self.s
        for (q, r), (cx, cy) in self.m.tile_centres_px.items():
            name = f"{q},{r}/c"
            cell = self.cells.get(name)
            if cell is None or cell.supply_center:
                continue
            for player, n in cell.peeps.items():
                mine = [p for p in self.peeps_at if p[0] == name and p[1] == player]
                if n < 2 or len(mine) < 2:
                    continue
                egg = min(mine, key=lambda p: math.hypot(p[2] - cx, p[3] - cy))
                if math.hypot(egg[2] - cx, egg[3] - cy) > SC_PEEP_MM * s:
                    continue
                gone = list(egg[4])
                for *_, said in mine:
                    if said is not egg[4]:
                        gone += [t for t in said if f"of {player}'s peeps" in t]
                        said[:] = [t for t in said if t not in gone]
                self._peep_was_supply_center(
                    name, egg, gone, f"a Supply Center in {player}'s colour, partly covered "
                    f"(not a second peep of {player}'s)")
                break

    def covered_eggs_not_peeps(self) -> None:
        """An egg half or token under an understudy's card shows too little of itself to be
        found (the card's white margin cuts it short of an egg's thickness and hides half
        its rim), and what shows is read as a peep of the player whose colour is nearest:
        in a central cell where no Supply Center was found, a peep of a player with no beans
        there, within SC_PEEP_MM of the tile's centre, is the Supply Center when the region
        round the centre shows SC_COVERED_RIM_SHARE of an egg's rim (of radius up to
        SC_COVERED_MAX_MM, centred within SC_COVERED_OFFSET_MM of the tile's centre).

        A peep there with beans of its own stays a peep: a peep's ends, beans round it,
        show as much of such a rim."""
        s = self.s
        for (q, r), (cx, cy) in self.m.tile_centres_px.items():
            name = f"{q},{r}/c"
            cell = self.cells.get(name)
            if cell is None or cell.supply_center or name not in self._no_supply_center:
                continue
            alone = [p for p in self.peeps_at if p[0] == name and not cell.troops.get(p[1])
                     and math.hypot(p[2] - cx, p[3] - cy) <= SC_PEEP_MM * s]
            if not alone:
                continue
            crop, x0, y0 = self._no_supply_center[name]
            if _covered_egg_rim(crop, (cx - x0, cy - y0), s) is None:
                continue
            egg = min(alone, key=lambda p: math.hypot(p[2] - cx, p[3] - cy))
            self._peep_was_supply_center(
                name, egg, list(egg[4]), f"a Supply Center partly covered (its rim shows), not "
                f"a peep of {egg[1]}'s")

    def _peep_was_supply_center(self, name: str, peep: tuple, gone: list[str], why: str
                                ) -> None:
        """The peep ``peep`` (an entry of peeps_at) in central cell ``name`` was its Supply
        Center: the peep goes, and the warnings ``gone`` (its own among them); ``why`` is
        said."""
        cell = self.cells[name]
        cell.peeps[peep[1]] -= 1
        self.peeps_at.remove(peep)
        for text in gone:
            self.warnings.remove(text)
        cell.supply_center = True
        cell.lower(0.6)
        self.warn(name, why)

    def heaps_not_peeps(self) -> None:
        """A peep with a bean's centre (at a peak of 0.5 or more) near its middle was a heap
        of beans as thick as a peep: a peep is 35 mm wide, and beans beside it or under it
        show round its edge (over 500 scenes no peep had one within 12 mm of its centre).
        The peep's warnings go with it; the confidence it lowered stays lowered."""
        if not (self.peeps_at and self.beans_at):
            return
        beans = np.array(self.beans_at)
        for name, player, x, y, said in self.peeps_at:
            if np.hypot(beans[:, 0] - x, beans[:, 1] - y).min() >= PEEP_NO_BEAN_MM * self.s:
                continue
            cell = self.cells[name]
            cell.peeps[player] -= 1
            for text in said:
                self.warnings.remove(text)
            self.warn(name, f"beans heaped as thick as a peep, not {player}'s peep")
            cell.lower(0.6)

    def finish(self) -> None:
        for name, cell in self.cells.items():
            if cell.occluded:
                continue
            for p, n in cell.troops.items():
                if n > MAX_LEGAL_TROOPS:
                    self.warn(name, f"{p} has {n} troops here (more than {MAX_LEGAL_TROOPS})")
            if cell.supply_center and not parse_cell(name).is_central:
                cell.supply_center = False


def _egg_rim(region: np.ndarray, centre: tuple[float, float], s: float,
             share: float = SC_RIM_SHARE) -> tuple[float, float, float, float] | None:
    """An egg half or token cut by something lying over it (a printed understudy's white
    card hides a band of it): most of a circle's rim, of an egg's or token's radius, round
    a point near the tile's centre, on the outline of ``region`` (foreground round the
    centre, holes filled). Returns the circle (x, y in ``region``'s pixels, radius in mm)
    and the share of its rim seen, or None. A peep with beans round it has no such rim.

    >>> disc = np.zeros((69, 69), np.uint8)
    >>> _ = cv2.circle(disc, (34, 34), 24, 1, -1)
    >>> disc[:, 48:] = 0  # a card over a third of it
    >>> x, y, r, arc = _egg_rim(disc, (34.0, 34.0), 1.0)
    >>> round(x), round(y), round(r), arc > 0.6
    (34, 34, 24, True)
    """
    cx, cy = centre
    yy, xx = np.ogrid[:region.shape[0], :region.shape[1]]
    mid = SC_RIM_MIDDLE_MM * s
    middle = (xx - cx) ** 2 + (yy - cy) ** 2 <= mid * mid
    if cv2.countNonZero(region & middle.view(np.uint8)) < 0.5 * math.pi * mid * mid:
        return None
    outlines, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = [c.reshape(-1, 2) for c in outlines if middle[c[:, 0, 1], c[:, 0, 0]].any()
           or cv2.pointPolygonTest(c, (float(cx), float(cy)), False) >= 0]
    if not pts:
        return None
    p = np.vstack(pts).astype(np.float32)
    # Every candidate centre within SC_RIM_OFFSET_MM of the tile's, every radius an egg or
    # token can have: which of the rim's 10 degree sectors have outline on them.
    reach = SC_RIM_OFFSET_MM * s
    step = np.arange(-reach, reach + 1e-6, s, dtype=np.float32)
    ox, oy = np.meshgrid(step + cx, step + cy)
    ox, oy = ox.ravel(), oy.ravel()
    dx, dy = p[None, :, 0] - ox[:, None], p[None, :, 1] - oy[:, None]
    ring = np.rint(np.sqrt(dx * dx + dy * dy) / s - SC_RIM_MIN_MM).astype(np.int32)
    n_rings = int(SC_RIM_MAX_MM - SC_RIM_MIN_MM) + 1
    sector = ((np.arctan2(dy, dx) + math.pi) * (RIM_SECTORS / (2 * math.pi))).astype(np.int32)
    sector = np.minimum(sector, RIM_SECTORS - 1)
    ok = (ring >= 0) & (ring < n_rings)
    cell = (np.nonzero(ok)[0] * n_rings + ring[ok]) * RIM_SECTORS + sector[ok]
    counts = np.bincount(cell, minlength=len(ox) * n_rings * RIM_SECTORS)
    counts = counts.reshape(len(ox), n_rings, RIM_SECTORS)
    counts = counts[:, :-1] + counts[:, 1:]  # two 1 mm rings: a rim a little off round
    seen = (counts > 0).sum(axis=2)
    # The most of the rim seen; of those, the circle with most outline on it.
    score = seen * (len(p) + 1) + counts.sum(axis=2)
    j, k = np.unravel_index(int(np.argmax(score)), score.shape)
    arc = float(seen[j, k]) / RIM_SECTORS
    if arc < share:
        return None
    radius = SC_RIM_MIN_MM + k + 0.5
    disc = ((xx - ox[j]) ** 2 + (yy - oy[j]) ** 2 <= (radius * s) ** 2)
    if float(region[disc].mean()) < SC_RIM_FILL:
        return None
    return float(ox[j]), float(oy[j]), radius, arc


def _covered_egg_rim(region: np.ndarray, centre: tuple[float, float], s: float
                     ) -> tuple[float, float, float, float] | None:
    """:func:`_egg_rim` of an egg or token under a card: SC_COVERED_RIM_SHARE of its rim,
    a radius up to SC_COVERED_MAX_MM, centred within SC_COVERED_OFFSET_MM of ``centre``."""
    rim = _egg_rim(region, centre, s, SC_COVERED_RIM_SHARE)
    if (rim is None or rim[2] > SC_COVERED_MAX_MM
            or math.hypot(rim[0] - centre[0], rim[1] - centre[1]) > SC_COVERED_OFFSET_MM * s):
        return None
    return rim


@cache
def _round_window(r: int) -> np.ndarray:
    """The pixels within ``r`` of the middle of a (2r+1)-square."""
    yy, xx = np.ogrid[-r:r + 1, -r:r + 1]
    window = yy * yy + xx * xx <= r * r
    window.flags.writeable = False  # shared by every caller
    return window


def _median(values: np.ndarray) -> float:
    """``np.median`` of a 1-d array, by partition (a tenth of the cost on small arrays)."""
    n = len(values)
    mid = np.partition(values, [(n - 1) // 2, n // 2])
    return float((mid[(n - 1) // 2] + mid[n // 2]) / mid.dtype.type(2))


def _touching_peeps(core: np.ndarray, thick: np.ndarray, s: float
                    ) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """``core`` split into one core per peep where two peeps touch and their cores run
    together: the pieces' thickness (``thick``, mm; ``s`` pixels a mm) peaks at each peep's
    middle, at least ``PEEP_BODY_MM``, ``PEEP_APART_MM`` or more apart, and dips between
    them where they touch. Each part comes with the pixels nearer it than any other (its
    territory); a core with one such peak is ``[(core, None)]``.

    >>> two = np.zeros((60, 110), np.uint8)
    >>> _ = cv2.ellipse(two, (30, 30), (27, 17), 0, 0, 360, 1, -1)
    >>> _ = cv2.ellipse(two, (70, 30), (27, 17), 0, 0, 360, 1, -1)
    >>> dt = cv2.distanceTransform(two, cv2.DIST_L2, 5)
    >>> core = (dt >= 11).astype(np.uint8)
    >>> cv2.connectedComponents(core)[0] - 1  # one core runs through where they touch
    1
    >>> [int(np.nonzero(part)[1].mean()) for part, _ in _touching_peeps(core, dt, 1.0)]
    [30, 68]
    >>> one = np.zeros((60, 80), np.uint8)
    >>> _ = cv2.ellipse(one, (40, 30), (30, 17), 0, 0, 360, 1, -1)
    >>> dt = cv2.distanceTransform(one, cv2.DIST_L2, 5)
    >>> len(_touching_peeps((dt >= 11).astype(np.uint8), dt, 1.0))
    1
    """
    d = np.where(core > 0, thick, 0).astype(np.float32)
    ys, xs = np.nonzero(d >= PEEP_BODY_MM)
    # Two peaks that far apart need two body-thick pixels that far apart.
    if not len(xs) or np.hypot(np.ptp(xs), np.ptp(ys)) < PEEP_APART_MM * s:
        return [(core, None)]
    # Peaks: the thickest pixel of a square window reaching half the least distance each way
    # (a square: OpenCV dilates by one in two passes, a row and a column, many times faster).
    half = int(round(PEEP_APART_MM * s / 2))
    top = (d >= PEEP_BODY_MM) & (d >= cv2.dilate(d, np.ones((2 * half + 1,) * 2, np.uint8)))
    ys, xs = np.nonzero(top)
    order = np.argsort(-d[ys, xs], kind="stable")
    peaks: list[tuple[int, int]] = []
    for k in order.tolist():
        x, y = int(xs[k]), int(ys[k])
        if all((x - px) ** 2 + (y - py) ** 2 >= (PEEP_APART_MM * s) ** 2 for px, py in peaks):
            peaks.append((x, y))
    if len(peaks) < 2:
        return [(core, None)]
    # Keep a peak only if the straight way to every thicker peak kept dips between them (or
    # leaves the core).
    kept = [peaks[0]]
    for x, y in peaks[1:]:
        low = float(d[y, x])
        if all(_lowest_between(d, (x, y), other) < low - PEEP_NECK_DIP_MM
               for other in kept):
            kept.append((x, y))
    if len(kept) < 2:
        return [(core, None)]
    seeds = np.zeros(core.shape, np.int32)
    for k, (x, y) in enumerate(kept, 1):
        seeds[y, x] = k
    which = nearest_seed(seeds)
    return [(((which == k) & (core > 0)).view(np.uint8), which == k)
            for k in range(1, len(kept) + 1)]


def _lowest_between(d: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> float:
    """The least of ``d`` on the straight line from pixel ``a`` to pixel ``b``."""
    n = max(abs(a[0] - b[0]), abs(a[1] - b[1])) + 1
    xs = np.rint(np.linspace(a[0], b[0], n)).astype(np.intp)
    ys = np.rint(np.linspace(a[1], b[1], n)).astype(np.intp)
    return float(d[ys, xs].min())


@dataclass(frozen=True)
class _FoundPeep:
    """A peep's core as found: whose, its centre (mosaic pixels), its owner's share of the
    votes, and how many pixels it covers."""

    player: str
    x: float
    y: float
    share: float
    pixels: int


def _whole_peeps(found: list[_FoundPeep], apart_px: float
                 ) -> list[tuple[str, tuple[float, float], float]]:
    """``found`` with one player's cores nearer than ``apart_px`` (directly or through
    other such cores) taken as parts of one peep (a gap between tiles cuts a peep lying
    across it in two; two whole peeps touching stand a body's width apart), centred where
    all its parts' pixels are: (player, centre, owner's share of the votes) each.

    >>> parts = [_FoundPeep("red", 0, 0, 1.0, 100), _FoundPeep("red", 30, 0, 0.6, 300),
    ...          _FoundPeep("blue", 10, 0, 1.0, 100), _FoundPeep("red", 100, 0, 0.9, 100)]
    >>> [(p, (round(c[0], 1), c[1]), round(sh, 2)) for p, c, sh in _whole_peeps(parts, 40)]
    [('red', (22.5, 0.0), 0.7), ('blue', (10.0, 0.0), 1.0), ('red', (100.0, 0.0), 0.9)]

    In any order, a chain of near parts is one peep:

    >>> chain = [_FoundPeep("red", x, 0, 1.0, 10) for x in (0, 40, 20)]
    >>> len(_whole_peeps(chain, 25)), len(_whole_peeps(chain[::-1], 25))
    (1, 1)
    """
    group = list(range(len(found)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for i, a in enumerate(found):
        for j in range(i):
            b = found[j]
            if a.player == b.player and (a.x - b.x) ** 2 + (a.y - b.y) ** 2 < apart_px**2:
                group[root(i)] = root(j)
    parts: dict[int, list[_FoundPeep]] = {}
    for i, peep in enumerate(found):
        parts.setdefault(root(i), []).append(peep)
    out = []
    for one in parts.values():
        n = sum(g.pixels for g in one)
        out.append((one[0].player, (sum(g.x * g.pixels for g in one) / n,
                                    sum(g.y * g.pixels for g in one) / n),
                    sum(g.share * g.pixels for g in one) / n))
    return out


def _prepared(mosaic: Mosaic, profile: Profile) -> _Reader:
    """A reader that has found the Supply Centers, the occluders and the peeps."""
    r = _Reader(mosaic, classify(mosaic, profile), profile)
    r.supply_centers()
    r.occluder |= find_occluders(mosaic, r.px, r.egg)
    r.peeps()
    return r


def bean_planes(mosaic: Mosaic, profile: Profile) -> bean_net.Planes:
    """The maps the bean net reads (what it is trained on), over the whole mosaic."""
    return _prepared(mosaic, profile).planes()


def read_pieces(mosaic: Mosaic, profile: Profile) -> PieceReading:
    """Every cell of the mosaic: Supply Center, each player's troops and peep, or occluded."""
    r = _prepared(mosaic, profile)
    r.beans_by_net()
    r.peeps_not_heaps()
    r.eggs_not_peeps()
    r.covered_eggs_not_peeps()
    r.heaps_not_peeps()
    r.mark_occluded()
    r.finish()
    return PieceReading(r.cells, r.warnings, r.px.players)
