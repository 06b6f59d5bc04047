"""Fitting a tile's printed art to the top-down image, where its markers fix it poorly.

A tile placed from one or two markers has a pose good near those markers and a few
millimetres off across the tile (a 32 mm marker's corners fix the angle to a degree
or two: 3 mm at the far side). Then the cells, and the print the reader must tell from
pieces, sit where they are not, and print read as pieces makes phantom beans and
"hidden print" makes phantom hands. The tile's whole printed art (cell lines, rings,
every marker) fixes it far better: its pose is refined by aligning the art, drawn at
the pose, with the image (OpenCV's ECC, a rigid motion), masked to the tile and the
camera's view. Pieces and hands over the print are outliers the correlation tolerates.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM, hexagon_mm
from vision.geometry import Pose2D, apply_h, wrap_deg

FIT_MAX_MARKERS = 3  # tiles placed from this few markers are fitted to their print
FIT_MIN_CORRELATION = 0.5  # below this the art and the image do not agree: pose kept
FIT_MIN_GAIN = 0.01  # ... nor when the fit does not agree better than the pose did
FIT_MAX_SHIFT_MM = 10.0  # a fit that moves the tile farther than this, or ...
FIT_MAX_TURN_DEG = 5.0  # ... turns it more, has locked onto something else: pose kept
_MARGIN_PX = 6
_ITERATIONS = 30


def fit_to_print(image: np.ndarray, seen: np.ndarray, to_mm: np.ndarray, art: np.ndarray,
                 art_to_tile: np.ndarray, pose: Pose2D) -> Pose2D | None:
    """``pose`` refined so that the tile's ``art`` matches ``image``, or None if no better.

    ``image`` is the top-down view (BGR), ``seen`` where the camera saw it, ``to_mm`` the
    3x3 map from its pixels to table mm (a scale and a shift), ``art`` the tile's print
    (grey) and ``art_to_tile`` the map from art pixels to the tile's own mm.

    >>> from vision.peepwar.mosaic import _art_grey, _art_to_tile
    >>> art, art_to_tile = _art_grey(5), _art_to_tile()
    >>> to_mm = np.array([[1.0, 0, -120], [0, 1.0, -110], [0, 0, 1]])
    >>> truth = Pose2D(0.0, 0.0, 0.0)
    >>> m = np.linalg.inv(to_mm) @ truth.matrix() @ art_to_tile
    >>> top = cv2.warpAffine(art, m[:2], (240, 220), flags=cv2.INTER_AREA, borderValue=255)
    >>> image = cv2.cvtColor(top, cv2.COLOR_GRAY2BGR)
    >>> seen = np.ones((220, 240), bool)
    >>> fit = fit_to_print(image, seen, to_mm, art, art_to_tile, Pose2D(3.0, -2.0, 1.5))
    >>> abs(fit.x) < 0.3, abs(fit.y) < 0.3, abs(fit.angle_deg) < 0.2
    (True, True, True)
    """
    s = 1.0 / to_mm[0, 0]
    origin = to_mm[:2, 2]
    outline = pose.apply(np.asarray(hexagon_mm((0, 0), R_MM)))
    h, w = image.shape[:2]
    x0, y0 = np.maximum(np.floor((outline.min(axis=0) - origin) * s).astype(int) - _MARGIN_PX, 0)
    x1, y1 = np.minimum(np.ceil((outline.max(axis=0) - origin) * s).astype(int) + _MARGIN_PX,
                        (w, h))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    crop = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ np.linalg.inv(to_mm)
    observed = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    drawn = cv2.warpAffine(art, (crop @ pose.matrix() @ art_to_tile)[:2], (x1 - x0, y1 - y0),
                           flags=cv2.INTER_LINEAR, borderValue=255).astype(np.float32)
    mask = np.zeros(observed.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(apply_h(crop, outline)).astype(np.int32)], 1)
    # Off the tile's cut edge the table shows; outside the camera's view, nothing.
    mask = cv2.erode(mask & seen[y0:y1, x0:x1].view(np.uint8), np.ones((5, 5), np.uint8))
    if cv2.countNonZero(mask) < 0.3 * mask.size:
        return None
    try:
        before = cv2.computeECC(observed, drawn, mask)
        after, warp = cv2.findTransformECC(
            observed, drawn, np.eye(2, 3, dtype=np.float32), cv2.MOTION_EUCLIDEAN,
            (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, _ITERATIONS, 1e-4), mask, 3)
    except cv2.error:  # the correlation did not converge: nothing there to fit
        return None
    if after < FIT_MIN_CORRELATION or after < before + FIT_MIN_GAIN:
        return None
    # drawn(W p) ~ observed(p): the art belongs where W^-1 puts it.
    move = np.linalg.inv(crop) @ np.linalg.inv(np.vstack([warp, [0, 0, 1]])) @ crop
    fitted = Pose2D.from_matrix(move @ pose.matrix())
    shift = math.hypot(fitted.x - pose.x, fitted.y - pose.y)
    turn = abs(wrap_deg(fitted.angle_deg - pose.angle_deg))
    if shift > FIT_MAX_SHIFT_MM or turn > FIT_MAX_TURN_DEG:
        return None
    return fitted
