"""Finding the 121-hole star in a frame with no fiducials (a wooden or plastic board).

1. Candidate hole centres: dark round blobs (empty holes) and blobs of a player's
   colour (pieces), found on a frame shrunk to about 640 pixels across.
2. The triangular lattice: hypotheses from a point and two of its neighbours
   (a local affine map, reduced to the two shortest steps, 60 degrees apart on the
   board), scored by the points on their nodes less those between them; the best are
   grown by refitting a homography from lattice to image on every point it explains,
   outwards ring by ring, and the one explaining most points wins. Hands and
   pieces hide holes, so nothing needs to be seen but a good share of the star.
3. Where on the star the points lie: the integer shift that puts the most points
   on the star's holes and fewest off it (the star's outline is not a lattice's),
   and its lead over the next shift, which says how sure the holes' names are.

The lattice is found up to a turn of 60 degrees, which only the players' homes
(or the game, or the caller's convention) can settle; see :mod:`vision.petri.turn`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import apply_h
from vision.petri.holes import HOLE_QR, on_star

DETECT_WIDTH = 640
MIN_POINTS = 12  # fewer lattice points than this is not a board
_STEPS = np.array([[1, 0], [0, 1], [-1, 1], [-1, 0], [0, -1], [1, -1]], float)
_GRID = 40  # star lookup covers -_GRID.._GRID
_ON_STAR = np.array([[on_star(q, r) for r in range(-_GRID, _GRID + 1)]
                     for q in range(-_GRID, _GRID + 1)])


@dataclass(frozen=True)
class LatticeFit:
    """A homography from lattice (q, r) to frame pixels, and how well it is supported."""

    homography: np.ndarray
    points: int  # candidate points it explains
    shift_margin: int  # holes more on the star than at the next best position (0: ambiguous)
    pitch_px: float


def _blobs(mask: np.ndarray, min_area: float, max_area: float, min_fill: float
           ) -> tuple[np.ndarray, np.ndarray]:
    n, _, stats, cent = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return np.zeros((0, 2)), np.zeros(0)
    st = stats[1:]
    w, h, area = st[:, 2], st[:, 3], st[:, 4]
    ok = ((area >= min_area) & (area <= max_area) & (np.maximum(w, h) <= 2.2 * np.minimum(w, h))
          & (area >= min_fill * w * h))
    return cent[1:][ok], area[ok].astype(float)


def candidate_points(small: np.ndarray, players: np.ndarray | None) -> np.ndarray:
    """Centres of hole-like dark blobs and of player-coloured blobs in ``small`` (BGR)."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    dark = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                 21, 18)
    pts, areas = _blobs(dark, 2, 400, 0.45)
    out = [pts]
    if players is not None:
        # Pieces of any player at once: neighbouring pieces are a gap apart, which the
        # erosion keeps open even where two of them nearly touch.
        m = cv2.erode((players >= 0).astype(np.uint8), np.ones((3, 3), np.uint8))
        p, _ = _blobs(m, 3, 900, 0.4)
        out.append(p)
    return _dedupe(np.concatenate(out))


def _dedupe(pts: np.ndarray) -> np.ndarray:
    """Points closer than 2.5 px to one kept earlier are dropped (a piece over its hole)."""
    if len(pts) < 2:
        return pts
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    close = np.triu(d < 2.5, k=1)
    drop = np.zeros(len(pts), bool)
    for i in np.nonzero(close.any(axis=1))[0]:
        if not drop[i]:
            drop |= close[i]
    return pts[~drop]


def _neighbours(pts: np.ndarray, k: int = 7) -> tuple[np.ndarray, np.ndarray]:
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    np.fill_diagonal(d, np.inf)
    idx = np.argsort(d, axis=1)[:, :k]
    return idx, np.take_along_axis(d, idx, axis=1)


def _assign(h: np.ndarray, pts: np.ndarray, tol: float, radius: float | None
            ) -> tuple[np.ndarray, np.ndarray]:
    """Points within ``tol`` (share of the local step) of a lattice node, one per node
    (the closest), and those nodes; with ``radius``, only nodes that far (lattice steps)
    from the origin."""
    lat = apply_h(np.linalg.inv(h), pts)
    node = np.round(lat)
    # The error in lattice units is the pixel error over the local step, to first order.
    err = np.linalg.norm(lat - node, axis=1)
    ok = err < tol
    if radius is not None:
        ok &= np.max(np.abs(np.c_[node, node.sum(axis=1)]), axis=1) <= radius
    idx = np.nonzero(ok)[0]
    if len(idx):
        idx = idx[np.argsort(err[idx])]
        key = (node[idx, 0] + 64) * 256 + node[idx, 1] + 64
        _, first = np.unique(key, return_index=True)
        idx = np.sort(idx[first])
    return idx, node[idx]


