"""Drawing in millimetres on a pixel image, so printed art has exact physical sizes.

A point (x, y) in mm lands at ``origin_px + (x, y) * px_per_mm`` in continuous
pixel coordinates, where pixel (i, j) covers [i, i+1) x [j, j+1). OpenCV draws
with pixel centres at integers, so every call shifts by half a pixel and uses
fixed-point coordinates for sub-pixel accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.kit_layout import marker_bits

_SHIFT = 4  # fixed-point bits for cv2 drawing
_FONT = cv2.FONT_HERSHEY_SIMPLEX

Colour = tuple[int, int, int]


class MmCanvas:
    """A BGR uint8 image addressed in mm."""

    def __init__(self, image: np.ndarray, px_per_mm: float, origin_px: tuple[float, float]):
        self.image = image
        self.px_per_mm = float(px_per_mm)
        self.origin_px = np.asarray(origin_px, dtype=float)

    def to_px(self, pts_mm: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        """Continuous pixel coordinates of mm points."""
        return self.origin_px + np.asarray(pts_mm, dtype=float) * self.px_per_mm

    def _fixed(self, pts_mm) -> np.ndarray:
        px = self.to_px(pts_mm) - 0.5
        return np.round(px * (1 << _SHIFT)).astype(np.int32)

    def fill_polygon(self, pts_mm, colour: Colour) -> None:
        cv2.fillPoly(self.image, [self._fixed(pts_mm)], colour, cv2.LINE_8, _SHIFT)

    def polyline(self, pts_mm, colour: Colour, width_mm: float, closed: bool = True) -> None:
        """A line of physical width: drawn as filled quads so thin lines keep their width."""
        pts = np.asarray(pts_mm, dtype=float)
        n = len(pts)
        for i in range(n if closed else n - 1):
            self.segment(pts[i], pts[(i + 1) % n], colour, width_mm)

    def segment(self, a, b, colour: Colour, width_mm: float) -> None:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        d = b - a
        length = float(np.hypot(*d))
        if length == 0:
            return
        n = np.array([-d[1], d[0]]) / length * width_mm / 2
        e = d / length * width_mm / 2  # extend the ends so joints close
        self.fill_polygon([a - e + n, b + e + n, b + e - n, a - e - n], colour)

    def circle(self, centre, radius_mm: float, colour: Colour, width_mm: float | None) -> None:
        """A circle outline of ``width_mm``, or a filled disc when width is None."""
        steps = max(48, int(radius_mm * self.px_per_mm))
        t = np.linspace(0, 2 * math.pi, steps, endpoint=False)
        c = np.asarray(centre, dtype=float)
        if width_mm is None:
            ring = c + radius_mm * np.stack([np.cos(t), np.sin(t)], axis=1)
            self.fill_polygon(ring, colour)
            return
        outer = c + (radius_mm + width_mm / 2) * np.stack([np.cos(t), np.sin(t)], axis=1)
        inner = c + (radius_mm - width_mm / 2) * np.stack([np.cos(t), np.sin(t)], axis=1)
        mask = np.zeros(self.image.shape[:2], np.uint8)
        cv2.fillPoly(mask, [self._fixed(outer)], 255, cv2.LINE_8, _SHIFT)
        cv2.fillPoly(mask, [self._fixed(inner)], 0, cv2.LINE_8, _SHIFT)
        self.image[mask > 0] = colour

    def ellipse(
        self, centre, axes_mm: tuple[float, float], colour: Colour, width_mm: float
    ) -> None:
        t = np.linspace(0, 2 * math.pi, 96, endpoint=False)
        pts = np.asarray(centre, dtype=float) + np.stack(
            [axes_mm[0] * np.cos(t), axes_mm[1] * np.sin(t)], axis=1
        )
        self.polyline(pts, colour, width_mm)

    def fill_ellipse(self, centre, axes_mm: tuple[float, float], colour: Colour) -> None:
        t = np.linspace(0, 2 * math.pi, 96, endpoint=False)
        pts = np.asarray(centre, dtype=float) + np.stack(
            [axes_mm[0] * np.cos(t), axes_mm[1] * np.sin(t)], axis=1
        )
        self.fill_polygon(pts, colour)

    def text(
        self, text: str, centre, height_mm: float, colour: Colour, weight_mm: float | None = None
    ) -> None:
        """Text centred on ``centre`` whose capital letters are ``height_mm`` tall."""
        (w, h), _ = cv2.getTextSize(text, _FONT, 1.0, 1)
        scale = height_mm * self.px_per_mm / h
        thickness = max(1, round((weight_mm or height_mm / 8) * self.px_per_mm))
        (w, h), _ = cv2.getTextSize(text, _FONT, scale, thickness)
        cx, cy = self.to_px([centre])[0]
        org = (round(cx - w / 2), round(cy + h / 2))
        cv2.putText(self.image, text, org, _FONT, scale, colour, thickness, cv2.LINE_AA)

    def marker(self, mid: int, corners_mm: np.ndarray, quiet_modules: float = 2.0) -> None:
        """An ArUco marker with corners TL, TR, BR, BL at ``corners_mm`` and a white quiet zone.

        Every black module is filled as its own quad, so any rotation prints sharp.
        """
        bits = marker_bits(mid)
        n = bits.shape[0]
        tl, tr, _, bl = (np.asarray(c, dtype=float) for c in corners_mm)
        ux = (tr - tl) / n
        uy = (bl - tl) / n
        q = quiet_modules
        self.fill_polygon(
            [tl - q * (ux + uy), tr + q * (ux - uy), tr + n * uy + q * (ux + uy),
             bl + q * (uy - ux)],
            (255, 255, 255),
        )
        self.fill_polygon([tl, tr, tr + n * uy, bl], (0, 0, 0))
        for j in range(n):
            for i in range(n):
                if bits[j, i]:
                    p = tl + i * ux + j * uy
                    self.fill_polygon([p, p + ux, p + ux + uy, p + uy], (255, 255, 255))


def blank(width_px: int, height_px: int) -> np.ndarray:
    return np.full((height_px, width_px, 3), 255, np.uint8)
