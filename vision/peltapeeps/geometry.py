"""The physical PeltaPeeps piece: one place for its size and the shape of its connectors.

The engine works in layout units (a disc has radius 1); a real piece is a
laser-cut acrylic disc, so the scale is simply its radius in millimetres. A
connector is cut square (a tab sticks out of the rim, a notch is the same cut
into it) except the Sleeping PeltaPeep's curve, a round scallop that is much
wider at the rim than a notch: that width is how a camera tells them apart.

Shapes are given as signed distances in mm (positive inside the acrylic) in
the piece's own frame, with the connectors already turned as they lie, so the
renderer draws exactly what the reader expects to measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

DISC_RADIUS_MM = 25.0  # a 50 mm disc
MM_PER_UNIT = DISC_RADIUS_MM  # layout units (radius 1) -> mm
TAB_WIDTH_MM = 8.0
TAB_OUT_MM = 6.0  # beyond the rim
TAB_CORNER_MM = 1.5  # laser-cut tabs have rounded corners
NOTCH_WIDTH_MM = 8.0
NOTCH_DEPTH_MM = 6.0  # cut in from the rim: a tab fills it exactly
CURVE_RADIUS_MM = 12.0  # the scallop: a circle of this radius ...
CURVE_DEPTH_MM = 6.0  # ... cutting this deep at its middle
THICKNESS_MM = 3.0
PAINT_RADIUS = 0.62  # painted marks stay inside this share of the radius

# Where the reader looks, in layout units from the centre (see docs/peltapeeps.md).
CUT_ZONE = (0.80, 0.92)  # inside the rim: a notch or curve shows the table here
TAB_ZONE = (1.07, 1.17)  # outside the rim: a tab shows acrylic here
CURVE_MIN_WIDTH_DEG = 28.0  # cut width at 0.9 R: notch ~20 degrees, curve ~37


def _box_sdf(u: np.ndarray, v: np.ndarray, u0: float, u1: float, half_w: float,
             corner: float = 0.0) -> np.ndarray:
    """Signed distance (positive inside) of the box u0..u1 x -half_w..half_w, rounded corners."""
    cu, hu = (u0 + u1) / 2, (u1 - u0) / 2
    qx = np.abs(u - cu) - (hu - corner)
    qy = np.abs(v) - (half_w - corner)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    inside = np.minimum(np.maximum(qx, qy), 0)
    return -(outside + inside - corner)


def piece_sdf(x: np.ndarray, y: np.ndarray, connectors: Sequence[tuple[float, str]]
              ) -> np.ndarray:
    """Signed distance in mm (positive inside) of a piece centred at the origin.

    ``connectors`` are (angle in degrees, type) as the piece lies: the angle is
    the direction (cos a, sin a) in the same frame as ``x``, ``y``.
    """
    r = DISC_RADIUS_MM
    sdf = r - np.hypot(x, y)
    for angle, kind in connectors:
        a = math.radians(angle)
        c, s = math.cos(a), math.sin(a)
        u = x * c + y * s
        v = -x * s + y * c
        if kind == "tab":
            sdf = np.maximum(sdf, _box_sdf(u, v, r - 3.0, r + TAB_OUT_MM, TAB_WIDTH_MM / 2,
                                           TAB_CORNER_MM))
        elif kind == "notch":
            cut = _box_sdf(u, v, r - NOTCH_DEPTH_MM, r + 3.0, NOTCH_WIDTH_MM / 2)
            sdf = np.minimum(sdf, -cut)
        elif kind == "curve":
            centre = r - CURVE_DEPTH_MM + CURVE_RADIUS_MM
            cut = CURVE_RADIUS_MM - np.hypot(u - centre, v)
            sdf = np.minimum(sdf, -cut)
        else:
            raise ValueError(f"unknown connector type {kind!r}")
    return sdf


def outline(connectors: Sequence[tuple[float, str]], steps: int = 720) -> np.ndarray:
    """The piece's outline as a polygon (mm, (N, 2)), for drawing over a photo.

    Found by walking rays from the centre to the sign change of :func:`piece_sdf`.
    """
    angles = np.linspace(0, 2 * math.pi, steps, endpoint=False)
    radii = np.linspace(0.5, 1.35, 171) * DISC_RADIUS_MM
    xs = np.cos(angles)[:, None] * radii[None, :]
    ys = np.sin(angles)[:, None] * radii[None, :]
    inside = piece_sdf(xs, ys, connectors) > 0
    # The last inside sample along each ray (tabs reach further out than the rim).
    last = inside.shape[1] - 1 - np.argmax(inside[:, ::-1], axis=1)
    rim = radii[last]
    return np.stack([np.cos(angles) * rim, np.sin(angles) * rim], axis=1)


def lying(connectors: Sequence[tuple[float, str]], rotation: float, face_up: bool
          ) -> list[tuple[float, str]]:
    """Catalogue connectors (angle, type) as they lie: mirrored face down, then turned."""
    return [(((a if face_up else -a) + rotation) % 360, t) for a, t in connectors]
