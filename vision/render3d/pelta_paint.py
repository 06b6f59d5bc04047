"""The painted faces of PeltaPeeps pieces, as flat triangles in the piece's own frame.

The face's "up" is the catalog's angle 0 (+x); across the face is y. An Awake
PeltaPeep has open eyes (dots, ovals, rings with pupils or big round eyes) and
perhaps a mouth; a Sleeping PeltaPeep has closed eyes (lids curved down,
straight lines or lids with lashes); a PeltaDragon Egg has scales (arcs in
staggered rows, dots or small rings). Sizes are in millimetres for a 50 mm
disc and scale with the disc. A set is painted in one style
(:class:`FaceStyle`), drawn per scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Tris = np.ndarray  # (N, 3, 2) triangles in the piece's frame

EYES = ("dots", "ovals", "rings", "big")
MOUTHS = ("smile", "o", "beak", "none")
LIDS = ("arcs", "lines", "lashes")
SCALES = ("arcs", "dots", "rings")
PAINTS = ("white", "black", "engraved")


@dataclass(frozen=True)
class FaceStyle:
    paint: str  # white or black paint, or engraved (frosted lines in the acrylic)
    eyes: str
    mouth: str
    lids: str
    scales: str
    stroke: float  # line width, mm (at a 50 mm disc)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def random_style(rng: np.random.Generator) -> FaceStyle:
    def pick(options: tuple[str, ...]) -> str:
        return options[int(rng.integers(len(options)))]

    return FaceStyle(pick(PAINTS), pick(EYES), pick(MOUTHS), pick(LIDS), pick(SCALES),
                     float(rng.uniform(0.9, 1.6)))


def ellipse(cx: float, cy: float, a: float, b: float, n: int = 20) -> Tris:
    t = np.linspace(0, 2 * math.pi, n + 1)
    ring = np.stack([cx + a * np.cos(t), cy + b * np.sin(t)], -1)
    centre = np.broadcast_to([cx, cy], (n, 2))
    return np.stack([centre, ring[:-1], ring[1:]], 1)


def stroke(points: np.ndarray, width: float) -> Tris:
    """A polyline painted ``width`` wide (quads along it)."""
    p = np.asarray(points, float)
    d = np.gradient(p, axis=0)
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    n = np.stack([-d[:, 1], d[:, 0]], -1) * width / 2
    left, right = p + n, p - n
    tris = []
    for i in range(len(p) - 1):
        tris += [(left[i], right[i], right[i + 1]), (left[i], right[i + 1], left[i + 1])]
    return np.asarray(tris, float)


def arc(cx: float, cy: float, r: float, a0: float, a1: float, width: float, n: int = 12) -> Tris:
    t = np.radians(np.linspace(a0, a1, n))
    return stroke(np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], -1), width)


def ring(cx: float, cy: float, r: float, width: float) -> Tris:
    return arc(cx, cy, r, 0, 360, width, 24)


def _join(parts: list[Tris]) -> Tris:
    parts = [p for p in parts if len(p)]
    return np.concatenate(parts) if parts else np.zeros((0, 3, 2))


def face(kind: str, style: FaceStyle, radius: float) -> Tris:
    """The painted marks of a piece of ``kind`` (egg, sleeping, awake), piece frame, mm."""
    s = radius / 25.0
    w = style.stroke * s
    parts: list[Tris] = []
    if kind == "egg":
        step = 6.5 * s
        for row, x in enumerate(np.arange(-13 * s, 13.1 * s, step)):
            shift = step / 2 if row % 2 else 0.0
            for y in np.arange(-15 * s + shift, 15.1 * s, step):
                if math.hypot(x, y) > 14.5 * s:
                    continue
                if style.scales == "arcs":  # a scale: a half ring opening towards up
                    parts.append(arc(x, y, 2.6 * s, 90, 270, w, 9))
                elif style.scales == "dots":
                    parts.append(ellipse(x, y, 1.2 * s, 1.2 * s, 10))
                else:
                    parts.append(ring(x, y, 1.9 * s, 0.7 * w))
        return _join(parts)
    ex, ey = 4.5 * s, 6.0 * s  # the eyes: a little above the centre, either side
    for side in (-1, 1):
        y = side * ey
        if kind == "sleeping":
            if style.lids == "lines":
                parts.append(stroke(np.array([[ex, y - 3 * s], [ex, y + 3 * s]]), w))
            else:  # a lid curved down, towards the face's bottom
                parts.append(arc(ex + 1.5 * s, y, 3.2 * s, 130, 230, w))
                if style.lids == "lashes":
                    for a in (150, 180, 210):
                        t = math.radians(a)
                        p0 = np.array([ex + 1.5 * s + 3.2 * s * math.cos(t),
                                       y + 3.2 * s * math.sin(t)])
                        parts.append(stroke(np.array([p0, p0 + 1.6 * s * np.array(
                            [math.cos(t), math.sin(t)])]), 0.7 * w))
        elif style.eyes == "dots":
            parts.append(ellipse(ex, y, 2.2 * s, 2.2 * s))
        elif style.eyes == "ovals":
            parts.append(ellipse(ex, y, 3.3 * s, 2.0 * s))
        elif style.eyes == "rings":
            parts.append(ring(ex, y, 3.3 * s, w))
            parts.append(ellipse(ex - 0.6 * s, y, 1.4 * s, 1.4 * s))
        else:
            parts.append(ellipse(ex, y, 3.9 * s, 3.9 * s, 24))
    mouth = style.mouth if kind == "awake" else ("smile" if style.mouth == "smile" else "none")
    if mouth == "smile":
        r = 5.0 * s if kind == "awake" else 2.5 * s
        parts.append(arc(-2.5 * s - r * 0.3, 0.0, r, 140, 220, w))
    elif mouth == "o":
        parts.append(ring(-6.5 * s, 0.0, 2.0 * s, w))
    elif mouth == "beak":
        parts.append(np.array([[[-2.5 * s, -2.2 * s], [-7.5 * s, 0.0], [-2.5 * s, 2.2 * s]]]))
    return _join(parts)
