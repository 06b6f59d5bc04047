"""Glare: where the lamp's reflection washes pieces out to white.

Glossy acrylic under a lamp shows the lamp's reflection as a patch of nearly
white: on a piece there its colour is gone, so its team (and often the piece
itself) cannot be read. Rather than guess, the reader names each such patch
among the pieces, so the referee can move the lamp or the camera and take the
photo again.

A glare patch is a connected region of pixels that are nearly white in the
photo (a reflection blows the camera's channels out, whatever the lamp's
colour) and bright, and not the table's colour, at least
:data:`MIN_SHARE` of a disc's area, lying among the pieces (within
:data:`NEAR_RADII` disc radii of a piece read).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.peltapeeps import discs

WHITE_CHROMA = 0.2  # |3R/S - 1| and |3B/S - 1| below this: next to no colour left
WHITE_LIGHT = 0.93  # lightness Y^(1/3) above this (Y above 0.8): nearly white
MIN_SHARE = 0.25  # a patch this share of a disc's area or more washes a piece out
NEAR_RADII = 1.5  # ... when its nearest pixel is this near a piece read (centre to edge)


def glare_patches(feats: np.ndarray, table: discs.TableModel, radius: float,
                  pieces: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Centres (``feats``' px) of the glare patches among ``pieces`` (centres, same px).

    ``feats`` are :func:`vision.peltapeeps.discs.features` of the photo, ``radius``
    a disc's radius in its pixels.

    >>> feats = np.zeros((100, 100, 3), np.float32)
    >>> feats[..., 0], feats[..., 2] = 0.8, 0.6  # a red table ...
    >>> feats[40:60, 40:60] = (0.0, 0.0, 1.0)  # ... with a white patch
    >>> table = discs.table_model(feats)
    >>> glare_patches(feats, table, 15.0, [(30.0, 50.0)])
    [(49.5, 49.5)]
    >>> glare_patches(feats, table, 15.0, [(90.0, 90.0)])  # no piece near it
    []
    """
    c0, c1, light = feats[..., 0], feats[..., 1], feats[..., 2]
    white = (np.abs(c0) < WHITE_CHROMA) & (np.abs(c1) < WHITE_CHROMA) & (light > WHITE_LIGHT)
    if not white.any() or not len(pieces):
        return []
    h, w = light.shape
    white &= ~discs.is_table_planes(c0, c1, light / table.shading_image(w, h), table)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(white.astype(np.uint8), 8)
    # Which patches reach near a piece: one mask of discs round the pieces, one pass.
    near = np.zeros(white.shape, np.uint8)
    for x, y in pieces:
        cv2.circle(near, (round(x), round(y)), round(NEAR_RADII * radius), 1, -1)
    reached = np.bincount(labels[near > 0], minlength=n) > 0
    min_area = MIN_SHARE * math.pi * radius * radius
    return [(round(float(centroids[k][0]), 1), round(float(centroids[k][1]), 1))
            for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_area and reached[k]]
