"""Where the fiducials sit on the printed kit, in millimetres.

Each Peep War tile carries twelve ArUco markers (5x5 bits, ``DICT_5X5_1000``):
six large ones near the outer vertices, where pieces rarely sit, and six small
ones in the central cell ring outside the supply-center circle. A tile half
covered by hands or pieces still shows several, and any single marker names its
tile and its slot, so one visible marker is enough to find the tile.

Marker id = tile_id * MARKERS_PER_TILE + slot. Slot i (0..5) is the vertex
marker at outer vertex i; slot 6 + i is the central marker towards inner vertex i.
The tile frame is the table frame of a tile lying at the origin unrotated: mm,
x right, y towards the viewer (see ``companion.rules.peepwar.board``).

The 5x5 dictionary corrects two bit errors per marker, so a misread marker is far
more likely to be dropped than to name another tile. Ids above the tiles' range
belong to the calibration card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from companion.rules.peepwar.board import ACROSS_FLATS_MM
from vision.kit_sizes import MAX_TILES  # noqa: F401  (the kit's limit, re-exported)

DICTIONARY_ID = cv2.aruco.DICT_5X5_1000
MARKER_BITS = 5  # data bits per side; the printed marker is MARKER_BITS + 2 modules wide
MARKERS_PER_TILE = 12
NEUTRAL_ID = 0

VERTEX_MARKER_MM = 32.0
VERTEX_MARKER_DIST_MM = 66.0  # centre from the tile centre; leaves 2 modules to the cut edge
CENTRAL_MARKER_MM = 15.0
CENTRAL_MARKER_DIST_MM = 33.0
CENTRAL_SLOTS = slice(6, 12)  # of tile_slots(): the central markers

# The colour-calibration card's four corner markers (top-left, top-right, bottom-right,
# bottom-left), far above the tiles' id range.
CARD_MARKER_IDS: tuple[int, ...] = (990, 991, 992, 993)

# The printed Petri board's eight markers (vision.petri.print_board), between the two.
PETRI_MARKER_IDS: tuple[int, ...] = tuple(range(900, 908))
# The printed map of A Peloponnesian War (vision.peloponnesian.layout), after Petri's.
PELOPONNESIAN_MARKER_IDS: tuple[int, ...] = tuple(range(910, 924))

assert min(CARD_MARKER_IDS) >= MAX_TILES * MARKERS_PER_TILE
assert MAX_TILES * MARKERS_PER_TILE <= min(PETRI_MARKER_IDS) <= max(PETRI_MARKER_IDS) < min(
    CARD_MARKER_IDS)
assert max(PETRI_MARKER_IDS) < min(PELOPONNESIAN_MARKER_IDS) <= max(
    PELOPONNESIAN_MARKER_IDS) < min(CARD_MARKER_IDS)
assert VERTEX_MARKER_DIST_MM + VERTEX_MARKER_MM / 2 < ACROSS_FLATS_MM / 2


@dataclass(frozen=True)
class MarkerSlot:
    """One marker position on a tile: its slot number, size and corners in tile mm."""

    slot: int
    size_mm: float
    corners_mm: np.ndarray  # (4, 2): the marker's own TL, TR, BR, BL corners

    @property
    def centre_mm(self) -> np.ndarray:
        return self.corners_mm.mean(axis=0)


@cache
def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY_ID)


def square_corners(centre: tuple[float, float], size: float, down_angle_deg: float) -> np.ndarray:
    """Corners TL, TR, BR, BL of a square marker whose own "down" points at ``down_angle_deg``.

    The same function places markers when printing and when detecting, so the
    two can never disagree about where a corner is.
    """
    a = math.radians(down_angle_deg)
    down = np.array([math.cos(a), math.sin(a)])
    right = np.array([down[1], -down[0]])  # image axes: down is right turned +90 degrees
    c = np.asarray(centre, dtype=float)
    h = size / 2
    tl = c - h * right - h * down
    return np.array([tl, tl + size * right, tl + size * right + size * down, tl + size * down])


@cache
def tile_slots() -> tuple[MarkerSlot, ...]:
    """The twelve marker slots of a tile, indexed by slot number."""
    slots = []
    for i in range(6):
        a = math.radians(60 * i)
        d = VERTEX_MARKER_DIST_MM
        corners = square_corners((d * math.cos(a), d * math.sin(a)), VERTEX_MARKER_MM, 60 * i + 180)
        slots.append(MarkerSlot(i, VERTEX_MARKER_MM, corners))
    for i in range(6):
        a = math.radians(60 * i)
        d = CENTRAL_MARKER_DIST_MM
        centre = (d * math.cos(a), d * math.sin(a))
        corners = square_corners(centre, CENTRAL_MARKER_MM, 60 * i + 180)
        slots.append(MarkerSlot(6 + i, CENTRAL_MARKER_MM, corners))
    return tuple(slots)


def marker_id(tile_id: int, slot: int) -> int:
    if not 0 <= tile_id < MAX_TILES:
        raise ValueError(f"tile id {tile_id} is out of range: use 0..{MAX_TILES - 1}")
    if not 0 <= slot < MARKERS_PER_TILE:
        raise ValueError(f"marker slot {slot} is out of range: use 0..{MARKERS_PER_TILE - 1}")
    return tile_id * MARKERS_PER_TILE + slot


def split_marker_id(mid: int) -> tuple[int, int] | None:
    """(tile id, slot) for a tile marker id, or None when the id is not a tile's."""
    if 0 <= mid < MAX_TILES * MARKERS_PER_TILE:
        return divmod(int(mid), MARKERS_PER_TILE)
    return None


@cache
def marker_bits(mid: int) -> np.ndarray:
    """The marker's module grid including its black border: 1 = white, 0 = black."""
    side = MARKER_BITS + 2
    img = cv2.aruco.generateImageMarker(dictionary(), int(mid), side, borderBits=1)
    return (img > 127).astype(np.uint8)
