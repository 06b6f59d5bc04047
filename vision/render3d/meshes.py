"""Triangle meshes of the table's objects, as NumPy arrays in millimetres.

Every builder returns ``(vertices (N, 3), faces (M, 3))`` around its own origin;
pieces are posed later by :func:`posed`. Shapes are analytic (ellipsoids bent or
flattened) so that a seed fixes every vertex.
"""

from __future__ import annotations

import math

import numpy as np

Mesh = tuple[np.ndarray, np.ndarray]


def uv_sphere(n_lat: int = 10, n_lon: int = 16) -> Mesh:
    """A unit sphere: ``n_lat`` rings between the poles, ``n_lon`` points a ring."""
    theta = np.linspace(0, math.pi, n_lat + 1)[1:-1]
    phi = np.linspace(0, 2 * math.pi, n_lon, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)
    verts = np.vstack([[0, 0, 1], ring, [0, 0, -1]])
    faces = []
    south = len(verts) - 1
    for j in range(n_lon):
        k = (j + 1) % n_lon
        faces.append((0, 1 + j, 1 + k))
        last = 1 + (n_lat - 2) * n_lon
        faces.append((south, last + k, last + j))
    for i in range(n_lat - 2):
        for j in range(n_lon):
            k = (j + 1) % n_lon
            a, b = 1 + i * n_lon + j, 1 + i * n_lon + k
            c, d = a + n_lon, b + n_lon
            faces += [(a, c, b), (b, c, d)]
    return verts.astype(np.float64), np.asarray(faces, np.int64)


def bean(rng: np.random.Generator) -> Mesh:
    """A jellybean about 20 x 12 x 11 mm, lying on its side: a bent, dented ellipsoid."""
    v, f = uv_sphere(10, 18)
    length = rng.uniform(17.5, 22.0)
    width = length * rng.uniform(0.55, 0.66)
    height = width * rng.uniform(0.85, 1.0)
    x, y, z = v[:, 0] * length / 2, v[:, 1] * width / 2, v[:, 2] * height / 2
    bend = rng.uniform(0.010, 0.030)  # kidney curve along the long axis
    y = y + bend * (x ** 2 - (length / 2) ** 2 / 3)
    taper = rng.uniform(-0.08, 0.08)  # one end a little fatter than the other
    scale = 1 + taper * x / (length / 2)
    y, z = y * scale, z * scale
    out = np.stack([x, y, z + height / 2 * scale.min()], -1)
    out[:, 2] -= out[:, 2].min()
    return out, f


def ellipsoid(axes: tuple[float, float, float], n_lat: int = 10, n_lon: int = 16) -> Mesh:
    v, f = uv_sphere(n_lat, n_lon)
    return v * np.asarray(axes, float), f


def dome(radius: float, height: float, n_lat: int = 8, n_lon: int = 24) -> Mesh:
    """The upper half of an ellipsoid (a half plastic egg lying cut side down), base at z=0."""
    theta = np.linspace(0, math.pi / 2, n_lat + 1)[1:]
    phi = np.linspace(0, 2 * math.pi, n_lon, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([radius * np.sin(t) * np.cos(p), radius * np.sin(t) * np.sin(p),
                     height * np.cos(t)], -1).reshape(-1, 3)
    verts = np.vstack([[0, 0, height], ring, [0, 0, 0]])
    faces = []
    for j in range(n_lon):
        k = (j + 1) % n_lon
        faces.append((0, 1 + j, 1 + k))
    for i in range(n_lat - 1):
        for j in range(n_lon):
            k = (j + 1) % n_lon
            a, b = 1 + i * n_lon + j, 1 + i * n_lon + k
            faces += [(a, a + n_lon, b), (b, a + n_lon, b + n_lon)]
    base = len(verts) - 1
    last = 1 + (n_lat - 1) * n_lon
    for j in range(n_lon):
        faces.append((base, last + (j + 1) % n_lon, last + j))
    return verts, np.asarray(faces, np.int64)


def capsule(length: float, radius: float, n_lat: int = 8, n_lon: int = 12) -> Mesh:
    """A finger segment: a sphere stretched along x, its caps round."""
    v, f = uv_sphere(n_lat, n_lon)
    x = v[:, 0] * radius
    x = np.where(v[:, 0] > 0, x + length / 2, x - length / 2)
    return np.stack([x, v[:, 1] * radius, v[:, 2] * radius], -1), f


def cylinder(length: float, radius: float, n: int = 20) -> Mesh:
    """A closed tube along x from 0 to ``length`` (a sleeve)."""
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    ring = np.stack([np.zeros(n), radius * np.cos(a), radius * np.sin(a)], -1)
    verts = np.vstack([ring, ring + [length, 0, 0], [[0, 0, 0], [length, 0, 0]]])
    faces = []
    for j in range(n):
        k = (j + 1) % n
        faces += [(j, k, n + j), (k, n + k, n + j), (2 * n, k, j), (2 * n + 1, n + j, n + k)]
    return verts, np.asarray(faces, np.int64)


def hexagon_prism(radius: float, thickness: float) -> Mesh:
    """A flat-top hexagonal card of ``radius`` (circumradius), top face at z = thickness."""
    a = np.radians(60 * np.arange(6))
    ring = np.stack([radius * np.cos(a), radius * np.sin(a), np.zeros(6)], -1)
    top = ring + [0, 0, thickness]
    verts = np.vstack([[[0, 0, thickness]], top, ring])
    faces = []
    for j in range(6):
        k = (j + 1) % 6
        faces += [(0, 1 + j, 1 + k), (1 + j, 7 + j, 1 + k), (1 + k, 7 + j, 7 + k)]
    return verts, np.asarray(faces, np.int64)


def rotation(yaw_deg: float, pitch_deg: float = 0.0, roll_deg: float = 0.0) -> np.ndarray:
    """Rotation matrix: roll about x, then pitch about y, then yaw about z."""
    y, p, r = (math.radians(v) for v in (yaw_deg, pitch_deg, roll_deg))
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    return rz @ ry @ rx


def posed(mesh: Mesh, rot: np.ndarray, shift: tuple[float, float, float]) -> Mesh:
    v, f = mesh
    return v @ rot.T + np.asarray(shift, float), f


def merge(meshes: list[Mesh]) -> Mesh:
    """One mesh of many (one Mitsuba shape renders far faster than hundreds)."""
    verts, faces, base = [], [], 0
    for v, f in meshes:
        verts.append(v)
        faces.append(f + base)
        base += len(v)
    return np.vstack(verts), np.vstack(faces)
