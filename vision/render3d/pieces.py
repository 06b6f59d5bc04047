"""Meshes of the pieces, posed in the world: beans, marshmallow peeps, half eggs.

Each kind is gathered into one mesh with a colour per vertex, so a scene of two
hundred beans is one shape for the path tracer and each bean keeps its own shade.
"""

from __future__ import annotations

import numpy as np

from vision.render3d import meshes
from vision.render3d.content import Piece

ColouredMesh = tuple[np.ndarray, np.ndarray, np.ndarray]  # vertices, faces, colours (linear RGB)


def _pose(p: Piece) -> tuple[np.ndarray, tuple[float, float, float]]:
    # Table frame (y towards the viewer) to world (z up): yaw turns the other way.
    return meshes.rotation(-p.yaw, p.pitch, p.roll), (p.x, -p.y, p.z)


def _lumpy(rng: np.random.Generator, mesh: meshes.Mesh, amount: float) -> meshes.Mesh:
    """Little bumps in the surface: marshmallow is not a perfect ellipsoid."""
    v, f = mesh
    c = v.mean(0)
    d = v - c
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return c + d * (1 + amount * rng.standard_normal((len(v), 1)) / np.maximum(n, 1e-6)), f


def bean_mesh(rng: np.random.Generator, p: Piece) -> ColouredMesh:
    v, f = meshes.bean(rng)
    v = v * p.size
    rot, shift = _pose(p)
    v, f = meshes.posed((v, f), rot, shift)
    return v, f, np.tile(p.colour, (len(v), 1))


def peep_mesh(rng: np.random.Generator, p: Piece) -> tuple[ColouredMesh, ColouredMesh]:
    """A marshmallow chick, head towards +x before posing: (sugar-coated body, eyes)."""
    s = p.size * rng.uniform(0.95, 1.05)
    body = _lumpy(rng, meshes.ellipsoid((25 * s, 15 * s, 14 * s), 14, 22), 0.25)
    body = (body[0] + [-5 * s, 0, 13 * s], body[1])
    head = _lumpy(rng, meshes.ellipsoid((11 * s, 10.5 * s, 11 * s), 12, 18), 0.2)
    head = (head[0] + [15 * s, 0, 25 * s], head[1])
    tail = meshes.ellipsoid((9 * s, 9 * s, 8 * s), 8, 12)
    tail = (tail[0] + [-24 * s, 0, 19 * s], tail[1])
    beak = meshes.ellipsoid((5 * s, 3.5 * s, 3 * s), 6, 8)
    beak = (beak[0] + [26 * s, 0, 25 * s], beak[1])
    v, f = meshes.merge([body, head, tail, beak])
    v[:, 2] = np.maximum(v[:, 2], 0.0)  # its base is flat on the table
    eyes = meshes.merge([(meshes.ellipsoid((1.8 * s, 1.8 * s, 2.3 * s), 6, 8)[0]
                          + [20 * s, side * 7.5 * s, 28 * s],
                          meshes.ellipsoid((1, 1, 1), 6, 8)[1]) for side in (-1, 1)])
    rot, shift = _pose(p)
    v, f = meshes.posed((v, f), rot, shift)
    ev, ef = meshes.posed(eyes, rot, shift)
    eye_colour = np.array([0.012, 0.008, 0.006])
    return (v, f, np.tile(p.colour, (len(v), 1))), (ev, ef, np.tile(eye_colour, (len(ev), 1)))


def egg_mesh(rng: np.random.Generator, p: Piece) -> ColouredMesh:
    """Half a plastic egg, cut side down over the Supply Center circle."""
    v, f = meshes.dome(p.size, p.size * rng.uniform(1.15, 1.4))
    v, f = meshes.posed((v, f), np.eye(3), (p.x, -p.y, 0.0))
    return v, f, np.tile(p.colour, (len(v), 1))


def gather(parts: list[ColouredMesh]) -> ColouredMesh | None:
    if not parts:
        return None
    v, f = meshes.merge([(a, b) for a, b, _ in parts])
    return v, f, np.vstack([c for _, _, c in parts])
