"""Camera intrinsics from photos of the printed ChArUco board (``companion print charuco``).

Optional: tile finding works without it, but a wide-angle lens bends straight
lines, and the one-homography-per-frame model of the table then misplaces the
cells near the frame's edges by millimetres. With intrinsics in the profile,
marker corners are undistorted before fitting.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.charuco import board
from vision.lens import Intrinsics

MIN_VIEWS = 4
MIN_CORNERS = 8  # ChArUco corners per usable photo


class CameraCalibrationError(ValueError):
    """The photos cannot calibrate the camera; the message says what to change."""


def board_points(image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(object points mm, image points) of the board's corners seen in ``image``, or None."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.CharucoDetector(board())
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    obj, img = board().matchImagePoints(corners, ids)
    if obj is None or len(obj) < MIN_CORNERS:
        return None
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


def calibrate_camera(images: list[np.ndarray]) -> tuple[Intrinsics, float, int]:
    """Intrinsics, RMS reprojection error (px) and the number of photos used."""
    if not images:
        raise CameraCalibrationError("no photos given: pass photos of the ChArUco board")
    size = (images[0].shape[1], images[0].shape[0])
    objs, imgs = [], []
    for image in images:
        if (image.shape[1], image.shape[0]) != size:
            raise CameraCalibrationError(
                "the photos differ in size: use photos from one camera at one resolution"
            )
        found = board_points(image)
        if found is not None:
            objs.append(found[0])
            imgs.append(found[1])
    if len(objs) < MIN_VIEWS:
        raise CameraCalibrationError(
            f"the ChArUco board was found in {len(objs)} of {len(images)} photos; need "
            f"{MIN_VIEWS}: photograph the whole board flat, from several angles, in focus"
        )
    rms, k, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None)
    return Intrinsics(k, dist.ravel()[:5], size), float(rms), len(objs)
