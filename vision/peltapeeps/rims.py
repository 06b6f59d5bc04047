"""Around each disc: its exact centre and its connectors (its face: :mod:`~vision.peltapeeps.face`).

Each disc is sampled on a polar grid (angle x radius, in units of its radius)
and every sample labelled with its nearest team colour or *table*. Along each
angle the rim is where the disc's own colour stops; a circle fitted to the rim
samples near one radius refines the centre. Then, at each angle:

- the *cut zone* (just inside the rim) shows another colour or the table where
  the disc has a notch or curve (a curve's cut is much wider);
- the *tab zone* (just outside) shows the disc's own colour where it has a tab.

Where those zones lie and how wide a connector's run is come from the catalog's
sizes (:mod:`vision.peltapeeps.zones`), in shares of each disc's radius as
measured in the photo.

Where a neighbour of the same colour touches (or of a colour the light makes
look alike), both zones show that colour whatever the connectors, so the
full-resolution photo weighs the readings: the laser-cut edges are thin dark
lines, and along the line between the two centres the darkest place is where
their edges meet — at the rim (plain edges touching), or at a tab's tip
sitting in the other disc's notch. Such a contact keeps every reading the photo
allows, with its cost, for the catalog to settle (:class:`ContactInDoubt`).

The module is longer than most because every step reads the same polar
samples and zone columns: split apart, each part would have to be handed the
whole sampling state and its constants.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.peltapeeps.colours import FAR, ChromaTable, chroma_planes, team_cells
from vision.peltapeeps.discs import TableModel, is_table_planes
from vision.peltapeeps.face import FaceMarks
from vision.peltapeeps.geometry import DEFAULT_GEOMETRY, PieceGeometry
from vision.peltapeeps.zones import Zones, zones

ANGLES = 120  # polar samples around a disc (3 degrees apart)
RADII = np.arange(0.50, 1.31, 0.03)


def _zone_columns(zone: tuple[float, float]) -> np.ndarray:
    """Which polar radii fall in ``zone`` (a share of the radius, from and to)."""
    lo, hi = zone
    return (lo <= RADII) & (hi >= RADII)


BODY = (0.64, 0.75)  # plain acrylic: outside the paint (0.62 R), inside every cut
BODY_COLUMNS = _zone_columns(BODY)
NEIGHBOUR_REACH = 2.35  # centres closer than this many radii touch
TABLE = -1
DARK = 0.72  # lightness (cube root) below this share of the disc's: not acrylic
SHARE_STEP = 0.45  # white share (glare) beyond the disc's own by this much: not acrylic
OWN_NEAR = 2.5  # distance to a disc's own team line that counts as its own colour
# From this white share a sample lies where every team's glare line ends, at the light's
# own colour: which line it is nearest says little (a second lamp of another colour, or
# the camera's clipping, moves it off its own), so its lightness alone says glare.
WHITE_END = 0.8
LOOK_FLOOR = 1e-4  # least linear level a sample's logarithm is taken of (a black pixel)
BEYOND = (1.2, 1.3)  # what lies beyond the rim, as far out as the samples reach


@dataclass
class Disc:
    x: float  # work px
    y: float
    r: float
    team: int = -1
    team_distance: float = math.inf
    team_margin: float = 0.0
    runner_up: int = -1  # the second nearest team
    face_up: bool = True
    marks: FaceMarks | None = None  # how the painted marks in its centre look
    rim_share: float = 0.0  # share of angles where the rim was found where expected
    labels: np.ndarray | None = None  # (ANGLES, len(RADII)) team index or TABLE
    looks: np.ndarray | None = None  # (ANGLES, len(RADII), 3) log linear BGR at those samples
    shape: np.ndarray | None = None  # 2x2: the unit circle onto the disc's ellipse (tilt)
    connectors: list[Seen] = field(default_factory=list)  # angle, type, sure, type sure
    free_connectors: list[Seen] = field(default_factory=list)  # told by colour
    geometry: PieceGeometry = DEFAULT_GEOMETRY  # its team's pieces, from the catalog

    @property
    def zones(self) -> Zones:
        return zones(self.geometry)

    @property
    def axes(self) -> np.ndarray:
        """2x2 matrix taking disc units (radius 1) to photo offsets (work px)."""
        return self.shape if self.shape is not None else np.eye(2) * self.r

    def to_image(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = self.axes
        return self.x + a[0, 0] * u + a[0, 1] * v, self.y + a[1, 0] * u + a[1, 1] * v


def pair_frame(a: Disc, b: Disc) -> tuple[float, float]:
    """Distance (in radii) and direction (degrees, disc frame) from ``a`` to ``b``."""
    inv = np.linalg.inv((a.axes + b.axes) / 2)
    v = inv @ np.array([b.x - a.x, b.y - a.y])
    return float(np.hypot(*v)), math.degrees(math.atan2(v[1], v[0])) % 360


def _polar(img_lin: np.ndarray, discs: list[Disc], radii: np.ndarray) -> np.ndarray:
    """(D, ANGLES, len(radii), 3) linear BGR samples around each disc (its ellipse)."""
    th = np.arange(ANGLES) * (2 * math.pi / ANGLES)
    u = (np.cos(th)[:, None] * radii[None, :]).astype(np.float32)
    v = (np.sin(th)[:, None] * radii[None, :]).astype(np.float32)
    # Disc.to_image for every disc at once (the same sums in the same order).
    x = np.array([d.x for d in discs], np.float64)[:, None, None]
    y = np.array([d.y for d in discs], np.float64)[:, None, None]
    a = np.array([d.axes for d in discs], np.float64).reshape(-1, 2, 2, 1, 1)
    mx = x + a[:, 0, 0] * u + a[:, 0, 1] * v
    my = y + a[:, 1, 0] * u + a[:, 1, 1] * v
    n = len(discs)
    out = sample_at(img_lin, mx.astype(np.float32), my.astype(np.float32),
                    cv2.BORDER_REPLICATE)
    return out.reshape(n, ANGLES, len(radii), 3)


REMAP_WIDTH = 1024
REMAP_ROWS = 32000  # cv2.remap refuses maps of 32767 rows or columns and more


def sample_at(img: np.ndarray, mx: np.ndarray, my: np.ndarray,
              border: int = cv2.BORDER_CONSTANT) -> np.ndarray:
    """``img`` sampled (bilinear) at any number of points; the result has ``mx``'s shape
    (plus the image's channels). Split into blocks OpenCV accepts."""
    shape = mx.shape
    size = mx.size
    pad = (-size) % REMAP_WIDTH
    # The points in rows of REMAP_WIDTH, padded with zeros: filled in place rather than
    # converted, padded and copied again (heavy with thousands of discs' grids).
    fx = np.zeros(size + pad, np.float32)
    fy = np.zeros(size + pad, np.float32)
    fx[:size] = mx.reshape(-1)
    fy[:size] = my.reshape(-1)
    fx, fy = fx.reshape(-1, REMAP_WIDTH), fy.reshape(-1, REMAP_WIDTH)
    parts = [cv2.remap(img, fx[i:i + REMAP_ROWS], fy[i:i + REMAP_ROWS], cv2.INTER_LINEAR,
                       borderMode=border) for i in range(0, fx.shape[0], REMAP_ROWS)]
    flat = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    return flat.reshape(size + pad, *img.shape[2:])[:size].reshape(*shape, *img.shape[2:])


def row_medians(values: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Each row's median (first axis) of its ``values`` where ``keep``, NaN where it keeps none.

    Bit for bit what ``np.median`` gives row by row (the two middle values' mean in
    the values' own precision), so that reading many discs at once changes nothing.
    """
    flat = values.reshape(len(values), -1)
    if keep is None:
        n = np.full(len(flat), flat.shape[1])
        srt = np.sort(flat, axis=1)
    else:
        kept = keep.reshape(len(values), -1)
        n = kept.sum(axis=1)
        srt = np.sort(np.where(kept, flat, np.inf), axis=1)
    rows = np.arange(len(flat))
    lo, hi = srt[rows, np.maximum(n - 1, 0) // 2], srt[rows, np.minimum(n // 2, flat.shape[1] - 1)]
    # np.median is the mean of the middle value(s): a sum from 0 (so -0.0 comes out 0.0).
    lo = lo + 0.0
    mid = np.where(n % 2 == 1, lo, (lo + hi) / 2)
    return np.where(n > 0, mid, np.nan).astype(values.dtype)


LABEL_BLOCK = 1 << 16  # samples labelled at a time: their temporaries stay in the cache


def label_samples(samples: np.ndarray, gains: np.ndarray, lut: ChromaTable,
                  table: TableModel, teams: np.ndarray | None = None,
                  shade: np.ndarray | None = None) -> np.ndarray:
    """Team index (or TABLE) of linear BGR samples.

    Nearest team's glare line if near, unless the table's colour. With ``teams``
    (samples are (D, ANGLES, RADII, 3) around discs of those teams), a disc's own
    label also needs its acrylic's lightness and glare: far darker is the table,
    a shadow or a cut edge; far more white is the table or paint, not glare.
    ``shade`` is the table's lightness where each sample was taken
    (:meth:`TableModel.shading`): the samples' first axis, the rest broadcast.
    """
    # The lightness of all samples in one product, as it always was taken (BLAS may
    # sum its three terms in its own order); the rest, sample by sample or disc by
    # disc, a block of whole discs (or image rows) at a time: the same numbers
    # without temporaries of hundreds of megabytes.
    y = samples @ np.array([0.0722, 0.7152, 0.2126], np.float32)
    light = np.cbrt(np.maximum(y, 0, out=y), out=y)
    out = np.empty(samples.shape[:-1], np.int16)
    step = max(1, LABEL_BLOCK // max(1, math.prod(samples.shape[1:-1])))
    for s in range(0, len(samples), step):
        block = slice(s, s + step)
        out[block] = _labels(samples[block], light[block], gains, lut, table,
                             None if teams is None else teams[block],
                             None if shade is None else shade[block])
    return out


def _labels(samples: np.ndarray, light: np.ndarray, gains: np.ndarray, lut: ChromaTable,
            table: TableModel, teams: np.ndarray | None,
            shade: np.ndarray | None = None) -> np.ndarray:
    """:func:`label_samples` of some samples, given their lightness."""
    # Chromaticities one channel at a time and table cells as flat indices: the same
    # numbers as lut.index(chroma(samples / gains)), with far fewer temporaries.
    cell, extra = team_cells(samples, gains, lut)
    best, dmin = lut.team.ravel()[cell], lut.distance.ravel()[cell] + extra
    tab = is_table_planes(*chroma_planes(samples), light if shade is None else light / shade,
                          table)
    if teams is not None:
        # Every disc at once (a loop over thousands of candidates was most of the time).
        tk = teams[:, None, None]
        share = lut.share.ravel()[cell]
        # Near its own team's line is its own, even when another team's is a hair nearer.
        near_own = lut.each.reshape(len(lut.each), -1)[tk, cell] + extra < OWN_NEAR
        best = np.where(near_own, tk, best)
        own = best == tk
        ref = row_medians(light[:, :, BODY_COLUMNS])
        s_ref = np.nan_to_num(row_medians(share[:, :, BODY_COLUMNS], own[:, :, BODY_COLUMNS]))
        tab |= (light < DARK * ref[:, None, None]) \
            | (own & (np.abs(share - s_ref[:, None, None]) > SHARE_STEP))
    return np.where((dmin < FAR) & ~tab, best, TABLE)


def washed_body(img_lin: np.ndarray, discs: list[Disc], gains: np.ndarray,
                lut: ChromaTable) -> np.ndarray:
    """Per disc, the share of its body (:data:`BODY`) that is its own acrylic washed by a
    reflection: on its team's glare line (or near white, where every line ends:
    :data:`WHITE_END`), far whiter than the rest of its body and brighter (a lamp's or a
    window's reflection adds light; paint lies inside the body, and a light table beside
    a disc is no brighter than the glare on it).

    Such samples are labelled "not acrylic" (:func:`label_samples` cannot tell them
    from white paint or a pale table one sample at a time), yet the disc is whole.
    """
    if not discs:
        return np.zeros(0)
    samples = _polar(img_lin, discs, RADII[BODY_COLUMNS].astype(np.float32))
    y = samples @ np.array([0.0722, 0.7152, 0.2126], np.float32)
    light = np.cbrt(np.maximum(y, 0))
    cell, extra = team_cells(samples, gains, lut)
    share = lut.share.ravel()[cell]
    teams = np.array([d.team for d in discs])[:, None, None]
    near_own = lut.each.reshape(len(lut.each), -1)[teams, cell] + extra < OWN_NEAR
    # The disc's own acrylic: its least white half of the samples on its line.
    s_ref = np.nan_to_num(row_medians(share, near_own))
    own = near_own & (share <= s_ref[:, None, None] + SHARE_STEP)
    l_ref = np.nan_to_num(row_medians(light, own))
    washed = (near_own | (share >= WHITE_END)) & (share > s_ref[:, None, None] + SHARE_STEP) \
        & (light > l_ref[:, None, None])
    return washed.reshape(len(discs), -1).mean(axis=1)


def _fill_holes(mask: np.ndarray, max_px: int) -> np.ndarray:
    """``mask`` (uint8 0/1) with enclosed holes of at most ``max_px`` pixels filled."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats((mask == 0).astype(np.uint8), 4)
    if n <= 1:
        return mask
    h, w = mask.shape
    x, y, bw, bh, area = stats.T
    small = (area <= max_px) & (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    small[0] = False
    if not small.any():
        return mask
    out = mask.copy()
    out[small[lab]] = 1
    return out


ROI_MARGIN = 3  # px of table kept round a team's pixels (the widest neighbourhood: 5x5)


def missed(img_lin: np.ndarray, found: list[Disc], gains: np.ndarray, lut: ChromaTable,
           table: TableModel, radius: float) -> list[Disc]:
    """Discs the circle search missed: team-coloured areas no found disc covers.

    Each team's pixels, less the found discs, keep the missed discs whole; the
    distance transform peaks at about a radius in each of them (and stays small
    in the slivers of tabs and rims left over).
    """
    labels = label_samples(img_lin, gains, lut, table,
                           shade=table.shading_image(img_lin.shape[1], img_lin.shape[0]))
    cover = np.zeros(labels.shape, np.uint8)
    for d in found:
        cv2.circle(cover, (round(d.x), round(d.y)), round(1.08 * d.r), 1, -1)
    out: list[Disc] = []
    h, w = labels.shape
    present = np.flatnonzero(np.bincount(labels.ravel() + 1)) - 1  # as np.unique(labels)
    for t in present[present != TABLE]:
        mask = (labels == t) & (cover == 0)
        # Only the box round the team's pixels (and a margin of table) is worked on:
        # opening, holes, distances and peaks come out the same as on the whole photo
        # (every 5x5 neighbourhood they look at lies in it, and table beyond the margin
        # joins the photo's border), for a share of the time.
        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        if not len(rows):
            continue
        y0, x0 = max(int(rows[0]) - ROI_MARGIN, 0), max(int(cols[0]) - ROI_MARGIN, 0)
        y1, x1 = min(int(rows[-1]) + ROI_MARGIN + 1, h), min(int(cols[-1]) + ROI_MARGIN + 1, w)
        mask = mask[y0:y1, x0:x1].astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        mask = _fill_holes(mask, int(0.6 * math.pi * radius**2))  # painted marks
        if mask.sum() < 1.2 * radius**2:
            continue
        dt = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
        peaks = (dt >= cv2.dilate(dt, np.ones((5, 5), np.uint8))) & (dt >= 0.55 * radius)
        ys, xs = np.nonzero(peaks)
        for k in np.argsort(-dt[ys, xs]):
            x, y = float(xs[k] + x0), float(ys[k] + y0)
            if all(math.hypot(x - d.x, y - d.y) > 1.3 * radius for d in out):
                out.append(Disc(x, y, radius, int(t)))
    return out


def refine(img_lin: np.ndarray, discs: list[Disc], gains: np.ndarray, lut: ChromaTable,
           table: TableModel, rounds: int = 2) -> None:
    """Centre and radius of each disc from its rim; labels sampled at the final pose."""
    # A disc the fit left where it was would be sampled, labelled and fitted the same
    # again (each disc's samples and labels depend on its pose alone): only the discs
    # that moved are read again.
    moving = list(discs)
    for k in range(rounds + 1):
        if not moving:
            return
        samples = _polar(img_lin, moving, RADII.astype(np.float32))
        h, w = img_lin.shape[:2]
        labels = label_samples(samples, gains, lut, table,
                               np.array([d.team for d in moving]),
                               table.shading(np.array([d.x for d in moving]),
                                             np.array([d.y for d in moving]), w, h
                                             )[:, None, None])
        # The samples are not needed again: their logarithms in place, a copy per disc
        # (a view would keep every candidate's samples alive with the discs kept).
        looks = np.log(np.maximum(samples, LOOK_FLOOR, out=samples), out=samples)
        for d, lab, look in zip(moving, labels, looks, strict=True):
            d.labels = lab
            d.looks = look.copy()
        if k == rounds:
            return
        # Every disc's rim at once: the first radius (from the inside) that is not the
        # disc's own colour, along each angle.
        own = labels == np.array([d.team for d in moving])[:, None, None]
        start = int(np.searchsorted(RADII, 0.7))
        off = ~own[:, :, start:]
        has = off.any(axis=2)
        first = np.where(has, off.argmax(axis=2) + start, len(RADII) - 1)
        rim_at = RADII[np.maximum(first - 1, 0)] + 0.015
        oks = has & (rim_at > 0.7) & (rim_at < 1.35)
        shares = (oks & (np.abs(rim_at - 1) < 0.06)).mean(axis=1)
        moved = []
        for d, rim, ok, share in zip(moving, rim_at, oks, shares, strict=True):
            d.rim_share = float(share)
            if ok.sum() < 12:
                continue
            before = _pose(d)
            th = np.arange(ANGLES)[ok] * (2 * math.pi / ANGLES)
            px, py = d.to_image(rim[ok] * np.cos(th), rim[ok] * np.sin(th))
            _fit_rim(d, np.stack([px, py], axis=1), th)
            if _pose(d) != before:
                moved.append(d)
        moving = moved


def _pose(d: Disc) -> tuple[float, float, float, bytes | None]:
    """Where ``d`` lies, exactly (to tell whether a fit moved it)."""
    return d.x, d.y, d.r, None if d.shape is None else d.shape.tobytes()


def median(values: np.ndarray) -> float:
    """``float(np.median(values))`` of a 1-D array, bit for bit, without np.median's
    generic machinery (the rim fit takes thousands of small medians a photo)."""
    n = len(values)
    if not n:
        return float(np.median(values))  # nan, with numpy's warning
    h = n // 2
    # The largest value goes last too, as np.median has it: a NaN there makes the median NaN.
    part = np.partition(values, (h, -1) if n % 2 else (h - 1, h, -1))
    if np.isnan(part[-1]):
        return math.nan
    # The mean of the middle value(s), a sum from 0 as np.mean takes it (-0.0 comes out 0.0).
    return float(0.0 + part[h] if n % 2 else (0.0 + part[h - 1] + part[h]) / 2)


def _circle(pts: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (x, y, r): x^2 + y^2 + a x + b y + c = 0."""
    a = np.ones((len(pts), 3))
    a[:, :2] = pts
    sol, *_ = np.linalg.lstsq(a, -(pts**2).sum(axis=1), rcond=None)
    x, y = -sol[0] / 2, -sol[1] / 2
    return float(x), float(y), math.sqrt(max(x * x + y * y - sol[2], 1.0))


def _fit_rim(d: Disc, pts: np.ndarray, th: np.ndarray) -> None:
    """Move ``d`` onto its rim: a trimmed circle fit (tabs, notches and neighbours are
    outliers), then an ellipse through the inliers when they go round the disc."""
    keep = np.ones(len(pts), bool)
    x, y, r = d.x, d.y, d.r
    for _ in range(4):
        if keep.sum() < 10:
            return
        x, y, r = _circle(pts[keep])
        res = np.abs(np.hypot(pts[:, 0] - x, pts[:, 1] - y) - r)
        tol = max(0.035 * r, 2.5 * median(res[keep]))
        keep = res < tol
    if not (0.8 < r / d.r < 1.25) or math.hypot(x - d.x, y - d.y) > 0.4 * d.r \
            or keep.sum() < 12:
        return
    d.x, d.y, d.r, d.shape = x, y, r, None
    sectors = len(set((th[keep] // (math.pi / 4)).astype(int)))
    if sectors < 6 or keep.sum() < 20:
        return
    (cx, cy), (w, h), ang = cv2.fitEllipse(pts[keep].astype(np.float32))
    if not (0.9 < math.sqrt(w * h) / 2 / r < 1.1) or min(w, h) < 0.85 * max(w, h) \
            or math.hypot(cx - x, cy - y) > 0.1 * r:
        return
    t = math.radians(ang)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    d.x, d.y, d.r = float(cx), float(cy), math.sqrt(w * h) / 2
    d.shape = rot @ np.diag([w / 2, h / 2]) @ rot.T


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """Circular runs of True: (start index, length)."""
    n = len(flags)
    if flags.all():
        return [(0, n)]
    if not flags.any():
        return []
    start = int(np.argmin(flags))  # a False: begin there so no run wraps
    rolled = np.roll(flags, -start)
    out, i = [], 0
    while i < n:
        if rolled[i]:
            j = i
            while j < n and rolled[j]:
                j += 1
            out.append(((i + start) % n, j - i))
            i = j
        else:
            i += 1
    return out


def _zone(labels: np.ndarray, zone: tuple[float, float]) -> np.ndarray:
    sel = (zone[0] <= RADII) & (zone[1] >= RADII)
    return labels[:, sel]


def angle_gap(a: float, b: float) -> float:
    """Degrees between two directions (0 to 180)."""
    return abs((a - b + 180) % 360 - 180)


ANGLES_DEG = np.arange(ANGLES) * (360.0 / ANGLES)  # the directions rims are sampled in


def _gaps(ang: float) -> np.ndarray:
    """:func:`angle_gap` from every sampled direction to ``ang``."""
    return np.abs((ANGLES_DEG - ang + 180) % 360 - 180)


def neighbours(discs: list[Disc]) -> list[tuple[int, int]]:
    """Index pairs of discs whose centres are about two radii apart (touching)."""
    out = []
    for i, a in enumerate(discs):
        for j in range(i + 1, len(discs)):
            b = discs[j]
            if math.hypot(a.x - b.x, a.y - b.y) < NEIGHBOUR_REACH * max(a.r, b.r) * 1.1 \
                    and pair_frame(a, b)[0] < NEIGHBOUR_REACH:
                out.append((i, j))
    return out


def _sample_grey(grey: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    return sample_at(grey, px, py).astype(np.float32)


def _edge_darkness(grey_full: np.ndarray, scale: float, a: Disc, b: Disc) -> np.ndarray:
    """How dark the cut edges are where each contact would put them, from ``a`` to ``b``.

    Three scores: ``b``'s tab seated in ``a`` (its tip a notch's depth inside ``a``'s
    rim, 0.76 radii from ``a`` for the shipped sets, its sides from there to the rim),
    plain edges touching (at 1), ``a``'s tab seated in ``b`` (tip at 1.24, sides
    between 1 and 1.24). Lower is darker. ``scale`` takes work px to
    full-resolution px; depths and widths are the catalog's, in radii.
    """
    dx, dy = (b.x - a.x) * scale, (b.y - a.y) * scale
    dist = math.hypot(dx, dy)
    ux, uy = dx / dist, dy / dist
    r = dist / 2  # the discs touch: half the distance is a radius along this line
    depth = (a.zones.notch_depth + b.zones.notch_depth) / 2
    half = (a.zones.tab_half_width + b.zones.tab_half_width) / 2

    def at(along: np.ndarray, lat: np.ndarray) -> np.ndarray:
        return _sample_grey(grey_full, a.x * scale + (ux * along - uy * lat) * r,
                            a.y * scale + (uy * along + ux * lat) * r)

    fine = np.linspace(-0.03, 0.03, 5)
    tips = at(np.array([1 - depth, 1.0, 1 + depth])[:, None, None] + fine[None, None, :],
              np.linspace(-0.1, 0.1, 7)[None, :, None] + 0 * fine[None, None, :])
    tip = tips.min(axis=2).mean(axis=1)
    steps = np.linspace(0.2, 0.8, 6) * depth
    sides = []
    for base in (1 - depth, 1.0):
        along = (base + steps)[None, :, None] + 0 * fine[None, None, :]
        lat = np.array([-half, half])[:, None, None] + fine[None, None, :]
        sides.append(float(at(along, lat).min(axis=2).mean()))
    return np.array([tip[0] + sides[0], 2 * tip[1], tip[2] + sides[1]]) / 2


# A connector seen: angle (image degrees), type, how sure it is there, and how sure of
# its type (a cut's shape may fit a notch and a curve about as well: see shape_fit).
Seen = tuple[float, str, float, float]


@dataclass(frozen=True)
class ContactOption:
    """One reading of where two discs touch: the connector each shows
    towards the other (None: a plain edge), and the evidence against it (0 for the
    likeliest; :data:`DARK_STEP` grey levels of the photo make 1)."""

    cost: float
    a: Seen | None
    b: Seen | None


@dataclass(frozen=True)
class ContactInDoubt:
    """Two touching discs whose colours cannot tell their connectors apart (one team,
    or two teams the light makes alike), as indices into the disc list; ``options``
    are the readings the photo allows, likeliest first. Which one holds is settled
    with the catalog (:func:`vision.peltapeeps.identify.identify_pieces`)."""

    a: int
    b: int
    options: tuple[ContactOption, ...]


DARK_STEP = 6.0  # grey levels of edge darkness that count as one connector's worth of evidence


def _own_cut(d: Disc, teams: Collection[int]) -> np.ndarray:
    """Per angle, the share of ``d``'s cut zone that shows acrylic of ``teams``."""
    assert d.labels is not None
    return np.isin(_zone(d.labels, d.zones.cut), list(teams)).mean(axis=1)


CONFUSED_SHARE = 0.5  # this much of a neighbour beside a contact taken for the disc's colour


def _confused(a: Disc, b: Disc) -> bool:
    """True when ``b``'s body beside the contact is taken for ``a``'s colour.

    Just outside ``a``'s rim, beside the line to ``b`` (6 to 20 degrees either side for
    the shipped sets), lies ``b`` (or the table in a curve of ``b``), never ``a``'s own
    tab.
    """
    assert a.labels is not None
    gap = _gaps(pair_frame(a, b)[1])
    lo, hi = a.zones.beside_deg
    beside = (gap >= lo) & (gap <= hi)
    return bool((_zone(a.labels, a.zones.tab)[beside] == a.team).mean() > CONFUSED_SHARE)


def _contact_in_doubt(discs: list[Disc], i: int, j: int, grey_full: np.ndarray,
                       scale: float) -> ContactInDoubt:
    """The readings of a contact between two discs of one colour (or alike), with costs.

    The colours cannot tell a tab from the acrylic it sits in, so the dark cut edges
    on the full-resolution photo weigh the three readings: ``b``'s tab in ``a``,
    plain edges (or cuts) meeting, ``a``'s tab in ``b``.
    """
    a, b = discs[i], discs[j]
    teams = {a.team, b.team}
    ang_a, ang_b = pair_frame(a, b)[1], pair_frame(b, a)[1]

    def cut(d: Disc, ang: float, filled: bool) -> Seen | None:
        kind, sure = _cut_kind(d, ang, teams, filled)
        return None if kind == "plain" else (ang, kind, 0.7 if filled else 0.8, sure)

    plain = ContactOption(0.0, cut(a, ang_a, False), cut(b, ang_b, False))
    # An empty cut (the table shows in it) faces the other: no tab between them.
    if _open_cut(a, ang_a, teams) or _open_cut(b, ang_b, teams):
        return ContactInDoubt(i, j, (plain,))
    dark = _edge_darkness(grey_full, scale, a, b)
    # The table beside the contact, inside a disc, is a curve's side: no tab there.
    if _open_sides(a, ang_a, teams):
        dark[2] = np.inf
    if _open_sides(b, ang_b, teams):
        dark[0] = np.inf
    readings = (
        (dark[0], cut(a, ang_a, True), (ang_b, "tab", 0.7, 1.0)),
        (dark[1], plain.a, plain.b),
        (dark[2], (ang_a, "tab", 0.7, 1.0), cut(b, ang_b, True)),
    )
    least = float(np.min(dark))
    options = sorted((ContactOption(round((float(v) - least) / DARK_STEP, 3), sa, sb)
                      for v, sa, sb in readings if np.isfinite(v)), key=lambda o: o.cost)
    return ContactInDoubt(i, j, tuple(options))


def connectors(discs: list[Disc], grey_full: np.ndarray, scale: float,
               pairs: list[tuple[int, int]]) -> list[ContactInDoubt]:
    """Each disc's connectors (angle, type, sureness) in image degrees (clockwise, +x = 0).

    Where the colours tell (the free rim, and contacts with other colours) they are
    set in ``Disc.free_connectors``; contacts where they cannot (discs of one
    colour, or of two colours the light makes alike) are returned with the
    readings they allow, and ``Disc.connectors`` holds the likeliest. ``pairs``
    are the touching discs (:func:`neighbours`).
    """
    step = 360.0 / ANGLES
    near: dict[int, list[tuple[int, float]]] = {i: [] for i in range(len(discs))}
    for i, j in pairs:
        near[i].append((j, pair_frame(discs[i], discs[j])[1]))
        near[j].append((i, pair_frame(discs[j], discs[i])[1]))
    doubtful = {(i, j) for i, j in pairs if discs[i].team == discs[j].team
                or _confused(discs[i], discs[j]) or _confused(discs[j], discs[i])}
    same = [_contact_in_doubt(discs, i, j, grey_full, scale) for i, j in sorted(doubtful)]
    for i, d in enumerate(discs):
        assert d.labels is not None
        own_cut = _own_cut(d, {d.team})
        z = d.zones
        own_tab = (_zone(d.labels, z.tab) == d.team).mean(axis=1)
        found: list[Seen] = []
        blocked = np.zeros(ANGLES, bool)
        for j, ang in near[i]:
            if (min(i, j), max(i, j)) in doubtful:  # the colours cannot tell: see the options
                blocked |= _gaps(ang) < z.block_deg
        touching = [ang for _, ang in near[i]]
        for start, length in _runs((own_tab > 0.5) & ~blocked):
            width = length * step
            if z.tab_run_deg[0] <= width <= z.tab_run_deg[1]:
                mid = (start + (length - 1) / 2) * step % 360
                found.append((mid, "tab", _sticks_out(d, mid, touching), 1.0))
        for start, length in _runs((own_cut < 0.5) & ~blocked):
            width = length * step
            if width >= z.cut_min_deg:
                mid = (start + (length - 1) / 2) * step % 360
                facing = [discs[j].team for j, ang in near[i]
                          if angle_gap(ang, mid) < z.centre_deg + 3 * step]
                kind, shape_sure = _cut_shape(d, mid, {d.team}, facing[0] if facing else None)
                found.append((mid, kind, _opens_out(d, mid, touching), shape_sure))
        # A tab and a cut cannot share a place: the acrylic just outside the rim there
        # is a neighbour's of a colour taken for this disc's, and the cut is real.
        cuts = [c[0] for c in found if c[1] != "tab"]
        d.free_connectors = sorted(c for c in found if c[1] != "tab"
                                   or all(angle_gap(c[0], a) > z.tab_cut_apart_deg
                                          for a in cuts))
    free = [d.free_connectors for d in discs]
    for d, cons in zip(discs, with_contacts(free, same, [0] * len(same)), strict=True):
        d.connectors = cons
    return same


def _free(d: Disc, ang: float, touching: Sequence[float]) -> bool:
    """Whether no neighbour touches ``d`` near ``ang`` (``touching``: their directions)."""
    return all(angle_gap(t, ang) > d.zones.block_deg + 2 * 360.0 / ANGLES for t in touching)


def _clear(d: Disc, touching: Sequence[float]) -> np.ndarray:
    """The sampled directions outside the rim that no touching neighbour covers."""
    clear = np.ones(ANGLES, bool)
    for t in touching:
        clear &= _gaps(t) > d.zones.block_deg
    return clear


def _unless_nearer(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """How sure a connector the labels found stays when its colour ``c`` should be
    an ``a`` and might instead be a ``b`` (log linear colours), from 0 to 1.

    The share |c-b|^2 / (|c-b|^2 + |c-a|^2) is 1/2 when ``c`` is as near one as the
    other and nears 1 (0) as ``c`` nears ``a`` (``b``); it needs no colour scale,
    so no threshold tuned to one light or table. The colours can only take
    sureness away: twice the share, at most 1, so a connector whose colour is at
    least as near ``a`` as ``b`` is as sure as ever.
    """
    to_b, to_a = float(np.sum((c - b) ** 2)), float(np.sum((c - a) ** 2))
    return 1.0 if to_a + to_b <= 0 else round(min(1.0, 2 * to_b / (to_a + to_b)), 3)


def _median_look(looks: np.ndarray, rays: np.ndarray, zone: tuple[float, float]) -> np.ndarray:
    return np.median(looks[rays][:, _zone_columns(zone)].reshape(-1, 3), axis=0)


def _opens_out(d: Disc, ang: float, touching: Sequence[float] = ()) -> float:
    """How surely ``d``'s cut zone around ``ang`` shows the world beyond its rim (a
    cut) rather than its own acrylic seen otherwise (a lamp's sheen whitening the
    rim, glare washing it out), from 0 to 1; 1 where a neighbour touches near (its
    directions ``touching``), whose acrylic may fill the cut; the samples outside
    are taken only where no neighbour lies.

    A cut lets the zone show what lies beyond the rim, so it looks like the samples
    just outside; the disc's own acrylic, however the light changes it, stays nearer
    its body (:func:`_unless_nearer`, over the rays within ``centre_deg``). A disc known by
    its labels alone (no colours kept) has nothing to weigh: 1.
    """
    if d.looks is None or not _free(d, ang, touching):
        return 1.0
    rays = _gaps(ang) <= d.zones.centre_deg
    outside = rays & _clear(d, touching)
    if not outside.any():
        return 1.0
    return _unless_nearer(_median_look(d.looks, rays, d.zones.cut),
                          _median_look(d.looks, outside, BEYOND),
                          _median_look(d.looks, rays, BODY))


def _sticks_out(d: Disc, ang: float, touching: Sequence[float] = ()) -> float:
    """How surely ``d``'s tab zone around ``ang`` shows its acrylic sticking out (a tab)
    rather than the table tinted like it (the coloured shadow or reflection a
    translucent disc casts), from 0 to 1; 1 where a neighbour touches near (its
    directions ``touching``); the table beside is taken only where no neighbour lies.

    A tab goes on from the acrylic just inside the rim, so its zone looks like the
    disc's cut zone on the same rays (where a tab's disc has no cut); the table, however
    tinted, stays nearer the table beside the tab (:func:`_unless_nearer`; the tab's rays are
    the narrowest tab's, the table beside lies past the widest tab's run).
    """
    if d.looks is None or not _free(d, ang, touching):
        return 1.0
    z = d.zones
    gaps = _gaps(ang)
    step = 360.0 / ANGLES
    rays = gaps <= z.tab_run_deg[0] / 2 + step
    beside = (gaps > z.tab_run_deg[1] / 2) & (gaps <= z.tab_run_deg[1] / 2 + 4 * step) \
        & _clear(d, touching)
    if not beside.any():
        return 1.0
    return _unless_nearer(_median_look(d.looks, rays, z.tab),
                          _median_look(d.looks, rays, z.cut),
                          _median_look(d.looks, beside, z.tab))


def with_contacts(free: Sequence[Sequence[Seen]], contacts: Sequence[ContactInDoubt],
                  chosen: Sequence[int]) -> list[list[Seen]]:
    """Each disc's connectors: its ``free`` ones (told by colour) plus, at each contact
    in doubt, those of the ``chosen`` option (an index per contact)."""
    out = [list(f) for f in free]
    for c, k in zip(contacts, chosen, strict=True):
        opt = c.options[k]
        if opt.a is not None:
            out[c.a].append(opt.a)
        if opt.b is not None:
            out[c.b].append(opt.b)
    return [sorted(cons) for cons in out]


def _open_cut(d: Disc, ang: float, teams: Collection[int]) -> bool:
    """True when the table (not acrylic of ``teams``) shows in ``d``'s cut zone right at
    ``ang``."""
    return bool(_own_cut(d, teams)[_gaps(ang) < d.zones.centre_deg].mean() < 0.5)


def _open_sides(d: Disc, ang: float, teams: Collection[int]) -> bool:
    """True when the table shows in ``d``'s cut zone where a curve's sides are, beyond a
    tab sitting in it (11 to 22 degrees either side of ``ang`` for the shipped sets)."""
    gap = _gaps(ang)
    lo, hi = d.zones.curve_sides_deg
    return bool((_own_cut(d, teams)[(gap >= lo) & (gap < hi)] < 0.5).sum() >= 2)


SHAPE_SHIFTS = np.arange(-6.0, 6.1, 1.0)  # degrees: the cut's centre, refined
SHAPE_EDGES_MM = (0.0, 0.6, 1.2, 1.8, 2.4)  # the dark cut edge and blur make a cut look bigger
PROFILE_FROM = 0.6  # depth profiles start here (inside every cut)
# How far (radii, rms) a seen depth profile strays from the shape that made it, at
# least: the polar grid's step (0.03) and labels flipping at a blurred edge. Two
# shapes whose fits differ by much less than this are as likely as each other.
SHAPE_NOISE = 0.03
SURE_SHAPE = 0.5  # a cut whose shape is less sure than this leaves its piece in doubt


@functools.cache
def _cut_templates(g: PieceGeometry, filled: bool = False
                   ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Depth profiles a notch and a curve of pieces ``g`` would show (rows), at the
    angles a seen profile is sampled (every 3 degrees either side of the middle,
    as far as the zones' ``shape_half_deg``), for every shift and edge, at the
    catalog's nominal sizes and at both ends of its ranges; and each row's kind.

    ``filled``: a neighbour's tab of a colour taken for the disc's own sits in
    the cut (the neighbour two radii away), so only what the tab leaves open shows:
    nothing of a notch, a curve's sides."""
    half = round(zones(g).shape_half_deg / (360.0 / ANGLES))  # samples, as _depth_profile
    offsets = np.arange(-half, half + 1) * (360.0 / ANGLES)
    rho = np.arange(PROFILE_FROM, 1.1, 0.005)
    rows, kinds = [], []
    for shape in (g, *g.ends):
        r = shape.radius_mm
        for kind in ("notch", "curve"):
            for shift in SHAPE_SHIFTS:
                phi = np.radians(offsets - shift)
                x = np.cos(phi)[:, None] * rho[None, :] * r
                y = np.sin(phi)[:, None] * rho[None, :] * r
                sdf = shape.sdf(x, y, [(0.0, kind)])
                # The tab points back along the line of centres; where it meets the cut's
                # edges the colour goes on.
                tab = shape.sdf(x - 2 * r, y, [(180.0, "tab")]) if filled else None
                for edge in SHAPE_EDGES_MM:
                    # The rim is fitted where the colour stops: the edge moves it too.
                    rim = 1.0 - edge / r
                    inside = sdf > edge if tab is None else (sdf > edge) | (tab > -edge - 0.2)
                    stop = np.where((~inside).any(axis=1), np.argmin(inside, axis=1), -1)
                    rows.append(np.minimum(rho[stop] / rim, 1.0))
                    kinds.append(kind)
    return np.array(rows), tuple(kinds)


BODY_UNTIL = 0.7  # radii: no cut reaches further in (the catalog's limit, 0.3 of the radius)


def _depth_profile(d: Disc, ang: float, teams: Collection[int]) -> np.ndarray:
    """Where ``teams``' acrylic first stops along each ray within the zones'
    ``shape_half_deg`` of ``ang`` (radii, at most 1), counted from where the acrylic
    starts again after the last gap in it inside :data:`BODY_UNTIL`: marks painted
    further out than usual, or a glint on the body, have acrylic beyond them; a cut
    does not."""
    assert d.labels is not None
    step = 360.0 / ANGLES
    k0 = round(ang / step)
    half = round(d.zones.shape_half_deg / step)
    rows = np.arange(k0 - half, k0 + half + 1) % ANGLES
    start = int(np.searchsorted(RADII, PROFILE_FROM))
    own = np.isin(d.labels[rows, start:], list(teams))
    n_body = int(np.searchsorted(RADII, BODY_UNTIL)) - start
    assert 0 < n_body < own.shape[1], "BODY_UNTIL must lie between PROFILE_FROM and the rim"
    again = ~own[:, :n_body] & own[:, 1:n_body + 1]  # off here, the acrylic next
    last = n_body - 1 - np.argmax(again[:, ::-1], axis=1)
    begin = np.where(again.any(axis=1), last + 1, 0)
    off = ~own & (np.arange(own.shape[1])[None, :] >= begin[:, None])
    first = np.where(off.any(axis=1), off.argmax(axis=1) + start, len(RADII) - 1)
    return np.minimum(RADII[first], 1.0)


def shape_fit(profile: np.ndarray, g: PieceGeometry = DEFAULT_GEOMETRY, filled: bool = False,
              or_filled: np.ndarray | None = None) -> tuple[str, float]:
    """The cut (notch or curve) of pieces ``g`` whose depth profile fits ``profile``
    likelier, and how sure: 0 when both fit as well, towards 1 when only one does.

    Each shape is fitted at every shift and edge within the catalog's size range;
    the residuals give each shape's likelihood, against :data:`SHAPE_NOISE` or the
    best fit's own residual when even that fits badly (a profile neither shape
    made, say where a neighbour's acrylic hides the cut, tells them apart weakly).
    A notch is as deep right across and ends in steep sides; a curve is deep only
    in its middle and rises slowly to the rim, so its shoulders tell it apart
    better than any one width. ``filled``: a tab alike in colour sits in the cut
    (:func:`_cut_templates`). ``or_filled``: the profile a neighbour's tab would
    leave if it sat in the cut (its colour counted as the disc's); each shape is
    then as likely as its better fit, open or filled.

    >>> rows, kinds = _cut_templates(DEFAULT_GEOMETRY)
    >>> notch = rows[kinds.index("notch") + 6 * len(SHAPE_EDGES_MM) + 1]  # unshifted
    >>> kind, sure = shape_fit(notch)
    >>> kind, sure > 0.99
    ('notch', True)
    """
    notch, curve = _shape_errors(profile, g, filled)
    if or_filled is not None:
        notch_f, curve_f = _shape_errors(or_filled, g, True)
        notch, curve = min(notch, notch_f), min(curve, curve_f)
    # Log-likelihood ratio of the two shapes (Gaussian residuals), as a sureness 2p - 1.
    noise = max(SHAPE_NOISE**2, min(notch, curve) / len(profile))
    ratio = abs(notch - curve) / (2 * noise)
    return ("notch" if notch <= curve else "curve"), float(np.tanh(ratio / 2))


def _shape_errors(profile: np.ndarray, g: PieceGeometry, filled: bool) -> tuple[float, float]:
    """The least squared residual of ``profile`` against a notch's and a curve's templates."""
    rows, kinds = _cut_templates(g, filled)
    err = ((rows - profile[None, :]) ** 2).sum(axis=1)
    k = np.array([kind == "notch" for kind in kinds])
    return float(err[k].min()), float(err[~k].min())


def _cut_shape(d: Disc, ang: float, teams: Collection[int], facing: int | None = None
               ) -> tuple[str, float]:
    """Notch or curve, and how sure, from the depth profile seen around ``ang``.

    ``facing``: the team of a touching disc the cut faces, whose tab may sit in it
    (then its colour stops the profile short of the cut's bottom, and the cut's
    shape shows where the table does)."""
    profile = _depth_profile(d, ang, teams)
    if facing is None:
        return shape_fit(profile, d.geometry)
    return shape_fit(profile, d.geometry,
                     or_filled=_depth_profile(d, ang, {*teams, facing}))


def _cut_kind(d: Disc, ang: float, teams: Collection[int], filled: bool
              ) -> tuple[str, float]:
    """What is cut into ``d``'s rim facing a neighbour at ``ang`` whose colour (one of
    ``teams``) is alike: notch, curve or plain, and how sure of its shape.

    ``filled``: the neighbour's tab sits in it, so only a curve's sides show.
    """
    if filled:
        return shape_fit(_depth_profile(d, ang, teams), d.geometry, filled=True)
    width = int(((_gaps(ang) < d.zones.block_deg) & (_own_cut(d, teams) < 0.5)).sum()
                ) * 360.0 / ANGLES
    return _cut_shape(d, ang, teams) if width >= d.zones.cut_min_deg else ("plain", 1.0)
