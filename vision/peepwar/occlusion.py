"""Where the camera cannot see the pieces: hands, arms and sleeves over the tiles.

Works on the table-frame mosaic with per-pixel players (:mod:`vision.peepwar.piece_pixels`),
once the Supply Centers are set aside (a disc is only a hand's when a hand goes
all round it). What it finds is one mask; the reader (:mod:`vision.peepwar.passes.occlusion`)
reports the cells it touches ``occluded``, never empty.

- Large foreground regions no player's colour explains (a hand, an arm; not a
  peep's glossy top, ringed by its colour).
- A player's colour region far too big or thick for pieces. A dark hand is cut
  up by the print under it, so its thickness is measured with what it closes
  in, and its fingers beyond that print are its own; of a region that also
  holds pieces only the hand's part occludes. A hand over a tile's middle is as
  thick as an egg there and is taken for a Supply Center; the region that goes
  all round that disc, a hand's breadth wide, is a hand with the disc.
- Foreground at the board's outer edge that goes on past it, in its own
  colour, over the table: an arm or a finger reaching in.
- A pale hand may not stand out from the paper at all, but it hides the
  markers' solid print over a breadth no piece does (print whose pattern still
  shows, under glare or blur, is not hidden: :mod:`vision.peepwar.print_seen`);
  its fingers over bare paper are tinted like it (every occluder grows into
  what is tinted like it).
- Last, a speck of occluder ringed by one player's colour is part of a piece (a
  hand's region running on into a peep it touches picks up its glossy top).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.colour import features
from companion.rules.peepwar.board import ACROSS_FLATS_MM
from vision.peepwar import print_seen
from vision.peepwar.mask_shapes import (
    close_by_distance,
    disk,
    grown_box,
    points_inside,
    regions,
    thickest,
)
from vision.peepwar.mosaic import Mosaic
from vision.peepwar.piece_pixels import NONE, UNKNOWN, PixelClasses
from vision.srgb import SRGB_TO_LINEAR

OCCLUDER_MIN_MM2 = 250.0
OCCLUDER_MIN_THICK_MM = 4.5
HIGHLIGHT_MAX_MM2 = 800.0  # no player's colour, smaller than this (half a peep) ...
HIGHLIGHT_RING_MM = 2.0  # ... and ringed this wide ...
HIGHLIGHT_RING_SHARE = 0.56  # ... this much by one player's colour: a glossy top, no hand
PIECE_MAX_MM2 = 14000.0  # touching pieces: four peeps in a chain with their beans cover 10,000
PIECE_MAX_THICK_MM = 26.0  # two peeps side by side with beans: 25.2 at 1 px/mm
SEAM_BRIDGE_MM = 3.75  # foreground this near across a seam between tiles is one region
REACH_GAP_MM = 8.0  # tiles this near one another are one board (the gaps are not its edge)
REACH_EDGE_MM = 2.5  # foreground this near the board's outer edge touches it ...
REACH_MIN_CONTACT_MM = 8.0  # ... along this much of its outline (a finger is 18 mm wide)
REACH_MIN_MM2 = 120.0
REACH_MIN_OUTLINE_MM = 40.0
REACH_PAST_MM = (20.0, 35.0)  # ... and shows its colour this far past the edge ...
REACH_SHARE = 0.48  # ... at this share of the points sampled there: an arm reaching in
REACH_SAMPLES = 16
# Followed along, an arm's colour drifts further from where it crosses the edge (it turns
# from the lamp) than a few points just past the edge do.
REACH_FLOOD_SAME = 45.0
TABLE_LIKE_SHARE = 0.2  # ... unless this share of the table round the board is as near it
FINGER_HALF_MM = 6.0  # what goes on past the edge is this thick at least (12 mm across)
REACH_COLOUR_SAME = 30.0  # BGR distance within which the frame shows the same colour
REACH_COLOUR_APART = 40.0  # the region must differ from the table by this much
TABLE_PAST_MM = 25.0
HAND_BRIDGE_MM = 14.0  # what a region closes in this deep (a marker is 25 mm) ...
HAND_THICK_MM = 27.0  # ... and makes it this thick: a hand (pieces closed in stay thinner)
HAND_CORE_MM = 18.0  # a hand's part thicker than a peep (or its thickest part) ...
HAND_CORE_SHARE = 0.7  # ... and what joins it in its own colour class occlude
FINGER_MM = 60.0  # so do pieces of that colour class this near it ...
FINGER_GAP_MM = 10.0  # ... joined to it across print no wider than this
HAND_SAT_ABOVE = 0.10  # saturation above the hand's core that is a piece, not skin
PIECE_SOLID_MM = 2.0  # a piece (not a finger's flecks of colour) is this solid ...
PIECE_RIM_MM = 1.5  # ... and its rim this wide, pale as skin, is its own
# A region covering these shares of the bands this far (mm) round a Supply Center's disc
# buries it: a hand over it.
BURIED_BANDS = (((3.0, 6.0), 0.85), ((12.0, 18.0), 0.75))
SKIN_CHROMA_MIN = 0.15  # an occluder this far from grey in chroma has a hue of its own ...
SKIN_NEARER = 0.5  # ... and pixels nearer it than this share of that are its fingers,
SKIN_OPEN_MM = 3.0  # ... where they are this thick
SKIN_SPREAD_MIN = 4  # sRGB levels between a pixel's channels: less is grey for this
HIDDEN_MIN_MM2 = 40.0  # this much solid print hidden together ...
HIDDEN_THICK_MM = 8.0  # ... this far from its edge (16 mm across: a finger) is under a hand
HIDDEN_JOIN_MM = 6.0  # hidden print this close together is one patch
HIDDEN_GROW_MM = 8.0  # a hand reaches this far past the print it hides
# A patch of hidden print whose pattern still shows (vision.peepwar.print_seen) at this
# share of its pixels is seen through glare or blur, not under a hand.
GLARE_SHARE = 0.7


def find_occluders(mosaic: Mosaic, px: PixelClasses, egg: np.ndarray) -> np.ndarray:
    """The mask (uint8 0/1, the mosaic's size) of what hides the tiles in ``mosaic``:
    hands, arms, sleeves. ``egg`` marks the Supply Centers' discs, never a hand."""
    return find_occluders_and_reach(mosaic, px, egg)[0]


def find_occluders_and_reach(mosaic: Mosaic, px: PixelClasses, egg: np.ndarray
                             ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`find_occluders`, and the part of it found as an arm reaching in from past
    the board's edge (uint8 0/1): the one sign of a hand that no window round a cell shows."""
    found = _Occlusion(mosaic, px, egg)
    found.big_regions()
    before = found.occluder.copy()
    found.reaching_in()
    reached = found.occluder & (1 - before)
    found.unknown_occluders()
    found.hidden_print()
    found.pale_skin()
    found.specks_in_pieces()
    return found.occluder, reached & found.occluder


class _Occlusion:
    def __init__(self, mosaic: Mosaic, px: PixelClasses, egg: np.ndarray) -> None:
        self.m = mosaic
        self.px = px
        self.egg = egg
        self.s = mosaic.px_per_mm
        h, w = mosaic.cell_map.shape
        self.occluder = np.zeros((h, w), np.uint8)
        self._closed_fg = np.zeros((h, w), np.uint8)  # foreground, closed, over the seams
        self._board_outline: list[np.ndarray] | None = None  # frame px, see _board_in_frame

    def mm2(self, px_count: float) -> float:
        return px_count / (self.s * self.s)

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
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, disk(1.5 * s))
        # An arm across several tiles is one thing: the seams between tiles do not cut it.
        seams = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, disk(SEAM_BRIDGE_MM * s))
        fg |= seams & (~self.m.on_tiles).view(np.uint8)
        self._closed_fg = fg
        # Smaller than a disc PIECE_MAX_THICK_MM round, a region cannot be that thick.
        for x, y, one, area in regions(fg, math.pi * PIECE_MAX_THICK_MM**2 * s * s):
            depth = None
            if self.mm2(area) <= PIECE_MAX_MM2 and thickest(one) / s <= PIECE_MAX_THICK_MM:
                # Not too thick itself: is it with the print it closes in?
                filled, pad = self._filled(one, x, y)
                depth = _depth(filled, pad)
                if float(depth[one > 0].max()) / s <= HAND_THICK_MM:
                    buried = self._with_buried_egg(one, x, y, filled, pad)
                    if buried is None:
                        continue
                    one, depth = buried, None
            self._occlude_hand(one, x, y, depth)

    def _with_buried_egg(self, one: np.ndarray, x: int, y: int, filled: np.ndarray, pad: int
                         ) -> np.ndarray | None:
        """Region ``one`` (its box at x, y) with the Supply Center it buries, if it is a
        hand over one: a hand over a tile's middle is as thick as an egg there, so it is
        taken for one, and what is left of the hand is a ring about it, no thicker than
        pieces. The egg's disc is the hand's when the region, with the print it closes in
        (see :meth:`_filled`), covers most of a band close round it and most of one a
        hand's breadth out (beans round an egg reach a bean's length from it at most).
        ``filled``, ``pad``: what :meth:`_filled` gives for it. None if it buries none."""
        s = self.s
        if not self.egg[y:y + one.shape[0], x:x + one.shape[1]].any():
            return None
        sl, into = grown_box(x, y, one.shape, pad, self.m.cell_map.shape)
        egg = np.zeros_like(filled)
        egg[into] = self.egg[sl]
        n, cc = cv2.connectedComponents(egg, connectivity=8)
        out = one.copy()
        for i in range(1, n):
            disc = (cc == i).view(np.uint8)
            for (near, far), share in BURIED_BANDS:
                band = cv2.dilate(disc, disk(far * s)) & ~cv2.dilate(disc, disk(near * s)) & 1
                if cv2.countNonZero(band & filled) < share * cv2.countNonZero(band):
                    break
            else:
                out |= disc[pad:-pad, pad:-pad]
        return out if (out != one).any() else None

    def reaching_in(self) -> None:
        """Foreground at the board's outer edge that goes on, in its own colour, well past
        it over the table is an arm or a finger reaching in (pieces end within a peep's
        length of where they lie): its hand part occludes, however small or thin it is on
        the tiles. The frame past the edge is looked at in a few points straight out, all
        regions' in one batch; a region those points meet only in part is followed through
        the frame (:meth:`_goes_on_in_frame`), as an arm crossing aslant is."""
        s = self.s
        fg = self._closed_fg & (self.occluder == 0).view(np.uint8)
        # The board: the tiles with the gaps between them (a square closes as well as a disk
        # here, and costs a fifth).
        gap = 2 * int(round(REACH_GAP_MM * s)) + 1
        board = cv2.morphologyEx(self.m.on_tiles.view(np.uint8), cv2.MORPH_CLOSE,
                                 np.ones((gap, gap), np.uint8))
        touch = fg & cv2.dilate(1 - board, disk(REACH_EDGE_MM * s))
        if cv2.countNonZero(touch) < REACH_MIN_CONTACT_MM * s:
            return
        centres = np.array(list(self.m.tile_centres_px.values()), float)
        outlines, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        candidates = []  # (outline, edge points sampled, points past the edge at each reach)
        for c in outlines:
            if len(c) < REACH_MIN_OUTLINE_MM * s:  # too small to be a finger: skip cheaply
                continue
            pts = c.reshape(-1, 2)
            at_edge = pts[touch[pts[:, 1], pts[:, 0]] > 0]
            if len(at_edge) < REACH_MIN_CONTACT_MM * s:
                continue
            edge = at_edge[:: max(1, len(at_edge) // REACH_SAMPLES)].astype(float)
            # Outwards: away from the centre of the tile the point lies on.
            near = centres[np.argmin(((edge[:, None] - centres[None]) ** 2).sum(-1), axis=1)]
            out = edge - near
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
            candidates.append((c, edge, [edge + out * d * s for d in REACH_PAST_MM]))
        if not candidates:
            return
        table_at = _table_points(centres, s)
        past = np.vstack([p for _, _, ps in candidates for p in ps])
        seen = self.m.beyond(np.vstack([table_at, past]))
        table = seen[:len(table_at)]
        table = table[~np.isnan(table[:, 0])]
        if len(table) < 3:
            return
        table_seen, table = table, np.median(table, axis=0)
        seen = seen[len(table_at):]
        # Only points on the table, off every tile, tell.
        ok = ~np.isnan(seen[:, 0]) & ~points_inside(board, past)
        at = 0
        for c, edge, pasts in candidates:
            colour = np.median(
                self.m.image[edge[:, 1].astype(int), edge[:, 0].astype(int), :3].astype(float),
                axis=0)
            apart = float(np.linalg.norm(colour - table))
            n = len(edge)
            there, told = seen[at:at + n * len(pasts)], ok[at:at + n * len(pasts)]
            at += n * len(pasts)
            # As dark or as brown as the table: past the edge the frame cannot tell.
            if apart < REACH_COLOUR_APART:
                continue
            # Past the edge, at every reach: nearer the region's colour than halfway to the
            # table's, at most points that tell.
            dist = np.linalg.norm(there - colour, axis=1).reshape(len(pasts), n)
            near, told = dist < min(REACH_COLOUR_SAME, apart / 2), told.reshape(len(pasts), n)
            # An arm aslant is still met by some of those points in the
            # looser colour it is followed by: else there is nothing to follow.
            met = ((dist < min(REACH_FLOOD_SAME, apart / 2)) & told).any()
            if ((told.sum(axis=1) < n // 2).any()
                    or ((near & told).sum(axis=1) < REACH_SHARE * told.sum(axis=1)).any()) \
                    and not (met and self._goes_on_in_frame(edge, colour, apart, board,
                                                            table_seen)):
                continue
            x, y, w, h = cv2.boundingRect(c)
            one = np.zeros((h, w), np.uint8)
            cv2.drawContours(one, [c], -1, 1, -1, offset=(-x, -y))
            one &= fg[y:y + h, x:x + w]
            if self.mm2(cv2.countNonZero(one)) >= REACH_MIN_MM2:
                self._occlude_hand(one, x, y, core=one & touch[y:y + h, x:x + w])

    def _goes_on_in_frame(self, edge: np.ndarray, colour: np.ndarray, apart: float,
                          board: np.ndarray, table: np.ndarray) -> bool:
        """Does what touches the board's edge at mosaic points ``edge`` go on, in its own
        ``colour`` (``apart`` from the table's), over the table in the frame: one piece of
        that colour, a finger thick, joined to those points and reaching REACH_PAST_MM[1]
        from the board? Rays straight out from the tile's centre (the first test) miss an
        arm that crosses the edge aslant or in a corner between tiles; this follows the
        arm wherever it goes. ``board``: the tiles with the gaps between them (mosaic);
        ``table``: BGR of the table seen round the board (N, 3). Where that much of the
        table would itself pass for the colour (a wood's dark grain, a patterned cloth), the
        frame cannot tell an arm from the table this way."""
        s = self.s
        same_as = min(REACH_FLOOD_SAME, apart / 2)
        if np.mean(np.linalg.norm(table - colour, axis=1) < same_as) > TABLE_LIKE_SHARE:
            return False
        fh, fw = self.m.frame.shape[:2]
        at = self.m.to_frame(edge)
        # Frame pixels per mm at the edge, along the table's axes; the larger one, so that
        # a reach is never overstated where the view foreshortens it.
        step = max(float(np.median(np.linalg.norm(self.m.to_frame(edge + d) - at, axis=1)))
                   for d in ((10 * s, 0.0), (0.0, 10 * s))) / 10.0
        if not np.isfinite(step) or step <= 0:
            return False
        grow = (REACH_PAST_MM[1] + 10.0) * step
        x0, y0 = np.floor(at.min(axis=0) - grow).astype(int)
        x1, y1 = np.ceil(at.max(axis=0) + grow).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, fw), min(y1, fh)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return False
        roi = np.ascontiguousarray(self.m.frame[y0:y1, x0:x1, :3])
        on_board = self._board_in_frame(board, (x0, y0, x1, y1))
        # Most regions at the edge are pieces on a table unlike them: not a finger's breadth
        # of the table round them is even within a box of their colour (quick to count).
        finger = math.pi * (FINGER_HALF_MM * step) ** 2
        box = cv2.inRange(roi, np.clip(colour - same_as, 0, 255),
                          np.clip(colour + same_as, 0, 255))
        box[on_board > 0] = 0
        if cv2.countNonZero(box) < finger:
            return False
        # The distance to the colour is measured only inside the box, which holds every
        # pixel that near it (a ball lies inside its cube).
        inside = np.flatnonzero(box)
        d = roi.reshape(-1, 3)[inside].astype(np.int32) - np.round(colour).astype(np.int32)
        same = np.zeros(box.shape, np.uint8)
        same.ravel()[inside[(d * d).sum(axis=1) < same_as * same_as]] = 1
        if cv2.countNonZero(same) < finger:
            return False
        # Flecks of the table's own grain in that colour are thinner than a finger.
        same = cv2.morphologyEx(same, cv2.MORPH_OPEN, disk(2.0 * step))
        seeds = np.zeros_like(same)
        for px, py in np.round(at - (x0, y0)).astype(int):
            cv2.circle(seeds, (int(px), int(py)), max(1, int(round(4.0 * step))), 1, -1)
        n, cc = cv2.connectedComponents(same | (seeds & on_board), connectivity=8)
        held = np.zeros(n, bool)
        held[cc[seeds > 0]] = True
        held[0] = False
        arm = held[cc] & (same > 0)
        if not arm.any():
            return False
        past = cv2.distanceTransform(1 - on_board, cv2.DIST_L2, 3)
        thick = cv2.distanceTransform(arm.view(np.uint8), cv2.DIST_L2, 3)
        return (float(past[arm].max()) >= REACH_PAST_MM[1] * step
                and float(thick.max()) >= FINGER_HALF_MM * step)

    def _board_in_frame(self, board: np.ndarray, box: tuple[int, int, int, int]
                        ) -> np.ndarray:
        """The board (mosaic mask) drawn into the frame's ``box`` (x0, y0, x1, y1): 0/1."""
        x0, y0, x1, y1 = box
        out = np.zeros((y1 - y0, x1 - x0), np.uint8)
        if self._board_outline is None:  # the same for every region: found once a frame
            outlines, _ = cv2.findContours(board, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            self._board_outline = [self.m.to_frame(c.reshape(-1, 2).astype(float))
                                   for c in outlines]
        cv2.fillPoly(out, [np.round(c - (x0, y0)).astype(np.int32)
                           for c in self._board_outline], 1)
        return out

    def _occlude_hand(self, one: np.ndarray, x: int, y: int,
                      depth: np.ndarray | None = None, core: np.ndarray | None = None
                      ) -> None:
        """Occlude the hand in region ``one`` (its box at x, y), and its fingers beyond the
        print or the egg that cuts them off it: pieces of foreground in the hand's colour
        class within a finger's length of it, joined to it across print or a seam between
        tiles no wider than FINGER_GAP_MM, or over a Supply Center's disc.
        ``depth``: the region's :meth:`_depth`, if measured already; ``core``: where the
        hand certainly is (see :meth:`_hand_part`)."""
        s = self.s
        pad = int(math.ceil(FINGER_MM * s))
        sl, _ = grown_box(x, y, one.shape, pad, self.m.cell_map.shape)
        oy, ox = y - sl[0].start, x - sl[1].start
        sat = _saturation(self.px.balanced[sl])
        part, main, skin = self._hand_part(
            one, x, y, sat[oy:oy + one.shape[0], ox:ox + one.shape[1]], depth, core)
        hand = np.zeros((sl[0].stop - sl[0].start, sl[1].stop - sl[1].start), np.uint8)
        hand[oy:oy + one.shape[0], ox:ox + one.shape[1]] = part
        apart = cv2.distanceTransform(1 - hand, cv2.DIST_L2, 3)
        labels, free = self.px.label[sl], self.egg[sl] == 0
        # The hand's colour class, as in _hand_part: its own label, or no player's; over a
        # Supply Center's disc too, as a finger lying across an egg is (its tip beyond the
        # egg was cut off the hand).
        mine = (self.px.fg[sl] & ((labels == main) | (labels >= NONE))
                & (apart <= FINGER_MM * s) & (sat <= skin))
        # A piece touching the hand has a rim paler than itself, as pale as skin: the rim
        # of a piece (player's colour more saturated than skin, a bean's width or more) is
        # the piece's, not a finger joining the hand round it.
        piece = (self.px.fg[sl] & (labels < len(self.px.players)) & ~mine).view(np.uint8)
        piece = cv2.morphologyEx(piece, cv2.MORPH_OPEN, disk(PIECE_SOLID_MM * s))
        mine &= cv2.dilate(piece, disk(PIECE_RIM_MM * s)) == 0
        # Print, or a seam between tiles (off the mosaic's tiles, never foreground).
        across = ((self.px.shaded[sl] | ~self.m.on_tiles[sl]) & free
                  & (apart <= FINGER_GAP_MM * s))
        joined = ((hand > 0) | mine | across).view(np.uint8)
        n, cc = cv2.connectedComponents(joined, connectivity=8)
        held = np.zeros(n, bool)
        held[cc[hand > 0]] = True
        held[0] = False
        self.occluder[sl] |= (held[cc] & ((hand > 0) | mine)).view(np.uint8)

    def _hand_part(self, one: np.ndarray, x: int, y: int, sat: np.ndarray,
                   depth: np.ndarray | None = None, core: np.ndarray | None = None
                   ) -> tuple[np.ndarray, int, float]:
        """The part of region ``one`` (its box at x, y) that is the hand: its thickest part
        and what joins it in the same colour class (fingers, a sleeve), so pieces of another
        colour touching the hand stay pieces and their cells are read. Thickness counts the
        print the region closes in (see :meth:`_depth`): a hand over markers is cut into
        strips by their black squares, and is still thicker than a peep beside it. ``sat``:
        the saturation over its box; returns the part, its label and the skin's highest
        saturation.

        ``core``, for an arm reaching in over the board's edge: where it crosses the edge
        (of at least REACH_MIN_CONTACT_MM). That, not the thickest part (often a peep the
        hand touches), is the hand; of it, what is in its colour class."""
        s = self.s
        labels = self.px.label[y:y + one.shape[0], x:x + one.shape[1]]
        edge = core is not None and cv2.countNonZero(core) >= REACH_MIN_CONTACT_MM * s
        dt = self._depth(one, x, y) if depth is None else depth
        thick = dt >= min(HAND_CORE_MM * s, HAND_CORE_SHARE * float(dt[one > 0].max()))
        core = (core > 0) & (one > 0) if edge else thick
        main = int(np.bincount(labels[core & (one > 0)]).argmax())
        # A piece of the hand's label touching it is more saturated than skin.
        skin = float(np.median(sat[core & (one > 0)]))
        if edge:
            # An arm at the board's edge can be paler than its hand: the hand's thickest
            # part in its colour class says how saturated skin is too.
            thick_like = thick & (one > 0) & ((labels == main) | (labels >= NONE))
            if thick_like.any():
                skin = max(skin, float(np.median(sat[thick_like])))
        skin += HAND_SAT_ABOVE
        like = ((labels == main) | (labels >= NONE)) & (one > 0) & (sat <= skin)
        if edge:
            # Pieces lying at the board's edge beside the arm are no part of it.
            core &= like
        same = (like | core).view(np.uint8)
        _, cc = cv2.connectedComponents(same, connectivity=8)
        held = np.zeros(int(cc.max()) + 1, bool)
        held[cc[core]] = True
        held[0] = False
        return held[cc].view(np.uint8), main, skin

    def _depth(self, one: np.ndarray, x: int, y: int) -> np.ndarray:
        """Each pixel's distance (px) to the edge of region ``one`` (its box at x, y) with
        the print it closes in, over its box: where a dark hand lies over print, the print
        shows as holes and notches in it. Bare paper between pieces (a marker's white
        squares) stays a gap."""
        return _depth(*self._filled(one, x, y))

    def _filled(self, one: np.ndarray, x: int, y: int) -> tuple[np.ndarray, int]:
        """Region ``one`` (its box at x, y) with the print it closes in, in its box grown by
        the returned pad on every side."""
        pad = int(HAND_BRIDGE_MM * self.s) + 2
        box = cv2.copyMakeBorder(one, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        sl, into = grown_box(x, y, one.shape, pad, self.m.cell_map.shape)
        not_paper = np.zeros_like(box)
        not_paper[into] = (self.px.shaded[sl] | (self.m.cell_map[sl] < 0)) & (self.egg[sl] == 0)
        return box | (close_by_distance(box, HAND_BRIDGE_MM * self.s) & not_paper), pad

    def unknown_occluders(self) -> None:
        unk = ((self.px.label == UNKNOWN) & (self.egg == 0)).astype(np.uint8)
        unk = cv2.morphologyEx(unk, cv2.MORPH_OPEN, disk(1.0 * self.s))
        for x, y, one, _ in regions(unk, OCCLUDER_MIN_MM2 * self.s * self.s):
            # A finger is 15 mm wide or more; thin rings (a printed peep's outline, a
            # piece's rim in shadow) are not hands.
            if thickest(one) / self.s >= OCCLUDER_MIN_THICK_MM \
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
        ring = (cv2.dilate(region, disk(HIGHLIGHT_RING_MM * s)) > 0) & (region == 0)
        sl, into = grown_box(x, y, one.shape, pad, self.m.cell_map.shape)
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
        for x, y, one, _ in regions(near, HIDDEN_MIN_MM2 * s * s):
            sl = (slice(y, y + one.shape[0]), slice(x, x + one.shape[1]))
            if cv2.countNonZero(one & hid[sl]) < HIDDEN_MIN_MM2 * s * s:
                continue
            # A printed understudy's white margin hides print in a strip a few mm wide.
            if thickest(one) / s >= HIDDEN_THICK_MM and not self._seen_through(one, x, y, hid):
                hand[sl] |= one
        if hand.any():
            self.occluder |= cv2.dilate(hand, disk(HIDDEN_GROW_MM * s))

    def _seen_through(self, one: np.ndarray, x: int, y: int, hid: np.ndarray) -> bool:
        """Is the print taken for hidden in patch ``one`` (its box at x, y) seen through
        glare or blur, not hidden: does its pattern still show at GLARE_SHARE of its hidden
        pixels (:func:`vision.peepwar.print_seen.print_seen`)? A hand over part of the
        patch keeps it hidden: mixed evidence leaves the cells occluded."""
        s = self.s
        pad = int(math.ceil(print_seen.pad_mm() * s))
        sl, into = grown_box(x, y, one.shape, pad, self.m.cell_map.shape)
        free = self.m.on_tiles[sl] & self.m.in_frame[sl] & ~self.px.fg[sl] & (self.egg[sl] == 0)
        seen = print_seen.print_seen(self.px.balanced[sl], self.px.white[sl], self.m.ink[sl],
                                     free, s)
        ys, xs = sl[0].start, sl[1].start
        mine = (one > 0) & (hid[y:y + one.shape[0], x:x + one.shape[1]] > 0)
        shown = seen[y - ys:y - ys + one.shape[0], x - xs:x - xs + one.shape[1]] & mine
        return int(shown.sum()) >= GLARE_SHARE * int(mine.sum())

    def pale_skin(self) -> None:
        """Each occluder's pale fingers: pixels not taken for pieces or print (a pale hand is
        as pale as paper to the foreground test), within a finger's length of it and joined
        to it, whose chroma lies within SKIN_NEARER of the occluder's own tint's distance
        from grey, where they lie thicker than a piece's rim. An occluder no more coloured
        than SKIN_CHROMA_MIN cannot be told from paper this way."""
        occ = self.occluder
        if not occ.any():
            return
        s = self.s
        pad = int(math.ceil(FINGER_MM * s))
        for x, y, region, _ in regions(occ, 1):
            sl, _ = grown_box(x, y, region.shape, pad, occ.shape)
            one = np.zeros((sl[0].stop - sl[0].start, sl[1].stop - sl[1].start), bool)
            oy, ox = y - sl[0].start, x - sl[1].start
            one[oy:oy + region.shape[0], ox:ox + region.shape[1]] = region > 0
            shaded = self.px.shaded[sl]
            hand = _chroma(self.px.balanced[sl][one & ~shaded][::4])  # a sample for a median
            if len(hand) == 0:
                continue
            tint = np.median(hand, axis=0)
            if float(np.linalg.norm(tint)) < SKIN_CHROMA_MIN:
                continue
            bal = self.px.balanced[sl]
            # Only pixels with some colour in 8 bits are looked at: it is quicker, and a
            # near-black pixel's chroma in linear light is noise.
            b, g, r = cv2.split(bal)
            tinted = cv2.subtract(cv2.max(cv2.max(b, g), r),
                                  cv2.min(cv2.min(b, g), r)) >= SKIN_SPREAD_MIN
            near = (tinted & self.m.on_tiles[sl] & self.m.in_frame[sl] & ~self.px.fg[sl]
                    & ~shaded & (self.egg[sl] == 0)
                    & (cv2.distanceTransform((~one).view(np.uint8), cv2.DIST_L2, 3)
                       <= FINGER_MM * s))
            ys, xs = np.nonzero(near)
            if not len(ys):
                continue
            f = _chroma(bal[ys, xs])
            like = (np.linalg.norm(f - tint, axis=1) < SKIN_NEARER * np.linalg.norm(tint))
            grow = np.zeros_like(one, np.uint8)
            grow[ys[like], xs[like]] = 1
            # A finger is 15 mm wide: the tinted rims of pieces and their shadows are not.
            grow = cv2.morphologyEx(grow, cv2.MORPH_OPEN, disk(SKIN_OPEN_MM * s)) | one
            _, gc = cv2.connectedComponents(grow, connectivity=8)
            held = np.zeros(int(gc.max()) + 1, bool)
            held[gc[one]] = True
            held[0] = False
            occ[sl] |= held[gc].view(np.uint8)

    def specks_in_pieces(self) -> None:
        """An occluder no bigger than a highlight and ringed by one player's colour is part
        of a piece: a hand's region that runs on into a peep or card it touches picks up
        specks inside it (its glossy top, its eyes), which would occlude the cell."""
        occ = self.occluder
        if not occ.any():
            return
        for x, y, one, _ in regions(occ, 1):
            if self._inside_a_piece(one, x, y):
                occ[y:y + one.shape[0], x:x + one.shape[1]] &= 1 - one


def _depth(filled: np.ndarray, pad: int) -> np.ndarray:
    """Each pixel's distance to the edge of ``filled`` (as :meth:`_Occlusion._filled`
    gives it), over the region's own box (``pad`` cut off every side)."""
    return cv2.distanceTransform(filled, cv2.DIST_L2, 3)[pad:-pad, pad:-pad]


def _chroma(bgr: np.ndarray) -> np.ndarray:
    """(N, 2) chroma of white-balanced sRGB pixels (N, 3): the first two of calibration's
    colour features; (0, 0) is grey."""
    return features(SRGB_TO_LINEAR[bgr.reshape(-1, 3)])[:, :2]


def _saturation(bgr: np.ndarray) -> np.ndarray:
    """(max - min) / max channel of 8-bit BGR, 0 for black.

    >>> _saturation(np.array([[[200, 100, 50], [0, 0, 0]]], np.uint8)).round(2).tolist()
    [[0.75, 0.0]]
    """
    # OpenCV per channel: numpy's max over the last axis of 3 is several times slower (5 ms
    # over a hand's box).
    b, g, r = cv2.split(bgr)
    hi = cv2.max(cv2.max(b, g), r).astype(np.float32)
    return (hi - cv2.min(cv2.min(b, g), r)) / np.maximum(hi, 1.0)


def _table_points(centres: np.ndarray, s: float) -> np.ndarray:
    """Mosaic points on the table a little past the outer edges of the board whose tiles
    are centred at ``centres`` (mosaic pixels, ``s`` px/mm), (N, 2)."""
    a = np.radians(60 * np.arange(6) + 30)
    ring = np.stack([np.cos(a), np.sin(a)], axis=1) * (ACROSS_FLATS_MM / 2 + TABLE_PAST_MM) * s
    pts = (centres[:, None] + ring[None]).reshape(-1, 2)
    far = np.linalg.norm(pts[:, None] - centres[None], axis=2).min(axis=1)
    return pts[far > (ACROSS_FLATS_MM / 2 + 5) * s]
