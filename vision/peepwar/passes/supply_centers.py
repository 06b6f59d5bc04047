"""Pass 1 of the piece reader: the Supply Centers, and its corrections once peeps and beans
are read.

Over each central cell's circle, the foreground region holding the circle's middle is
measured by its distance transform: an egg half or token leaves a round region at least
``SC_MIN_RADIUS_MM`` thick all round the middle, which a peep (35 mm wide) never does; one
partly under a card shows most of its rim instead. Its disc is then set aside
(``FrameState.egg``), so an egg in a player's colour is not read as their pieces.

After the beans, an egg still missed but read as a peep is the Supply Center after all: a
player's second peep in the middle of a central cell (:func:`eggs_not_peeps`), or a lone
peep there over what shows of an egg's rim (:func:`covered_eggs_not_peeps`).

A white egg or token on the white paper is no foreground; but it hides the circle's print.
A central cell read empty whose print, round the tile's centre, is no darker than the paper
beside it is doubted (:func:`pale_centres`): the referee is asked, not told it is empty.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.peepwar.cell_warnings import Warned
from vision.peepwar.mask_shapes import disk, fill_holes
from vision.peepwar.piece_pixels import UNKNOWN
from vision.viewpoint import draw_dome

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

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
RIM_SECTORS = 36  # the rim is seen or not in sectors of 10 degrees
SC_PEEP_MM = 15.0  # a covered egg's or token's visible part is centred this near the
# tile's centre (its own centre within SC_RIM_OFFSET_MM, the card over it shifts the rest)
SC_COVERED_RIM_SHARE = 0.4  # an egg under a card read as a lone peep: this much of its rim
SC_COVERED_MAX_MM = 28.0  # ... of a radius up to this (the largest ring is beans round a peep)
SC_COVERED_OFFSET_MM = 4.5  # ... centred this near the tile's centre
# ... and one of no player's colour (UNKNOWN) was taken for a hand: as for an egg under a
# card, when this share of the foreground in its middle and in its disc is of no player's.
SC_UNPLAYED_SHARE = 0.6
# The print within this radius of an empty central cell's middle (the 40 mm circle, an egg
# half's size) ...
PALE_CENTRE_MM = 17.0
# ... darker than the paper there by less than this share (1 - ink / paper, medians):
# uncovered print reads 0.10-0.40 on both generators (1st-5th percentile 0.09-0.10), print
# under a white egg -0.4-0.2 (median 0.0) ...
PALE_CENTRE_CONTRAST = 0.06
PALE_CENTRE_FG = 0.2  # ... with under this share of the disc foreground (not a piece) ...
PALE_CENTRE_MIN_MM2 = 40.0  # ... and this much print and paper seen in it
PALE_CENTRE_CONFIDENCE = 0.5


def find_supply_centers(st: FrameState) -> None:
    """Every central cell's Supply Center, its disc set aside in ``st.egg`` and
    ``st.egg_core``; where none is, what lies round the tile's centre is kept
    (``st.no_supply_center``) for :func:`covered_eggs_not_peeps`."""
    s = st.s
    fg = st.px.fg.astype(np.uint8)
    h, w = fg.shape
    for (q, r), centre in st.m.tile_centres_px.items():
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
        if thick >= SC_MIN_RADIUS_MM and not _one_peep_at(st, int(ex + x0), int(ey + y0)):
            confidence = min(1.0, 0.5 + (thick - SC_MIN_RADIUS_MM) / 3)
            radius = min(thick, 30.0)
        else:
            rim = _egg_rim(crop, (cx - x0, cy - y0), s)
            said = "a Supply Center partly covered (its rim shows)"
            if rim is None:
                rim = _unplayed_egg_rim(st, crop, x0, y0, (cx, cy))
                said = "a Supply Center in no player's colour, partly covered"
            if rim is None:
                st.no_supply_center[name] = (crop, x0, y0)
                continue
            ex, ey, radius, arc = rim
            confidence = 0.5 + 0.4 * arc
            st.warn(name, said, Warned.SUPPLY_CENTER_COVERED)
        st.cells[name].supply_center = True
        st.cells[name].lower(confidence)
        cv2.circle(st.egg, (int(round(ex + x0)), int(round(ey + y0))),
                   int(round((radius + 1.5) * s)), 1, -1)
        # The thickest point lies off the tile's centre towards what leans on the egg
        # (a peep): the disc halfway back, as much smaller, is the egg's for certain.
        off = math.hypot(ex + x0 - cx, ey + y0 - cy) / s
        cv2.circle(st.egg_core, (int(round((ex + x0 + cx) / 2)),
                                 int(round((ey + y0 + cy) / 2))),
                   int(round((radius - off / 2 + 1.5) * s)), 1, -1)
        st.eggs.append((float(ex + x0), float(ey + y0), radius * s))
        if st.m.camera is not None:
            # Drawn as a hemisphere of its radius. A plastic egg half stands taller (about
            # 1.3 radii), so the dome drawn falls short of the spill's far edge; the peeps'
            # test asks only for a peep's middle and half its body in it.
            draw_dome(st.egg_dome, (ex + x0, ey + y0), radius * s, st.m.camera)


def _unplayed_egg_rim(st: FrameState, crop: np.ndarray, x0: int, y0: int,
                      centre: tuple[float, float]
                      ) -> tuple[float, float, float, float] | None:
    """An egg half or token in a colour no player plays, under an understudy's card:
    what shows of it is as short of an egg's thickness and rim as in
    :func:`covered_eggs_not_peeps`, and, in no player's colour, was taken for a hand.
    Its rim (see :func:`_egg_rim`) as there, when the foreground round the tile's
    centre (``crop``, its box's corner at x0, y0) and within that rim is mostly of no
    player's colour (SC_UNPLAYED_SHARE); None otherwise."""
    s = st.s
    cx, cy = centre[0] - x0, centre[1] - y0
    h, w = crop.shape
    labels = st.px.label[y0:y0 + h, x0:x0 + w]
    fg = st.px.fg[y0:y0 + h, x0:x0 + w]
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


def _one_peep_at(st: FrameState, x: int, y: int) -> bool:
    """Whether what is as thick as a Supply Center at mosaic point (x, y) is one peep
    with beans packed round it: most of the disc of ONE_PEEP_DISC_MM round it in one
    player's peep colour, and that colour's piece there (its convex hull: an egg's
    highlight or shading cuts into it) of a peep's size and shape, not an egg's round.

    A peep is 35 mm wide: alone it is thinner than any Supply Center, but beans touching
    it all round make it as thick. An egg or token in a peep's colour is round, and with
    a peep leaning on it, larger than one peep."""
    s = st.s
    n_players = len(st.px.players)
    sl, disc = st.disc(x, y, ONE_PEEP_DISC_MM)
    label = st.px.label[sl][disc]
    counts = np.bincount(label[label < n_players], minlength=n_players)
    if not counts.any():
        return False
    p = int(np.argmax(counts))
    peep_coloured = np.count_nonzero((label == p) & st.px.peepish[sl][disc])
    if peep_coloured < ONE_PEEP_SHARE * np.count_nonzero(disc):
        return False
    sl, _ = st.disc(x, y, ONE_PEEP_REACH_MM)
    y0, x0 = sl[0].start, sl[1].start
    mine = ((st.px.label[sl] == p) & st.px.peepish[sl]).astype(np.uint8)
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
    area = st.mm2(m["m00"])
    return (ONE_PEEP_ACROSS_MM[0] <= across <= ONE_PEEP_ACROSS_MM[1]
            and ONE_PEEP_LONG_MM[0] <= length <= ONE_PEEP_LONG_MM[1]
            and ONE_PEEP_AREA_MM2[0] <= area <= ONE_PEEP_AREA_MM2[1])


def eggs_not_peeps(st: FrameState) -> None:
    """An egg half or token in a player's peep colour with cards or pieces over part of
    its rim is no Supply Center by its shape, but as thick and coloured as a peep: in a
    central cell where no Supply Center was found, a player's second peep (a player has
    one in a cell at most) whose middle is within SC_PEEP_MM of the tile's centre is the
    Supply Center. Its own warnings, and the other's "2 of" one, go."""
    s = st.s
    for (q, r), (cx, cy) in st.m.tile_centres_px.items():
        name = f"{q},{r}/c"
        cell = st.cells.get(name)
        if cell is None or cell.supply_center:
            continue
        for player, n in cell.peeps.items():
            mine = [p for p in st.peeps_at if p[0] == name and p[1] == player]
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
            _peep_was_supply_center(
                st, name, egg, gone, f"a Supply Center in {player}'s colour, partly covered "
                f"(not a second peep of {player}'s)")
            break


def covered_eggs_not_peeps(st: FrameState) -> None:
    """An egg half or token under an understudy's card shows too little of itself to be
    found (the card's white margin cuts it short of an egg's thickness and hides half
    its rim), and what shows is read as a peep of the player whose colour is nearest:
    in a central cell where no Supply Center was found, a peep of a player with no beans
    there, within SC_PEEP_MM of the tile's centre, is the Supply Center when the region
    round the centre shows SC_COVERED_RIM_SHARE of an egg's rim (of radius up to
    SC_COVERED_MAX_MM, centred within SC_COVERED_OFFSET_MM of the tile's centre).

    A peep there with beans of its own stays a peep: a peep's ends, beans round it,
    show as much of such a rim."""
    s = st.s
    for (q, r), (cx, cy) in st.m.tile_centres_px.items():
        name = f"{q},{r}/c"
        cell = st.cells.get(name)
        if cell is None or cell.supply_center or name not in st.no_supply_center:
            continue
        alone = [p for p in st.peeps_at if p[0] == name and not cell.troops.get(p[1])
                 and math.hypot(p[2] - cx, p[3] - cy) <= SC_PEEP_MM * s]
        if not alone:
            continue
        crop, x0, y0 = st.no_supply_center[name]
        if _covered_egg_rim(crop, (cx - x0, cy - y0), s) is None:
            continue
        egg = min(alone, key=lambda p: math.hypot(p[2] - cx, p[3] - cy))
        _peep_was_supply_center(
            st, name, egg, list(egg[4]), f"a Supply Center partly covered (its rim shows), not "
            f"a peep of {egg[1]}'s")


def _peep_was_supply_center(st: FrameState, name: str, peep: tuple, gone: list[str],
                            why: str) -> None:
    """The peep ``peep`` (an entry of peeps_at) in central cell ``name`` was its Supply
    Center: the peep goes, and the warnings ``gone`` (its own among them); ``why`` is
    said."""
    cell = st.cells[name]
    cell.peeps[peep[1]] -= 1
    st.peeps_at.remove(peep)
    for text in gone:
        st.warnings.remove(text)
    cell.supply_center = True
    cell.lower(0.6)
    st.warn(name, why, Warned.PEEP_WAS_SUPPLY_CENTER)


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


def pale_centres(st: FrameState) -> None:
    """Doubt every central cell read empty whose print round the tile's centre is hidden by
    something pale: a white egg or token (no foreground on white paper), or glare; or where
    foreground no pass explained covers PALE_CENTRE_FG of the disc there."""
    s = st.s
    for (q, r), centre in st.m.tile_centres_px.items():
        name = f"{q},{r}/c"
        cell = st.cells.get(name)
        if cell is None or cell.occluded or cell.supply_center or cell.troops or cell.peeps:
            continue
        sl, inside = st.disc(int(round(centre[0])), int(round(centre[1])), PALE_CENTRE_MM)
        fg = st.px.fg[sl] & inside
        if fg.sum() > PALE_CENTRE_FG * inside.sum():
            # Something stands there that no pass read as a piece or a Supply Center (an
            # egg half whose shading the egg pass did not take for one): asked about.
            cell.lower(PALE_CENTRE_CONFIDENCE)
            st.warn(name, "something on the Supply Center's circle was read as nothing: "
                    "is a Supply Center there?", Warned.CENTRE_READ_AS_NOTHING)
            continue
        ink = inside & st.m.ink[sl] & ~fg
        paper = inside & ~st.m.ink[sl] & ~fg
        least = PALE_CENTRE_MIN_MM2 * s * s
        if ink.sum() < least or paper.sum() < least:
            continue
        # Brightness over the paper's own, over this disc alone (a few cells a frame).
        shade = st.px.balanced[sl].mean(axis=2, dtype=np.float32) \
            / np.maximum(st.px.white[sl].astype(np.float32), 1.0)
        contrast = 1.0 - float(np.median(shade[ink])) / max(float(np.median(shade[paper])), 1e-3)
        if contrast < PALE_CENTRE_CONTRAST:
            cell.lower(PALE_CENTRE_CONFIDENCE)
            st.warn(name, "the print under the Supply Center's circle is hidden by something "
                    "pale: is a white egg or token there?", Warned.CENTRE_PRINT_HIDDEN)
