"""Which team a disc is: the lamp's colour, then each disc's nearest team colour.

There is no white card in a layout photo, so the white balance is found from
the pieces themselves: the per-channel gains under which every disc's colour
lies nearest one of the profile's team colours. Glossy acrylic reflects the
lamp, which adds white to a piece's colour: in chromaticity that moves it
along the straight line from its colour towards white, so a disc is compared
with each team's *glare line* (team colour to white), not just its point.
Distances are Mahalanobis under the team's calibrated covariance (as the bean
reader uses the profile's models), widened by :data:`READ_SPREAD`.

A warm lamp blows out the red (and green) of orange, yellow and red acrylic:
a channel at the clip level says only that it was at least that bright, so a
clipped colour is matched at the values its clipped channels may really have
had, the higher ones at a cost (:func:`uncensored`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from calibration.profile import Profile
from vision.errors import VisionError

READ_SPREAD = np.array([0.05, 0.05])  # chromaticity spread added when reading
GLARE_STEPS = np.linspace(0.0, 0.85, 18)  # share of white along a glare line
GLARE_COST = 0.8  # distance units per unit of white: prefer the plainer reading
FAR = 6.0  # farther than this from every team: not a piece
# ln(R/G) and ln(B/G) camera gains searched: a camera without white balance under
# 2700 K to 7500 K light, with room for exposure quirks.
GAIN_R = (-0.4, 1.2)
GAIN_B = (-1.6, 0.5)
_EPS = 1e-4
CLIP = 0.95  # linear camera level (sRGB 250) from which a channel may have been cut off
# What a clipped channel may really have been, in multiples of what it shows.
CLIP_FACTORS = (1.0, 1.5, 2.25, 3.4)
CLIP_COST = 3.0  # distance units per unit of log factor: prefer the least overexposure
WB_BLOCK = 16  # white-balance gains tried at a time on clipped colours


@dataclass(frozen=True)
class TeamModels:
    teams: list[str]
    chroma: np.ndarray  # (T, 2) mean (3R/S - 1, 3B/S - 1)
    inv: np.ndarray  # (T, 2, 2) inverse covariance


def team_models(profile: Profile) -> TeamModels:
    """The profile's peep colour models, chromaticity only (a layout has no white reference)."""
    teams = list(profile.players) or list(profile.colours)
    means, invs = [], []
    for t in teams:
        m = profile.colours[t].peep
        if m is None:
            raise VisionError("the profile has no peep colours (it was made with pegs or "
                              "marbles): run companion calibrate with a peep on every slot")
        means.append(np.asarray(m.mean[:2], float))
        invs.append(np.linalg.inv(np.asarray(m.cov, float)[:2, :2] + np.diag(READ_SPREAD**2)))
    return TeamModels(teams, np.array(means).reshape(-1, 2), np.array(invs).reshape(-1, 2, 2))


def chroma(lin_bgr: np.ndarray) -> np.ndarray:
    """(..., 2) chromaticity (3R/S - 1, 3B/S - 1) of linear BGR."""
    return np.stack(chroma_planes(lin_bgr), axis=-1)


