"""Random Peep War layouts placed by hand: lattice positions plus placement error.

Tiles grow from the Neutral Territory the way players lay them, each new tile
sharing a side with one already down. The lattice is the table frame's own
(tile (q, r) ideally centred at ``tile_centre_mm((q, r))``, upright). Every tile
other than the Neutral one gets a random sixth of a turn and a hand-placement
error of its own; the Neutral tile sits exactly at the origin unless asked to
lie off too. With drift, each tile is laid against the neighbour it was pushed
against, which is itself off: its lattice frame is that neighbour's, moved one
step, then shifted and turned a little more, the same way at every step, so the
error grows along each chain of tiles.
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


@dataclass(frozen=True)
class Misplacement:
    """How far off the lattice tiles lie beyond each tile's own random jitter.

    ``neutral_mm`` and ``neutral_deg``: the Neutral tile lies exactly this far from
    the origin (in a random direction) and this far turned (either way).
    ``neutral_jitter``: the Neutral tile also gets a random jitter like the others.
    ``drift_mm`` and ``drift_deg``: each tile lies this much off the neighbour it was
    pushed against (one direction and one sense of turn for the whole table).
    """

    neutral_mm: float = 0.0
    neutral_deg: float = 0.0
    neutral_jitter: bool = False
    drift_mm: float = 0.0
    drift_deg: float = 0.0

    @property
    def any(self) -> bool:
        return bool(self.neutral_mm or self.neutral_deg or self.neutral_jitter
                    or self.drift_mm or self.drift_deg)


def random_layout(
    rng: np.random.Generator,
    n_tiles: int,
    jitter_mm: float = 15.0,
    jitter_deg: float = 10.0,
    any_rotation: bool = True,
    misplaced: Misplacement | None = None,
) -> list[PlacedTile]:
    """``n_tiles`` tiles grown from the Neutral one; ids other than 0 are random and distinct.

    Without ``misplaced`` the random draws are the same as they always were, so a
    seed gives the same layout.
    """
    if not 1 <= n_tiles <= MAX_TILES:
        raise ValueError(f"n_tiles must be 1..{MAX_TILES}")
    hexes: list[Hex] = [NEUTRAL]
    while len(hexes) < n_tiles:
        frontier = sorted({n for h in hexes for n in tile_neighbours(h)} - set(hexes))
        hexes.append(frontier[rng.integers(len(frontier))])
    ids = [NEUTRAL_ID] + [int(i) for i in rng.choice(np.arange(1, MAX_TILES), n_tiles - 1, False)]
    jitters: list[tuple[float, float, float]] = []  # (dx, dy, turn) off each tile's frame
    rotations = [0]
    for _ in hexes[1:]:
        r = jitter_mm * math.sqrt(rng.uniform())
        a = rng.uniform(0, 2 * math.pi)
        rot = int(rng.integers(6)) if any_rotation else 0
        turn = rng.uniform(-jitter_deg, jitter_deg)
        jitters.append((r * math.cos(a), r * math.sin(a), turn))
        rotations.append(rot)
    if misplaced is None or not misplaced.any:
        placed = [PlacedTile(NEUTRAL_ID, NEUTRAL, Pose2D(0.0, 0.0, 0.0), 0)]
        for tile_id, hx, (dx, dy, turn), rot in zip(ids[1:], hexes[1:], jitters, rotations[1:],
                                                     strict=True):
            cx, cy = tile_centre_mm(hx)
            placed.append(PlacedTile(tile_id, hx, Pose2D(cx + dx, cy + dy, 60 * rot + turn), rot))
        return placed
    return _misplaced(rng, ids, hexes, rotations, jitters, jitter_mm, jitter_deg, misplaced)


def _misplaced(rng: np.random.Generator, ids: list[int], hexes: list[Hex], rotations: list[int],
               jitters: list[tuple[float, float, float]], jitter_mm: float, jitter_deg: float,
               m: Misplacement) -> list[PlacedTile]:
    # Every draw here comes after the plain layout's, which therefore stays the same.
    a = rng.uniform(0, 2 * math.pi)
    turn = m.neutral_deg * (1 if rng.uniform() < 0.5 else -1)
    dx, dy = m.neutral_mm * math.cos(a), m.neutral_mm * math.sin(a)
    if m.neutral_jitter:
        r, b = jitter_mm * math.sqrt(rng.uniform()), rng.uniform(0, 2 * math.pi)
        dx, dy = dx + r * math.cos(b), dy + r * math.sin(b)
        turn += rng.uniform(-jitter_deg, jitter_deg)
    drift_dir = rng.uniform(0, 2 * math.pi)
    drift_turn = m.drift_deg * (1 if rng.uniform() < 0.5 else -1)
    drift = m.drift_mm * np.array([math.cos(drift_dir), math.sin(drift_dir)])
    # Lattice frames: where each tile's upright, unjittered print would lie.
    frames = {NEUTRAL: Pose2D(0.0, 0.0, 0.0)}
    physical = [Pose2D(dx, dy, turn)]
    for k, hx in enumerate(hexes[1:], start=1):
        # Pushed against the neighbour laid last (the chains grow longest that way).
        parent = next(h for h in reversed(hexes[:k]) if h in tile_neighbours(hx))
        step = np.subtract(tile_centre_mm(hx), tile_centre_mm(parent))
        pf = frames[parent]
        c, s = math.cos(math.radians(pf.angle_deg)), math.sin(math.radians(pf.angle_deg))
        centre = np.array([pf.x, pf.y]) + np.array([c * step[0] - s * step[1],
                                                    s * step[0] + c * step[1]]) + drift
        frames[hx] = Pose2D(float(centre[0]), float(centre[1]), pf.angle_deg + drift_turn)
        jx, jy, jturn = jitters[k - 1]
        f = frames[hx]
        physical.append(Pose2D(f.x + jx, f.y + jy, f.angle_deg + 60 * rotations[k] + jturn))
    return [PlacedTile(tile_id, hx, pose, rot)
            for tile_id, hx, pose, rot in zip(ids, hexes, physical, rotations, strict=True)]
