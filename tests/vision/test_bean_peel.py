"""Counting beans by their outlines (:mod:`vision.peepwar.bean_peel`, used on plain photos), on
beans drawn as ellipses."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.peepwar.bean_peel import _bean_shapes, _outer_fit, peel_beans


def _ellipses(px_per_mm: float, beans: list[tuple[float, float, float, float]]) -> np.ndarray:
    """A 90 x 90 px fragment of beans (centre x, y in px; half length in mm; turn)."""
    frag = np.zeros((90, 90), np.uint8)
    for x, y, half, turn in beans:
        axes = (round(half * px_per_mm * 16), round(half * 0.65 * px_per_mm * 16))
        cv2.ellipse(frag, (round(x * 16), round(y * 16)), axes, turn, 0, 360, 1, -1,
                    cv2.LINE_8, 4)
    return frag


@pytest.mark.parametrize("half_mm, beans", [(6.0, 1), (5.0, 0)])
def test_a_bean_alone_counts_when_a_third_of_it_shows(half_mm, beans):
    """A dark glossy bean whose reflections look like paper shows only its rim and middle:
    alone, 0.39 of a bean (drawn 12 x 8 mm) is one; a speck of 0.29 (10 x 6.5 mm) is none."""
    s = 1.5
    got, _ = peel_beans(_ellipses(s, [(45, 45, half_mm, 20)]), s)
    assert len(got) == beans


@pytest.mark.parametrize("seed", range(6))
def test_the_outer_fit_finds_where_an_eroded_heap_says_a_bean_fits(seed):
    """The bean at a heap's rim: the farthest place from the heap's middle where a whole
    bean fits, as eroding the heap by every other turn of the fit outline finds it."""
    s = 1.5
    rng = np.random.default_rng(seed)
    heap = _ellipses(s, [(rng.uniform(30, 60), rng.uniform(30, 60), rng.uniform(9, 11),
                          rng.uniform(0, 180)) for _ in range(int(rng.integers(3, 6)))])
    _, _, fits, r = _bean_shapes(round(s, 2))
    pad = r + 1
    left = cv2.copyMakeBorder(heap, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    inside = np.zeros_like(heap)
    for sh in fits[::2]:
        inside |= cv2.erode(heap, sh, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    ys, xs = np.nonzero(inside)
    assert len(ys), "a whole bean fits somewhere in the heap"
    my, mx = np.nonzero(heap)
    n = len(my)  # distances times n, whole numbers: ties go to the first in row order
    i = int(np.argmax((n * ys - my.sum()) ** 2 + (n * xs - mx.sum()) ** 2))
    dt = cv2.distanceTransform(heap, cv2.DIST_L2, 5)
    assert _outer_fit(left, dt, pad, s, -1, -1) == (ys[i] + pad, xs[i] + pad)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_beans_apart_are_each_counted_once(n):
    """Upright beans 25 px (17 mm) apart, 13 mm wide: a gap of 4 mm between them."""
    s = 1.5
    got, left = peel_beans(_ellipses(s, [(20 + 25 * i, 45, 10, 90) for i in range(n)]), s)
    assert len(got) == n
    assert left < 0.1
