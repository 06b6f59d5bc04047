"""Counting beans in a plain photo: beans on a light, bare background (no tiles).

Beans counted by their outlines (:func:`vision.peepwar.bean_peel.peel_beans`), on a
photo whose scale is unknown: beans are what differs from the smooth
background, the scale comes from the median size of the separate blobs (most
blobs are single beans), and every blob is then counted by shape and area.
Blobs cut by the photo's edge (a bean half out of frame, a finger, the edge
of a bowl) are not counted. Used to check the counting on real photographs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.peepwar.bean_peel import BEAN_HALF_MM, peel_beans

PHOTO_CHROMA = 7.0  # Lab a*b* distance from the background
OTSU_WEIGHT = 0.7
EDGE_SHARE = 0.6
PHOTO_DARK = -55.0  # Lab lightness below the background: a dark bean


@dataclass(frozen=True)
class PhotoCount:
    count: int
    centres: list[tuple[float, float]]  # pixels
    px_per_mm: float  # the scale the beans imply


def bean_mask(photo: np.ndarray) -> np.ndarray:
    """Pixels of beans against the smooth light background (uint8 0/1).

    Beans differ from the background in colour (even pale ones are warmer than
    the grey paper) or are much darker; shadows are only a little darker and
    about as grey, so they are left out, which keeps neighbouring beans apart.
    """
    h, w = photo.shape[:2]
    # The background is what a median over a window several beans wide leaves.
    small = cv2.resize(photo, (max(8, w // 16), max(8, h // 16)), interpolation=cv2.INTER_AREA)
    k = max(3, (min(small.shape[:2]) // 3) | 1)
    bg = cv2.resize(cv2.medianBlur(small, min(k, 31)), (w, h), interpolation=cv2.INTER_LINEAR)
    lab = cv2.cvtColor(photo, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab_bg = cv2.cvtColor(bg, cv2.COLOR_BGR2LAB).astype(np.float32)
    diff = cv2.GaussianBlur(lab - lab_bg, (0, 0), 1.5)
    chroma = np.hypot(diff[:, :, 1], diff[:, :, 2])
    # Shadows of coloured beans are tinted too, but far less than the beans: split the
    # coloured pixels in two by Otsu's threshold when that is above the noise floor.
    cand = chroma[chroma > PHOTO_CHROMA]
    thresh = PHOTO_CHROMA
    if cand.size > 1000:
        scaled = np.clip(cand * 2, 0, 255).astype(np.uint8).reshape(-1, 1)
        otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        thresh = max(PHOTO_CHROMA, OTSU_WEIGHT * otsu / 2)
    mask = ((chroma > thresh) | (diff[:, :, 0] < PHOTO_DARK)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, cv2.FILLED)  # highlights: a bean has no holes
    return filled


def count_beans(photo: np.ndarray, min_share: float = 0.3) -> PhotoCount:
    """How many beans lie in ``photo``; blobs under ``min_share`` of a bean are specks.

    A photo taken at an angle shows near beans bigger than far ones, so a bean's
    expected size is fitted as a straight line over the image height (robustly,
    from the blobs themselves); each blob is then peeled at its own scale.
    """
    mask = bean_mask(photo)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    border = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    on_edge = np.bincount(border, minlength=n)
    blobs = list(range(1, n))
    if not blobs:
        return PhotoCount(0, [], 0.0)
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in blobs], float)
    ys = np.array([cents[i][1] for i in blobs], float)
    typical = _size_trend(ys, areas)
    centres: list[tuple[float, float]] = []
    scales = []
    for i, y_c in zip(blobs, ys, strict=True):
        size = float(typical(y_c))
        # Something cut by the photo's edge (a bean half out of frame, the corner of a
        # bowl) counts only if most of a bean shows; a shadow reaching the edge is fine.
        least = EDGE_SHARE if on_edge[i] else min_share
        if stats[i, cv2.CC_STAT_AREA] < least * size:
            continue
        s = math.sqrt(size / (math.pi * BEAN_HALF_MM[0] * BEAN_HALF_MM[1]))
        scales.append(s)
        x, y, bw, bh, _ = stats[i]
        frag = (lab[y:y + bh, x:x + bw] == i).astype(np.uint8)
        found, _ = peel_beans(frag, s)
        centres.extend((float(c[0]) + x, float(c[1]) + y) for c in found)
    return PhotoCount(len(centres), centres, float(np.median(scales)) if scales else 0.0)


def _size_trend(ys: np.ndarray, areas: np.ndarray):
    """Area of one bean as a function of image row: a line through the blobs' median sizes.

    Fitted to the blobs no bigger than 1.4 times the median (merged blobs left
    out), by least squares; with too few blobs, the median alone.
    """
    med = float(np.median(areas))
    keep = (areas > 0.5 * med) & (areas < 1.4 * med)
    if keep.sum() < 4:
        return lambda y: med
    a, b = np.polyfit(ys[keep], areas[keep], 1)
    lo, hi = 0.5 * med, 2.0 * med
    return lambda y: float(np.clip(a * y + b, lo, hi))
