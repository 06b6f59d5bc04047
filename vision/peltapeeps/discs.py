"""Finding PeltaPeeps discs in a photo: the table's colour, the pieces' mask, a centre per disc.

The table is whatever fills the photo's border: its chromaticity is steady
(a wood grain or a cast shadow changes its brightness, not its hue), while the
acrylic is strongly coloured. Its lightness is not steady: a lamp lights the
middle of the photo more than the border, so the table's lightness is fitted over
the whole photo (:func:`_shade`). A pixel is *piece* when its chromaticity is far
from the table's or it is much brighter than the table is there. The mask's distance
transform peaks at about a disc's radius, which sets the scale; a circle
search on the lightness edges then gives candidate discs.

The mask is made on a small copy of the photo (:data:`WORK_SIDE` pixels on its
long side); :mod:`vision.peltapeeps.rims` checks and refines each candidate.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.srgb import SRGB_TO_LINEAR

WORK_SIDE = 1000  # long side, px, of the image the discs are found in
BORDER = 0.04  # share of each side taken as table
CHROMA_FLOOR = 0.035  # table chromaticity spread floor (noise, JPEG)
CHROMA_K = 5.0  # table spreads beyond which a pixel is not table
BRIGHTER = 1.18  # lightness beyond the table's bright end that is not table
LIGHTER = 1.04  # ... and, for a colour the table's, lightness that is not table
MIN_PEAK_PX = 5.0  # a disc smaller than this (work px) cannot be read
_EPS = 1e-4


@dataclass(frozen=True)
class TableModel:
    chroma: np.ndarray  # median (3R/S - 1, 3B/S - 1)
    spread: np.ndarray  # robust std of each
    light_hi: float  # a bright-end lightness (cube root of Y) of the table at the border
    light: float  # its median lightness there
    # A patterned table (checks, prints, a cloth of two colours): the chromaticities of
    # each of its colours and their spreads, (M, 2) each; None for a table of one colour.
    modes: np.ndarray | None = None
    mode_spread: np.ndarray | None = None
    # Each colour's bright-end lightness (its border pixels'), (M,); a print's pale
    # shapes are lighter than its ground without being anything but table.
    mode_light_hi: np.ndarray | None = None
    # How the table's lightness changes over the photo (a lamp's pool of light, the
    # lens's vignetting): log lightness relative to the border's, a quadratic in the
    # photo's coordinates scaled to -1..1 (1, u, v, u², uv, v²): :func:`_shade`.
    shade: np.ndarray = field(default_factory=lambda: np.zeros(6, np.float32))

    def shading(self, x: np.ndarray, y: np.ndarray, w: int, h: int) -> np.ndarray:
        """The table's lightness at (x, y) of a w x h copy of the photo (pixel
        (i, j) spans x from i to i + 1), as a share of its lightness at the photo's
        border: 1 on a table lit evenly."""
        u = np.asarray(x, np.float32) * (2.0 / w) - 1.0
        v = np.asarray(y, np.float32) * (2.0 / h) - 1.0
        c = self.shade
        log = c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v
        return np.exp(np.clip(log, -SHADE_LIMIT, SHADE_LIMIT)).astype(np.float32)

    def shading_image(self, w: int, h: int) -> np.ndarray:
        """(h, w) :meth:`shading` at the centre of every pixel of a w x h copy."""
        if not self.shade.any():
            return np.ones((h, w), np.float32)
        return self.shading(np.arange(w, dtype=np.float32)[None, :] + 0.5,
                            np.arange(h, dtype=np.float32)[:, None] + 0.5, w, h)


def features(bgr: np.ndarray) -> np.ndarray:
    """(H, W, 3) float32: chromaticity 3R/S - 1, 3B/S - 1 and lightness Y^(1/3) of sRGB pixels.

    >>> f = features(np.array([[[255, 255, 255], [0, 0, 255]]], np.uint8))
    >>> [[round(float(v), 2) for v in px] for px in f[0]]
    [[0.0, 0.0, 1.0], [2.0, -1.0, 0.6]]
    """
    lin = SRGB_TO_LINEAR[bgr]
    b, g, r = lin[..., 0], lin[..., 1], lin[..., 2]
    total = np.maximum(b + g + r, _EPS)
    y = 0.0722 * b + 0.7152 * g + 0.2126 * r
    return np.stack([3 * r / total - 1, 3 * b / total - 1, np.cbrt(y)], axis=-1).astype(
        np.float32)


def table_model(feats: np.ndarray) -> TableModel:
    """The table's colour from the photo's border band (pieces there are outvoted)."""
    h, w = feats.shape[:2]
    bh, bw = max(2, int(h * BORDER)), max(2, int(w * BORDER))
    band = np.concatenate([feats[:bh].reshape(-1, 3), feats[-bh:].reshape(-1, 3),
                           feats[:, :bw].reshape(-1, 3), feats[:, -bw:].reshape(-1, 3)])
    chroma = np.median(band[:, :2], axis=0)
    spread = 1.4826 * np.median(np.abs(band[:, :2] - chroma), axis=0)
    near = np.hypot(*((band[:, :2] - chroma) / np.maximum(spread, CHROMA_FLOOR)).T) < 3
    light = band[near, 2] if near.sum() > 50 else band[:, 2]
    modes, mode_spread = _table_colours(band[:, :2], spread, float(near.mean()))
    flat = TableModel(chroma, np.maximum(spread, CHROMA_FLOOR),
                      float(np.percentile(light, 97)), float(np.median(light)),
                      modes, mode_spread)
    if modes is not None:
        kind = _nearest_mode(band[:, 0], band[:, 1], flat)
        flat = replace(flat, mode_light_hi=np.array(
            [np.percentile(band[kind == k, 2], 97) if (kind == k).sum() > 50
             else flat.light_hi for k in range(len(modes))], np.float32))
    return replace(flat, shade=_shade(feats, flat))


SHADE_SIDE = 200  # px on the long side of the grid the table's lightness is fitted on
SHADE_MIN_SHARE = 0.2  # the fit needs at least this share of the photo to be table
SHADE_LIMIT = math.log(2.5)  # the table's lightness stays within 1/2.5 .. 2.5 of the border's
SHADE_ROUNDS = 4  # reweighting rounds of the robust fit


def _nearest_mode(c0: np.ndarray, c1: np.ndarray, table: TableModel) -> np.ndarray:
    """Index of each chromaticity's table colour (its only one on a plain table),
    -1 beyond every colour's spread."""
    if table.modes is None:
        d = ((c0 - table.chroma[0]) / table.spread[0]) ** 2 \
            + ((c1 - table.chroma[1]) / table.spread[1]) ** 2
        return np.where(d < CHROMA_K**2, 0, -1)
    d = np.stack(list(_mode_distances(c0, c1, table)))
    return np.where(d.min(axis=0) < CHROMA_K**2, d.argmin(axis=0), -1)


