"""Lens distortion: moving image points between the recorded frame and an ideal pinhole.

Tile finding fits one homography per frame, which holds only for an ideal
pinhole; when a profile carries camera intrinsics, marker corners are undistorted
before the fit and projected outlines are distorted back into the frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import apply_h

# Far past any camera's sensor; a larger size in a profile is damage, not a camera.
MAX_SIDE_PX = 100_000


def distort_points(pts: np.ndarray, camera_matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Where ideal (undistorted) pixel points appear through a lens with ``dist``."""
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    if not np.any(dist):
        return pts.copy()
    norm = apply_h(np.linalg.inv(camera_matrix), pts)
    obj = np.hstack([norm, np.ones((len(norm), 1))])
    out, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), camera_matrix, dist)
    return out.reshape(-1, 2)


def undistort_points(pts: np.ndarray, camera_matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Ideal pixel points for points seen through a lens with ``dist``."""
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    if not np.any(dist) or len(pts) == 0:
        return pts.copy()
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-6)
    out = cv2.undistortPoints(
        pts.reshape(-1, 1, 2), camera_matrix, dist, None, None, camera_matrix, crit
    )
    return out.reshape(-1, 2)


@dataclass(frozen=True)
class Intrinsics:
    """A calibrated camera: matrix, distortion (k1 k2 p1 p2 k3) and the image size they fit."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    size: tuple[int, int]  # (width, height)

    def for_size(self, size: tuple[int, int]) -> Intrinsics:
        """The same lens at another resolution of the same sensor (same aspect ratio)."""
        if tuple(size) == tuple(self.size):
            return self
        sx = size[0] / self.size[0]
        sy = size[1] / self.size[1]
        k = self.camera_matrix.astype(float).copy()
        k[0, 0] *= sx
        k[0, 2] = (k[0, 2] + 0.5) * sx - 0.5
        k[1, 1] *= sy
        k[1, 2] = (k[1, 2] + 0.5) * sy - 0.5
        return Intrinsics(k, self.dist_coeffs, (int(size[0]), int(size[1])))

    def to_json(self) -> dict:
        return {
            "camera_matrix": np.asarray(self.camera_matrix, float).tolist(),
            "dist_coeffs": np.asarray(self.dist_coeffs, float).ravel().tolist(),
            "size": list(self.size),
        }

    @staticmethod
    def from_json(data: dict) -> Intrinsics:
        """Intrinsics as a profile stores them; a damaged entry is a ValueError saying what
        is wrong (the profile loader turns it into its one-line ProfileError). A zero size,
        a NaN or a singular matrix would otherwise fail deep in the vision code
        (ZeroDivisionError, "SVD did not converge")."""
        if not isinstance(data, dict):
            raise ValueError("camera intrinsics must be an object with camera_matrix, "
                             "dist_coeffs and size")
        try:
            k = np.asarray(data["camera_matrix"], float)
            d = np.asarray(data["dist_coeffs"], float).ravel()
        except OverflowError:  # an integer past the float range
            raise ValueError("camera intrinsics hold a number too large") from None
        raw_size = data["size"]
        if (not isinstance(raw_size, list | tuple) or len(raw_size) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw_size)):
            raise ValueError(f"camera size must be [width, height] in whole pixels, not "
                             f"{str(raw_size)[:40]}")
        size = (int(raw_size[0]), int(raw_size[1]))
        if k.shape != (3, 3) or len(d) < 4:
            raise ValueError("camera intrinsics need a 3x3 matrix, 4+ distortion terms and a size")
        if not 0 < size[0] <= MAX_SIDE_PX or not 0 < size[1] <= MAX_SIDE_PX:
            raise ValueError(f"camera size {list(size)} must be positive (at most "
                             f"{MAX_SIDE_PX} pixels a side)")
        if not (np.all(np.isfinite(k)) and np.all(np.isfinite(d))):
            raise ValueError("camera intrinsics hold NaN or Infinity")
        fx, fy = k[0, 0], k[1, 1]
        if not (fx > 0 and fy > 0):
            raise ValueError(f"camera focal lengths must be positive, not {fx:g} and {fy:g}")
        # A pinhole's matrix is [[fx, s, cx], [0, fy, cy], [0, 0, 1]]; anything else is not
        # one, and points are mapped through its inverse.
        if (k[1, 0], k[2, 0], k[2, 1], k[2, 2]) != (0, 0, 0, 1) \
                or np.linalg.cond(k) > 1e12:
            raise ValueError("camera matrix is not a camera's ([[fx, 0, cx], [0, fy, cy], "
                             "[0, 0, 1]], invertible)")
        return Intrinsics(k, d, size)
