"""The Chinese-checkers star of 121 holes (table standard, section 7).

Holes are named ``"q,r"`` in axial coordinates; the centre is ``"0,0"``. The
board is every (q, r) with max(q, r, s) <= 4 or min(q, r, s) >= -4
(s = -q - r). Home k is the point of the star whose tip is ``TIPS[k]``: the ten
holes beyond the central hexagon on that side; homes k and k+3 are opposite.

>>> len(HOLES), len(HOLES) - sum(len(h) for h in HOMES)
(121, 61)
>>> sorted(neighbours("8,-4"))
['7,-3', '7,-4']
>>> home_of_hole("8,-4"), home_of_hole("0,0")
(0, None)
>>> default_homes(3)
(0, 2, 4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from companion.errors import quoted

# Neighbour directions, as for the hex tiles of section 2.
D = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
TIPS = ((8, -4), (4, 4), (-4, 8), (-8, 4), (-4, -4), (4, -8))
HOME_SIZE = 10


def name(q: int, r: int) -> str:
    return f"{q},{r}"


def coords(hole: str) -> tuple[int, int]:
    """(q, r) of a hole name; ValueError when it is no hole of the board."""
    parts = hole.strip().split(",")
    try:
        q, r = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"{quoted(hole)} is not a hole: write q,r, e.g. 0,0 or 5,-2") from None
    if (q, r) not in _COORDS:
        raise ValueError(f"{quoted(hole)} is not on the board (the star of 121 holes)")
    return q, r


def parse_hole(text: str) -> str:
    """The canonical name of the hole ``text`` names ("5, -2" → "5,-2")."""
    return name(*coords(text))


def _on_board(q: int, r: int) -> bool:
    s = -q - r
    return max(q, r, s) <= 4 or min(q, r, s) >= -4


def _ring(q: int, r: int) -> int:
    return max(abs(q), abs(r), abs(q + r))


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return _ring(a[0] - b[0], a[1] - b[1])


# Reading order: top row first (smallest r), left to right (smallest q).
_COORDS = sorted(((q, r) for q in range(-8, 9) for r in range(-8, 9) if _on_board(q, r)),
                 key=lambda c: (c[1], c[0]))
HOLES: tuple[str, ...] = tuple(name(q, r) for q, r in _COORDS)
INDEX: dict[str, int] = {h: i for i, h in enumerate(HOLES)}
NEIGHBOURS: dict[str, tuple[str, ...]] = {
    name(q, r): tuple(name(q + dq, r + dr) for dq, dr in D if _on_board(q + dq, r + dr))
    for q, r in _COORDS
}
HOMES: tuple[frozenset[str], ...] = tuple(
    frozenset(name(*c) for c in _COORDS if _ring(*c) > 4 and _distance(c, tip) <= 3)
    for tip in TIPS
)


def neighbours(hole: str) -> tuple[str, ...]:
    return NEIGHBOURS[hole]


def home_of_hole(hole: str) -> int | None:
    """Which home a hole lies in (None for the central hexagon)."""
    return next((k for k, h in enumerate(HOMES) if hole in h), None)


def hole_order(hole: str) -> int:
    """Sort key: the board's reading order, top row first."""
    return INDEX[hole]


def default_homes(players: int) -> tuple[int, ...]:
    """The usual tips: 2 opposite, 3 alternate, 4 two opposite pairs, 5 all but one, 6 all."""
    return {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4),
            6: (0, 1, 2, 3, 4, 5)}[players]


def homes_problem(homes: Sequence[int]) -> str | None:
    """Why ``homes`` (one tip per player, in seat order) is not a usual choice, or None."""
    n = len(homes)
    if any(not isinstance(k, int) or not 0 <= k <= 5 for k in homes):
        return "homes are tips 0 to 5"
    if len(set(homes)) != n:
        return "each player needs a home of their own"
    chosen = set(homes)
    opposite = all((k + 3) % 6 in chosen for k in chosen)
    if n == 2 and not opposite:
        return "two players sit at opposite tips (k and k+3)"
    if n == 3 and len({k % 2 for k in chosen}) != 1:
        return "three players sit at alternate tips (0,2,4 or 1,3,5)"
    if n == 4 and not opposite:
        return "four players sit at two opposite pairs of tips"
    return None


PITCH = 1.0  # the distance between neighbouring holes, in the picture's units


def position(hole: str) -> tuple[float, float]:
    """Where a hole sits in a picture: x right, y down, neighbours ``PITCH`` apart."""
    q, r = coords(hole)
    return PITCH * (q + r / 2), PITCH * math.sqrt(3) / 2 * r
