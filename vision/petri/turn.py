"""Which way round a commercial Petri board lies: its six tips look alike from one frame.

The lattice fit finds the star up to a turn of 60 degrees; which tip is home k
must come from elsewhere. In order of trust:

1. ``game``: the board the game holds (the referee's state, given to the reader
   before each read). Most pieces stay where they were between two readings, so
   the turn that puts the seen pieces on the game's is the board's turn.
2. ``homes``: the players' homes (the game's, or ``--home`` in the profile).
   Pieces grow from their player's home, so the turn keeping each piece nearest
   its home is the likely one -- when it is clearly better than the others.
3. ``carried``: the turn accepted from an earlier frame, kept as where home 0's
   tip lay on screen (a camera on a stand and a board that stays put).
4. otherwise the turn cannot be told: with pieces on the board the reading says
   so (``doubt``: every piece doubtful, a warning), never a confident wrong name.
   With no piece in view the names change nothing that is read (``free``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from vision.geometry import apply_h
from vision.petri.holes import HOLE_QR, TIPS, home_of, ring, rotate

CARRY_DEG = 25.0  # home 0's tip may lie this far from where it lay before (a nudged camera)
DOUBT_CONFIDENCE = 0.3  # a piece's confidence when the board's turn is in doubt
_ROT = np.array([[0, -1, 0], [1, 1, 0], [0, 0, 1]], float)  # (q, r) -> (-r, q + r)
TIP_WARNING = "the board looks the same from every side"


def _names() -> tuple[dict[str, int], ...]:
    """Per turn t: board hole name -> index of the fitted hole that name falls on."""
    out = []
    for t in range(6):
        out.append({"{},{}".format(*rotate(int(q), int(r), t)): i
                    for i, (q, r) in enumerate(HOLE_QR)})
    return tuple(out)


_NAME_AT = _names()


def _home_distances() -> tuple[dict[tuple[int, int], int], ...]:
    """Per home k: every hole's distance (in holes) from the nearest hole of home k."""
    out = []
    for k in range(6):
        home = [(int(q), int(r)) for q, r in HOLE_QR if home_of(int(q), int(r)) == k]
        out.append({(int(q), int(r)): min(ring(int(q) - a, int(r) - b) for a, b in home)
                    for q, r in HOLE_QR})
    return tuple(out)


_HOME_DISTANCE = _home_distances()


@dataclass(frozen=True)
class Turn:
    turn: int  # 60-degree turns taking the fitted lattice to the board's own names
    how: str  # "game", "homes", "carried", "free" or "doubt"
    note: str | None = None  # a warning for the observation


def board_homography(hq: np.ndarray, turn: int) -> np.ndarray:
    """The lattice -> frame homography in the board's own names, for a fitted one."""
    return hq @ np.linalg.matrix_power(np.linalg.inv(_ROT), turn)


def tip_direction(hq: np.ndarray, turn: int) -> np.ndarray:
    """The unit vector on screen from the board's centre to home 0's tip, under ``turn``."""
    h = board_homography(hq, turn)
    centre, tip = apply_h(h, np.array([[0.0, 0.0], [float(TIPS[0][0]), float(TIPS[0][1])]]))
    d = tip - centre
    return d / (np.hypot(*d) + 1e-9)


def _game_scores(states: list[str], board: Mapping[str, str]) -> list[int]:
    """Per turn: the game's pieces seen where the game has them, less those seen as another
    player's (an empty hole counts nothing: the piece may have been captured)."""
    scores = []
    for t in range(6):
        at, s = _NAME_AT[t], 0
        for hole, player in board.items():
            i = at.get(hole)
            seen = states[i] if i is not None else "?"
            if seen == player:
                s += 1
            elif seen not in ("", "?"):
                s -= 1
        scores.append(s)
    return scores


def _home_costs(states: list[str], homes: Mapping[str, int]) -> list[int] | None:
    known = [(HOLE_QR[i], homes[p]) for i, p in enumerate(states) if p in homes]
    if not known:
        return None
    cost = []
    for t in range(6):
        c = 0
        for (q, r), k in known:
            c += _HOME_DISTANCE[k].get(rotate(int(q), int(r), t), 16)
        cost.append(c)
    return cost


def decide(hq: np.ndarray, states: list[str], homes: Mapping[str, int],
           board: Mapping[str, str] | None = None, carried: np.ndarray | None = None) -> Turn:
    """The board's turn for a fitted lattice ``hq`` whose holes read ``states`` (player,
    "" empty, "?" hidden; in fitted order), from the game's ``board`` (hole -> player),
    the players' ``homes`` and the ``carried`` direction of home 0's tip, in that order."""
    candidates = list(range(6))
    if board:
        scores = _game_scores(states, board)
        top = max(scores)
        tied = [t for t in candidates if scores[t] == top]
        rest = max((s for s in scores if s != top), default=-len(board) - 1)
        if top > 0 and len(tied) == 1 and top - rest >= max(1, math.ceil(0.2 * len(board))):
            return Turn(tied[0], "game")
        if top > 0:
            candidates = tied
    costs = _home_costs(states, homes)
    guess = candidates[0]
    if costs is not None:
        ranked = sorted(candidates, key=lambda t: costs[t])
        guess = ranked[0]
        if len(ranked) == 1 or costs[ranked[1]] - costs[guess] >= max(2, 0.15 * costs[guess]):
            return Turn(guess, "homes")
    if carried is not None:
        cos = {t: float(tip_direction(hq, t) @ carried) for t in candidates}
        best = max(cos, key=lambda t: cos[t])
        if cos[best] >= math.cos(math.radians(CARRY_DEG)):
            return Turn(best, "carried")
    if not any(s not in ("", "?") for s in states):
        # No piece in view: any turn reads the same; home 0 is the tip on the right.
        right = max(range(6), key=lambda t: tip_direction(hq, t)[0])
        return Turn(right, "free")
    # The likeliest turn, its pieces all doubtful: the players are asked, not told.
    return Turn(guess, "doubt",
                f"{TIP_WARNING}: which home is which cannot be told from this frame (give "
                "--home PLAYER=K, or play with the game so its board is compared): every "
                "piece is reported doubtful")
