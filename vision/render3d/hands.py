"""Hands reaching over the table: palm, fingers, thumb, forearm and sometimes a sleeve.

Skin tones run from pale to very dark. A hand comes from a player's side of the
table towards a tile, resting on it or hovering above, fingers curled down.
"""

from __future__ import annotations

import math

import numpy as np

from vision.render3d import meshes
from vision.render3d.camera import table_to_world
from vision.render3d.colours import SKIN_TONES, srgb_to_linear, varied
from vision.render3d.pieces import ColouredMesh


def _between(a: np.ndarray, b: np.ndarray, radius: float) -> meshes.Mesh:
    """A capsule from world point ``a`` to ``b``."""
    d = b - a
    length = float(np.linalg.norm(d))
    v, f = meshes.capsule(max(length, 1e-3), radius)
    x = d / max(length, 1e-9)
    helper = np.array([0.0, 0.0, 1.0]) if abs(x[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    y = np.cross(helper, x)
    y /= np.linalg.norm(y)
    z = np.cross(x, y)
    rot = np.stack([x, y, z], 1)
    return v @ rot.T + (a + b) / 2, f


def random_hand(rng: np.random.Generator, target_mm: tuple[float, float]
                ) -> tuple[ColouredMesh, ColouredMesh | None]:
    """(skin, sleeve or None) of one hand reaching to ``target_mm`` (table frame)."""
    side = rng.normal(0, 50) if rng.uniform() < 0.7 else rng.uniform(-180, 180)
    a = math.radians(90 + side)  # direction from the player towards the table (table frame)
    toward = np.array([-math.cos(a), math.sin(a), 0.0])  # world: from the player inwards
    across = np.array([-toward[1], toward[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    s = rng.uniform(0.85, 1.15)
    hover = rng.uniform(0, 60) if rng.uniform() < 0.6 else 0.0
    centre = table_to_world(np.asarray([target_mm]), 0.0)[0] + up * (hover + 13 * s)
    spin = math.radians(rng.normal(0, 20))
    toward = toward * math.cos(spin) + across * math.sin(spin)
    across = np.array([-toward[1], toward[0], 0.0])
    parts = [meshes.posed(meshes.ellipsoid((44 * s, 40 * s, 12 * s), 10, 18),
                          np.stack([toward, across, up], 1), centre)]
    curl = rng.uniform(0.1, 0.9)
    for i, offset in enumerate((-21, -7, 7, 20)):
        start = centre + toward * 38 * s + across * offset * s
        lengths = np.array([26, 20, 16]) * s * (0.85 if i in (0, 3) else 1.0)
        radius = 8.5 * s
        direction = toward + across * offset / 120
        direction /= np.linalg.norm(direction)
        pitch = 0.0
        p = start
        for seg in lengths:
            pitch += curl * rng.uniform(0.25, 0.55)
            step = (direction * math.cos(pitch) - up * math.sin(pitch)) * seg
            q = p + step
            q[2] = max(q[2], radius * 0.9)
            parts.append(_between(p, q, radius))
            p = q
            radius *= 0.92
    thumb_side = 1 if rng.uniform() < 0.5 else -1
    t0 = centre + across * thumb_side * 34 * s - toward * 8 * s
    t1 = t0 + (toward * 0.7 + across * thumb_side * 0.7) * 28 * s - up * 5 * s
    t2 = t1 + toward * 22 * s - up * 4 * s
    t1[2], t2[2] = max(t1[2], 8.0), max(t2[2], 8.0)
    parts += [_between(t0, t1, 10 * s), _between(t1, t2, 8.5 * s)]
    wrist = centre - toward * 42 * s
    rise = math.radians(rng.uniform(10, 35))
    elbow = wrist - toward * 330 * math.cos(rise) + up * 330 * math.sin(rise)
    parts.append(_between(wrist, elbow, 27 * s))
    v, f = meshes.merge(parts)
    skin = varied(rng, SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], 3.0, 0.05, 0.06)
    shade = skin * (1 + 0.05 * rng.standard_normal((len(v), 1)))
    sleeve = None
    if rng.uniform() < 0.5:  # a sleeve over the forearm, from a little behind the wrist
        arm = elbow - wrist
        start = wrist + arm * rng.uniform(0.15, 0.45)
        sv, sf = _between(start, elbow + arm * 0.3, 36 * s)
        cloth = srgb_to_linear(rng.integers(20, 230, 3))
        sleeve = (sv, sf, np.tile(cloth, (len(sv), 1)))
    return (v, f, np.clip(shade, 0, 1)), sleeve
