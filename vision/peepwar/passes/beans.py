"""Pass 4 of the piece reader: the beans, counted by the bean net.

Round every region of pieces with a player's colour in it, the bean net
(:mod:`vision.peepwar.bean_net`) marks each bean's centre: it has learnt from rendered tables
how touching beans, beans half under a peep and dark glossy beans look, which outlines and
areas alone do not tell. A bean is the player's whose colour lies round its centre (off the
peeps first), and belongs to the cell under its foot (a tilted camera sees its centre
beyond it, :meth:`FrameState.foot`); a greyish bean's (blackberry) peaks
run cooler, and count from a lower heat; one lying on a central marker is as dark as the ink
(no region of pieces) but hides the marker from the detector, so the net also looks over
those markers. A faint peak on its own player's peep is a bean half under it where it is
bean-coloured, and the peep's own shading where it is as peep-coloured as the rest of the
peep.

A bean is a peak over the frame's own threshold (:func:`bean_net.frame_threshold`: where its
peaks part into beans and the rest, never above the net's 0.5). Where that lies lower, the
frame's beans run cooler than the net's own tables', and each box holding a doubtful peak
is read again by the mean of the net's answers to it and its mirror images.
"""

from __future__ import annotations

import math
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple

import cv2
import numpy as np

from vision.peepwar import bean_net
from vision.peepwar.cell_warnings import Warned
from vision.peepwar.passes.assembly import DOUBT_CONFIDENCE
from vision.peepwar.passes.state import CountedBean, cell_at, cell_near, nearest, round_window
from vision.peepwar.piece_pixels import nearest_bean

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

# A greyish bean (its colour model's chroma, the length of its first two features, under
# this: the blackberry beans' is 0.1 to 0.16, the next greyest 0.57) shows the net little
# colour against shadow and print, and its peaks run cooler: from it, a peak of
# bean_net.DOUBT_LOW is a (doubtful) bean.
GREY_BEAN_CHROMA = 0.3
PRINT_BOX_MM = 6.0  # a marker the detector did not see is looked over this far round it
# Peaks of two boxes (their contexts differ, so each places a bean a little differently)
# under this far apart, about half a bean's width, are one bean.
SAME_BEAN_MM = 6.0
# Smaller regions of pieces are specks: the net is not run on them, nor on those with less
# of any player's colour. A dark bean on a marker or in shadow shows only a speck of
# foreground (15-25 mm2): the net, seeing the whole bean round it, still finds it.
NET_MIN_MM2 = 12.0
NET_MIN_COLOURED_MM2 = 12.0
EGG_RIM_BEAN_MM = 3.0  # a bean's centre this far inside an egg's measured rim is on it
# Peaks of one bean seen from two regions' boxes mostly lie within half a net cell of each other
# (the net answers every bean_net.STRIDE mm, and no two peaks of one box lie in
# neighbouring cells).
SAME_PEAK_MM = bean_net.STRIDE / bean_net.NET_PX_PER_MM / 2
# Two peaks of one box within BEAN_LENGTH_MM (a 20 mm bean's ends, less the few
# millimetres its peaks lie in from each), in one cell, of one player, both sure enough to
# count, whose heat between them stays above this share of the cooler peak's are one bean
# (a bean lying tilted peaks at both ends); two beans side by side leave a valley between
# them (under 0.75 of the cooler peak over 2D development seeds 0-149, where no bean lies
# tilted).
BEAN_LENGTH_MM = 14.0
SADDLE_SHARE = 0.8
SADDLE_SAMPLES = 19  # points read on the segment between the peaks
EDGE_SNAP_MM = 4.0  # a bean centred this near a tile's cell map, but off it, is in it
# A bean lies in the cell under its foot: its middle, where the net marks it, stands half
# its 13 mm width above the table.
BEAN_MIDDLE_MM = 6.5
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
# The key of an adapted profile's ``extra`` holding the bean threshold learned from
# corrections (never written to a profile file: the reader adapts a copy in memory).
LEARNED_THRESHOLD = "learned_bean_threshold"


def _greyish(st: FrameState) -> list[bool]:
    """Which players' beans are greyish (GREY_BEAN_CHROMA)."""
    return [float(np.hypot(*st.profile.colours[p].bean.mean[:2])) < GREY_BEAN_CHROMA
            for p in st.px.players]


