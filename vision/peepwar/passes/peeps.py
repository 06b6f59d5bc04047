"""Pass 3 of the piece reader: the peeps, and their corrections once the beans are read.

On all pieces' foreground together, whatever is thicker than a cluster of beans can be
(distance to the edge over ``PEEP_CORE_MM``) and mostly in its owner's *peep* colour rather
than their bean colour is a peep's body; its owner is the majority player over it. Two peeps
touching make one core whose thickness peaks twice: it is split between the peaks. Else a
core holding two players' colours (their peeps side by side) is split into one per player;
one player's cores too near for two peeps (a gap between tiles cuts a peep lying across it)
are one peep. The peeps' bodies (``FrameState.body``) and the regions of pieces
(``FrameState.regions``) are left for the beans.

After the beans: a core in its owner's bean colour, with no bean found near its middle, is
a peep after all (shaded like a bean, or an understudy card: :func:`peeps_not_heaps`); a
peep with a bean's centre near its middle was a heap of beans as thick as a peep, and is
dropped (:func:`heaps_not_peeps`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.peepwar.cell_warnings import Warned
from vision.peepwar.mask_shapes import disk, fill_holes_below, long_side, nearest_seed
from vision.peepwar.occlusion import PIECE_MAX_MM2
from vision.peepwar.passes.assembly import DOUBT_CONFIDENCE
from vision.peepwar.passes.state import cell_at, cell_near
from vision.peepwar.piece_pixels import components

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

HOLE_MM2 = 100.0  # holes smaller than this in a piece are highlights or eyes
PEEP_CORE_MM = 11.0  # a peep is 35 mm wide; bean clusters are never this thick
# A core (or one player's part of one) smaller than this is no peep's: a peep's core is
# about 400 mm2 ...
MIN_PEEP_CORE_MM2 = 25.0
PEEP_PAIR_CORE_MM2 = 700.0  # ... and a core larger than this may hold two
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
# A peep centred this near a tile's cell map, but off it, stands in the nearest cell (half a
# 7 mm gap between tiles, and the edge's 1.5).
PEEP_SNAP_MM = 6.0
# A peep stands in the cell under its foot: the middle of what a camera sees of it (its
# round body about as tall as its 35 mm width, its head above) stands this high.
PEEP_MIDDLE_MM = 14.0
DOME_SHARE = 0.5  # a body this much within an egg's dome as seen is the egg's (_dome_seen)


@dataclass(frozen=True)
class FoundPeep:
    """A peep's core as found: whose, its centre (mosaic pixels), its owner's share of the
    votes, and how many pixels it covers."""

    player: str
    x: float
    y: float
    share: float
    pixels: int


def find_peeps(st: FrameState) -> None:
    """Peeps from the shape of all players' pieces together; keeps the regions of pieces
    (``st.regions``) for the beans.

    Only the core of an egg's disc is set aside for peeps: a peep leaning on the egg
    pulls the disc's measured centre towards it, and the whole disc hid half the peep
    (it was not found, or found in the cell beside). The beans' regions leave out all
    of the disc (their boxes stay as found)."""
    s = st.s
    blocked = (st.egg_core > 0) | (st.occluder > 0)
    # Peeps are measured on all foreground: a peep's glossy top can be nearer no model.
    ours = (st.px.fg & ~blocked).astype(np.uint8)
    if not ours.any():
        return
    ours = cv2.morphologyEx(ours, cv2.MORPH_CLOSE, disk(1.2 * s))
    ours = fill_holes_below(ours, int(HOLE_MM2 * s * s))
    ours[blocked] = 0
    n, lab, stats, _ = components(ours, 8)
    st.regions = (n, lab, stats)
    found: list[FoundPeep] = []  # cores, before a gap's parts are joined
    # Python ints: numpy scalars make each of these small tests cost microseconds.
    for i, (x, y, w, h, area) in enumerate(stats[1:].tolist(), 1):
        if st.mm2(area) < MIN_FRAGMENT_MM2 * 0.6:
            continue
        x0, y0 = max(x - 2, 0), max(y - 2, 0)
        x1, y1 = min(x + w + 2, ours.shape[1]), min(y + h + 2, ours.shape[0])
        # No pixel lies farther than (min(w, h) + 1) / 2 from its box's edge, so a thin
        # region cannot hold a peep's core (unless an egg beside it adds thickness);
        # one too large for pieces still goes to _peeps, which marks it an occluder.
        if (min(w, h) + 1 < 2 * PEEP_CORE_MM * s and st.mm2(area) <= PIECE_MAX_MM2
                and not st.egg_core[y0:y1, x0:x1].any()):
            continue
        comp = (lab[y0:y1, x0:x1] == i).astype(np.uint8)
        found += _peeps(st, comp, x0, y0)
    for player, centre, share in _whole_peeps(found, PEEP_PARTS_MM * s):
        _peep(st, player, centre, share)
    for ex, ey, radius in st.eggs:
        # The disc round the core is no region's for the beans (in place: the peeps
        # are found).
        r = int(math.ceil(radius + 1.5 * s)) + 1
        box = (slice(max(int(ey) - r, 0), int(ey) + r + 1),
               slice(max(int(ex) - r, 0), int(ex) + r + 1))
        lab[box][st.egg[box] > 0] = 0


def _peeps(st: FrameState, comp: np.ndarray, x0: int, y0: int) -> list[FoundPeep]:
    """Peeps in one region of pieces: cores thicker than any bean cluster, owner by vote.

    A peep leaning on an egg half keeps its thickness: the egg counts as more of
    the same for measuring it, though no peep is found inside the egg itself.
    """
    s = st.s
    sl = (slice(y0, y0 + comp.shape[0]), slice(x0, x0 + comp.shape[1]))
    egg = st.egg_core[sl]
    dt = cv2.distanceTransform(comp | egg, cv2.DIST_L2, 5) / s
    own = dt * (comp > 0)
    if st.mm2(int(comp.sum())) > PIECE_MAX_MM2:
        # Far too much colour for pieces: a sleeve or a hand in a player's colour. (Too
        # thick is for big_regions to judge: measured here, two peeps side by side are
        # as thick as a hand.)
        st.occluder[sl] |= comp
        return []
    if float(own.max()) < PEEP_CORE_MM:
        return []
    near_egg = cv2.dilate(egg, disk(2.0 * s)) > 0
    core = ((own >= PEEP_CORE_MM) & ~near_egg).astype(np.uint8)
    n, lab, stats, _ = components(core, 8)
    labels = st.px.label[sl]
    n_players = len(st.px.players)
    todo: list[tuple[np.ndarray, bool, np.ndarray | None]] = []
    # Two peeps touching make one core with two thick middles; measured without an egg
    # beside them, as a heap leaning on an egg is as thick as a peep there.
    alone = cv2.distanceTransform(comp, cv2.DIST_L2, 5) / s if egg.any() else own
    for j in range(1, n):
        if st.mm2(stats[j, cv2.CC_STAT_AREA]) < MIN_PEEP_CORE_MM2:
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
        if len(split) >= 2 and st.mm2(stats[j, cv2.CC_STAT_AREA]) >= PEEP_PAIR_CORE_MM2:
            todo += [(((one > 0) & (labels == p)).view(np.uint8), True, None) for p in split]
        else:
            todo.append((one, True, None))
    found: list[FoundPeep] = []
    while todo:
        one, may_split, territory = todo.pop()
        reach = cv2.distanceTransform(1 - one, cv2.DIST_L2, 5) / s
        region = (reach <= PEEP_CORE_MM + 1.0) & (comp > 0)
        # Its centre: the part leaning over an egg counts too (it is there, unseen).
        whole = (reach <= PEEP_CORE_MM + 1.0) & ((comp > 0) | (egg > 0))
        if territory is not None:
            region &= territory
            whole &= territory
        votes = np.bincount(labels[region & (labels < len(st.px.players))],
                            minlength=len(st.px.players))
        if votes.sum() == 0:
            continue
        owner = int(np.argmax(votes))
        # A tight heap of beans can be as thick as a peep; its colour says bean -- unless
        # it is thicker than any heap, when the lamp has shaded a peep like a bean.
        mine = region & (labels == owner)
        if not mine.any():
            continue
        if _dome_seen(st, region, sl):
            continue
        peep_share = float(np.mean(st.px.peepish[sl][mine]))
        peep_coloured = peep_share >= PEEP_COLOUR_SHARE
        thick = float(own[one > 0].max())
        if not peep_coloured and thick < PEEP_SURE_MM and not (
                thick >= PEEP_LONG_SURE_MM and long_side(one) >= PEEP_LONG_CORE_MM * s):
            # ... unless no bean is found in it (peeps_not_heaps, once beans are).
            ys, xs = np.nonzero(whole)
            if len(xs):
                st.maybe_peeps.append((FoundPeep(
                    st.px.players[owner], float(xs.mean()) + x0, float(ys.mean()) + y0,
                    float(votes[owner]) / float(votes.sum()), len(xs)),
                    (ys + y0) * st.px.fg.shape[1] + (xs + x0)))
            continue
        if peep_coloured and may_split and st.mm2(int(one.sum())) >= PEEP_PAIR_CORE_MM2:
            parts = _same_player_peeps(st, one, comp, labels == owner, sl)
            if len(parts) > 1:
                todo += [(part, False, None) for part in parts]
                continue
        # The body's rim: within reach of the core and in the peep's colour, so that a
        # bean tucked against the peep keeps its own pixels (by reach alone when the
        # colour does not tell). Inside that, the body whatever the colour (its shaded
        # side), less far where the peep is clearly in its peep colour, so that a bean
        # half under it keeps what shows.
        rim = (reach <= PEEP_CORE_MM + 1.8) & (comp > 0) & st.px.peepish[sl] \
            if peep_coloured else (reach <= PEEP_CORE_MM + 1.0) & (comp > 0)
        body_reach = BODY_REACH_CLEAR_MM if peep_share >= PEEP_CLEAR_SHARE else BODY_REACH_MM
        inner = (reach <= body_reach) & (comp > 0)
        if territory is not None:
            rim &= territory
            inner &= territory
        body = cv2.morphologyEx((rim | inner).astype(np.uint8), cv2.MORPH_CLOSE, disk(s))
        st.body[sl] |= body
        ys, xs = np.nonzero(whole)
        found.append(FoundPeep(
            st.px.players[owner], float(xs.mean()) + x0, float(ys.mean()) + y0,
            float(votes[owner]) / float(votes.sum()), len(xs)))
    return found


def _dome_seen(st: FrameState, region: np.ndarray, sl: tuple[slice, slice]) -> bool:
    """Whether what looks like a peep's body (``region``, in the box ``sl``) is a Supply
    Center's dome seen beyond its disc: its middle, and at least DOME_SHARE of it, where
    an egg's dome covers the table as the camera sees it (:func:`vision.viewpoint.draw_dome`).
    A tilted camera sees an egg's top beyond its foot, away from the camera, as far as
    the camera's height and distance make it; in a player's peep colour, and as thick as
    a peep with the egg beside it, that part was read as a peep. A real peep there is
    hidden by the egg but for what stands out of the dome's outline: most of it lies
    outside."""
    dome = st.egg_dome[sl]
    ys, xs = np.nonzero(region)
    if not len(xs) or not dome[int(round(ys.mean())), int(round(xs.mean()))]:
        return False
    seen = (dome | st.egg[sl])[ys, xs]
    return int(np.count_nonzero(seen)) >= DOME_SHARE * len(xs)


def _same_player_peeps(st: FrameState, one: np.ndarray, comp: np.ndarray,
                       owners: np.ndarray, sl: tuple[slice, slice]) -> list[np.ndarray]:
    """Core ``one`` split into one core per peep when two of a player's peeps touch.

    Beans tucked between two peeps fill the notch where they meet, so measured on all
    pieces their cores run together; measured on the peep-coloured pixels alone the
    notch is back and each peep keeps a core of its own."""
    s = st.s
    body = (comp > 0) & owners & st.px.peepish[sl]
    body = cv2.morphologyEx(body.view(np.uint8), cv2.MORPH_CLOSE, disk(1.2 * s))
    dt = cv2.distanceTransform(body, cv2.DIST_L2, 5) / s
    inner = ((dt >= PEEP_CORE_MM) & (one > 0)).view(np.uint8)
    n, lab, stats, _ = components(inner, 8)
    big = [j for j in range(1, n)
           if st.mm2(stats[j, cv2.CC_STAT_AREA]) >= MIN_PEEP_CORE_MM2]
    if len(big) < 2:
        return [one]
    # Every pixel of the core goes with the peep core nearest it.
    seeds = np.zeros_like(inner, np.int32)
    for k, j in enumerate(big, 1):
        seeds[lab == j] = k
    split = nearest_seed(seeds)
    return [((split == k) & (one > 0)).view(np.uint8) for k in range(1, len(big) + 1)]


def _peep(st: FrameState, player: str, centre, share: float) -> str | None:
    """Player's peep seen centred at mosaic point ``centre``: the cell its foot stands in
    (None when it stands in none)."""
    foot = st.foot(centre, PEEP_MIDDLE_MM)
    ci = cell_at(st.m, foot)
    across = ci < 0
    if across:
        # A peep lying across the gap between tiles is centred in it, or near it: it
        # stands in the cell nearest its centre.
        ci = cell_near(st.m, foot, PEEP_SNAP_MM * st.s)
        if ci < 0:
            return None
    name = st.m.cell_names[ci]
    cell = st.cells[name]
    said = len(st.warnings)
    if across:
        st.warn(name, f"{player}'s peep lies across the gap between tiles", Warned.PEEP_ACROSS_GAP)
        cell.lower(0.6)
    cell.peeps[player] = cell.peeps.get(player, 0) + 1
    cell.lower(min(1.0, 0.4 + share))
    if cell.peeps[player] > 1:
        st.warn(name, f"{cell.peeps[player]} of {player}'s peeps (one is the most)",
                Warned.TWO_PEEPS)
        cell.lower(0.5)
    st.on_border(ci, foot, f"{player}'s peep")
    # (Where it is seen: the rules that look for beans and eggs near it work in the picture.)
    st.peeps_at.append((name, player, float(centre[0]), float(centre[1]),
                        st.warnings[said:]))
    return name


def peeps_not_heaps(st: FrameState) -> None:
    """A core as thick as a peep's, in its owner's bean colour, with no bean counted near
    its middle: a peep (shaded like a bean, or an understudy card), not a heap. Not
    beside a hand (what shows of a peep under a hand is off its centre); parts across
    a gap between tiles are one peep, and none is taken where its owner's peep is."""
    if not st.maybe_peeps:
        return
    s = st.s
    hand = cv2.dilate(st.occluder, disk(PEEP_ALONE_CLEAR_MM * s)).ravel() \
        if st.occluder.any() else None
    clear = [part for part, at in st.maybe_peeps if hand is None or not hand[at].any()]
    beans = np.array(st.counted_at) if st.counted_at else np.zeros((0, 2))
    apart = PEEP_PARTS_MM * s
    found = [(p, x, y) for _, p, x, y, _ in st.peeps_at]
    for player, (x, y), share in _whole_peeps(clear, apart):
        if len(beans) and np.hypot(beans[:, 0] - x, beans[:, 1] - y).min() \
                < PEEP_ALONE_MM * s:
            continue
        if any(p == player and (px - x) ** 2 + (py - y) ** 2 < apart**2
               for p, px, py in found):
            continue
        name = _peep(st, player, (x, y), share)
        if name is not None:
            st.warn(name, f"{player}'s peep, in the colour of {player}'s beans",
                    Warned.PEEP_IN_BEAN_COLOUR)
            st.peeps_at[-1][4].append(st.warnings[-1])  # goes with the peep
            st.cells[name].lower(DOUBT_CONFIDENCE)


