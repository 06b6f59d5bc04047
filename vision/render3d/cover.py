"""How much of each place's picture (a cell, an area) the hands hide: the truth of which
places a reader may call occluded, measured from the tracer's first-hit pass."""

from __future__ import annotations

import cv2
import numpy as np


def cover_shares(outlines_px: dict[str, np.ndarray], hand_px: np.ndarray) -> dict[str, float]:
    """Each place's share of its outline (frame pixels, n x 2) that ``hand_px`` (bool, the
    frame's shape) covers; only places with a share over 0, rounded to 4 places.

    >>> hand = np.zeros((10, 10), bool); hand[:, :5] = True
    >>> cover_shares({"a": np.array([[0, 0], [9, 0], [9, 9], [0, 9]], float),
    ...               "b": np.array([[6, 0], [9, 0], [9, 9], [6, 9]], float)}, hand)
    {'a': 0.5}
    """
    h, w = hand_px.shape
    cover = {}
    for name, px in outlines_px.items():
        poly = np.zeros((h, w), np.uint8)
        cv2.fillPoly(poly, [np.round(px * 4).astype(np.int32)], 1, cv2.LINE_8, 2)
        inside = poly.astype(bool)
        if inside.any():
            share = float(hand_px[inside].mean())
            if share > 0:
                cover[name] = round(share, 4)
    return cover


__all__ = ["cover_shares"]
