"""Reading what stands in every cell: beans, peeps, Supply Centers, and what is covered.

Works on the table-frame mosaic (:mod:`vision.mosaic`), where sizes are known
in millimetres, with per-pixel players from :mod:`vision.piece_pixels`:

1. **Supply Centers.** Over each central cell's circle, the foreground region
   holding the circle's middle is measured by its distance transform: an egg
   half or token leaves a round region at least ``SC_MIN_RADIUS_MM`` thick all
   round the middle, which a peep (35 mm wide) never does. Its disc is then set
   aside, so an egg in a player's colour is not read as their pieces.
2. **Occlusion.** Large foreground regions no player's colour explains (a hand,
   an arm; not a peep's glossy top, ringed by its colour), or a player's colour
   region far too big or thick for pieces, cover the cells they touch: those
   cells are reported ``occluded``, never empty.
   A dark hand is cut up by the print under it, so its thickness is measured
   with what it closes in; a pale hand may not stand out from the paper at all,
   but it hides the markers' solid print over a breadth no piece does.
   So are cells the camera does not fully see.
3. **Peeps.** On all pieces' foreground together, whatever is thicker than a
   cluster of beans can be (distance to the edge over ``PEEP_CORE_MM``) and
   mostly in its owner's *peep* colour rather than their bean colour is a
   peep's body; its owner is the majority player over it. A core holding two
   players' colours (their peeps side by side) is split into one per player.
4. **Beans.** The rest of each player's pixels are beans. Each fragment is
   counted by shape and area together (:func:`peel_beans`): bean outlines are
   peeled off at the thickest points until what is left is too thin or too
   small for a bean, more leniently where the fragment is cut by a peep, an
   egg, a hand, another player's piece or a tile's edge, for a fragment's first
   bean, and for a dark colour's beans (their reflections look like paper).
   Touching beans come apart that way; where the peel leaves much unexplained
   (two beans side by side, whose thickest point lies between them), its beans
   are fitted together (:func:`fit_beans`). Each bean belongs to the cell under
   its centre.

Every count comes with a confidence and, when it is a close call, a warning
naming the cell ("cell 1,0/2: a bean between red and orange").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from calibration.profile import Profile
from companion.rules.peepwar.board import parse_cell
from vision.mosaic import Mosaic
from vision.piece_pixels import (
    NONE,
    UNKNOWN,
    PixelClasses,
    classify,
    components,
    fill_holes_below,
)

BEAN_HALF_MM = (10.0, 6.5)  # a bean lying down: 20 x 13 mm
BEAN_AREA_MM2 = math.pi * BEAN_HALF_MM[0] * BEAN_HALF_MM[1]
ERASE_MM = 1.5  # a found bean is erased with this much rim (blur, shadow)
PEEL_MIN_MM = 3.5  # what is thinner than this (half a bean's width, less blur) is no bean
PEEL_MIN_PARTIAL_MM = 2.5
WHOLE_SHARE = 0.45  # of a bean's area that must show to count it
PARTIAL_SHARE = 0.28  # ... when the fragment is cut by a peep, an egg, a hand or an edge
# ... and for a fragment's first bean, or any bean of a dark colour: a dark glossy bean's
# reflections look like paper, so it can show little more than a third of itself; specks
# that big are rare.
FAINT_SHARE = 0.35
DARK_BEAN_LIGHTNESS = 0.62  # a bean colour darker than this (calibration's Y^1/3) is dark
HOLE_MM2 = 100.0  # holes smaller than this in a piece are highlights or eyes
PEEP_CORE_MM = 11.0  # a peep is 35 mm wide; bean clusters are never this thick
MIN_PEEP_CORE_MM2 = 25.0
PEEP_SURE_MM = 17.0  # no heap of beans is this thick: a peep whatever its shading says
PEEP_COLOUR_SHARE = 0.5  # of a peep's pixels nearer its owner's peep model than bean model
PEEP_CLEAR_SHARE = 0.75  # ... this many: the colour tells body from bean near its edge
BODY_REACH_MM = 9.0  # a peep's body whatever the colour: this near its core ...
BODY_REACH_CLEAR_MM = 6.0  # ... or this near when its colour is clear
MIN_FRAGMENT_MM2 = 40.0  # smaller player-coloured specks are noise
SC_MIN_RADIUS_MM = 19.5  # a Supply Center covers the 40 mm circle: thicker than any peep
SC_SEARCH_MM = 6.0
OCCLUDER_MIN_MM2 = 250.0
OCCLUDER_MIN_THICK_MM = 4.5
HIGHLIGHT_MAX_MM2 = 800.0  # no player's colour, smaller than this (half a peep) ...
HIGHLIGHT_RING_MM = 2.0  # ... and ringed this wide ...
HIGHLIGHT_RING_SHARE = 0.7  # ... this much by one player's colour: a glossy top, no hand
PIECE_MAX_MM2 = 14000.0  # touching pieces: four peeps in a chain with their beans cover 10,000
PIECE_MAX_THICK_MM = 25.0
HAND_BRIDGE_MM = 14.0  # what a region closes in this deep (a marker is 25 mm) ...
HAND_THICK_MM = 27.0  # ... and makes it this thick: a hand (pieces closed in stay thinner)
PEEP_AREA_MM2 = 1650.0
OCCLUDED_MIN_SHARE = 0.004
HIDDEN_MIN_MM2 = 40.0  # this much solid print hidden together ...
HIDDEN_THICK_MM = 10.0  # ... over a breadth this thick (more than a finger) is under a hand
HIDDEN_JOIN_MM = 6.0  # hidden print this close together is one patch
HIDDEN_GROW_MM = 8.0  # a hand reaches this far past the print it hides
MAX_LEGAL_TROOPS = 5
BORDER_WARN_MM = 1.5
HEAP_BEANS = 2.2  # a fragment this many beans big is peeled from the outside in
FIT_SLACK_MM = 0.5  # a bean fits where its outline this much smaller lies inside the fragment
FIT_LEFT = 0.15  # of a bean left over by the peel: its beans are refitted together ...
SPILL_COST = 2.0  # ... a bean's pixel on bare paper costs this many covered ones
OVERLAP_COST = 1.0  # ... and a pixel two beans share this many
FIT_SHOWS = 0.3  # ... beans it adds must show this share of themselves
FIT_MOVE_PX = 3  # ... and each bean moves this far at a time
DOUBT_CONFIDENCE = 0.7  # a count the fit and the peel disagree on, or a faint lone bean


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


def _disk(radius_px: float) -> np.ndarray:
    r = max(1, int(round(radius_px)))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def _cell_at(mosaic: Mosaic, pt) -> int:
    x, y = int(round(pt[0])), int(round(pt[1]))
    h, w = mosaic.cell_map.shape
    if 0 <= x < w and 0 <= y < h:
        return int(mosaic.cell_map[y, x])
    return -1


def _near_border(mosaic: Mosaic, pt, cell: int) -> int:
    """Another cell within BORDER_WARN_MM of ``pt``, or -1."""
    d = BORDER_WARN_MM * mosaic.px_per_mm
    for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d)):
        other = _cell_at(mosaic, (pt[0] + dx, pt[1] + dy))
        if other not in (cell, -1):
            return other
    return -1


class _Reader:
    def __init__(self, mosaic: Mosaic, px: PixelClasses, dark: frozenset[str] = frozenset()
                 ) -> None:
        self.m = mosaic
        self.px = px
        self.dark = dark  # players whose beans are dark (they show less of themselves)
        self.s = mosaic.px_per_mm
        self.cells = {name: CellRead() for name in mosaic.cell_names}
        self.warnings: list[str] = []
        h, w = mosaic.cell_map.shape
        self.egg = np.zeros((h, w), np.uint8)
        self.occluder = np.zeros((h, w), np.uint8)
        self.body = np.zeros((h, w), np.uint8)  # peeps found

    def grown(self, x: int, y: int, shape: tuple[int, int], pad: int
              ) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
        """The box at (x, y) of ``shape`` grown by ``pad`` on every side: its part on the
        mosaic (slices of the mosaic) and where that part lies in the grown box."""
        h, w = shape
        H, W = self.m.cell_map.shape
        y0, x0 = max(y - pad, 0), max(x - pad, 0)
        y1, x1 = min(y + h + pad, H), min(x + w + pad, W)
        return ((slice(y0, y1), slice(x0, x1)),
                (slice(y0 - y + pad, y1 - y + pad), slice(x0 - x + pad, x1 - x + pad)))

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
            crop = cv2.morphologyEx(crop, cv2.MORPH_CLOSE, _disk(1.5 * s))
            crop = _fill_holes(crop)
            dt = cv2.distanceTransform(crop, cv2.DIST_L2, 5)
            yy, xx = np.mgrid[y0:y1, x0:x1]
            near = (xx - cx) ** 2 + (yy - cy) ** 2 <= (SC_SEARCH_MM * s) ** 2
            if not near.any():
                continue
            k = np.argmax(np.where(near, dt, -1))
            thick = float(dt.ravel()[k]) / s
            if thick < SC_MIN_RADIUS_MM:
                continue
            self.cells[name].supply_center = True
            self.cells[name].lower(min(1.0, 0.5 + (thick - SC_MIN_RADIUS_MM) / 3))
            ey, ex = np.unravel_index(k, dt.shape)
            radius = min(thick, 30.0) + 1.5
            cv2.circle(self.egg, (int(ex + x0), int(ey + y0)), int(round(radius * s)), 1, -1)

    # --- occlusion -------------------------------------------------------------------------

    def big_regions(self) -> None:
        """Foreground far too big or thick for pieces (a hand, an arm, a sleeve) occludes.

        Where a dark hand lies over the tiles' print it is no darker than the print, so
        the print under it shows as holes and notches (and the seams between tiles cut
        it): what the region closes in counts as part of it when measuring its thickness,
        unless it shows bare paper, and only at the region's own pixels, so a heap of
        beans around a marker stays as thin as the beans.
        """
        s = self.s
        fg = (self.px.fg & (self.egg == 0)).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, _disk(1.5 * s))
        # Smaller than a disc PIECE_MAX_THICK_MM round, a region cannot be that thick.
        for x, y, one, area in _regions(fg, math.pi * PIECE_MAX_THICK_MM**2 * s * s):
            if self.mm2(area) > PIECE_MAX_MM2 or self._too_thick(one, x, y):
                self.occluder[y:y + one.shape[0], x:x + one.shape[1]] |= one

    def _too_thick(self, one: np.ndarray, x: int, y: int) -> bool:
        """Is region ``one`` (its box at x, y) thicker than pieces can be, itself or with
        the print it closes in?"""
        s = self.s
        if _thickest(one) / s > PIECE_MAX_THICK_MM:
            return True
        pad = int(HAND_BRIDGE_MM * s) + 2
        box = cv2.copyMakeBorder(one, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        # Bare paper between pieces (a marker's white squares) stays a gap.
        sl, into = self.grown(x, y, one.shape, pad)
        not_paper = np.zeros_like(box)
        not_paper[into] = (self.px.shaded[sl] | (self.m.cell_map[sl] < 0)) & (self.egg[sl] == 0)
        filled = box | (_close_by_distance(box, HAND_BRIDGE_MM * s) & not_paper)
        dt = cv2.distanceTransform(filled, cv2.DIST_L2, 3)
        return float(dt[box > 0].max()) / s > HAND_THICK_MM

    def unknown_occluders(self) -> None:
        unk = ((self.px.label == UNKNOWN) & (self.egg == 0)).astype(np.uint8)
        unk = cv2.morphologyEx(unk, cv2.MORPH_OPEN, _disk(1.0 * self.s))
        for x, y, one, _ in _regions(unk, OCCLUDER_MIN_MM2 * self.s * self.s):
            # A finger is 15 mm wide or more; thin rings (a printed peep's outline, a
            # piece's rim in shadow) are not hands.
            if _thickest(one) / self.s >= OCCLUDER_MIN_THICK_MM \
                    and not self._inside_a_piece(one, x, y):
                self.occluder[y:y + one.shape[0], x:x + one.shape[1]] |= one

    def _inside_a_piece(self, one: np.ndarray, x: int, y: int) -> bool:
        """Is region ``one`` (its box at x, y) a peep's glossy top: smaller than half a peep and
        ringed by one player's colour?"""
        s = self.s
        if self.mm2(cv2.countNonZero(one)) > HIGHLIGHT_MAX_MM2:
            return False
        pad = int(math.ceil(HIGHLIGHT_RING_MM * s)) + 1
        region = cv2.copyMakeBorder(one, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        ring = (cv2.dilate(region, _disk(HIGHLIGHT_RING_MM * s)) > 0) & (region == 0)
        sl, into = self.grown(x, y, one.shape, pad)
        labels = self.px.label[sl][ring[into]]
        votes = np.bincount(labels[labels < len(self.px.players)], minlength=1)
        return bool(len(labels)) and float(votes.max()) >= HIGHLIGHT_RING_SHARE * len(labels)

    def hidden_print(self) -> None:
        """Solid print hidden over a hand's breadth by something paper-bright (a pale hand
        under a warm lamp) occludes: that is no piece, and too pale to be foreground."""
        s = self.s
        hid = (self.px.print_hidden & (self.egg == 0)).view(np.uint8)  # an egg's glare
        if cv2.countNonZero(hid) < HIDDEN_MIN_MM2 * s * s:
            return
        # A square joins as well as a disk here, and costs a fifth (it is separable).
        join = 2 * int(round(HIDDEN_JOIN_MM * s)) + 1
        near = cv2.morphologyEx(hid, cv2.MORPH_CLOSE, np.ones((join, join), np.uint8))
        hand = np.zeros_like(hid)
        for x, y, one, _ in _regions(near, HIDDEN_MIN_MM2 * s * s):
            sl = (slice(y, y + one.shape[0]), slice(x, x + one.shape[1]))
            if cv2.countNonZero(one & hid[sl]) < HIDDEN_MIN_MM2 * s * s:
                continue
            # A printed understudy's white margin hides print in a strip a few mm wide.
            if _thickest(one) / s >= HIDDEN_THICK_MM:
                hand[sl] |= one
        if hand.any():
            self.occluder |= cv2.dilate(hand, _disk(HIDDEN_GROW_MM * s))

    def mark_occluded(self) -> None:
        occ = cv2.dilate(self.occluder, _disk(2.0 * self.s))
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

    def players(self) -> None:
        """Peeps from the shape of all players' pieces together, then each player's beans."""
        s = self.s
        blocked = (self.egg > 0) | (self.occluder > 0)
        lab_all = self.px.label
        # Peeps are measured on all foreground: a peep's glossy top can be nearer no model.
        ours = (self.px.fg & ~blocked).astype(np.uint8)
        if not ours.any():
            return
        ours = cv2.morphologyEx(ours, cv2.MORPH_CLOSE, _disk(1.2 * s))
        ours = fill_holes_below(ours, int(HOLE_MM2 * s * s))
        ours[blocked] = 0
        self.body = np.zeros_like(ours)
        n, lab, stats, _ = components(ours, 8)
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if self.mm2(area) < MIN_FRAGMENT_MM2 * 0.6:
                continue
            x0, y0 = max(x - 2, 0), max(y - 2, 0)
            x1, y1 = min(x + w + 2, ours.shape[1]), min(y + h + 2, ours.shape[0])
            comp = (lab[y0:y1, x0:x1] == i).astype(np.uint8)
            self._peeps(comp, x0, y0)
        free = ~blocked & (self.body == 0)
        # Every player's pixels lie inside a region of all pieces: work region by region,
        # in its box, as most of the table holds nothing.
        pad = int(2 * s) + 3
        H, W = lab_all.shape
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if self.mm2(area) < MIN_FRAGMENT_MM2 * 0.6:
                continue
            bx0, by0 = max(x - pad, 0), max(y - pad, 0)
            bx1, by1 = min(x + w + pad, W), min(y + h + pad, H)
            box = (slice(by0, by1), slice(bx0, bx1))
            region_free = free[box] & (lab[box] == i)
            labels = lab_all[box]
            counts = np.bincount(labels[region_free], minlength=256)[:len(self.px.players)]
            # A player with less than a fragment's worth of pixels here has no bean here.
            for pi in np.nonzero(counts >= MIN_FRAGMENT_MM2 * s * s)[0]:
                self._player_beans(int(pi), (labels == pi) & region_free, region_free,
                                   bx0, by0)

    def _player_beans(self, pi: int, mine: np.ndarray, free: np.ndarray, bx0: int,
                      by0: int) -> None:
        """One player's beans in one region of pieces (``mine``: their free pixels there)."""
        s = self.s
        mask = mine.astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disk(1.0 * s))
        if cv2.countNonZero(mask) < MIN_FRAGMENT_MM2 * s * s * 0.8:
            return  # closing adds a little, never a whole fragment
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disk(1.2 * s))
        mask = fill_holes_below(mask, int(HOLE_MM2 * s * s))
        mask[~free] = 0
        n, lab, stats, _ = components(mask, 8)
        player = self.px.players[pi]
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if self.mm2(area) < MIN_FRAGMENT_MM2:
                continue
            x0, y0 = max(x - 2, 0), max(y - 2, 0)
            x1, y1 = min(x + w + 2, mask.shape[1]), min(y + h + 2, mask.shape[0])
            frag = (lab[y0:y1, x0:x1] == i).astype(np.uint8)
            gx, gy = x0 + bx0, y0 + by0
            self._beans(player, pi, frag, gx, gy,
                        self._cut_mask(self.grown(gx, gy, frag.shape, 0)[0], pi))

    def _peeps(self, comp: np.ndarray, x0: int, y0: int) -> None:
        """Peeps in one region of pieces: cores thicker than any bean cluster, owner by vote.

        A peep leaning on an egg half keeps its thickness: the egg counts as more of
        the same for measuring it, though no peep is found inside the egg itself.
        """
        s = self.s
        sl = (slice(y0, y0 + comp.shape[0]), slice(x0, x0 + comp.shape[1]))
        egg = self.egg[sl]
        dt = cv2.distanceTransform(comp | egg, cv2.DIST_L2, 5) / s
        own = dt * (comp > 0)
        if self.mm2(int(comp.sum())) > PIECE_MAX_MM2:
            # Far too much colour for pieces: a sleeve or a hand in a player's colour. (Too
            # thick is for big_regions to judge: measured here, two peeps side by side are
            # as thick as a hand.)
            self.occluder[sl] |= comp
            return
        if float(own.max()) < PEEP_CORE_MM:
            return
        near_egg = cv2.dilate(egg, _disk(2.0 * s)) > 0
        core = ((own >= PEEP_CORE_MM) & ~near_egg).astype(np.uint8)
        n, lab, stats, _ = components(core, 8)
        labels = self.px.label[sl]
        n_players = len(self.px.players)
        cores = []
        for j in range(1, n):
            if self.mm2(stats[j, cv2.CC_STAT_AREA]) < MIN_PEEP_CORE_MM2:
                continue
            one = lab == j
            # Two players' peeps side by side make one thick core: split it by colour.
            by_player = np.bincount(labels[one & (labels < n_players)], minlength=n_players)
            split = np.nonzero(by_player >= MIN_PEEP_CORE_MM2 * s * s)[0]
            if len(split) >= 2:
                cores += [(one & (labels == p)).astype(np.uint8) for p in split]
            else:
                cores.append(one.astype(np.uint8))
        for one in cores:
            reach = cv2.distanceTransform(1 - one, cv2.DIST_L2, 5) / s
            region = (reach <= PEEP_CORE_MM + 1.0) & (comp > 0)
            # Its centre: the part leaning over an egg counts too (it is there, unseen).
            whole = (reach <= PEEP_CORE_MM + 1.0) & ((comp > 0) | (egg > 0))
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
            if not peep_coloured and float(own[one > 0].max()) < PEEP_SURE_MM:
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
            body = cv2.morphologyEx((rim | inner).astype(np.uint8), cv2.MORPH_CLOSE, _disk(s))
            self.body[sl] |= body
            ys, xs = np.nonzero(whole)
            self._peep(self.px.players[owner], (float(xs.mean()) + x0, float(ys.mean()) + y0),
                       float(votes[owner]) / float(votes.sum()))

    def _cut_mask(self, sl: tuple[slice, slice], pi: int) -> np.ndarray:
        """Where player ``pi``'s beans may continue unseen over the mosaic's ``sl``: peeps,
        eggs, occluders, off the tiles, other players' pieces."""
        cut = (self.egg[sl] > 0) | (self.occluder[sl] > 0) | (self.m.cell_map[sl] < 0) \
            | ~self.m.in_frame[sl] | (self.body[sl] > 0)
        # Other players' pieces can lie on top too.
        lab = self.px.label[sl]
        cut |= (lab != NONE) & (lab != UNKNOWN) & (lab != pi)
        return cv2.dilate(cut.astype(np.uint8), _disk(1.5 * self.s)) > 0

    def _cut_padded(self, x0: int, y0: int, shape, pi: int) -> np.ndarray:
        """:meth:`_cut_mask` over the fragment's box grown by :func:`fit_pad` (off the mosaic
        counts as cut)."""
        pad = fit_pad(self.s)
        h, w = shape
        out = np.ones((h + 2 * pad, w + 2 * pad), bool)
        sl, into = self.grown(x0, y0, shape, pad)
        out[into] = self._cut_mask(sl, pi)
        return out

    def _peep(self, player: str, centre, share: float) -> None:
        ci = _cell_at(self.m, centre)
        if ci < 0:
            return
        name = self.m.cell_names[ci]
        cell = self.cells[name]
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

    def _beans(self, player: str, pi: int, frag: np.ndarray, x0: int, y0: int,
               cut_by: np.ndarray) -> None:
        """Count one fragment of a player's colour by peeling bean shapes off it, and
        fitting them together where the peel leaves much unexplained."""
        partial = bool((frag.astype(bool) & cut_by).any())
        placed: list[tuple[int, int, int]] = []
        centres, leftover = peel_beans(frag, self.s, partial, placed, player in self.dark)
        peeled = len(centres)
        if placed and leftover >= FIT_LEFT:
            centres, leftover = fit_beans(frag, self._cut_padded(x0, y0, frag.shape, pi),
                                          self.s, partial, placed)
        if not centres:
            return
        conf = 1.0 if leftover < 0.25 else max(0.3, 1.0 - leftover)
        # Close calls, wrong a third to a half of the time on the benchmark: the fit
        # overruling the peel, and a bean alone that shows less than beans must.
        shows = self.mm2(cv2.countNonZero(frag)) / BEAN_AREA_MM2
        doubt = ""
        if len(centres) != peeled:
            doubt = f"touching {player} beans: {len(centres)} or {peeled}"
        elif len(centres) == 1 and not partial and shows < WHOLE_SHARE:
            doubt = f"a faint {player} bean ({shows:.0%} of one shows)"
        if doubt:
            conf = min(conf, DOUBT_CONFIDENCE)
        doubted: set[str] = set()
        margin = self.px.margin[y0:y0 + frag.shape[0], x0:x0 + frag.shape[1]][frag > 0]
        colour_margin = _median(margin) if len(margin) else 99.0
        for c in centres:
            at = (float(c[0]) + x0, float(c[1]) + y0)
            ci = _cell_at(self.m, at)
            if ci < 0:
                continue
            name = self.m.cell_names[ci]
            cell = self.cells[name]
            cell.troops[player] = cell.troops.get(player, 0) + 1
            cell.lower(conf)
            other = _near_border(self.m, at, ci)
            if other >= 0:
                self.warn(name, f"a {player} bean on the border with {self.m.cell_names[other]}")
                cell.lower(0.6)
            if colour_margin < 1.0:
                self.warn(name, f"a bean between {player} and {self._runner_up(pi, frag, x0, y0)}")
                cell.lower(0.5)
            if doubt and name not in doubted:
                doubted.add(name)
                self.warn(name, doubt)

    def _runner_up(self, pi: int, frag: np.ndarray, x0: int, y0: int) -> str:
        """The other player whose colour the fragment nearly matches (for warnings)."""
        sub = self.px.runner_up[y0:y0 + frag.shape[0], x0:x0 + frag.shape[1]][frag > 0]
        counts = np.bincount(sub, minlength=len(self.px.players))
        counts[pi] = -1
        return self.px.players[int(np.argmax(counts))]

    def finish(self) -> None:
        for name, cell in self.cells.items():
            if cell.occluded:
                continue
            for p, n in cell.troops.items():
                if n > MAX_LEGAL_TROOPS:
                    self.warn(name, f"{p} has {n} troops here (more than {MAX_LEGAL_TROOPS})")
            if cell.supply_center and not parse_cell(name).is_central:
                cell.supply_center = False