def heaps_not_peeps(st: FrameState) -> None:
    """A peep with a bean's centre (at a peak of 0.5 or more) near its middle was a heap
    of beans as thick as a peep: a peep is 35 mm wide, and beans beside it or under it
    show round its edge (over 500 scenes no peep had one within 12 mm of its centre).
    The peep's warnings go with it; the confidence it lowered stays lowered."""
    if not (st.peeps_at and st.beans_at):
        return
    beans = np.array(st.beans_at)
    for name, player, x, y, said in st.peeps_at:
        if np.hypot(beans[:, 0] - x, beans[:, 1] - y).min() >= PEEP_NO_BEAN_MM * st.s:
            continue
        cell = st.cells[name]
        cell.peeps[player] -= 1
        for text in said:
            st.warnings.remove(text)
        st.warn(name, f"beans heaped as thick as a peep, not {player}'s peep",
                Warned.HEAP_NOT_PEEP)
        cell.lower(0.6)


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


def _whole_peeps(found: list[FoundPeep], apart_px: float
                 ) -> list[tuple[str, tuple[float, float], float]]:
    """``found`` with one player's cores nearer than ``apart_px`` (directly or through
    other such cores) taken as parts of one peep (a gap between tiles cuts a peep lying
    across it in two; two whole peeps touching stand a body's width apart), centred where
    all its parts' pixels are: (player, centre, owner's share of the votes) each.

    >>> parts = [FoundPeep("red", 0, 0, 1.0, 100), FoundPeep("red", 30, 0, 0.6, 300),
    ...          FoundPeep("blue", 10, 0, 1.0, 100), FoundPeep("red", 100, 0, 0.9, 100)]
    >>> [(p, (round(c[0], 1), c[1]), round(sh, 2)) for p, c, sh in _whole_peeps(parts, 40)]
    [('red', (22.5, 0.0), 0.7), ('blue', (10.0, 0.0), 1.0), ('red', (100.0, 0.0), 0.9)]

    In any order, a chain of near parts is one peep:

    >>> chain = [FoundPeep("red", x, 0, 1.0, 10) for x in (0, 40, 20)]
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
    parts: dict[int, list[FoundPeep]] = {}
    for i, peep in enumerate(found):
        parts.setdefault(root(i), []).append(peep)
    out = []
    for one in parts.values():
        n = sum(g.pixels for g in one)
        out.append((one[0].player, (sum(g.x * g.pixels for g in one) / n,
                                    sum(g.y * g.pixels for g in one) / n),
                    sum(g.share * g.pixels for g in one) / n))
    return out
