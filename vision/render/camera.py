"""A random pinhole camera above the table, and lens distortion for rendered frames.

The table is the plane z = 0 with z pointing into it, so a camera above the
table has negative z. For a plane the whole projection is one homography
K [r1 r2 t]; framing the layout is then a scale and shift of the image, which is
the same as choosing focal length and principal point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import apply_h
from vision.lens import undistort_points


@dataclass(frozen=True)
class Camera:
    """The homography from table mm to image pixels, and the intrinsics that produced it."""

    homography: np.ndarray  # table mm -> undistorted image (OpenCV pixel coordinates)
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray  # (5,) k1 k2 p1 p2 k3; zeros for an ideal lens
    size: tuple[int, int]  # (width, height)
    tilt_deg: float
    yaw_deg: float

    def centre_mm(self) -> np.ndarray:
        """Where the camera stands: (x, y) over the table and its height, in mm.

        >>> k = np.array([[800.0, 0, 640], [0, 800, 360], [0, 0, 1]])
        >>> h = look_at_homography(k, np.array([10.0, 20.0]), 500.0, 0.0, 0.0, 0.0)
        >>> cam = Camera(h, k, np.zeros(5), (1280, 720), 0.0, 0.0)
        >>> [round(float(v), 6) for v in cam.centre_mm()]
        [10.0, 20.0, 500.0]
        """
        m = np.linalg.solve(self.camera_matrix, self.homography)
        m = m / np.linalg.norm(m[:, 0])
        if m[2, 2] < 0:  # the table lies in front of the camera (positive depth)
            m = -m
        r = np.column_stack([m[:, 0], m[:, 1], np.cross(m[:, 0], m[:, 1])])
        c = -r.T @ m[:, 2]
        return np.array([c[0], c[1], -c[2]])


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def look_at_homography(
    k: np.ndarray, target: np.ndarray, distance: float, tilt: float, yaw: float, roll: float
) -> np.ndarray:
    """Table mm -> pixels for a camera with matrix ``k`` looking at ``target`` (x, y mm).

    Angles in radians: ``tilt`` from straight down, ``yaw`` the direction it
    leans, ``roll`` the turn of the image about the optical axis.
    """
    r_wc = _rot_z(yaw) @ _rot_x(tilt) @ _rot_z(roll)  # camera axes in table coordinates
    cam_centre = np.append(np.asarray(target, float), 0.0) - distance * r_wc[:, 2]
    r = r_wc.T
    t = -r @ cam_centre
    hom = k @ np.column_stack([r[:, 0], r[:, 1], t])
    return hom / hom[2, 2]


def random_camera(
    rng: np.random.Generator,
    table_pts: np.ndarray,
    size: tuple[int, int],
    max_tilt_deg: float,
    fill: tuple[float, float] = (0.7, 0.95),
    tilt_deg: float | None = None,
    aim: bool = False,
) -> Camera:
    """A camera that sees every point of ``table_pts`` (mm) and fills ``fill`` of the frame.

    The layout is framed by a zoom and a shift of the image. By default the shift is a
    crop, which moves the principal point off the frame's centre (for a table-plane scene
    the two are the same picture). With ``aim`` it is a turn of the camera, as a person
    aims a webcam: the principal point stays at the frame's centre, where a reader not
    given the camera's calibration assumes it when it places the camera over the table
    (:mod:`vision.viewpoint`). Either way the camera stands in the same place.
    """
    w, h = size
    tilt = math.radians(rng.uniform(0, max_tilt_deg) if tilt_deg is None else tilt_deg)
    yaw = rng.uniform(0, 2 * math.pi)
    roll = rng.uniform(0, 2 * math.pi)
    fov = math.radians(rng.uniform(50, 75))
    f = (w / 2) / math.tan(fov / 2)
    extent = float(np.ptp(table_pts, axis=0).max()) + 1.0
    dist = extent / (2 * math.tan(fov / 2)) * 1.6
    k = np.array([[f, 0, w / 2 - 0.5], [0, f, h / 2 - 0.5], [0, 0, 1]])
    hom = look_at_homography(k, table_pts.mean(axis=0), dist, tilt, yaw, roll)

    # Scale and shift the image so the layout fills the frame (a zoom and a crop).
    img = apply_h(hom, table_pts)
    lo, hi = img.min(axis=0), img.max(axis=0)
    span = hi - lo
    s = rng.uniform(*fill) * min(w / span[0], h / span[1])
    slack = np.array([w, h]) - s * span
    off = rng.uniform(0.1, 0.9, size=2) * slack - s * lo
    sim = np.array([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    if aim:
        return _aimed(hom, k, sim, table_pts, (w, h), math.degrees(yaw))
    hom = sim @ hom
    k = sim @ k
    return Camera(
        hom / hom[2, 2], k, np.zeros(5), (w, h), math.degrees(tilt), math.degrees(yaw)
    )


def _aimed(hom: np.ndarray, k: np.ndarray, sim: np.ndarray, table_pts: np.ndarray,
           size: tuple[int, int], yaw_deg: float) -> Camera:
    """The framing ``sim`` (a zoom and a shift of the image) made with the lens and the
    camera's aim instead: the zoom about the frame's centre is a longer focal length, the
    shift that is left a turn of the camera that carries the centre's ray there. A turn
    bends the layout's outline a little; the shift is shortened until it is in frame."""
    w, h = size
    s = sim[0, 0]
    centre = k[:2, 2]
    shift = sim[:2, 2] + s * centre - centre  # what is left of sim after a zoom about centre
    kz = k.copy()
    kz[0, 0] *= s
    kz[1, 1] *= s
    zoomed = kz @ np.linalg.solve(k, hom)
    for _ in range(20):
        ray = np.array([shift[0] / kz[0, 0], shift[1] / kz[1, 1], 1.0])
        turn = _turn_onto(ray / np.linalg.norm(ray))
        out = kz @ turn @ np.linalg.solve(kz, zoomed)
        img = apply_h(out, table_pts)
        if img.min() >= 0 and (img[:, 0] <= w - 1).all() and (img[:, 1] <= h - 1).all():
            break
        shift = 0.8 * shift
    out = out / out[2, 2]
    m = np.linalg.solve(kz, out)
    normal = np.cross(m[:, 0], m[:, 1])  # the table's normal in camera axes
    tilt = math.degrees(math.acos(min(1.0, abs(normal[2]) / float(np.linalg.norm(normal)))))
    return Camera(out, kz, np.zeros(5), size, tilt, yaw_deg)


