"""The physical PeltaPeeps piece: its size and the shape of its connectors.

The engine works in layout units (a disc has radius 1); a real piece is a
laser-cut acrylic disc, so the scale is simply its radius in millimetres. A
connector is cut square (a tab sticks out of the rim, a notch is the same cut
into it) except the Sleeping PeltaPeep's curve, a round scallop that is much
wider at the rim than a notch: that width is how a camera tells them apart.

The sizes come from the catalog (``sizes_mm``, :class:`~companion.rules.peltapeeps.catalog.Sizes`):
:meth:`PieceGeometry.from_sizes` makes the shape a set's pieces have, at their
nominal sizes or at either end of their ranges. :data:`DEFAULT_GEOMETRY` is the
shipped sets' nominal shape, which the renderer draws. The reader measures
every disc's radius in the photo (its scale), so it works in shares of the
radius: :meth:`PieceGeometry.share` turns mm into them.

Shapes are given as signed distances in mm (positive inside the acrylic) in
the piece's own frame, with the connectors already turned as they lie, so the
renderer draws exactly what the reader expects to measure.

>>> g = DEFAULT_GEOMETRY
>>> g.radius_mm, g.tab_width_mm, g.notch_depth_mm, round(g.curve_radius_mm, 1)
(25.0, 8.0, 6.0, 12.0)
>>> round(g.width_deg("notch")), round(g.width_deg("curve"))
(18, 43)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.rules.peltapeeps.catalog import Sizes

TAB_CORNER_MM = 1.5  # laser-cut tabs have rounded corners
THICKNESS_MM = 3.0
PAINT_RADIUS = 0.62  # painted marks stay inside this share of the radius


def scallop_radius(radius: float, width: float, depth: float) -> float:
    """The radius of the circle that cuts a scallop ``width`` across at the rim and
    ``depth`` deep into a disc of ``radius`` (all mm). Widths beyond what the depth
    allows (a straight cut) give a very flat scallop.

    >>> round(scallop_radius(25.0, 18.337, 6.0), 2)
    12.0
    """

    def half_width(rho: float) -> float:
        c = radius - depth + rho  # the scallop's centre, from the disc's
        x = (radius**2 + c**2 - rho**2) / (2 * c)
        return math.sqrt(max(radius**2 - x**2, 0.0))

    lo, hi = depth / 2, 1000.0 * radius
    for _ in range(80):  # half_width grows with rho
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if half_width(mid) < width / 2 else (lo, mid)
    return math.sqrt(lo * hi)


@dataclass(frozen=True)
class PieceGeometry:
    """One shape of a set's pieces, in mm."""

    radius_mm: float
    tab_width_mm: float
    tab_out_mm: float  # beyond the rim
    notch_width_mm: float
    notch_depth_mm: float  # cut in from the rim
    curve_width_mm: float  # across, at the rim
    curve_depth_mm: float  # at its middle
    # The shapes at the low and high ends of the catalog's ranges (none when measured).
    ends: tuple[PieceGeometry, ...] = ()

    @staticmethod
    def from_sizes(sizes: Sizes, end: str = "nominal") -> PieceGeometry:
        """The shape at the ``nominal`` sizes (with both ends of the ranges in ``ends``),
        or every size at its ``low`` or ``high`` end."""

        def pick(name: str, at: str) -> float:
            size = getattr(sizes, name)
            return float(size.nominal if at == "nominal" else getattr(size, at))

        def at(which: str, ends: tuple[PieceGeometry, ...] = ()) -> PieceGeometry:
            return PieceGeometry(
                pick("disc_diameter", which) / 2, pick("tab_width", which),
                pick("tab_depth", which), pick("notch_width", which),
                pick("notch_depth", which), pick("curve_width", which),
                pick("curve_depth", which), ends)

        if end != "nominal":
            return at(end)
        ends = tuple(g for g in (at("low"), at("high")) if g != at("nominal"))
        return at("nominal", ends)

    @functools.cached_property
    def curve_radius_mm(self) -> float:
        """The scallop's circle."""
        return scallop_radius(self.radius_mm, self.curve_width_mm, self.curve_depth_mm)

    def share(self, mm: float) -> float:
        """``mm`` as a share of the disc's radius (how the reader measures)."""
        return mm / self.radius_mm

    def width_deg(self, kind: str) -> float:
        """How many degrees round the disc a connector of ``kind`` spans at the rim."""
        width = {"tab": self.tab_width_mm, "notch": self.notch_width_mm,
                 "curve": self.curve_width_mm}[kind]
        return 2 * math.degrees(math.asin(min(1.0, width / 2 / self.radius_mm)))

    def sdf(self, x: np.ndarray, y: np.ndarray, connectors: Sequence[tuple[float, str]]
            ) -> np.ndarray:
        """Signed distance in mm (positive inside) of a piece centred at the origin.

        ``connectors`` are (angle in degrees, type) as the piece lies: the angle is
        the direction (cos a, sin a) in the same frame as ``x``, ``y``.
        """
        r = self.radius_mm
        sdf = r - np.hypot(x, y)
        for angle, kind in connectors:
            a = math.radians(angle)
            c, s = math.cos(a), math.sin(a)
            u = x * c + y * s
            v = -x * s + y * c
            if kind == "tab":
                sdf = np.maximum(sdf, _box_sdf(u, v, r - 3.0, r + self.tab_out_mm,
                                               self.tab_width_mm / 2, TAB_CORNER_MM))
            elif kind == "notch":
                cut = _box_sdf(u, v, r - self.notch_depth_mm, r + 3.0, self.notch_width_mm / 2)
                sdf = np.minimum(sdf, -cut)
            elif kind == "curve":
                rho = self.curve_radius_mm
                cut = rho - np.hypot(u - (r - self.curve_depth_mm + rho), v)
                sdf = np.minimum(sdf, -cut)
            else:
                raise ValueError(f"unknown connector type {kind!r}")
        return sdf


