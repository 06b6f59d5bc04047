"""Where the camera stands over the table, from the homography that maps the table into
the frame: what lets the reader allow for the height of things on the table.

A point ``z`` above the table is seen where the table point farther from the camera's
nadir (the table point straight under it) would be, by ``z / (height - z)`` of its
distance from the nadir. So a tall thing's top lands on the table plane beyond its foot,
away from the camera: an egg half's dome, seen from a tilted camera, covers table beyond
its own disc.

The homography ``K [r1 r2 t]`` (table plane to ideal image pixels) fixes the camera's
pose once its focal length is known. A calibrated camera gives it; otherwise it comes
from the homography itself (the two rotation columns are perpendicular and of equal
length: Zhang's constraints, with square pixels and the principal point at the frame's
centre), when the view is tilted enough for that to be well posed, and a typical
webcam's field of view when it is not (seen from straight above, height and focal
length trade off and the nadir is all that matters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["CameraAbove", "camera_above", "draw_dome"]

DEFAULT_FOV_DEG = 60.0  # horizontal: a typical webcam's
# Below this tilt from straight down the homography cannot tell the focal length (its
# perspective terms vanish): the default field of view is used instead.
MIN_TILT_FOR_FOCAL_DEG = 15.0
FOCAL_RANGE = (0.5, 2.0)  # focal lengths, in frame widths, taken as plausible (28-90 deg)
# A camera tilted further than this from straight down sees the table nearly edge on: its
# pose from the homography is no use (and its nadir lies far off the table).
MAX_TILT_DEG = 80.0


@dataclass(frozen=True)
class CameraAbove:
    """The camera's nadir (table-plane coordinates) and its height (the plane's units)."""

    nadir: tuple[float, float]
    height: float

    def lifted(self, pts: np.ndarray, z: float) -> np.ndarray:
        """Where points ``z`` above the table points ``pts`` (N x 2) appear on the table.

        >>> cam = CameraAbove((0.0, 0.0), 500.0)
        >>> cam.lifted(np.array([[400.0, 0.0], [0.0, 0.0]]), 100.0).tolist()
        [[500.0, 0.0], [0.0, 0.0]]
        """
        if not 0.0 <= z < self.height:
            raise ValueError(f"a height of {z} is not between the table and the camera")
        n = np.asarray(self.nadir, float)
        return n + (np.asarray(pts, float).reshape(-1, 2) - n) * (self.height / (self.height - z))

    def foot(self, pts: np.ndarray, z: float) -> np.ndarray:
        """The table points under points ``z`` above the table seen at ``pts`` (N x 2):
        what :meth:`lifted` undoes.

        >>> cam = CameraAbove((0.0, 0.0), 500.0)
        >>> cam.foot(np.array([[500.0, 0.0]]), 100.0).tolist()
        [[400.0, 0.0]]
        """
        if not 0.0 <= z < self.height:
            raise ValueError(f"a height of {z} is not between the table and the camera")
        n = np.asarray(self.nadir, float)
        return n + (np.asarray(pts, float).reshape(-1, 2) - n) * ((self.height - z) / self.height)


def camera_above(homography: np.ndarray, frame_size: tuple[int, int],
                 camera_matrix: np.ndarray | None = None) -> CameraAbove | None:
    """The camera over the plane that ``homography`` maps into a frame of ``frame_size``
    (width, height) in ideal pixels; ``camera_matrix``: a calibrated camera's, else the
    focal length is estimated (see the module's doc), which assumes the principal point at
    the frame's centre: a cropped or digitally zoomed stream breaks that, and gives a
    wrong nadir. None when the homography is degenerate or the table is seen nearly edge
    on (over MAX_TILT_DEG).

    A camera 600 mm above (100, -300), tilted 35 degrees, focal length 1100 px:

    >>> k = np.array([[1100.0, 0, 639.5], [0, 1100.0, 359.5], [0, 0, 1]])
    >>> t = math.radians(35)
    >>> rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    >>> rot = rx @ np.diag([1.0, -1.0, -1.0])  # looking down, then tilted
    >>> centre = np.array([100.0, -300.0, 600.0])
    >>> h = k @ np.column_stack([rot[:, 0], rot[:, 1], -rot @ centre])
    >>> cam = camera_above(h, (1280, 720))
    >>> [round(v, 1) for v in cam.nadir], round(cam.height, 1)
    ([100.0, -300.0], 600.0)
    >>> cam = camera_above(h, (1280, 720), k)
    >>> [round(v, 1) for v in cam.nadir], round(cam.height, 1)
    ([100.0, -300.0], 600.0)
    """
    h = np.asarray(homography, float)
    w = frame_size[0]
    if camera_matrix is not None:
        try:
            pose = _pose(np.linalg.inv(np.asarray(camera_matrix, float)) @ h)
        except np.linalg.LinAlgError:
            return None
        return None if pose is None else _above(*pose)
    cx, cy = frame_size[0] / 2 - 0.5, frame_size[1] / 2 - 0.5
    a = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]]) @ h
    focal = _focal(a)
    if focal is not None and FOCAL_RANGE[0] * w <= focal <= FOCAL_RANGE[1] * w:
        pose = _pose(np.diag([1 / focal, 1 / focal, 1.0]) @ a)
        if pose is not None and _tilt_deg(pose[0]) >= MIN_TILT_FOR_FOCAL_DEG:
            return _above(*pose)
    focal = w / 2 / math.tan(math.radians(DEFAULT_FOV_DEG) / 2)
    pose = _pose(np.diag([1 / focal, 1 / focal, 1.0]) @ a)
    return None if pose is None else _above(*pose)


def _focal(a: np.ndarray) -> float | None:
    """The focal length making the columns of ``diag(1/f, 1/f, 1) @ a`` a rotation's first
    two (perpendicular, equal lengths), in the least-squares sense; None if none does."""
    a1, a2 = a[:, 0], a[:, 1]
    # Both constraints are linear in 1/f^2: p * (1/f^2) + q = 0.
    p = np.array([a1[0] * a2[0] + a1[1] * a2[1],
                  a1[0] ** 2 + a1[1] ** 2 - a2[0] ** 2 - a2[1] ** 2])
    q = np.array([a1[2] * a2[2], a1[2] ** 2 - a2[2] ** 2])
    pp = float(p @ p)
    if pp <= 0.0:
        return None
    inv_f2 = -float(p @ q) / pp
    return 1.0 / math.sqrt(inv_f2) if inv_f2 > 0.0 else None


def _pose(b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Rotation and translation of a normalised homography ``b`` (``[r1 r2 t]`` up to
    scale); None if degenerate. (Its sign is left as it comes: it flips only which side
    of the plane the camera's height is measured on, and the height is taken as a size.)"""
    n1, n2 = np.linalg.norm(b[:, 0]), np.linalg.norm(b[:, 1])
    if not (n1 > 0.0 and n2 > 0.0 and np.isfinite(n1 + n2)):
        return None
    scale = 2.0 / (n1 + n2)
    r1, r2, t = b[:, 0] * scale, b[:, 1] * scale, b[:, 2] * scale
    return np.column_stack([r1, r2, np.cross(r1, r2)]), t


def _tilt_deg(rot: np.ndarray) -> float:
    """The angle between the camera's axis and the plane's normal."""
    return math.degrees(math.acos(min(1.0, abs(float(rot[2, 2])))))


def _above(rot: np.ndarray, t: np.ndarray) -> CameraAbove | None:
    """The camera of pose (``rot``, ``t``) over the plane; None if it sees the plane
    nearly edge on or the pose is not finite."""
    centre = -rot.T @ t
    if not np.all(np.isfinite(centre)) or abs(centre[2]) < 1e-9 or _tilt_deg(rot) > MAX_TILT_DEG:
        return None
    return CameraAbove((float(centre[0]), float(centre[1])), float(abs(centre[2])))


def draw_dome(out: np.ndarray, centre: tuple[float, float], radius: float,
              camera: CameraAbove, steps: int = 16) -> None:
    """Mark in ``out`` (uint8, the table plane in the camera's units) where a dome (a
    hemisphere of ``radius`` standing on the table at ``centre``) covers the table as
    ``camera`` sees it: each horizontal slice of it, lifted. From straight above it is the
    dome's own disc; from a tilted camera the disc runs on away from the nadir.

    >>> seen = np.zeros((40, 120), np.uint8)
    >>> draw_dome(seen, (80.0, 20.0), 10.0, CameraAbove((0.0, 0.0), 100.0))
    >>> [int(seen[20, x]) for x in (69, 71, 89, 92, 95)]  # its foot is 70-90
    [0, 1, 1, 1, 0]
    """
    if not 0.0 < radius < camera.height:  # (also NaN)
        return
    foot = np.array([centre], float)
    for z in np.linspace(0.0, radius, steps, endpoint=False):
        k = camera.height / (camera.height - z)
        c = camera.lifted(foot, float(z))[0]
        r = math.sqrt(radius * radius - z * z) * k
        # (3 fractional bits: the slices step by less than a pixel.)
        cv2.circle(out, (int(round(c[0] * 8)), int(round(c[1] * 8))), int(round(r * 8)), 1, -1,
                   cv2.LINE_8, 3)
