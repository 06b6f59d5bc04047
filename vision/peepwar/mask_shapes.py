"""Shapes of binary masks (uint8 0/1 or bool): regions, thickness, closing, filling.

Small pure functions shared by the pixel classifier (:mod:`vision.peepwar.piece_pixels`), the
piece reader (:mod:`vision.peepwar.pieces`) and the occlusion finder
(:mod:`vision.peepwar.occlusion`), all in pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import pixels_in


def grown_box(x: int, y: int, shape: tuple[int, int], pad: int, bounds: tuple[int, int]
              ) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
    """The box at (x, y) of ``shape`` grown by ``pad`` on every side, cut to an image of
    ``bounds`` (height, width): its part on the image (slices of it) and where that part
    lies in the grown box.

    >>> grown_box(1, 5, (2, 3), 2, (8, 10))
    ((slice(3, 8, None), slice(0, 6, None)), (slice(0, 5, None), slice(1, 7, None)))
    """
    h, w = shape
    H, W = bounds
    y0, x0 = max(y - pad, 0), max(x - pad, 0)
    y1, x1 = min(y + h + pad, H), min(x + w + pad, W)
    return ((slice(y0, y1), slice(x0, x1)),
            (slice(y0 - y + pad, y1 - y + pad), slice(x0 - x + pad, x1 - x + pad)))


def disk(radius_px: float) -> np.ndarray:
    """A filled disk of ``radius_px`` (at least 1) as a structuring element."""
    r = max(1, int(round(radius_px)))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def points_inside(mask: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which points (N, 2; x, y) fall on a set pixel of ``mask``; none off it."""
    xy, ok = pixels_in(pts, mask.shape)
    out = np.zeros(len(xy), bool)
    out[ok] = mask[xy[ok, 1], xy[ok, 0]] > 0
    return out


def long_side(mask: np.ndarray) -> float:
    """The long side (pixels) of the smallest rectangle round ``mask``'s pixels.

    >>> bar = np.zeros((20, 50), np.uint8); bar[8:12, 5:45] = 1
    >>> round(long_side(bar))
    39
    """
    ys, xs = np.nonzero(mask)
    (_, _), (w, h), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
    return max(w, h)


def regions(mask: np.ndarray, min_px: float) -> list[tuple[int, int, np.ndarray, int]]:
    """8-connected regions of ``mask`` (uint8 0/1) of at least ``min_px`` pixels, as
    (x, y, region's mask in its box, pixels); found by their outlines, which is far
    cheaper than labelling the whole image when most regions are small. A region
    includes whatever lies in its holes."""
    out = []
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in outlines:
        x, y, w, h = cv2.boundingRect(c)
        if w * h < min_px:
            continue
        one = np.zeros((h, w), np.uint8)
        cv2.drawContours(one, [c], -1, 1, -1, offset=(-x, -y))
        one &= mask[y:y + h, x:x + w]
        area = int(cv2.countNonZero(one))
        if area >= min_px:
            out.append((x, y, one, area))
    return out


def thickest(region: np.ndarray) -> float:
    """The largest distance (px) from a pixel of ``region`` (uint8 0/1, its own box) to
    its edge."""
    padded = cv2.copyMakeBorder(region, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return float(cv2.distanceTransform(padded, cv2.DIST_L2, 3).max())


def close_by_distance(mask: np.ndarray, radius_px: float) -> np.ndarray:
    """``mask`` (uint8 0/1, with a border of zeros wider than ``radius_px``) closed by a
    disk: two distance transforms, whatever the radius (a morphological closing with a
    large disk costs ten times as much).

    >>> two = np.zeros((30, 40), np.uint8); two[10:20, 8:16] = 1; two[10:20, 22:30] = 1
    >>> int(close_by_distance(two, 4)[15, 19]), int(close_by_distance(two, 2)[15, 19])
    (1, 0)
    """
    grown = (cv2.distanceTransform(1 - mask, cv2.DIST_L2, 3) <= radius_px).view(np.uint8)
    return (cv2.distanceTransform(grown, cv2.DIST_L2, 3) > radius_px).view(np.uint8)


def _holes(mask: np.ndarray) -> np.ndarray:
    """The holes of ``mask`` (uint8 0/1): what a flood from the border does not reach
    (0/255)."""
    flood = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    cv2.floodFill(flood, None, (0, 0), 1)
    return cv2.compare(flood[1:-1, 1:-1], 0, cv2.CMP_EQ)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """``mask`` (uint8 0/1) with every hole filled."""
    return cv2.bitwise_or(mask, _holes(mask) // 255)


def fill_holes_below(mask: np.ndarray, max_px: int) -> np.ndarray:
    """``mask`` (uint8 0/1) with its enclosed holes of at most ``max_px`` pixels filled.

    The holes are what a flood from the border does not reach: all are filled,
    then the few larger ones opened again, each found by its outline (far
    cheaper than labelling the whole image).

    >>> ring = np.pad(np.pad(np.zeros((2, 2), np.uint8), 1, constant_values=1), 1)
    >>> int(fill_holes_below(ring, 4).sum()), int(fill_holes_below(ring, 3).sum())
    (16, 12)
    """
    holes = _holes(mask)
    out = cv2.bitwise_or(mask, holes // 255)
    outlines, _ = cv2.findContours(holes, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in outlines:
        x, y, w, h = cv2.boundingRect(c)
        if w * h <= max_px:
            continue  # too small a box to hold a large hole
        inside = np.zeros((h, w), np.uint8)
        cv2.drawContours(inside, [c], -1, 1, -1, offset=(-x, -y))
        inside &= holes[y:y + h, x:x + w] > 0
        if int(inside.sum()) > max_px:
            out[y:y + h, x:x + w][inside > 0] = 0
    return out


def nearest_seed(seeds: np.ndarray) -> np.ndarray:
    """Each pixel's nearest seed: ``seeds`` holds seed numbers (1, 2, ...; 0 elsewhere), the
    result the number of the seed nearest every pixel.

    >>> seeds = np.zeros((1, 7), np.int32); seeds[0, 1] = 1; seeds[0, 5] = 2
    >>> nearest_seed(seeds).tolist()
    [[1, 1, 1, 1, 2, 2, 2]]
    """
    _, nearest = cv2.distanceTransformWithLabels(
        (seeds == 0).view(np.uint8), cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL)
    owner_of = np.zeros(int(nearest.max()) + 1, np.int32)
    owner_of[nearest[seeds > 0]] = seeds[seeds > 0]
    return owner_of[nearest]