def _default() -> PieceGeometry:
    from companion.rules.peltapeeps.catalog import default_catalog

    return PieceGeometry.from_sizes(default_catalog().sizes)


DEFAULT_GEOMETRY = _default()  # the shipped sets, at their nominal sizes
DISC_RADIUS_MM = DEFAULT_GEOMETRY.radius_mm  # 25: a 50 mm disc
MM_PER_UNIT = DISC_RADIUS_MM  # layout units (radius 1) -> mm
TAB_WIDTH_MM = DEFAULT_GEOMETRY.tab_width_mm
TAB_OUT_MM = DEFAULT_GEOMETRY.tab_out_mm
NOTCH_WIDTH_MM = DEFAULT_GEOMETRY.notch_width_mm
NOTCH_DEPTH_MM = DEFAULT_GEOMETRY.notch_depth_mm  # a tab fills it exactly
CURVE_RADIUS_MM = DEFAULT_GEOMETRY.curve_radius_mm
CURVE_DEPTH_MM = DEFAULT_GEOMETRY.curve_depth_mm


def _box_sdf(u: np.ndarray, v: np.ndarray, u0: float, u1: float, half_w: float,
             corner: float = 0.0) -> np.ndarray:
    """Signed distance (positive inside) of the box u0..u1 x -half_w..half_w, rounded corners."""
    cu, hu = (u0 + u1) / 2, (u1 - u0) / 2
    qx = np.abs(u - cu) - (hu - corner)
    qy = np.abs(v) - (half_w - corner)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    inside = np.minimum(np.maximum(qx, qy), 0)
    return -(outside + inside - corner)


def piece_sdf(x: np.ndarray, y: np.ndarray, connectors: Sequence[tuple[float, str]],
              geometry: PieceGeometry | None = None) -> np.ndarray:
    """Signed distance in mm (positive inside) of a piece of ``geometry`` (default: the
    shipped sets') centred at the origin; see :meth:`PieceGeometry.sdf`."""
    return (geometry or DEFAULT_GEOMETRY).sdf(x, y, connectors)


def outline(connectors: Sequence[tuple[float, str]], steps: int = 720,
            geometry: PieceGeometry | None = None) -> np.ndarray:
    """The piece's outline as a polygon (mm, (N, 2)), for drawing over a photo.

    Found by walking rays from the centre to the sign change of :func:`piece_sdf`.
    """
    angles = np.linspace(0, 2 * math.pi, steps, endpoint=False)
    g = geometry or DEFAULT_GEOMETRY
    radii = np.linspace(0.5, 1.0 + max(0.35, 1.4 * g.share(g.tab_out_mm)), 171) * g.radius_mm
    xs = np.cos(angles)[:, None] * radii[None, :]
    ys = np.sin(angles)[:, None] * radii[None, :]
    inside = g.sdf(xs, ys, connectors) > 0
    # The last inside sample along each ray (tabs reach further out than the rim).
    last = inside.shape[1] - 1 - np.argmax(inside[:, ::-1], axis=1)
    rim = radii[last]
    return np.stack([np.cos(angles) * rim, np.sin(angles) * rim], axis=1)


def lying(connectors: Sequence[tuple[float, str]], rotation: float, face_up: bool
          ) -> list[tuple[float, str]]:
    """Catalogue connectors (angle, type) as they lie: mirrored face down, then turned."""
    return [(((a if face_up else -a) + rotation) % 360, t) for a, t in connectors]
