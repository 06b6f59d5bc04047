"""PeltaPeeps pieces as solid 3D shapes: laser-cut acrylic discs with tabs, notches, curves.

A piece is the catalog's disc extruded to a sheet's thickness. Its outline is
built from the cutting geometry of one set (:class:`CutGeometry`): the disc's
radius, the tab's width and length, the notch cut to take that tab with a
little play, and the Sleeping PeltaPeep's curve, a circular scallop through
its lips and its bottom, all drawn within the catalog's ``sizes_mm``. Every
piece of a set is cut with the same geometry; sets differ (:func:`random_geometry`).

Local frame: millimetres, the disc's centre at the origin, a connector at
catalog angle ``a`` pointing along ``(cos a, sin a)``, as the engine's table
frame has it (x right, y towards the viewer, angles clockwise in a top view).

>>> g = CutGeometry(25.0, 3.0, 7.0, 4.0, 7.6, 4.4, 18.0, 6.0, 1.0)
>>> from companion.rules.peltapeeps.catalog import default_catalog
>>> outline = piece_outline(default_catalog("core").piece("E1"), g)
>>> round(float(outline[:, 0].max()), 3)  # the tab's end: 4 mm out of the rim
29.0
>>> tris = triangulate(outline)
>>> bool(abs(polygon_area(outline) - sum(polygon_area(outline[t]) for t in tris)) < 1e-6)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.rules.peltapeeps.catalog import Catalog, Piece, default_catalog

# The catalog gives each connector's width and depth and the disc's diameter as
# ranges (``sizes_mm``, :class:`~companion.rules.peltapeeps.catalog.Sizes`); a set's
# sizes are drawn within them (see :func:`random_geometry`). What the catalog does not
# give is drawn from these: the sheet's thickness, and the play a cut leaves a tab.
THICKNESS_MM = (2.5, 4.0)
NOTCH_PLAY_MM = (0.2, 0.9)  # a notch is this much wider than the tab it takes (if it can)
ARC_STEP_DEG = 2.0


@dataclass(frozen=True)
class CutGeometry:
    radius: float  # mm
    thickness: float
    tab_width: float
    tab_length: float  # how far a tab sticks out of the rim
    notch_width: float
    notch_depth: float
    curve_width: float  # chord of the curve's scallop on the rim
    curve_depth: float  # from the rim to the scallop's bottom
    corner: float  # radius of the tab's (and notch's) rounded corners

    @property
    def notch_play(self) -> float:
        return self.notch_width - self.tab_width

    @property
    def curve_half_angle(self) -> float:
        """Degrees either side of the curve's axis where its lips meet the rim."""
        return math.degrees(math.asin(self.curve_width / 2 / self.radius))

    @property
    def reach(self) -> float:
        """How far (mm) from its centre any part of a piece lies, at most."""
        return self.radius + self.tab_length

    def to_json(self) -> dict:
        return {k: round(v, 3) for k, v in self.__dict__.items()}


def random_geometry(rng: np.random.Generator, catalog: Catalog | None = None) -> CutGeometry:
    """One set's cutting sizes, each drawn within the catalog's range (``sizes_mm``; the
    shipped sizes when no catalog is given): the disc's diameter, the tab's width and
    length, the notch's and the curve's width and depth. A notch takes the set's tab:
    it is at least as deep, and wider by some play where the ranges leave room."""
    sizes = (catalog or default_catalog()).sizes

    def draw(size, lo: float | None = None, hi: float | None = None) -> float:
        a = size.low if lo is None else min(max(size.low, lo), size.high)
        b = size.high if hi is None else max(min(size.high, hi), a)
        return float(rng.uniform(a, b)) if b > a else float(a)

    radius = draw(sizes.disc_diameter) / 2
    play = float(rng.uniform(*NOTCH_PLAY_MM))
    tab_width = draw(sizes.tab_width, hi=sizes.notch_width.high - play)
    notch_width = draw(sizes.notch_width, lo=tab_width + play)
    tab_length = draw(sizes.tab_depth, hi=sizes.notch_depth.high)
    notch_depth = draw(sizes.notch_depth, lo=tab_length)
    curve_width = draw(sizes.curve_width)
    curve_depth = draw(sizes.curve_depth)
    corner = float(rng.uniform(0.3, 0.5)) * tab_width * float(rng.choice([0.3, 1.0]))
    return CutGeometry(radius, float(rng.uniform(*THICKNESS_MM)), tab_width, tab_length,
                       notch_width, notch_depth, curve_width, curve_depth,
                       min(corner, tab_width / 2 - 0.05))