def _turn_onto(v: np.ndarray) -> np.ndarray:
    """The rotation (camera axes) taking the optical axis (0, 0, 1) onto unit vector ``v``
    by the shortest turn."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, v)
    sin = float(np.linalg.norm(axis))
    if sin < 1e-12:
        return np.eye(3)
    rot, _ = cv2.Rodrigues(axis / sin * math.atan2(sin, float(v @ z)))
    return rot


def distort_image(image: np.ndarray, camera_matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """The frame a lens with ``dist`` would record of the ideal image ``image``."""
    h, w = image.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1)
    src = undistort_points(grid, camera_matrix, dist).astype(np.float32)
    map_x = src[:, 0].reshape(h, w)
    map_y = src[:, 1].reshape(h, w)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def viewer_camera(table_pts: np.ndarray, size: tuple[int, int], tilt_deg: float = 12.0,
                  fill: float = 0.9, fov_deg: float = 60.0) -> Camera:
    """A camera on the players' side, tilted ``tilt_deg`` from straight down, table upright.

    Table x runs right and table y down the image, as on the page's board; the
    layout is centred and fills ``fill`` of the frame.
    """
    w, h = size
    f = (w / 2) / math.tan(math.radians(fov_deg) / 2)
    extent = float(np.ptp(table_pts, axis=0).max()) + 1.0
    dist = extent / (2 * math.tan(math.radians(fov_deg) / 2)) * 1.6
    k = np.array([[f, 0, w / 2 - 0.5], [0, f, h / 2 - 0.5], [0, 0, 1]])
    hom = look_at_homography(k, table_pts.mean(axis=0), dist, math.radians(tilt_deg), 0.0, 0.0)
    img = apply_h(hom, table_pts)
    lo, hi = img.min(axis=0), img.max(axis=0)
    span = hi - lo
    s = fill * min(w / span[0], h / span[1])
    off = (np.array([w, h]) - s * span) / 2 - s * lo
    sim = np.array([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    hom = sim @ hom
    return Camera(hom / hom[2, 2], sim @ k, np.zeros(5), (w, h), float(tilt_deg), 0.0)