def chroma_planes(lin_bgr: np.ndarray, gains: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chroma` of ``lin_bgr`` (divided by ``gains`` when given) as two arrays.

    The same values bit for bit (each step the same operation on the same numbers,
    the sum in the order ``sum(axis=-1)`` takes), one channel at a time and in
    place: labelling a whole photo spent most of its time on the (..., 3) and
    (..., 2) temporaries.
    """
    shape = lin_bgr.shape[:-1]
    px = lin_bgr.reshape(-1, 3)  # arrays, never numpy scalars, to work in place
    if gains is None:
        b, g, r = (np.maximum(px[:, c], _EPS) for c in range(3))
    else:
        gains = np.asarray(gains)
        b, g, r = (np.maximum(px[:, c] / gains[c], _EPS) for c in range(3))
    total = b + g
    total += r
    for c in (r, b):
        c *= 3
        c /= total
        c -= 1
    return r.reshape(shape), b.reshape(shape)


def glare_distance(ch: np.ndarray, models: TeamModels) -> tuple[np.ndarray, np.ndarray]:
    """Distances (..., T) of chromaticities to each team's glare line, and the white share.

    >>> m = TeamModels(["a"], np.array([[1.0, -0.5]]), np.array([np.eye(2) * 100]))
    >>> d, s = glare_distance(np.array([[0.5, -0.25]]), m)
    >>> round(float(s[0, 0]), 1), float(d[0, 0]) < 1
    (0.5, True)
    """
    return _glare(ch[..., 0, None, None], ch[..., 1, None, None], models)


def _glare(c0: np.ndarray, c1: np.ndarray, models: TeamModels) -> tuple[np.ndarray, np.ndarray]:
    """:func:`glare_distance` of chromaticities given as their two coordinates, each
    (..., 1, 1), which may broadcast against each other: a grid's rows and columns
    then cost only the terms that need both."""
    pts = (1 - GLARE_STEPS)[:, None, None] * models.chroma[None]  # (K, T, 2)
    x = c0 - pts[..., 0]  # (..., K, T)
    y = c1 - pts[..., 1]
    inv = models.inv
    # The quadratic form written out term by term in the order einsum
    # ("...kti,tij,...ktj->...kt") sums it: the same values, without its slow
    # generic loop (the chroma table was a third of a photo's time).
    d2 = x * inv[:, 0, 0] * x + x * inv[:, 0, 1] * y + y * inv[:, 1, 0] * x + y * inv[:, 1, 1] * y
    cost = np.sqrt(np.maximum(d2, 0, out=d2), out=d2)
    cost += GLARE_COST * GLARE_STEPS[:, None]
    k = np.argmin(cost, axis=-2)  # (..., T)
    return cost.min(axis=-2), GLARE_STEPS[k]


LUT_RANGE = (-1.2, 2.2)  # chromaticity features lie in -1..2
LUT_SIZE = 192
LUT_BLOCK_ROWS = 4  # rows of cells computed at a time


@dataclass(frozen=True)
class ChromaTable:
    """Nearest team and its glare-line distance for every chromaticity, on a grid.

    Reading labels hundreds of thousands of samples; a lookup is what keeps it fast.
    """

    team: np.ndarray  # (LUT_SIZE, LUT_SIZE) int16: nearest team index
    distance: np.ndarray  # (LUT_SIZE, LUT_SIZE) float32: its distance
    second: np.ndarray  # (LUT_SIZE, LUT_SIZE) float32: the second team's distance
    share: np.ndarray  # (LUT_SIZE, LUT_SIZE) float32: the white share on the nearest line
    each: np.ndarray  # (T, LUT_SIZE, LUT_SIZE) float32: distance to every team's line

    def index(self, ch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = LUT_RANGE
        ij = np.clip(((ch - lo) / (hi - lo) * LUT_SIZE).astype(np.int32), 0, LUT_SIZE - 1)
        return ij[..., 0], ij[..., 1]

    def flat_index(self, c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
        """The cells of chromaticities given as two arrays (:func:`chroma_planes`), as
        flat indices into the tables (``table.ravel()[i]`` is ``table[self.index(ch)]``).

        Overwrites ``c0`` and ``c1``: it is meant for a whole photo's samples, where
        every temporary costs.
        """
        lo, hi = LUT_RANGE
        out = []
        for c in (c0, c1):
            c -= lo
            c /= hi - lo
            c *= LUT_SIZE
            out.append(np.clip(c.astype(np.int32), 0, LUT_SIZE - 1))
        i, j = out
        i *= LUT_SIZE
        i += j
        return i


def uncensored(lin_bgr: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The values samples (..., 3 linear camera BGR) with one or two channels at the
    clip level may really have had, a group of samples clipped alike at a time:
    (their flat indices, (M, K, 3) their BGR with the clipped channels scaled by
    each of K choices of :data:`CLIP_FACTORS`, (K,) what each choice costs).

    A warm lamp blows out an orange or yellow disc's red (and green): the channel
    then says only that it was at least that bright, and the disc's colour is any
    colour that agrees with the channels it kept. A channel far above the clip
    level is less likely than one just above it (most of a photo is exposed to be
    seen), so each choice costs :data:`CLIP_COST` per unit of its log factor, in
    the units of a team distance. Samples clipped in all three channels (glare)
    say nothing of their colour.
    """
    flat = lin_bgr.reshape(-1, 3)
    # The few samples near the clip level; the rest is not looked at again (channel
    # by channel: numpy reduces a short last axis slowly).
    near = np.flatnonzero(np.maximum(np.maximum(flat[:, 0], flat[:, 1]), flat[:, 2]) >= CLIP)
    pattern = (flat[near] >= CLIP) @ np.array([1, 2, 4])
    some = near[pattern < 7]
    pattern = pattern[pattern < 7]
    if not len(some):
        return
    for code in np.unique(pattern):
        idx = some[pattern == code]
        chans = [c for c in range(3) if code >> c & 1]
        choices = np.ones((len(CLIP_FACTORS) ** len(chans) - 1, 3), np.float32)
        choices[:, chans] = list(itertools.product(CLIP_FACTORS, repeat=len(chans)))[1:]
        yield idx, flat[idx][:, None, :] * choices, CLIP_COST * np.log(choices).sum(axis=1)


def team_cells(lin_bgr: np.ndarray, gains: np.ndarray, lut: ChromaTable
               ) -> tuple[np.ndarray, np.ndarray]:
    """The chroma table's cell of each sample (flat indices, the samples' shape), and
    what reading it there costs beyond the table's distance (the samples' shape): a
    sample with clipped channels takes the cell nearest a team among the values it
    may really have had, each choice's cost added (:func:`uncensored`); any other
    costs nothing more."""
    cell = lut.flat_index(*chroma_planes(lin_bgr, gains)).reshape(-1)
    extra = np.zeros(cell.shape, np.float32)
    dist = lut.distance.ravel()
    for idx, scaled, cost in uncensored(lin_bgr):
        other = lut.flat_index(*chroma_planes(scaled, gains))  # (M, K)
        total = dist[other] + cost
        k = np.argmin(total, axis=1)
        rows = np.arange(len(idx))
        nearer = total[rows, k] < dist[cell[idx]]
        cell[idx[nearer]] = other[rows, k][nearer]
        extra[idx[nearer]] = cost[k][nearer]
    shape = lin_bgr.shape[:-1]
    return cell.reshape(shape), extra.reshape(shape)


def chroma_table(models: TeamModels) -> ChromaTable:
    lo, hi = LUT_RANGE
    c = lo + (np.arange(LUT_SIZE) + 0.5) * (hi - lo) / LUT_SIZE
    # Cell (i, j) is chromaticity (c[i], c[j]): terms of the first coordinate alone are
    # worked out per row, of the second per column (the same numbers, broadcast). A
    # few rows of cells at a time: the (rows, LUT_SIZE, steps, teams) temporaries
    # then stay in the cache.
    cols = c[None, :, None, None]
    parts = [_glare(c[i:i + LUT_BLOCK_ROWS, None, None, None], cols, models)
             for i in range(0, LUT_SIZE, LUT_BLOCK_ROWS)]
    d = np.concatenate([p[0] for p in parts])
    white = np.concatenate([p[1] for p in parts])
    order = np.argsort(d, axis=-1)
    best = np.take_along_axis(d, order[..., :1], axis=-1)[..., 0]
    second = (np.take_along_axis(d, order[..., 1:2], axis=-1)[..., 0] if d.shape[-1] > 1
              else np.full(best.shape, np.inf))
    share = np.take_along_axis(white, order[..., :1], axis=-1)[..., 0]
    return ChromaTable(order[..., 0].astype(np.int16), best.astype(np.float32),
                       second.astype(np.float32), share.astype(np.float32),
                       np.moveaxis(d, -1, 0).astype(np.float32))


def white_balance(colours: np.ndarray, models: TeamModels,
                  lut: ChromaTable | None = None) -> np.ndarray:
    """BGR gains (green 1) under which the discs' colours best match team colours.

    ``colours`` are the discs' camera colours (N, 3 linear BGR). Each disc
    contributes its distance to the nearest team's glare line, capped so that a
    stray candidate cannot pull the answer. Coarse grid, then a finer one.
    """
    if not len(colours):
        return np.ones(3)

    def score(lr: np.ndarray, lb: np.ndarray) -> np.ndarray:
        gains = np.stack([np.exp(lb), np.ones_like(lr), np.exp(lr)], axis=-1)  # (G, 3)
        ch = chroma(colours[None, :, :] / gains[:, None, :])  # (G, N, 2)
        d = table.distance[table.index(ch)]
        for idx, scaled, cost in options:
            # A block of gains at a time: (G, M, K) for thousands of clipped candidates
            # on a warm-lit patterned table would take hundreds of megabytes at once.
            for g in range(0, len(gains), WB_BLOCK):
                ch = chroma(scaled[None] / gains[g:g + WB_BLOCK, None, None, :])
                near = (table.distance[table.index(ch)] + cost).min(-1)
                d[g:g + WB_BLOCK, idx] = np.minimum(d[g:g + WB_BLOCK, idx], near)
        return (np.minimum(d, 3.0) ** 2).sum(axis=-1)

    options = list(uncensored(colours))

    table = lut or chroma_table(models)
    lr, lb = np.meshgrid(np.arange(GAIN_R[0], GAIN_R[1] + 1e-9, 0.1),
                         np.arange(GAIN_B[0], GAIN_B[1] + 1e-9, 0.1))
    lr, lb = lr.ravel(), lb.ravel()
    i = int(np.argmin(score(lr, lb)))
    fr, fb = np.meshgrid(np.arange(-0.1, 0.101, 0.02) + lr[i],
                         np.arange(-0.1, 0.101, 0.02) + lb[i])
    fr, fb = fr.ravel(), fb.ravel()
    j = int(np.argmin(score(fr, fb)))
    return np.array([np.exp(fb[j]), 1.0, np.exp(fr[j])])


def classify(colours: np.ndarray, gains: np.ndarray, models: TeamModels
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per disc: nearest team index, its distance, the second team and its distance."""
    d, _ = glare_distance(chroma(colours / gains), models)
    for idx, scaled, cost in uncensored(colours):  # each team at the values that suit it best
        far = glare_distance(chroma(scaled / gains), models)[0] + cost[:, None]  # (M, K, T)
        d[idx] = np.minimum(d[idx], far.min(axis=1))
    order = np.argsort(d, axis=1)
    rows = np.arange(len(d))
    best = order[:, 0]
    if d.shape[1] > 1:
        return best, d[rows, best], order[:, 1], d[rows, order[:, 1]]
    return best, d[rows, best], best, np.full(len(d), np.inf)