def _rounded_u(x_rim: float, x_end: float, half: float, corner: float, outward: bool
               ) -> np.ndarray:
    """A tab (``outward``) or notch profile in the connector's frame (x along its axis),
    from the rim at y = -half to the rim at y = +half, corners rounded."""
    pts = [(x_rim, -half)]
    sign = 1.0 if outward else -1.0
    c = max(min(corner, half - 1e-3, abs(x_end - x_rim) - 1e-3), 0.0)
    for side in (-1.0, 1.0):
        cx, cy = x_end - sign * c, side * (half - c)
        # the quarter turn from the side wall to the end wall (or back)
        angles = np.linspace(0, math.pi / 2, 6)
        if side < 0:
            arc = [(cx + sign * c * math.sin(a), cy - c * math.cos(a)) for a in angles]
        else:
            arc = [(cx + sign * c * math.cos(a), cy + c * math.sin(a)) for a in angles]
        pts.extend(arc)
    pts.append((x_rim, half))
    return np.asarray(pts, float)


def _scallop(g: CutGeometry) -> np.ndarray:
    """The curve's profile in its frame: a circular arc from lip to lip through the bottom."""
    r = g.radius
    b = math.radians(g.curve_half_angle)
    s = r * math.sin(b)
    x_b = r - g.curve_depth
    h = r * math.cos(b) - x_b  # the bottom's depth below the chord between the lips
    rho = (h * h + s * s) / (2 * h)
    x_c = x_b + rho
    phi0 = math.atan2(s, rho - h)
    phis = np.linspace(-phi0, phi0, 15)
    return np.stack([x_c - rho * np.cos(phis), rho * np.sin(phis)], -1)


def connector_profile(ctype: str, g: CutGeometry) -> np.ndarray:
    """The outline across one connector, in its frame, from its -y lip to its +y lip."""
    r = g.radius
    if ctype == "tab":
        half = g.tab_width / 2
        return _rounded_u(math.sqrt(r * r - half * half), r + g.tab_length, half, g.corner, True)
    if ctype == "notch":
        half = g.notch_width / 2
        return _rounded_u(math.sqrt(r * r - half * half), r - g.notch_depth, half,
                          g.corner + g.notch_play / 2, False)
    return _scallop(g)