def _thresholds(st: FrameState, frame: float = bean_net.THRESHOLD) -> list[float]:
    """Each player's least heat for a bean: bean_net.DOUBT_LOW for a greyish bean
    (GREY_BEAN_CHROMA); for the others the threshold this table's corrections taught
    (LEARNED_THRESHOLD in the profile the reader adapted, :mod:`vision.peepwar.learning`),
    else the frame's own (``frame``: :func:`bean_net.frame_threshold` of its peaks down
    to bean_net.MIXTURE_FLOOR). Kept once set."""
    if not st.bean_threshold:
        st.bean_threshold = thresholds_for(st, frame)
    return st.bean_threshold


def thresholds_for(st: FrameState, frame: float) -> list[float]:
    """:func:`_thresholds` of a frame whose own threshold is ``frame``, not kept."""
    learned = st.profile.extra.get(LEARNED_THRESHOLD)
    base = frame if learned is None else float(learned)
    return [bean_net.DOUBT_LOW if grey else base for grey in _greyish(st)]


def planes(st: FrameState) -> bean_net.Planes:
    """The maps the bean net reads over the mosaic (made once the peeps are found): what
    is blocked for beans is the Supply Centers' discs, the occluders, and what lies off
    the tiles or out of the frame."""
    if st.net_planes is not None:
        return st.net_planes
    blocked = (st.egg > 0) | (st.occluder > 0) | ~st.m.on_tiles | ~st.m.in_frame
    st.net_planes = bean_net.Planes(st.px.balanced, st.px.white,
                                    st.px.label < len(st.px.players), st.body,
                                    blocked, st.m.ink)
    return st.net_planes


def count_beans(st: FrameState) -> None:
    """Every bean's centre from the bean net, run over each region of pieces (grown by
    the net's context; boxes of one shape in one batch); whose bean by the colours round
    it. A peak seen from two regions' boxes belongs to the region nearest it of those the
    net was run over (a bean too faint to make its own region is still counted, once, even
    where each box places it nearer another region)."""
    n, lab, stats = st.regions
    s = st.s
    H, W = lab.shape
    ctx = int(math.ceil(bean_net.CONTEXT_MM * s))
    # Only regions with some player's colour can hold a bean of theirs.
    # (A histogram of the labels under a mask: whole counts, as np.bincount gives them, without
    # gathering the labels first.)
    coloured = cv2.calcHist([lab], [0], cv2.compare(st.px.label, len(st.px.players), cv2.CMP_LT),
                            [n], [0, n]).ravel().tolist()
    ran = np.zeros(n, bool)
    boxes: list[tuple[int, tuple[int, int, int, int]]] = []
    for i, (x, y, w, h, area) in enumerate(stats[1:].tolist(), 1):
        if st.mm2(area) < NET_MIN_MM2 or st.mm2(coloured[i]) < NET_MIN_COLOURED_MM2:
            continue
        ran[i] = True
        boxes.append((i, (max(x - ctx, 0), max(y - ctx, 0),
                          min(x + w + ctx, W), min(y + h + ctx, H))))
    orphans: list[tuple[float, float, float]] = []  # peaks near no region run over
    batches = _answers(st, boxes)
    found = _own_peaks(st, batches, ran)
    st.peak_heats = [peak.heat for peak in found]
    frame = bean_net.frame_threshold(st.peak_heats)
    if frame < bean_net.THRESHOLD and _second_look(batches):
        # This frame's beans run cooler than the net's own tables': each box holding a
        # doubtful peak is looked at again in its mirror images, and read by their mean.
        found = _own_peaks(st, batches, ran)
        st.peak_heats = [peak.heat for peak in found]
        frame = bean_net.frame_threshold(st.peak_heats)
    _thresholds(st, frame)
    # Whose bean each peak is, read for them all at once (the two steps below ask).
    st.whose_at = _whose_many(st, [peak.at for peak in found if peak.heat >= bean_net.DOUBT_LOW])
    found, doubled = _one_bean_two_peaks(st, batches, found)
    for k, (region, at, heat, _) in enumerate(found):
        if heat < bean_net.DOUBT_LOW:
            continue
        if region:
            net_bean(st, at, heat, doubled=k in doubled)
        else:
            orphans.append((heat, *at))
    _grey_beans_on_markers(st, ran, orphans, [box for _, box in boxes])
    st.whose_at = {}