def _grow(h0: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, int]:
    """Refit the homography on the points it explains, outwards in three rings."""
    h = h0
    count = 0
    for radius, tol in ((3, 0.25), (7, 0.22), (None, 0.2), (None, 0.2)):
        idx, nodes = _assign(h, pts, tol, radius)
        if len(idx) < 6:
            return h, 0
        hn, _ = cv2.findHomography(nodes, pts[idx], 0)
        # A degenerate fit (points along one line) can come back with a zero in its
        # corner: no homography, not a division by zero.
        if hn is None or not abs(hn[2, 2]) > 1e-12:
            return h, 0
        h = hn / hn[2, 2]
        count = len(idx)
    return h, count


def _local_scores(us: np.ndarray, vs: np.ndarray, rel: np.ndarray) -> np.ndarray:
    """For local lattices with steps ``us``, ``vs`` (n x 2) through the origin, the points
    ``rel`` (n x m x 2, each lattice's own, relative to its origin, within its reach; NaN
    for none) that lie on a node,
    less those on a triangle's centre between nodes: clutter falls on both alike (twice as
    much on the centres, which are twice as many), a lattice's holes only on its nodes. A
    hypothesis through clutter scores below zero; one at twice the step explains a quarter
    of the holes in reach."""
    det = us[:, 0] * vs[:, 1] - us[:, 1] * vs[:, 0]
    inv = np.stack([np.stack([vs[:, 1], -vs[:, 0]], 1), np.stack([-us[:, 1], us[:, 0]], 1)],
                   1) / det[:, None, None]  # n x 2 x 2
    lat = inv @ np.swapaxes(rel, -1, -2)  # n x 2 x m
    scores = np.zeros(len(us), int)
    for offset, sign in ((0.0, 1), (1 / 3, -1), (2 / 3, -1)):
        x = lat - offset
        x -= np.round(x)
        scores += sign * (np.einsum("nim,nim->nm", x, x) < 0.04).sum(axis=1)
    return scores