def piece_outline(piece: Piece, g: CutGeometry) -> np.ndarray:
    """The piece's outline (N, 2), counter-clockwise in the x-right / y-up sense, face up."""
    cons = sorted(piece.connectors, key=lambda c: c.angle)
    r = g.radius
    if not cons:
        a = np.radians(np.arange(0, 360, ARC_STEP_DEG))
        return np.stack([r * np.cos(a), r * np.sin(a)], -1)
    pieces = []
    spans = []
    for c in cons:
        prof = connector_profile(c.type, g)
        a = math.radians(c.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        pts = prof @ rot.T
        lo = math.degrees(math.atan2(pts[0, 1], pts[0, 0]))
        hi = math.degrees(math.atan2(pts[-1, 1], pts[-1, 0]))
        spans.append((lo, hi))
        pieces.append(pts)
    out = []
    for i, pts in enumerate(pieces):
        out.append(pts)
        hi = spans[i][1]
        lo_next = spans[(i + 1) % len(pieces)][0]
        gap = (lo_next - hi) % 360
        n = max(int(gap / ARC_STEP_DEG), 1)
        a = np.radians(hi + gap * np.arange(1, n) / n)
        out.append(np.stack([r * np.cos(a), r * np.sin(a)], -1))
    poly = np.vstack([p for p in out if len(p)])
    step = np.hypot(*(poly - np.roll(poly, 1, axis=0)).T)
    return poly[step > 1e-6]  # the corners' arcs end where the straight runs begin


def polygon_area(p: np.ndarray) -> float:
    """Signed area (positive counter-clockwise)."""
    x, y = p[:, 0], p[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def triangulate(poly: np.ndarray) -> np.ndarray:
    """Ear clipping of a simple polygon: (N - 2, 3) vertex indices, each triangle
    counter-clockwise (a clockwise polygon is walked backwards)."""
    idx = list(range(len(poly)))
    if polygon_area(np.asarray(poly, float)) < 0:
        idx.reverse()
    tris = []
    pts = np.asarray(poly, float)
    guard = 0
    while len(idx) > 3 and guard < 10 * len(poly):
        guard += 1
        p = pts[idx]
        prev, nxt = np.roll(p, 1, axis=0), np.roll(p, -1, axis=0)
        cross = (p[:, 0] - prev[:, 0]) * (nxt[:, 1] - p[:, 1]) - \
            (p[:, 1] - prev[:, 1]) * (nxt[:, 0] - p[:, 0])
        reflex = p[cross <= 1e-12]
        m = len(idx)
        clipped = False
        for i in np.argsort(-cross):  # the most convex corners first: fat triangles
            if cross[i] <= 1e-12:
                break
            a, b, c = prev[i], p[i], nxt[i]
            if len(reflex):
                # any reflex vertex strictly inside the triangle forbids the ear
                def side(u, v, q):
                    return (v[0] - u[0]) * (q[:, 1] - u[1]) - (v[1] - u[1]) * (q[:, 0] - u[0])
                inside = (side(a, b, reflex) > 1e-12) & (side(b, c, reflex) > 1e-12) & \
                    (side(c, a, reflex) > 1e-12)
                if inside.any():
                    continue
            tris.append((idx[(i - 1) % m], idx[i], idx[(i + 1) % m]))
            del idx[i]
            clipped = True
            break
        if not clipped:  # numerically stuck (collinear run): drop the flattest corner
            del idx[int(np.argmin(np.abs(cross)))]
    if len(idx) == 3:
        tris.append(tuple(idx))
    return np.asarray(tris, np.int64)


@dataclass(frozen=True)
class Solid:
    """An extruded outline: flat faces (top and bottom) and the cut edge, as meshes."""

    faces_v: np.ndarray
    faces_f: np.ndarray
    edge_v: np.ndarray
    edge_f: np.ndarray


def extrude(outline: np.ndarray, thickness: float) -> Solid:
    """The outline as a slab from z = 0 to ``thickness``, in a frame where +z is up and
    (x, y) are as the outline has them (right-handed); faces wound to face outwards."""
    if polygon_area(outline) < 0:
        outline = outline[::-1]
    n = len(outline)
    tri = triangulate(outline)
    top = np.column_stack([outline, np.full(n, thickness)])
    bottom = np.column_stack([outline, np.zeros(n)])
    faces_v = np.vstack([top, bottom])
    faces_f = np.vstack([tri, tri[:, ::-1] + n])
    i = np.arange(n)
    j = (i + 1) % n
    edge_v = np.vstack([top, bottom])
    # outward normals for a counter-clockwise outline: (top i, bottom i, bottom j) ...
    edge_f = np.vstack([np.stack([i, i + n, j + n], -1), np.stack([i, j + n, j], -1)])
    return Solid(faces_v, faces_f, edge_v, edge_f)