def _median(values: np.ndarray) -> float:
    """``np.median`` of a 1-d array, by partition (a tenth of the cost on small arrays)."""
    n = len(values)
    mid = np.partition(values, [(n - 1) // 2, n // 2])
    return float((mid[(n - 1) // 2] + mid[n // 2]) / mid.dtype.type(2))


def _regions(mask: np.ndarray, min_px: float) -> list[tuple[int, int, np.ndarray, int]]:
    """8-connected regions of ``mask`` (uint8 0/1) of at least ``min_px`` pixels, as
    (x, y, region's mask in its box, pixels); found by their outlines, which is far
    cheaper than labelling the whole image when most regions are small. A region
    includes whatever lies in its holes."""
    out = []
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in outlines:
        x, y, w, h = cv2.boundingRect(c)
        if w * h < min_px:
            continue
        one = np.zeros((h, w), np.uint8)
        cv2.drawContours(one, [c], -1, 1, -1, offset=(-x, -y))
        one &= mask[y:y + h, x:x + w]
        area = int(cv2.countNonZero(one))
        if area >= min_px:
            out.append((x, y, one, area))
    return out


def _thickest(region: np.ndarray) -> float:
    """The largest distance (px) from a pixel of ``region`` (uint8 0/1, its own box) to
    its edge."""
    padded = cv2.copyMakeBorder(region, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return float(cv2.distanceTransform(padded, cv2.DIST_L2, 3).max())


def _close_by_distance(mask: np.ndarray, radius_px: float) -> np.ndarray:
    """``mask`` (uint8 0/1, with a border of zeros wider than ``radius_px``) closed by a
    disk: two distance transforms, whatever the radius (a morphological closing with a
    large disk costs ten times as much).

    >>> two = np.zeros((30, 40), np.uint8); two[10:20, 8:16] = 1; two[10:20, 22:30] = 1
    >>> int(_close_by_distance(two, 4)[15, 19]), int(_close_by_distance(two, 2)[15, 19])
    (1, 0)
    """
    grown = (cv2.distanceTransform(1 - mask, cv2.DIST_L2, 3) <= radius_px).view(np.uint8)
    return (cv2.distanceTransform(grown, cv2.DIST_L2, 3) > radius_px).view(np.uint8)


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """``mask`` with every hole (background not reachable from the border) filled."""
    h, w = mask.shape
    pad = np.zeros((h + 2, w + 2), np.uint8)
    pad[1:-1, 1:-1] = mask
    flood = pad.copy()
    ff = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(flood, ff, (0, 0), 1)
    holes = (flood == 0)[1:-1, 1:-1]
    return (mask | holes).astype(np.uint8)


@lru_cache(maxsize=16)
def _bean_shapes(px_per_mm: float
                 ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], int]:
    """A bean's outline, a slightly larger eraser and a slightly smaller fit test, at 12
    turns, as masks at this scale."""
    s = px_per_mm
    r = int(math.ceil(BEAN_HALF_MM[0] * s + 2.0 * s)) + 1
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1].astype(np.float32)
    shapes, erasers, fits = [], [], []

    def ellipse(u: np.ndarray, v: np.ndarray, half: tuple[float, float]) -> np.ndarray:
        return (((u / half[0]) ** 2 + (v / half[1]) ** 2) <= 1.0).astype(np.uint8)

    for k in range(12):
        a = math.pi * k / 12
        u = (xx * math.cos(a) + yy * math.sin(a)) / s
        v = (-xx * math.sin(a) + yy * math.cos(a)) / s
        shapes.append(ellipse(u, v, BEAN_HALF_MM))
        erasers.append(ellipse(u, v, (BEAN_HALF_MM[0] + ERASE_MM, BEAN_HALF_MM[1] + ERASE_MM)))
        fits.append(ellipse(u, v, (BEAN_HALF_MM[0] - FIT_SLACK_MM,
                                   BEAN_HALF_MM[1] - FIT_SLACK_MM)))
    return shapes, erasers, fits, r


def peel_beans(frag: np.ndarray, px_per_mm: float, partial: bool,
               placed: list[tuple[int, int, int]] | None = None, dark: bool = False
               ) -> tuple[list[np.ndarray], float]:
    """Bean centres in a fragment, found by peeling off one bean shape at a time.

    Each round takes the thickest point left (a bean's middle is 6.5 mm from its
    edge), tries the bean's outline at twelve turns there and keeps the turn that
    covers most of what is left, then erases that bean (with a rim, for blur and
    shadow). It stops when what is left is thinner than a bean's middle or too
    small to be one (a fragment's first bean, or every bean if ``dark``, may show
    less: FAINT_SHARE). Returns the centres (fragment pixels) and the share of a bean
    left over unexplained; ``placed``, if given, gets each bean's outline (row,
    column and turn of its middle).
    """
    s = px_per_mm
    shapes, erasers, _, r = _bean_shapes(round(s, 2))
    tight, ro = _tight_outlines(round(s, 2))
    pad = r + 1
    left = cv2.copyMakeBorder(frag, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    bean_px = BEAN_AREA_MM2 * s * s
    need = (PARTIAL_SHARE if partial else WHOLE_SHARE) * bean_px
    centres: list[np.ndarray] = []
    # Nothing outside the fragment's own box is ever set: measure thickness there only.
    inner = left[pad:-pad, pad:-pad]
    for _ in range(12):
        dt = cv2.distanceTransform(inner, cv2.DIST_L2, 5)
        y, x = np.unravel_index(int(np.argmax(dt)), dt.shape)
        if dt[y, x] / s < (PEEL_MIN_PARTIAL_MM if partial else PEEL_MIN_MM):
            break
        y, x = y + pad, x + pad
        if cv2.countNonZero(left) > HEAP_BEANS * bean_px:
            # A heap: peel from the outside in. Of the places where a whole bean fits,
            # the one farthest from the heap's middle is a bean at its rim (the
            # thickest point can lie between two beans side by side).
            y, x = _outer_fit(left, dt, pad, s, y, x)
        win = left[y - r:y + r + 1, x - r:x + r + 1]
        # Pixels under each turn's outline, all turns in one product.
        cover = tight @ win[r - ro:r + ro + 1, r - ro:r + ro + 1].ravel().astype(np.float32)
        k = int(np.argmax(cover))
        if cover[k] < (need if centres and not dark else min(need, FAINT_SHARE * bean_px)):
            break
        hit = win & shapes[k]
        ys, xs = np.nonzero(hit)
        centres.append(np.array([xs.mean() + x - r - pad, ys.mean() + y - r - pad], np.float32))
        if placed is not None:
            placed.append((y - pad, x - pad, k))
        win[erasers[k] > 0] = 0
    return centres, float(left.sum()) / bean_px


def fit_beans(frag: np.ndarray, cut: np.ndarray, px_per_mm: float, partial: bool,
              placed: list[tuple[int, int, int]]) -> tuple[list[np.ndarray], float]:
    """The peel's beans (``placed``: centre row, column and turn in ``frag``) refined
    together, with one or two more or some fewer where that explains the fragment better.

    ``cut`` marks where beans may lie unseen, over ``frag`` grown by :func:`fit_pad`.
    A set of beans scores one per fragment pixel they cover, less SPILL_COST per
    bean pixel neither on the fragment nor where something may hide a bean, less
    OVERLAP_COST per pixel two beans share (beans are solid: they touch, they hardly
    overlap), less what a bean must explain to be counted (the peel's share of a
    bean) per bean. Each bean in turn moves to its best place within FIT_MOVE_PX,
    at any of the twelve turns, given the others; a bean is added at the thickest
    point left uncovered (if PEEL_MIN_PARTIAL_MM thick) while that raises the score
    and every bean shows at least FIT_SHOWS of itself (twice at most), then each is
    tried without. Returns the centres, as :func:`peel_beans` does, and the share of
    a bean left unexplained (beyond the beans' rims, as the peel counts it).

    Side by side, two beans have their thickest point between them, and the peel's
    first bean there explains half of each: refined, it moves onto one of them and
    the other is added.
    """
    s = px_per_mm
    shapes, erasers, _, r = _bean_shapes(round(s, 2))
    pad = fit_pad(s)
    fg = cv2.copyMakeBorder(frag, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0) > 0
    value = np.where(fg, 1.0, np.where(cut, 0.0, -SPILL_COST)).astype(np.float32)
    bean_px = BEAN_AREA_MM2 * s * s
    per_bean = (PARTIAL_SHARE if partial else WHOLE_SHARE) * bean_px
    tight, ro = _tight_outlines(round(s, 2))
    side, reach = 2 * ro + 1, FIT_MOVE_PX
    H, W = fg.shape
    beans = [(y + pad, x + pad, k) for y, x, k in placed]
    count = np.zeros((H, W), np.int16)  # beans over each pixel

    def put(b: tuple[int, int, int], sign: int) -> None:
        y, x, k = b
        if sign > 0:
            count[y - r:y + r + 1, x - r:x + r + 1] += shapes[k]
        else:
            count[y - r:y + r + 1, x - r:x + r + 1] -= shapes[k]

    def score() -> float:
        return float(value[count > 0].sum()) - per_bean * len(beans) \
            - OVERLAP_COST * float(np.maximum(count - 1, 0).sum())

    def best_near(y: int, x: int) -> tuple[int, int, int]:
        """The best bean within ``reach`` of (y, x), at any turn, given the beans in
        ``count``."""
        y = min(max(y, r + reach), H - r - reach - 1)
        x = min(max(x, r + reach), W - r - reach - 1)
        win = (slice(y - ro - reach, y + ro + reach + 1), slice(x - ro - reach, x + ro + reach + 1))
        gain = np.where(count[win] > 0, np.float32(-OVERLAP_COST), value[win])
        n = 2 * reach + 1
        # Every placement's window as a view (sliding_window_view's checks cost more than
        # the product); the reshape copies them into rows.
        views = np.lib.stride_tricks.as_strided(gain, (n, n, side, side), gain.strides * 2)
        i, k = np.unravel_index(int(np.argmax(views.reshape(n * n, side * side) @ tight.T)),
                                (n * n, len(shapes)))
        dy, dx = divmod(int(i), n)
        return y + dy - reach, x + dx - reach, int(k)

    def refine(passes: int) -> None:
        for _ in range(passes):
            moved = False
            for i, b in enumerate(beans):
                put(b, -1)
                beans[i] = best_near(b[0], b[1])
                put(beans[i], 1)
                moved |= beans[i] != b
            if not moved:
                return

    def shows(b: tuple[int, int, int]) -> float:
        """The share of a bean's outline over the fragment."""
        y, x, k = b
        over = fg[y - r:y + r + 1, x - r:x + r + 1] & (shapes[k] > 0)
        return float(np.count_nonzero(over)) / float(np.count_nonzero(shapes[k]))

    for b in beans:
        put(b, 1)
    refine(2)
    best = score()
    for _ in range(2):  # one more, while it pays
        dt = cv2.distanceTransform((fg & (count == 0)).view(np.uint8), cv2.DIST_L2, 5)
        y, x = np.unravel_index(int(np.argmax(dt)), dt.shape)
        if dt[y, x] / s < PEEL_MIN_PARTIAL_MM:
            break
        before = (list(beans), count.copy())
        beans.append(best_near(int(y), int(x)))
        put(beans[-1], 1)
        refine(2)
        now = score()
        # Hidden parts cost nothing, but a bean must show: a sliver of a peep's rim
        # between the peep and an egg is no bean under them.
        if now <= best or min(shows(b) for b in beans) < FIT_SHOWS:
            beans[:], count[:] = before
            break
        best = now
    i = 0
    while i < len(beans) and len(beans) > 1:  # one fewer, if that pays
        before = (list(beans), count.copy())
        put(beans.pop(i), -1)
        now = score()
        if now > best - per_bean:  # not plainly needed: let the others make up for it
            refine(1)
            now = score()
        if now > best:
            best = now
            continue
        beans[:], count[:] = before
        i += 1
    centres = []
    left = fg.copy()
    for y, x, k in beans:
        # As the peel does: the middle of what shows of the bean (else of its outline).
        ys, xs = np.nonzero(fg[y - r:y + r + 1, x - r:x + r + 1] & (shapes[k] > 0))
        cy, cx = (ys.mean(), xs.mean()) if len(ys) else (r, r)
        centres.append(np.array([cx + x - r - pad, cy + y - r - pad], np.float32))
        left[y - r:y + r + 1, x - r:x + r + 1] &= erasers[k] == 0
    return centres, float(np.count_nonzero(left)) / bean_px


@lru_cache(maxsize=32)
def _tight_outlines(px_per_mm: float, fit: bool = False) -> tuple[np.ndarray, int]:
    """The 12 bean outlines of :func:`_bean_shapes` (``fit``: its fit tests) cropped to the
    square the outlines fill (radius ``ro`` px, not the eraser's), as rows of one float32
    matrix, and ``ro``."""
    shapes, _, fits, r = _bean_shapes(px_per_mm)
    ys, xs = np.nonzero(np.max(shapes, axis=0))
    ro = int(max(np.abs(ys - r).max(), np.abs(xs - r).max()))
    return np.stack([sh[r - ro:r + ro + 1, r - ro:r + ro + 1].ravel()
                     for sh in (fits if fit else shapes)]).astype(np.float32), ro


def fit_pad(px_per_mm: float) -> int:
    """Room around a fragment for :func:`fit_beans`: a bean's reach and its moves."""
    return _bean_shapes(round(px_per_mm, 2))[3] + FIT_MOVE_PX + 2


def _outer_fit(left: np.ndarray, dt: np.ndarray, pad: int, px_per_mm: float, y: int, x: int
               ) -> tuple[int, int]:
    """Where a whole bean (every other turn of twelve) fits in ``left`` (its fragment
    padded by ``pad``; ``dt`` its distance transform, unpadded), farthest from its middle;
    else (y, x).

    A bean fits only where a disk as wide as it lies inside, so only there, farthest
    first, are the outlines tried (eroding the fragment by each outline costs twice as
    much).
    """
    fits, ro = _tight_outlines(round(px_per_mm, 2), True)
    fits = fits[::2]  # float32: the uint8 windows are converted in the product
    area = fits.sum(axis=1)
    # The distance transform is a little off the true distance: a pixel and a half of slack.
    ys, xs = np.nonzero(dt >= (BEAN_HALF_MM[1] - FIT_SLACK_MM) * px_per_mm - 1.5)
    if len(ys) == 0:
        return y, x
    ys, xs = ys + pad, xs + pad
    my, mx = np.nonzero(left)
    # Squared distance from the middle times the pixel count squared: whole numbers, so
    # ties are exact and go to the first in row order.
    n = np.int64(len(my))
    d = (n * ys - my.sum(dtype=np.int64)) ** 2 + (n * xs - mx.sum(dtype=np.int64)) ** 2
    side = 2 * ro + 1
    views = np.lib.stride_tricks.as_strided(left, (left.shape[0] - side + 1,
                                                   left.shape[1] - side + 1, side, side),
                                            left.strides * 2)
    # Farthest first; most heaps have a bean at their rim among the first few tried.
    order = np.argsort(-d, kind="stable")
    for at in range(0, len(order), 32):
        some = order[at:at + 32]
        windows = views[ys[some] - ro, xs[some] - ro].reshape(len(some), side * side)
        inside = np.flatnonzero(((windows @ fits.T) >= area - 0.5).any(axis=1))
        if len(inside):
            i = some[inside[0]]
            return int(ys[i]), int(xs[i])
    return y, x


def read_pieces(mosaic: Mosaic, profile: Profile) -> PieceReading:
    """Every cell of the mosaic: Supply Center, each player's troops and peep, or occluded."""
    px = classify(mosaic, profile)
    dark = frozenset(p for p in px.players
                     if profile.colours[p].bean.mean[2] < DARK_BEAN_LIGHTNESS)
    r = _Reader(mosaic, px, dark)
    r.supply_centers()
    r.big_regions()
    r.unknown_occluders()
    r.hidden_print()
    r.players()
    r.mark_occluded()
    r.finish()
    return PieceReading(r.cells, r.warnings, px.players)
