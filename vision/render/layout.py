"""Random Peep War layouts placed by hand: lattice positions plus placement jitter.

Tiles grow from the Neutral Territory the way players lay them, each new tile
sharing a side with one already down. The Neutral tile defines the table frame,
so it sits exactly at the origin; every other tile gets a random quarter-turn of
the hexagon (any of six orientations) and a hand-placement error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.rules.peepwar.board import NEUTRAL, Hex, tile_centre_mm, tile_neighbours
from vision.geometry import Pose2D
from vision.kit_layout import MAX_TILES, NEUTRAL_ID


@dataclass(frozen=True)
class PlacedTile:
    """A tile on the table: its printed id, its lattice cell and its true physical pose."""

    tile_id: int
    hex: Hex
    pose: Pose2D  # tile frame -> table frame, the printed tile as it really lies
    rotation: int  # sixths of a turn the print is turned, 0..5


def random_layout(
    rng: np.random.Generator,
    n_tiles: int,
    jitter_mm: float = 15.0,
    jitter_deg: float = 10.0,
    any_rotation: bool = True,
) -> list[PlacedTile]:
    """``n_tiles`` tiles grown from the Neutral one; ids other than 0 are random and distinct."""
    if not 1 <= n_tiles <= MAX_TILES:
        raise ValueError(f"n_tiles must be 1..{MAX_TILES}")
    hexes: list[Hex] = [NEUTRAL]
    while len(hexes) < n_tiles:
        frontier = sorted({n for h in hexes for n in tile_neighbours(h)} - set(hexes))
        hexes.append(frontier[rng.integers(len(frontier))])
    ids = [NEUTRAL_ID] + [int(i) for i in rng.choice(np.arange(1, MAX_TILES), n_tiles - 1, False)]
    placed = [PlacedTile(NEUTRAL_ID, NEUTRAL, Pose2D(0.0, 0.0, 0.0), 0)]
    for tile_id, hx in zip(ids[1:], hexes[1:], strict=True):
        cx, cy = tile_centre_mm(hx)
        r = jitter_mm * math.sqrt(rng.uniform())
        a = rng.uniform(0, 2 * math.pi)
        rot = int(rng.integers(6)) if any_rotation else 0
        angle = 60 * rot + rng.uniform(-jitter_deg, jitter_deg)
        pose = Pose2D(cx + r * math.cos(a), cy + r * math.sin(a), angle)
        placed.append(PlacedTile(tile_id, hx, pose, rot))
    return placed