def _reduced(us: np.ndarray, vs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each basis (u, v) of a lattice as its two shortest steps 60 degrees apart, u to v
    turning the same way as before (Lagrange-Gauss reduction). A step to a second
    neighbour (one hole over, the next along) makes a basis of the same lattice that
    explains the same points, but in it the star is sheared: only the shortest steps
    name the holes as the star has them."""
    us, vs = us.copy(), vs.copy()
    for _ in range(4):  # the neighbours' pairs are a step or two from reduced
        swap = np.einsum("ij,ij->i", us, us) > np.einsum("ij,ij->i", vs, vs)
        us[swap], vs[swap] = vs[swap].copy(), us[swap].copy()
        m = np.round(np.einsum("ij,ij->i", us, vs) / np.einsum("ij,ij->i", us, us))
        vs -= m[:, None] * us
    obtuse = np.einsum("ij,ij->i", us, vs) < 0
    vs[obtuse] += us[obtuse]  # 120 degrees apart: u + v is the step 60 degrees from u
    flip = us[:, 0] * vs[:, 1] - us[:, 1] * vs[:, 0] < 0
    us[flip], vs[flip] = vs[flip].copy(), us[flip].copy()
    return us, vs


def _hypotheses(pts: np.ndarray, idx: np.ndarray, which: np.ndarray) -> list[np.ndarray]:
    """For each point of ``which``, the local lattice (it and two neighbours 35-88
    degrees apart, among its eight nearest) that scores best by :func:`_local_scores`.
    No scale is assumed: the nearest neighbours of a hole may be clutter (a grainy table)
    and its lattice neighbours further off."""
    which = np.asarray(which, int)
    steps = pts[idx[which]] - pts[which][:, None, :]  # w x 8 x 2
    k = steps.shape[1]
    us = np.repeat(steps, k, axis=1).reshape(-1, 2)  # every ordered pair of neighbours
    vs = np.tile(steps, (1, k, 1)).reshape(-1, 2)
    owner = np.repeat(np.arange(len(which)), k * k)
    cross = us[:, 0] * vs[:, 1] - us[:, 1] * vs[:, 0]
    lu, lv = np.hypot(*us.T), np.hypot(*vs.T)
    ratio = lu / np.maximum(lv, 1e-9)
    cosang = np.einsum("ij,ij->i", us, vs) / np.maximum(lu * lv, 1e-9)
    ok = ((cross > 0) & (ratio > 0.55) & (ratio < 1.8)
          & (cosang < math.cos(math.radians(35))) & (cosang > math.cos(math.radians(88))))
    us, vs = _reduced(us[ok], vs[ok])
    owner = owner[ok]
    if not len(owner):
        return []
    # Each sampled point's neighbourhood, padded to one length with points that fall on
    # nothing (NaN), so that every pair of every point is scored at once.
    rel = pts[None, :, :] - pts[which][:, None, :]  # w x N x 2
    reach = 3.2 * np.hypot(*steps[:, -1].T)
    near = np.hypot(rel[..., 0], rel[..., 1]) < reach[:, None]
    width = int(near.sum(axis=1).max())
    order = np.argsort(~near, axis=1, kind="stable")[:, :width]
    local = np.take_along_axis(rel, order[..., None], axis=1)
    local[~np.take_along_axis(near, order, axis=1)] = np.nan
    scores = _local_scores(us, vs, local[owner])
    out: list[tuple[int, np.ndarray]] = []
    for n in np.unique(owner):
        mine = np.nonzero(owner == n)[0]
        j = mine[int(np.argmax(scores[mine]))]
        u, v, p = us[j], vs[j], pts[which[n]]
        out.append((int(scores[j]), np.array([[u[0], v[0], p[0]], [u[1], v[1], p[1]],
                                               [0, 0, 1]])))
    out.sort(key=lambda t: -t[0])
    return [h for _, h in out]


def fit_lattice(pts: np.ndarray, rng: np.random.Generator, tries: int = 24) -> LatticeFit | None:
    """The best lattice through ``pts`` (pixels), placed on the star; None if none is found."""
    if len(pts) < MIN_POINTS:
        return None
    idx, _ = _neighbours(pts, k=8)
    order = rng.permutation(len(pts))[: 3 * tries]
    best: tuple[int, np.ndarray] | None = None
    # Batches of points: a clean frame's board is found from the first; a cluttered one
    # (a grainy or patterned table) may need all three to sample enough holes.
    for start in range(0, len(order), tries):
        for h0 in _hypotheses(pts, idx, order[start:start + tries])[:2]:
            h, count = _grow(h0, pts)
            if count and (best is None or count > best[0]):
                best = (count, h)
        if best is not None and best[0] >= 0.8 * len(pts):
            break  # explains nearly every point: no other hypothesis can do much better
    if best is None or best[0] < MIN_POINTS:
        return None
    count, h = best
    # Refined by least squares on every point close to its node (clutter that fell within
    # the growing tolerance of a node no longer pulls the fit), then the final matches.
    inl, nodes = _assign(h, pts, 0.15, None)
    if len(inl) >= MIN_POINTS:
        step = float(np.median(np.linalg.norm(apply_h(h, nodes + [1, 0]) - pts[inl], axis=1)))
        hn, _ = cv2.findHomography(nodes, pts[inl], cv2.RANSAC, 0.06 * step)
        if hn is not None:
            h = hn / hn[2, 2]
    inl, nodes = _assign(h, pts, 0.2, None)
    shift, margin = _place_on_star(nodes.astype(int))
    # Board coordinates b = node + shift: the homography takes b to pixels.
    t = np.array([[1, 0, -shift[0]], [0, 1, -shift[1]], [0, 0, 1]], float)
    hb = h @ t
    step = np.linalg.norm(apply_h(hb, np.array([[1.0, 0.0]])) - apply_h(hb, np.zeros((1, 2))))
    return LatticeFit(hb / hb[2, 2], len(inl), margin, float(step))


_STAR_PAD = 17  # the star's grid is padded so any shift of a 17-wide point set fits
_STAR_MASK = np.pad(_ON_STAR[_GRID - 8:_GRID + 9, _GRID - 8:_GRID + 9].astype(np.float32),
                    _STAR_PAD)


def _place_on_star(nodes: np.ndarray) -> tuple[tuple[int, int], int]:
    """The shift putting the most lattice points on the star and fewest off it, and its
    lead over the next best shift in points on the star (the score, on - 2 off = 3 on - 2 n,
    ranks the shifts alike).

    Points far from the bulk (clutter beyond the board that happens to fall on the
    lattice) are left out first: no shift can put them on the star with the rest.
    """
    mid = np.median(nodes, axis=0).round().astype(int)
    d = nodes - mid
    nodes = nodes[np.max(np.abs(np.c_[d, d.sum(axis=1)]), axis=1) <= 13]
    if len(nodes) == 0:
        return (0, 0), 0
    lo = nodes.min(axis=0)
    span = nodes.max(axis=0) - lo
    if span.max() > 2 * _STAR_PAD:
        return (0, 0), 0
    occ = np.zeros((span[0] + 1, span[1] + 1), np.float32)
    occ[nodes[:, 0] - lo[0], nodes[:, 1] - lo[1]] = 1
    on = cv2.matchTemplate(_STAR_MASK, occ, cv2.TM_CCORR)  # on[i, j]: occ placed at (i, j)
    flat = np.sort(on.ravel())[::-1]
    i, j = np.unravel_index(int(np.argmax(on)), on.shape)
    # Grid index i holds star q = i - _STAR_PAD - 8 for the point at lo: shift = that - lo.
    shift = (int(i - _STAR_PAD - 8 - lo[0]), int(j - _STAR_PAD - 8 - lo[1]))
    margin = round(float(flat[0] - flat[1])) if len(flat) > 1 else round(float(flat[0]))
    return shift, margin


def star_nodes() -> np.ndarray:
    return HOLE_QR.copy()
