"""Small plane-geometry helpers shared by the detector and the renderer.

Poses on the table are rigid 2D transforms (x mm, y mm, angle degrees) that map
a tile's own frame into the table frame. Image points use OpenCV's convention:
pixel centres at integer coordinates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Pose2D:
    """A rigid placement on the table: rotate by ``angle_deg`` about the origin, then shift."""

    x: float
    y: float
    angle_deg: float

    def matrix(self) -> np.ndarray:
        """3x3 homogeneous matrix mapping frame points to table points."""
        a = math.radians(self.angle_deg)
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, self.x], [s, c, self.y], [0.0, 0.0, 1.0]])

    def apply(self, pts: np.ndarray) -> np.ndarray:
        return apply_h(self.matrix(), pts)

    @classmethod
    def from_matrix(cls, m: np.ndarray) -> Pose2D:
        """The pose of a 3x3 rigid-transform matrix (the inverse of :meth:`matrix`).

        >>> p = Pose2D.from_matrix(Pose2D(3.0, -2.0, 30.0).matrix())
        >>> p.x, p.y, round(p.angle_deg, 9)
        (3.0, -2.0, 30.0)
        """
        return cls(float(m[0, 2]), float(m[1, 2]), math.degrees(math.atan2(m[1, 0], m[0, 0])))


def apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Map (N, 2) points through a 3x3 homography."""
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    hom = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=float).T
    return hom[:, :2] / hom[:, 2:3]


def fit_rigid(src: np.ndarray, dst: np.ndarray) -> Pose2D:
    """Least-squares rotation and translation taking ``src`` points onto ``dst`` (Kabsch)."""
    src = np.asarray(src, dtype=float).reshape(-1, 2)
    dst = np.asarray(dst, dtype=float).reshape(-1, 2)
    ms, md = src.mean(axis=0), dst.mean(axis=0)
    a, b = src - ms, dst - md
    cov = a.T @ b
    angle = math.atan2(cov[0, 1] - cov[1, 0], cov[0, 0] + cov[1, 1])
    c, s = math.cos(angle), math.sin(angle)
    t = md - np.array([[c, -s], [s, c]]) @ ms
    return Pose2D(float(t[0]), float(t[1]), math.degrees(angle))


def wrap_deg(angle: float) -> float:
    """An angle in degrees wrapped into [-180, 180)."""
    return (angle + 180.0) % 360.0 - 180.0


def local_scale(h: np.ndarray, at: tuple[float, float]) -> float:
    """Pixels per mm of homography ``h`` near the table point ``at`` (geometric mean of axes)."""
    p = np.array([at, (at[0] + 1.0, at[1]), (at[0], at[1] + 1.0)])
    q = apply_h(h, p)
    jac = np.stack([q[1] - q[0], q[2] - q[0]], axis=1)
    return math.sqrt(abs(float(np.linalg.det(jac))))


def pixels_in(pts: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Points (N, 2; x, y) rounded to pixels, and which of them lie inside an image of
    ``shape`` (rows, columns, ...).

    >>> xy, ok = pixels_in(np.array([[1.4, 0.6], [-1.0, 2.0], [3.0, 5.0]]), (4, 4))
    >>> xy[ok].tolist(), ok.tolist()
    ([[1, 1]], [True, False, False])
    """
    xy = np.round(np.asarray(pts, float).reshape(-1, 2)).astype(int)
    h, w = shape[:2]
    return xy, (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)


def along_sides(poly: np.ndarray, steps: int = 8) -> np.ndarray:
    """``steps`` points along each side of closed polygon ``poly`` (N x 2), from each
    corner on: to follow its sides through a map that bends them (a lens).

    >>> along_sides(np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]]), 2).tolist()
    [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 2.0], [0.0, 1.0]]
    """
    p = np.asarray(poly, float).reshape(-1, 2)
    t = np.linspace(0.0, 1.0, steps, endpoint=False)[None, :, None]
    return (p[:, None] + t * (np.roll(p, -1, axis=0) - p)[:, None]).reshape(-1, 2)


def share_outside(pts_px: np.ndarray, size: tuple[int, int]) -> float:
    """The share of the convex hull of ``pts_px`` (N x 2, pixel coordinates) lying outside
    a frame of ``size`` (width, height), whose pixels cover -0.5 to width - 0.5 and likewise
    down; 1.0 for a hull of no area or a point not in front of the camera (NaN).

    >>> share_outside(np.array([[-10.5, 0.0], [9.5, 0.0], [9.5, 10.0], [-10.5, 10.0]]), (64, 48))
    0.5
    """
    pts = np.asarray(pts_px, np.float32).reshape(-1, 2)
    if not np.isfinite(pts).all():
        return 1.0
    hull = cv2.convexHull(pts).reshape(-1, 2)
    area = abs(float(cv2.contourArea(hull)))
    if area <= 0.0:
        return 1.0
    w, h = size
    frame = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]],
                     np.float32)
    inside, _ = cv2.intersectConvexConvex(hull, frame)
    return float(min(max(1.0 - inside / area, 0.0), 1.0))


def shares_outside(pictures: Mapping[str, np.ndarray], size: tuple[int, int]
                   ) -> dict[str, float]:
    """:func:`share_outside` of each named outline in ``pictures`` (pixel points), for those
    the frame cuts (to 4 places; a smaller share is the arithmetic's rounding).

    >>> shares_outside({"a": np.array([[-10.5, 0], [9.5, 0], [9.5, 10], [-10.5, 10]]),
    ...                 "b": np.array([[0.0, 0], [9, 0], [9, 9]])}, (64, 48))
    {'a': 0.5}
    """
    out = {}
    for name, px in pictures.items():
        share = share_outside(px, size)
        if share >= 1e-4:
            out[name] = round(share, 4)
    return out