def _heat_along(out: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> float:
    """The least heat of one box's answer ``out`` on the segment between box points
    ``a`` and ``b`` (input pixels), read between the net's cells."""
    half = (bean_net.STRIDE - 1) / 2
    h, w = out.shape[1:]
    t = np.linspace(0.0, 1.0, SADDLE_SAMPLES + 2)[1:-1]
    gx = np.clip((a[0] + t * (b[0] - a[0]) - half) / bean_net.STRIDE, 0, w - 1.001)
    gy = np.clip((a[1] + t * (b[1] - a[1]) - half) / bean_net.STRIDE, 0, h - 1.001)
    x0, y0 = gx.astype(int), gy.astype(int)
    fx, fy = gx - x0, gy - y0
    lo = out[0]
    logit = (lo[y0, x0] * (1 - fx) * (1 - fy) + lo[y0, x0 + 1] * fx * (1 - fy)
             + lo[y0 + 1, x0] * (1 - fx) * fy + lo[y0 + 1, x0 + 1] * fx * fy)
    return float((1.0 / (1.0 + np.exp(-logit))).min())


def _bean_cell(st: FrameState, foot: tuple[float, float]) -> int:
    """The cell a bean whose foot is at mosaic point ``foot`` is counted in: the cell under
    it, else (the cell map stops short of a tile's cut edge, where a bean's centre, found a
    millimetre or two off, can fall) the nearest within EDGE_SNAP_MM; -1 if none."""
    ci = cell_at(st.m, foot)
    return ci if ci >= 0 else cell_near(st.m, foot, EDGE_SNAP_MM * st.s)


def _one_bean_two_peaks(st: FrameState, batches: list[_Batch], found: list[_Peak]
                        ) -> tuple[list[_Peak], set[int]]:
    """``found`` without the cooler of two peaks that one bean may make: two peaks found in
    one box's answer, kept for one region, within a bean's length, whose heat between them
    stays above SADDLE_SHARE of the cooler one. A bean seen lying tilted, or long in the
    frame, can peak at both ends; two beans side by side leave a valley between their
    peaks. Only peaks that would each count as a bean of the same player, in the same
    cell, are taken together. What is left of such a pair is doubted (its index in the
    list returned): one bean or two is for the referee to say."""
    answers = {key: (box, out) for group, _, outs in batches
               for (key, box), out in zip(group, outs, strict=True)}
    reach = (BEAN_LENGTH_MM * st.s) ** 2
    drop: set[int] = set()
    doubt: set[int] = set()
    order = sorted((k for k, peak in enumerate(found)
                    if peak.region and peak.box in answers and peak.heat >= bean_net.DOUBT_LOW),
                   key=lambda k: -found[k].heat)
    read: dict[int, tuple[int, int]] = {}  # peak: (its cell, its player), read when needed

    def cell_and_player(k: int) -> tuple[int, int]:
        if k not in read:
            ci = _bean_cell(st, st.foot(found[k].at, BEAN_MIDDLE_MM))
            pi = _whose(st, found[k].at)[0] if ci >= 0 else -1
            read[k] = (ci, pi)
        return read[k]

    for n, k in enumerate(order):
        region, at, heat, key = found[k]
        box, out = answers[key]
        for j in order[:n]:
            if j in drop or found[j].box != key or found[j].region != region:
                continue
            other = found[j].at
            if (at[0] - other[0]) ** 2 + (at[1] - other[1]) ** 2 > reach:
                continue
            # Across a cell line each cell would lose a bean it cannot be asked about; a
            # peak that would not count as a bean, or counts as another player's, is not
            # the same bean's other end.
            ci, pi = cell_and_player(k)
            if ci < 0 or pi < 0 or (ci, pi) != cell_and_player(j) or heat < _thresholds(st)[pi]:
                continue
            valley = _heat_along(out, (at[0] - box[0], at[1] - box[1]),
                                 (other[0] - box[0], other[1] - box[1]))
            if valley >= SADDLE_SHARE * heat:
                drop.add(k)
                doubt.add(j)
                break
    kept = [k for k in range(len(found)) if k not in drop]
    return [found[k] for k in kept], {n for n, k in enumerate(kept) if k in doubt}


# One batch of boxes of one shape: the boxes (key, (x0, y0, x1, y1)), the net's inputs and
# its answers.
_Batch = tuple[list[tuple[int, tuple[int, int, int, int]]], np.ndarray, np.ndarray]


def _answers(st: FrameState, boxes: list[tuple[int, tuple[int, int, int, int]]]
             ) -> list[_Batch]:
    """The net run over each of ``boxes``, boxes of one shape as one batch."""
    batches: dict[tuple[int, ...], list] = {}
    for key, box in boxes:
        batches.setdefault(bean_net.input_shape(box, bean_net.BATCH_STEP), []).append((key, box))
    done: list[_Batch] = []
    for shape, group in batches.items():
        # Each input written straight into its slot of the batch (stacking them after
        # would copy every one again).
        x_in = np.zeros((len(group), *shape), np.float32)
        for k, (_, box) in enumerate(group):
            bean_net.net_input(planes(st), box, bean_net.BATCH_STEP, out=x_in[k])
        done.append((group, x_in, bean_net.run(x_in)))
    return done


def _second_look(batches: list[_Batch]) -> bool:
    """Each box with a doubtful peak (bean_net.DOUBT_LOW to DOUBT_HIGH) read again by the
    mean of the net's answers to it and its mirror images (:func:`bean_net.run_mirrored`),
    in place; whether any was."""
    looked = False
    # Every box's peaks found in one search (not one per batch: each search costs as much
    # to set up as a few boxes' maps), before any answer is replaced.
    found = iter(bean_net.peaks_of_batch([one for _, _, out in batches for one in out],
                                         bean_net.DOUBT_LOW))
    for _, x_in, out in batches:
        again = [k for k, peaks in enumerate(islice(found, len(out)))
                 if any(p.heat < bean_net.DOUBT_HIGH for p in peaks)]
        if again:
            out[again] = bean_net.run_mirrored(x_in[again], out[again])
            looked = True
    return looked


class _Peak(NamedTuple):
    """A peak of the bean net's heat: the region it is kept for (0: none run over), its
    mosaic point, its heat, and the key of the box in whose answer it was found."""

    region: int
    at: tuple[float, float]
    heat: float
    box: int


def _peaks(batches: list[_Batch], floor: float) -> list[_Peak]:
    """The peaks hotter than ``floor`` in every box's answer, each kept for its own box."""
    boxes = [kb for group, _, _ in batches for kb in group]
    outs = [one for _, _, out in batches for one in out]
    return [_Peak(key, (box[0] + p.x, box[1] + p.y), p.heat, key)
            for (key, box), found in zip(boxes, bean_net.peaks_of_batch(outs, floor), strict=True)
            for p in found]


def _own_peaks(st: FrameState, batches: list[_Batch], ran: np.ndarray) -> list[_Peak]:
    """Every peak down to bean_net.MIXTURE_FLOOR, once: boxes overlap by the net's context,
    so a peak seen from two regions' boxes is kept from the box of the region nearest it
    (for that region; of two such within SAME_BEAN_MM, the hotter), and one near no
    region run over once (for region 0)."""
    kept: list[_Peak] = []
    strays: list[_Peak] = []  # nearer another region than their box's
    orphans: list[_Peak] = []
    by_box: dict[int, list[tuple[tuple[float, float], int]]] = {}
    peaks = _peaks(batches, bean_net.MIXTURE_FLOOR)
    for peak, region in zip(peaks, _nearest_regions(st, [p.at for p in peaks], ran),
                            strict=True):
        by_box.setdefault(peak.box, []).append((peak.at, region))
        if region == peak.box:
            kept.append(peak)
        elif region == 0:
            orphans.append(peak._replace(region=0))
        else:
            strays.append(peak._replace(region=region))
    # Each box places a bean's peak a little differently (its context differs). A bean
    # between regions, with no foreground of its own (a pale bean), can have its peak
    # placed nearer another region from every box that sees it: box A's nearer region
    # B, B's nearer C, C's nearer B. Kept from none, it would be lost. Where the box of
    # the region nearest a peak saw the bean too but placed it nearer yet another region,
    # the peak is kept for its nearest region, once: not where a peak already kept lies
    # within half a bean's width.
    same = (SAME_PEAK_MM * st.s) ** 2
    bean = (SAME_BEAN_MM * st.s) ** 2

    def within(a: tuple[float, float], b: tuple[float, float], d2: float) -> bool:
        return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 < d2

    # A bean midway between two regions can be placed nearer its own region by each of
    # their boxes: kept from both, it would count twice. Of peaks of different boxes within
    # half a bean's width of each other, the hotter stands for the bean (one box's own
    # peaks are left as the net parted them: it saw the beans round them whole).
    if len(kept) > 1:
        at = np.array([peak.at for peak in kept])
        box = np.array([peak.box for peak in kept])
        clash = (((at[:, None] - at[None]) ** 2).sum(axis=2) < bean) & (box[:, None] != box[None])
        drop: set[int] = set()
        for k in sorted(np.flatnonzero(clash.any(axis=1)).tolist(), key=lambda k: -kept[k].heat):
            if k not in drop:
                drop.update(np.flatnonzero(clash[k]).tolist())
        kept = [peak for k, peak in enumerate(kept) if k not in drop]
    for peak in sorted(strays, key=lambda p: -p.heat):
        if any(within(peak.at, q, same) and r != peak.region
               for q, r in by_box.get(peak.region, ())) and not any(
                within(peak.at, k.at, bean) for k in kept):
            kept.append(peak)
    # An orphan is seen from every box round it: one within a millimetre of another is it.
    near = (1.0 * st.s) ** 2
    for o in orphans:
        if not any(k.region == 0 and within(o.at, k.at, near) for k in kept):
            kept.append(o)
    return kept


def _grey_beans_on_markers(st: FrameState, ran: np.ndarray,
                           orphans: list[tuple[float, float, float]],
                           looked: list[tuple[int, int, int, int]]) -> None:
    """A greyish bean lying on a marker's print is about as dark as the ink and makes no
    region of pieces, but it hides the marker from the detector. Where a greyish player
    plays, the net also looks over every central marker not seen (unless a region's
    box in ``looked`` held it already). Its sure peaks there and the sure ``orphans``
    (heat, x, y: peaks found in a region's box but nearer no region) are beans when
    of a greyish player's colour; peaks this near one another from two boxes are one."""
    grey = [i for i, g in enumerate(_greyish(st)) if g]
    if not grey:
        return
    s = st.s
    H, W = st.m.ink.shape
    pad = PRINT_BOX_MM * s
    boxes: list[tuple[int, tuple[int, int, int, int]]] = []
    for corners in st.m.unseen_central_markers:
        (x0, y0), (x1, y1) = corners.min(axis=0) - pad, corners.max(axis=0) + pad
        box = (max(int(x0), 0), max(int(y0), 0), min(int(x1) + 1, W), min(int(y1) + 1, H))
        if box[2] - box[0] < 8 or box[3] - box[1] < 8 or any(  # (px): mostly off the mosaic
                a[0] <= box[0] and a[1] <= box[1] and box[2] <= a[2] and box[3] <= a[3]
                for a in looked):
            continue
        boxes.append((0, box))
    found = list(orphans)
    for _, at, heat, _ in _peaks(_answers(st, boxes), bean_net.THRESHOLD):
        if _nearest_region(st, at, ran) == 0:
            found.append((heat, *at))
    taken = list(st.counted_at)
    near = SAME_BEAN_MM * s
    for heat, x, y in sorted(found, reverse=True):
        if heat < bean_net.THRESHOLD or any(
                (x - a) ** 2 + (y - b) ** 2 < near * near for a, b in taken):
            continue
        taken.append((x, y))
        net_bean(st, (x, y), heat, only=grey)


def _nearest_region(st: FrameState, at: tuple[float, float], ran: np.ndarray) -> int:
    """The region of pieces at mosaic point ``at``, else the nearest within the net's
    context, of those with ``ran`` set (0: none)."""
    lab = st.regions[1]
    x, y = int(round(at[0])), int(round(at[1]))
    H, W = lab.shape
    if not (0 <= x < W and 0 <= y < H):
        return 0
    if ran[lab[y, x]]:
        return int(lab[y, x])
    near = nearest(lab, x, y, int(math.ceil(bean_net.CONTEXT_MM * st.s)),
                   lambda win: ran[win])
    return 0 if near is None else near[0]


def _nearest_regions(st: FrameState, points: list[tuple[float, float]], ran: np.ndarray
                     ) -> list[int]:
    """:func:`_nearest_region` of each of ``points``, looked for all at once: the same
    regions (the nearest pixel of one, the first in row order of equals, as
    :func:`~vision.peepwar.passes.state.nearest` finds it)."""
    if not points:
        return []
    lab = st.regions[1]
    H, W = lab.shape
    x = np.array([int(round(a[0])) for a in points], np.intp)
    y = np.array([int(round(a[1])) for a in points], np.intp)
    out = np.zeros(len(points), np.intp)
    inside = (x >= 0) & (x < W) & (y >= 0) & (y < H)
    on = np.zeros(len(points), np.intp)
    on[inside] = lab[y[inside], x[inside]]
    here = inside & ran[on]
    out[here] = on[here]
    look = np.flatnonzero(inside & ~here)
    if len(look):
        r = int(math.ceil(bean_net.CONTEXT_MM * st.s))
        dy, dx = (v.ravel() for v in np.mgrid[-r:r + 1, -r:r + 1])  # row by row
        ys, xs = y[look, None] + dy, x[look, None] + dx
        seen = (ys >= 0) & (ys < H) & (xs >= 0) & (xs < W)
        labels = lab[np.where(seen, ys, 0), np.where(seen, xs, 0)]
        wanted = seen & ran[labels]
        d = np.where(wanted, dy * dy + dx * dx, np.iinfo(np.intp).max)
        k = d.argmin(axis=1)
        rows = np.arange(len(look))
        out[look] = np.where(wanted[rows, k], labels[rows, k], 0)
    return out.tolist()


def net_bean(st: FrameState, at: tuple[float, float], heat: float,
             only: list[int] | None = None, doubled: bool = False) -> None:
    """A peak of the bean net's heat at mosaic point ``at``: a bean (or a doubt) of the
    player whose colour lies round it, in the cell under its foot (dropped unless that player
    is in ``only``, when given)."""
    # Beans lie beside an egg half, never on its dome. The egg's radius is measured on
    # its foreground, which beans touching its rim widen: a bean's centre found a few
    # millimetres inside that radius is still beside the egg.
    deep = EGG_RIM_BEAN_MM * st.s
    if any((at[0] - ex) ** 2 + (at[1] - ey) ** 2 < (rad - deep) ** 2
           for ex, ey, rad in st.eggs if rad > deep):
        return
    foot = st.foot(at, BEAN_MIDDLE_MM)
    ci = _bean_cell(st, foot)
    if ci < 0:
        return
    pi, margin, second = _whose(st, at)
    if pi < 0 or (only is not None and pi not in only):
        return
    player = st.px.players[pi]
    threshold = _thresholds(st)[pi]
    name = st.m.cell_names[ci]
    cell = st.cells[name]
    half_under = shading = False
    colour = _on_own_peep(st, at, pi) if heat < bean_net.DOUBT_HIGH else None
    if colour is not None:
        # A faint peak on a peep of its own player: bean-coloured round it, a bean half
        # under the peep; as peep-coloured as all the peep, and inside it, the peep's
        # own shading (its nose, its tail).
        here, whole, depth = colour
        if heat < threshold:
            half_under = here <= HALF_UNDER_PEEPISH and whole >= HALF_UNDER_PEEP_PEEPISH
        elif not _greyish(st)[pi]:
            # (A greyish bean's peaks run cooler, and its colour is no peep's or bean's.)
            shading = min(here, whole) >= PEEP_OWN_PEEPISH and depth >= PEEP_OWN_DEPTH_MM
    if shading or (heat < threshold and not half_under):
        cell.lower(DOUBT_CONFIDENCE)
        st.warn(name, f"perhaps one more {player} bean ({heat:.0%} sure)", Warned.ONE_MORE_BEAN)
        return
    cell.troops[player] = cell.troops.get(player, 0) + 1
    st.counted_at.append((float(at[0]), float(at[1])))
    st.beans_counted.append(CountedBean(name, player, float(heat),
                                        st.px.players[second] if second >= 0 else "", margin))
    if heat >= bean_net.THRESHOLD:
        st.beans_at.append((float(at[0]), float(at[1])))
    if doubled:
        cell.lower(DOUBT_CONFIDENCE)
        st.warn(name, f"one {player} bean, or two lying end to end", Warned.END_TO_END)
    if half_under:
        cell.lower(DOUBT_CONFIDENCE)
        st.warn(name, f"a {player} bean half under {player}'s peep ({heat:.0%} sure)",
                Warned.HALF_UNDER_PEEP)
    elif heat < bean_net.DOUBT_HIGH:
        cell.lower(DOUBT_CONFIDENCE)
        st.warn(name, f"a doubtful {player} bean ({heat:.0%} sure)", Warned.DOUBTFUL_BEAN)
    st.on_border(ci, foot, f"a {player} bean")
    if second < 0:
        st.warn(name, f"a dark bean, read as {player}'s by its colour as a whole",
                Warned.DARK_BEAN)
        cell.lower(DOUBT_CONFIDENCE)
    elif margin < 1.0:
        st.warn(name, f"a bean between {player} and {st.px.players[second]}",
                Warned.BETWEEN_COLOURS)
        cell.lower(0.5)


def _on_own_peep(st: FrameState, at: tuple[float, float], pi: int
                 ) -> tuple[float, float, float] | None:
    """For a peak at mosaic point ``at``, read as player ``pi``'s, lying on a peep of
    theirs (most of its players' colour is theirs): the share of their pixels on the
    peep within ON_PEEP_NEAR_MM of it that are nearer their peep model than their bean
    model, the same share over the whole peep (as far as ON_PEEP_REACH_MM), and how
    deep (mm) inside the peep's body the peak lies. None when it is on no peep of
    theirs."""
    x, y = int(round(at[0])), int(round(at[1]))
    H, W = st.body.shape
    if not (0 <= x < W and 0 <= y < H) or not st.body[y, x]:
        return None
    sl, near = st.disc(x, y, ON_PEEP_NEAR_MM)
    mine = near & (st.body[sl] > 0) & (st.px.label[sl] == pi)
    n_mine = np.count_nonzero(mine)
    if n_mine < WHOSE_MIN_MM2 * st.s * st.s:
        return None
    here = np.count_nonzero(mine & st.px.peepish[sl]) / n_mine
    sl, _ = st.disc(x, y, ON_PEEP_REACH_MM)
    _, cc = cv2.connectedComponents(st.body[sl], connectivity=8)
    at_peak = (y - sl[0].start, x - sl[1].start)
    peep = cc == cc[at_peak]
    labels = st.px.label[sl][peep]
    theirs = labels == pi
    n_theirs = np.count_nonzero(theirs)
    if 2 * n_theirs < np.count_nonzero(labels < len(st.px.players)):
        return None
    whole = np.count_nonzero(st.px.peepish[sl][peep][theirs]) / n_theirs
    depth = cv2.distanceTransform(peep.view(np.uint8), cv2.DIST_L2, 3)[at_peak] / st.s
    return float(here), float(whole), float(depth)


def _whose(st: FrameState, at: tuple[float, float]) -> tuple[int, float, int]:
    """The player whose colour is commonest round ``at`` (off the peeps first: a bean
    half under a peep shows its own colour round its centre), with the median colour
    margin there and the commonest runner-up; (-1, 0, -1) when no player's colour is near."""
    s = st.s
    x, y = int(round(at[0])), int(round(at[1]))
    known = st.whose_at.get((x, y))
    if known is not None:
        return known
    n_players = len(st.px.players)
    for radius_mm, off_peeps in ((WHOSE_MM, True), (WHOSE_FAR_MM, True),
                                 (WHOSE_MM, False)):
        sl, near = st.disc(x, y, radius_mm)
        if off_peeps:
            near = near & (st.body[sl] == 0)
        labels = st.px.label[sl][near]
        mine = labels < n_players
        n_mine = np.count_nonzero(mine)
        if n_mine < WHOSE_MIN_MM2 * s * s:
            continue
        if radius_mm == WHOSE_MM and off_peeps and n_mine < WHOSE_DARK_SHARE * len(labels):
            # A few pixels of a dark bean near some colour (a blackberry bean's
            # speckles, its rim against the paper) can name anyone: read it whole.
            whole = _whole_bean(st, x, y)
            if whole >= 0:
                return whole, math.inf, -1
        # Each pixel votes by how clearly it is its player's: a glossy bean's lit side
        # is paler than its colour, near the next colour (red lit looks orange).
        all_margins = st.px.margin[sl][near]
        # (np.clip's own overhead is twice this on so few pixels)
        sure = np.minimum(np.maximum(all_margins[mine], VOTE_MIN), VOTE_MAX)
        votes = np.bincount(labels[mine], weights=sure, minlength=n_players)
        pi = int(np.argmax(votes))
        theirs = labels == pi
        margins = all_margins[theirs]
        seconds = st.px.runner_up[sl][near][theirs]
        # A pixel the mode filter gave to pi can have pi as its own runner-up.
        second = np.bincount(seconds, minlength=n_players)
        second[pi] = -1
        return pi, _median(margins), int(second.argmax())
    # No pixel near any player's colour on its own: a glossy near-black bean. Its
    # foreground read as a whole names the player whose bean it is, if any is near.
    pi = _whole_bean(st, x, y)
    return (pi, math.inf, -1) if pi >= 0 else (-1, 0.0, -1)


def _whose_many(st: FrameState, points: list[tuple[float, float]]
                ) -> dict[tuple[int, int], tuple[int, float, int]]:
    """:func:`_whose` of many mosaic points at once, by pixel (x, y), for the points its
    first look settles (WHOSE_MM round them, off the peeps, enough of some player's colour
    and not a dark bean's few pixels): the same answers to the last bit (each window's
    pixels are taken in the same order, votes summed and medians taken as it does), for
    a fraction of the cost of a look apiece. The other points are left out."""
    n_players = len(st.px.players)
    if not points or not n_players:
        return {}
    s = st.s
    H, W = st.px.label.shape
    r = int(math.ceil(WHOSE_MM * s))
    oy, ox = np.nonzero(round_window(r))  # row by row, as a window's pixels are taken
    xy = np.array(sorted({(int(round(a[0])), int(round(a[1]))) for a in points}), np.intp)
    nb = len(xy)
    ys, xs = xy[:, 1:] + (oy - r), xy[:, :1] + (ox - r)
    inside = (ys >= 0) & (ys < H) & (xs >= 0) & (xs < W)
    ys, xs = np.where(inside, ys, 0), np.where(inside, xs, 0)
    bean, k = np.nonzero(inside & (st.body[ys, xs] == 0))  # point by point, in order
    ys, xs = ys[bean, k], xs[bean, k]
    labels = st.px.label[ys, xs]
    mine = labels < n_players
    n_mine = np.bincount(bean[mine], minlength=nb)
    n_near = np.bincount(bean, minlength=nb)
    settled = (n_mine >= WHOSE_MIN_MM2 * s * s) & ~(n_mine < WHOSE_DARK_SHARE * n_near)
    if not settled.any():
        return {}
    margins = st.px.margin[ys, xs]
    vote = mine & settled[bean]
    sure = np.minimum(np.maximum(margins[vote], VOTE_MIN), VOTE_MAX)
    votes = np.bincount(bean[vote] * n_players + labels[vote], weights=sure,
                        minlength=nb * n_players).reshape(nb, n_players)
    pi = votes.argmax(axis=1)
    theirs = settled[bean] & (labels == pi[bean])
    seconds = st.px.runner_up[ys[theirs], xs[theirs]]
    if len(seconds) and int(seconds.max()) >= n_players:
        return {}  # (no runner-up is out of range; if one were, each point is read alone)
    bt, mt = bean[theirs], margins[theirs]
    # Each point's median margin: its own margins sorted, the middle two averaged.
    ordered = mt[np.lexsort((mt, bt))]
    count = np.bincount(bt, minlength=nb)
    start = np.cumsum(count) - count
    at = np.flatnonzero(settled)
    lo = ordered[start[at] + (count[at] - 1) // 2]
    hi = ordered[start[at] + count[at] // 2]
    median = (lo + hi) / lo.dtype.type(2)
    runner = np.bincount(bt * n_players + seconds, minlength=nb * n_players
                         ).reshape(nb, n_players)
    runner[np.arange(nb), pi] = -1
    second = runner.argmax(axis=1)
    return {(int(xy[b, 0]), int(xy[b, 1])): (int(pi[b]), m, int(second[b]))
            for b, m in zip(at.tolist(), median.tolist(), strict=True)}


def _whole_bean(st: FrameState, x: int, y: int) -> int:
    """The player whose bean model most of the foreground off the peeps within
    WHOSE_FAR_MM of mosaic point (x, y) is nearest, if the median distance is under
    WHOLE_BEAN_MAX_DISTANCE; -1 otherwise."""
    s = st.s
    sl, near = st.disc(x, y, WHOSE_FAR_MM)
    near = near & (st.body[sl] == 0)
    seen = near & st.px.fg[sl]
    if np.count_nonzero(seen) < WHOSE_MIN_MM2 * s * s:
        # Not even foreground: a bean so dark and glossy that the net alone found it
        # (by its shape). What is darker than paper round it is bean (or print it hides).
        seen = near & st.px.shaded[sl]
        if np.count_nonzero(seen) < WHOSE_MIN_MM2 * s * s:
            return -1
    ys, xs = np.nonzero(seen)
    flat = (ys + sl[0].start) * st.px.label.shape[1] + (xs + sl[1].start)
    pi, distance = nearest_bean(st.px, st.profile, flat)
    return pi if pi >= 0 and distance <= WHOLE_BEAN_MAX_DISTANCE else -1


def _median(values: np.ndarray) -> float:
    """``np.median`` of a 1-d array, by partition (a tenth of the cost on small arrays)."""
    n = len(values)
    mid = np.partition(values, [(n - 1) // 2, n // 2])
    return float((mid[(n - 1) // 2] + mid[n // 2]) / mid.dtype.type(2))
