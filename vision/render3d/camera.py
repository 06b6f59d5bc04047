"""The pinhole camera the path tracer looks through, and the same projection in NumPy.

World frame: millimetres, z up, table top at z = 0. The table frame of the
spec (x right, y towards the viewer) maps to world (x, -y, 0), so a camera on
the viewer's side stands at negative world y. Pixel coordinates follow OpenCV
(the centre of the top-left pixel is (0, 0)); the projection matches Mitsuba's
``perspective`` sensor (horizontal field of view), which the tests check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def table_to_world(xy_mm: np.ndarray, z: float | np.ndarray = 0.0) -> np.ndarray:
    """(N, 2) table-frame points (spec: y towards the viewer) as (N, 3) world points."""
    xy = np.asarray(xy_mm, float).reshape(-1, 2)
    zz = np.broadcast_to(np.asarray(z, float), (len(xy),))
    return np.stack([xy[:, 0], -xy[:, 1], zz], -1)


@dataclass(frozen=True)
class Camera3D:
    origin: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float]
    fov_deg: float  # horizontal
    size: tuple[int, int]
    tilt_deg: float = 0.0  # from straight down

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o, t = np.asarray(self.origin, float), np.asarray(self.target, float)
        d = (t - o) / np.linalg.norm(t - o)
        left = np.cross(np.asarray(self.up, float), d)
        left /= np.linalg.norm(left)
        return left, np.cross(d, left), d

    @property
    def focal_px(self) -> float:
        return self.size[0] / 2 / math.tan(math.radians(self.fov_deg) / 2)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) world points as (N, 2) pixel positions (points behind the camera: nan)."""
        left, up, d = self.basis()
        rel = np.asarray(pts, float).reshape(-1, 3) - np.asarray(self.origin, float)
        z = rel @ d
        z = np.where(z > 1e-6, z, np.nan)
        f = self.focal_px
        w, h = self.size
        return np.stack([w / 2 - f * (rel @ left) / z - 0.5, h / 2 - f * (rel @ up) / z - 0.5], -1)


def aim(target: np.ndarray, tilt_deg: float, azimuth_deg: float, roll_deg: float,
        distance: float, fov_deg: float, size: tuple[int, int]) -> Camera3D:
    """A camera ``distance`` from ``target``, tilted from straight down, turned about z.

    Azimuth 0 is the viewer's side (world -y); the far side of the table is up in
    the picture.
    """
    t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
    back = np.array([math.sin(t) * math.sin(a), -math.sin(t) * math.cos(a), math.cos(t)])
    origin = np.asarray(target, float) + distance * back
    up = np.array([-math.sin(a), math.cos(a), 0.0])
    d = -back
    up = up - d * (up @ d)
    up /= np.linalg.norm(up)
    r = math.radians(roll_deg)  # turn the picture about the viewing axis
    up = up * math.cos(r) + np.cross(d, up) * math.sin(r)
    return Camera3D(tuple(origin), tuple(np.asarray(target, float)), tuple(up), fov_deg, size,
                    tilt_deg)


def framing_camera(rng: np.random.Generator, outline_world: np.ndarray, size: tuple[int, int],
                   max_tilt_deg: float, fill: tuple[float, float]) -> Camera3D:
    """A random camera that sees the whole ``outline_world`` filling ``fill`` of the frame."""
    tilt = float(rng.uniform(0, max_tilt_deg))
    azimuth = float(rng.normal(0, 12))
    roll = float(rng.normal(0, 3))
    fov = float(rng.uniform(48, 68))
    want = float(rng.uniform(*fill))
    centre = outline_world.mean(axis=0)
    centre[2] = 0.0
    lo, hi = 50.0, 20000.0
    for _ in range(40):  # the distance at which the outline just fills ``want`` of the frame
        mid = math.sqrt(lo * hi)
        cam = aim(centre, tilt, azimuth, roll, mid, fov, size)
        px = cam.project(outline_world)
        span = max(np.ptp(px[:, 0]) / size[0], np.ptp(px[:, 1]) / size[1])
        if not np.isfinite(span) or span > want:
            lo = mid
        else:
            hi = mid
    cam = aim(centre, tilt, azimuth, roll, hi, fov, size)
    px = cam.project(outline_world)
    # Shift the aim so the outline is centred, then nudge it a little off centre.
    off = (px.min(0) + px.max(0)) / 2 - np.array(size) / 2 + 0.5
    left, up, _ = cam.basis()
    depth = float(np.linalg.norm(np.asarray(cam.origin) - centre))
    slack = (1 - want) * np.array(size) / 2 * rng.uniform(-0.6, 0.6, 2)
    shift_px = off + slack
    move = (-left * shift_px[0] - up * shift_px[1]) * depth / cam.focal_px
    move[2] = 0.0
    return aim(centre + move, tilt, azimuth, roll, hi, fov, size)
