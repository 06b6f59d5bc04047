"""Counting touching beans by their outlines: peel one bean shape at a time off a fragment.

A fragment is a connected patch of one colour. Bean outlines (20 x 13 mm
ellipses at twelve turns) are fitted where the fragment is thickest, or for a
heap at its rim, and erased, until what is left is too thin or too small for a
bean. This counts beans in plain photographs (:mod:`vision.peepwar.photo_beans`), where
the scale comes from the beans themselves; on the table the bean net
(:mod:`vision.peepwar.bean_net`) finds the beans.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

BEAN_HALF_MM = (10.0, 6.5)  # a bean lying down: 20 x 13 mm
BEAN_AREA_MM2 = math.pi * BEAN_HALF_MM[0] * BEAN_HALF_MM[1]
ERASE_MM = 1.5  # a found bean is erased with this much rim (blur, shadow)
PEEL_MIN_MM = 3.5  # what is thinner than this (half a bean's width, less blur) is no bean
WHOLE_SHARE = 0.45  # of a bean's area that must show to count it
# ... and for a fragment's first bean: a dark glossy bean's reflections look like paper, so
# it can show little more than a third of itself; specks that big are rare.
FAINT_SHARE = 0.35
HEAP_BEANS = 2.2  # a fragment this many beans big is peeled from the outside in
FIT_SLACK_MM = 0.5  # a bean fits where its outline this much smaller lies inside the fragment


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


def peel_beans(frag: np.ndarray, px_per_mm: float) -> tuple[list[np.ndarray], float]:
    """Bean centres in a fragment, found by peeling off one bean shape at a time.

    Each round takes the thickest point left (a bean's middle is 6.5 mm from its
    edge), tries the bean's outline at twelve turns there and keeps the turn that
    covers most of what is left, then erases that bean (with a rim, for blur and
    shadow). It stops when what is left is thinner than a bean's middle or too
    small to be one (a fragment's first bean may show less: FAINT_SHARE). Returns the
    centres (fragment pixels) and the share of a bean left over unexplained.
    """
    s = px_per_mm
    shapes, erasers, _, r = _bean_shapes(round(s, 2))
    tight, ro = _tight_outlines(round(s, 2))
    pad = r + 1
    left = cv2.copyMakeBorder(frag, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    bean_px = BEAN_AREA_MM2 * s * s
    need = WHOLE_SHARE * bean_px
    centres: list[np.ndarray] = []
    # Nothing outside the fragment's own box is ever set: measure thickness there only.
    inner = left[pad:-pad, pad:-pad]
    for _ in range(12):
        dt = cv2.distanceTransform(inner, cv2.DIST_L2, 5)
        y, x = np.unravel_index(int(np.argmax(dt)), dt.shape)
        if dt[y, x] / s < PEEL_MIN_MM:
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
        if cover[k] < (need if centres else min(need, FAINT_SHARE * bean_px)):
            break
        hit = win & shapes[k]
        ys, xs = np.nonzero(hit)
        centres.append(np.array([xs.mean() + x - r - pad, ys.mean() + y - r - pad], np.float32))
        win[erasers[k] > 0] = 0
    return centres, float(left.sum()) / bean_px


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
