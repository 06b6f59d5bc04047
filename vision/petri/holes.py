"""The 121 holes of the Chinese-checkers star in the board's millimetre frame.

Holes are named ``"q,r"`` (table standard, section 7). On the board a hole lies at
x = (sqrt 3 / 2) P q, y = P (r + q / 2) mm from the centre hole, P the pitch
(distance between neighbouring holes), x right and y down as in section 2, so
home k's tip T[k] points at 60 k degrees (clockwise from +x in a top view).
The reader needs the same star as the rules, but vision may not import the rules'
package, so the star is built here from the standard's definition.

>>> len(HOLES), HOLES.index((0, 0)) >= 0, home_of(8, -4), home_of(0, 0)
(121, True, 0, None)
>>> [round(v, 3) for v in hole_mm(4, 4, 1.0)]
[3.464, 6.0]
"""

from __future__ import annotations

import math

import numpy as np

TIPS: tuple[tuple[int, int], ...] = ((8, -4), (4, 4), (-4, 8), (-8, 4), (-4, -4), (4, -8))


def on_star(q: int, r: int) -> bool:
    s = -q - r
    return max(q, r, s) <= 4 or min(q, r, s) >= -4


HOLES: tuple[tuple[int, int], ...] = tuple(
    (q, r) for r in range(-8, 9) for q in range(-8, 9) if on_star(q, r))
HOLE_NAMES: tuple[str, ...] = tuple(f"{q},{r}" for q, r in HOLES)
HOLE_QR = np.array(HOLES, float)  # (121, 2)


def ring(q: int, r: int) -> int:
    return max(abs(q), abs(r), abs(q + r))


def home_of(q: int, r: int) -> int | None:
    """The home (0..5) a hole belongs to, or None for the central hexagon."""
    if ring(q, r) <= 4:
        return None
    for k, (tq, tr) in enumerate(TIPS):
        if ring(q - tq, r - tr) <= 3:
            return k
    return None


def hole_mm(q: float, r: float, pitch: float) -> tuple[float, float]:
    return (math.sqrt(3) / 2 * pitch * q, pitch * (r + q / 2))


def lattice_to_mm(pitch: float) -> np.ndarray:
    """The 3x3 affine map (q, r, 1) -> (x, y, 1) mm."""
    return np.array([[math.sqrt(3) / 2 * pitch, 0, 0], [pitch / 2, pitch, 0], [0, 0, 1]])


def holes_mm(pitch: float) -> np.ndarray:
    """(121, 2) hole centres in mm from the centre hole, in HOLES order."""
    return HOLE_QR @ lattice_to_mm(pitch)[:2, :2].T


def rotate(q: int, r: int, turns: int) -> tuple[int, int]:
    """(q, r) turned by 60 degrees ``turns`` times about the centre (home k -> home k+turns)."""
    for _ in range(turns % 6):
        q, r = -r, q + r
    return q, r