def _mode_distances(c0: np.ndarray, c1: np.ndarray, table: TableModel
                    ) -> Iterator[np.ndarray]:
    """Squared distance, in spreads, of chromaticities to each colour of a patterned table."""
    assert table.modes is not None and table.mode_spread is not None
    for (m0, m1), (s0, s1) in zip(table.modes, table.mode_spread, strict=True):
        d0 = (c0 - m0) / s0
        d1 = (c1 - m1) / s1
        yield d0**2 + d1**2


def _shade(feats: np.ndarray, table: TableModel) -> np.ndarray:
    """The table's log lightness over the photo relative to its border: the
    coefficients of :attr:`TableModel.shade`.

    A lamp lights the middle of the table more than its edges and the lens darkens
    the corners, so lightness read at the border says little about the table under
    the pieces: a table-coloured pixel there may be much brighter than any at the
    border. Every pixel of the table's colour (each of its colours, for a patterned
    table, measured against that colour's own lightness at the border) takes part
    in a robust least-squares fit of a smooth surface; pieces of the table's colour
    and the pieces' shadows weigh little in it, being few and far from the surface.
    A surface no finer than a quadratic cannot follow a sharp pool of light (a
    spotlight, a lamp's reflection on a glossy table); a finer one would follow a
    cluster of pieces of the table's own colour and call them table.
    """
    h, w = feats.shape[:2]
    step = max(1, round(max(h, w) / SHADE_SIDE))
    grid = feats[step // 2::step, step // 2::step]
    gh, gw = grid.shape[:2]
    ys, xs = np.mgrid[0:gh, 0:gw]
    u = ((xs + 0.5) * step * (2.0 / w) - 1.0).ravel()
    v = ((ys + 0.5) * step * (2.0 / h) - 1.0).ravel()
    log_light = np.log(np.maximum(grid[..., 2].ravel(), 0.02))
    border = (np.minimum(np.minimum(u + 1, 1 - u) * w, np.minimum(v + 1, 1 - v) * h)
              < 2 * BORDER * max(h, w))
    kind = _nearest_mode(grid[..., 0].ravel(), grid[..., 1].ravel(), table)
    # Each colour's lightness at the border is its reference.
    rel = np.full(len(kind), np.nan, np.float32)
    for k in np.unique(kind[kind >= 0]):
        ref = (kind == k) & border
        if ref.sum() < 10:
            continue
        rel[kind == k] = log_light[kind == k] - np.median(log_light[ref])
    ok = np.isfinite(rel)
    if ok.mean() < SHADE_MIN_SHARE:
        return np.zeros(6, np.float32)
    terms = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
    a, b = terms[ok], rel[ok]
    weight = np.ones(len(b), np.float32)
    coef = np.zeros(6)
    for _ in range(SHADE_ROUNDS):
        sw = np.sqrt(weight)
        coef = np.linalg.lstsq(a * sw[:, None], b * sw, rcond=None)[0]
        res = b - a @ coef
        scale = max(1.4826 * float(np.median(np.abs(res))), 0.01)
        # Tukey's biweight: a piece or a shadow far off the surface weighs nothing.
        t = np.clip(res / (4.685 * scale), -1, 1)
        weight = ((1 - t * t) ** 2).astype(np.float32)
    return coef.astype(np.float32)


PATTERN_SPREAD = 0.06  # a table's chromaticity spread beyond this may be several colours
PATTERN_NEAR = 0.9  # ... or when less of the border than this lies within its spread
TABLE_COLOURS = 4  # at most this many colours of a patterned table
MODE_SHARE = 0.04  # a colour covering less of the border is a piece or a speck
MODE_GAIN = 0.6  # several colours are kept when their spreads are this much tighter


def _table_colours(chroma: np.ndarray, spread: np.ndarray, near: float
                   ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The colours of a patterned table: clusters of the border's chromaticities.

    One colour spread wide (a table of two colours in checks has a median between
    them and a spread reaching both) would call every piece whose colour lies
    between, or anywhere near, "table"; one colour fitted to the ground of a print
    leaves the printed shapes "pieces". A table whose spread is the noise's and
    whose border nearly all lies within it (``near``, a share) keeps its one colour
    (None).
    """
    if (float(spread.max()) <= PATTERN_SPREAD and near >= PATTERN_NEAR) or len(chroma) < 100:
        return None, None
    data = np.ascontiguousarray(chroma[:: max(1, len(chroma) // 4000)], np.float32)
    lab = _clusters(data, TABLE_COLOURS)
    modes, spreads = [], []
    for k in range(TABLE_COLOURS):
        part = data[lab == k]
        if len(part) < MODE_SHARE * len(data):
            continue
        m = np.median(part, axis=0)
        modes.append(m)
        spreads.append(np.maximum(1.4826 * np.median(np.abs(part - m), axis=0), CHROMA_FLOOR))
    wide = float(spread.max()) > PATTERN_SPREAD
    if len(modes) < 2 or (wide and float(np.median(spreads)) > MODE_GAIN * float(spread.max())):
        return None, None
    return np.array(modes, np.float32), np.array(spreads, np.float32)


def _clusters(data: np.ndarray, k: int, tries: int = 3, rounds: int = 20) -> np.ndarray:
    """k-means labels of ``data`` (N, 2): the tightest of a few k-means++ starts from
    fixed seeds (the same photo always gives the same colours).

    >>> pts = np.array([[0, 0], [0.1, 0], [0, 0.1], [5, 5], [5.1, 5]], np.float32)
    >>> lab = _clusters(pts, 2).tolist()
    >>> lab[0] == lab[1] == lab[2] != lab[3] == lab[4]
    True
    """
    best, best_cost = np.zeros(len(data), int), math.inf
    for seed in range(tries):
        rng = np.random.default_rng(seed)
        centres = [data[int(rng.integers(len(data)))]]
        for _ in range(1, k):
            d = np.min([((data - c) ** 2).sum(axis=1) for c in centres], axis=0)
            if d.sum() <= 0:
                break
            centres.append(data[int(rng.choice(len(data), p=d / d.sum()))])
        c = np.array(centres, np.float32)
        for _ in range(rounds):
            dist = ((data[:, None, :] - c[None]) ** 2).sum(axis=2)
            lab = np.argmin(dist, axis=1)
            new = np.array([data[lab == j].mean(axis=0) if (lab == j).any() else c[j]
                            for j in range(len(c))], np.float32)
            if np.allclose(new, c, atol=1e-4):
                break
            c = new
        cost = float(dist[np.arange(len(data)), lab].sum())
        if cost < best_cost:
            best, best_cost = lab, cost
    return best


def _near_modes(c0: np.ndarray, c1: np.ndarray, table: TableModel,
                light: np.ndarray | None = None) -> np.ndarray:
    """Chromaticities within a patterned table's spread of one of its colours (and,
    with ``light``, no lighter than that colour's bright end allows)."""
    assert table.modes is not None
    near = np.zeros(np.shape(c0), bool)
    his = table.mode_light_hi if table.mode_light_hi is not None \
        else np.full(len(table.modes), table.light_hi)
    for d2, hi in zip(_mode_distances(c0, c1, table), his, strict=True):
        this = d2 < CHROMA_K**2
        if light is not None:
            this &= light < hi * LIGHTER
        near |= this
    return near


def table_hue(chroma: np.ndarray, table: TableModel) -> np.ndarray:
    """Chromaticities within the table's own spread (at the table's lightness)."""
    if table.modes is not None:
        return _near_modes(chroma[..., 0], chroma[..., 1], table)
    d = (chroma - table.chroma) / table.spread
    return (d[..., 0] ** 2 + d[..., 1] ** 2) < CHROMA_K**2


def is_table(chroma: np.ndarray, light: np.ndarray, table: TableModel) -> np.ndarray:
    """Samples (chromaticity, lightness) that look like the table.

    Chromaticity noise grows as light falls (a few sensor levels are a large
    share of a dark pixel), so the tolerance widens below the table's lightness.
    ``light`` is as if lit like the border: divided by :meth:`TableModel.shading`
    where it was taken.
    """
    return is_table_planes(chroma[..., 0], chroma[..., 1], light, table)


def is_table_planes(c0: np.ndarray, c1: np.ndarray, light: np.ndarray, table: TableModel
                    ) -> np.ndarray:
    """:func:`is_table` with the chromaticity given as two arrays (a whole photo's
    samples: no (..., 2) temporaries)."""
    noise = np.clip((table.light / np.maximum(light, 0.05)) ** 3, 1.0, 4.0)
    if table.modes is not None:
        # Each of a patterned table's colours has its own spread (its texture and noise
        # in it); widened for dark samples as well, several colours would take in
        # the darker acrylic near any of them (green pieces on a print with green).
        return _near_modes(c0, c1, table, light)
    d0 = (c0 - table.chroma[0]) / table.spread[0]
    d1 = (c1 - table.chroma[1]) / table.spread[1]
    near = (d0**2 + d1**2) < (CHROMA_K * noise) ** 2
    # Acrylic the table's hue (a green piece on green baize) still stands out brighter.
    return near & (light < table.light_hi * LIGHTER)


def piece_mask(feats: np.ndarray, table: TableModel) -> np.ndarray:
    """uint8 0/1: pixels that are not table (pieces and their painted marks)."""
    if table.modes is not None:
        far = ~_near_modes(feats[..., 0], feats[..., 1], table)
    else:
        d = (feats[..., :2] - table.chroma) / table.spread
        far = (d[..., 0] ** 2 + d[..., 1] ** 2) > CHROMA_K**2
    h, w = feats.shape[:2]
    bright = feats[..., 2] > table.light_hi * BRIGHTER * table.shading_image(w, h)
    mask = (far | bright).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (3, 3)))


def estimate_radius(mask: np.ndarray) -> float | None:
    """The typical disc radius (px) in a piece mask, or None when nothing is there.

    The distance transform peaks at about the radius in each disc (a little less
    where a notch comes near the centre, more where packed discs merge).
    """
    dt = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    peaks = (dt >= cv2.dilate(dt, np.ones((5, 5), np.uint8))) & (dt >= MIN_PEAK_PX)
    vals = dt[peaks]
    if len(vals) < 1:
        return None
    return float(np.percentile(vals, 75))


def find_discs(grey: np.ndarray, radius: float) -> np.ndarray:
    """Candidate discs (N, 3: x, y, r) near ``radius`` px: circles of the lightness edges.

    Perspective changes the radius across the photo, hence the loose range; some
    candidates fall between pieces and are dropped when their colour is checked.
    """
    circles = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=0.9 * radius,
                               param1=60, param2=max(5.0, 0.22 * radius),
                               minRadius=int(0.75 * radius), maxRadius=int(1.25 * radius) + 1)
    if circles is None:
        return np.zeros((0, 3), np.float32)
    return circles[0].astype(np.float32)
