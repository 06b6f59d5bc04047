"""A second judge of each hole: what the reader's measures of a hole say, weighed together.

The hole rules of :mod:`vision.petri.read` each look at one thing (a share of the
player's colour, a pattern like the frame's empty holes, a colour like theirs, a ring
of something foreign). A hole beside a glass marble that spreads its colour, behind a
tall peg seen at a tilt, or in a home's coloured plastic passes some of them and fails
others, and each rule's threshold then decides alone. This model sees every measure of
a hole at once, with the same two players' shares in the holes round it (a peg in
front of a hole lends that hole its colour when the camera is tilted; a marble's colour
spreads to all its neighbours), and gives the chance of each of four readings:

0. a piece of the player whose colour fills most of the hole's middle,
1. empty,
2. a piece of the player whose colour fills the next most of it,
3. hidden (a hand over it), or a piece of another player or of no player's colour.

It is a small network (:data:`FEATURES` inputs, one hidden layer) run in NumPy from
``hole_model.json``, trained by ``python -m vision.petri.training`` on both scene
generators' tuning frames (never their held-out seeds).

>>> len(FEATURES), len(CLASSES)
(31, 4)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import numpy as np

from vision.errors import ModelError
from vision.hidden_layer import HiddenLayerNet, checked_weights
from vision.petri.holes import HOLE_QR, lattice_to_mm

MODEL = Path(__file__).with_name("hole_model.json")
SURE = 0.85  # the model's chance from which a reading is reported sure (confidence 0.5)
DISAGREE = 0.4  # top confidence of a hole the rules and the model read differently
CLASSES = ("best", "empty", "second", "hidden")
FEATURES = (
    "top share", "second share", "empty pattern", "contrast", "foreign ring",
    "like empty holes", "empty colour known", "like the surface round it",
    "near the player's colour", "near the second player's colour",
    "colour over empty holes' 0", "colour over empty holes' 1", "colour over empty holes' 2",
    "colour over the player's 0", "colour over the player's 1", "colour over the player's 2",
    "neighbours' most of this colour", "neighbours' mean of this colour",
    "neighbours' most of the second colour",
    "the hole in front's share of this colour", "the hole behind's share of this colour",
    "tilt", "printed sheet", "placement in doubt",
    "rules: piece", "rules: empty", "rules: hidden", "rules: piece like empty",
    "rules' confidence", "players", "holes in view",
)

# The six neighbours of a hole, in lattice steps, and each hole's neighbour indices
# (-1 off the star).
_STEPS = np.array([[1, 0], [0, 1], [-1, 1], [-1, 0], [0, -1], [1, -1]], float)
_INDEX = {(int(q), int(r)): i for i, (q, r) in enumerate(HOLE_QR)}
NEIGHBOURS = np.array([[_INDEX.get((int(q + a), int(r + b)), -1) for a, b in _STEPS]
                       for q, r in HOLE_QR])
_STEP_MM = _STEPS @ lattice_to_mm(1.0)[:2, :2].T  # unit pitch


@dataclass(frozen=True)
class HoleMeasures:
    """The reader's measures of every hole of one frame (all arrays of 121 rows)."""

    shares: np.ndarray  # (121, P) each player's share of the hole's middle
    colour: np.ndarray  # (121, 3) the median colour features of the hole's middle
    player_means: np.ndarray  # (P, 3) the players' colour models
    player_invs: np.ndarray  # (P, 3, 3)
    empty_look: tuple[np.ndarray, np.ndarray] | None  # the frame's empty holes' colour model
    ncc: np.ndarray  # correlation with the frame's empty holes' pattern
    contrast: np.ndarray  # the patch's spread over the frame's empty holes' median spread
    foreign: np.ndarray  # share of the ring round the hole that is neither board nor player
    like_surface: np.ndarray | None  # distance to the board's surface round the hole
    view: np.ndarray  # bool: the hole is in the frame
    state: list[str]  # the rules' reading: a player, "" empty, "?" hidden
    confidence: np.ndarray  # the rules' confidence
    doubted_as_empty: np.ndarray  # bool: a player's colour that is also an empty hole's
    printed: bool
    placed_in_doubt: bool
    homography: np.ndarray  # lattice (q, r) -> frame pixels, as fitted

    @cached_property
    def ranked(self) -> np.ndarray:
        """(121, P) the players by their share of each hole, largest first (ties in the
        profile's order)."""
        return np.argsort(-self.shares, axis=1, kind="stable")


def tilt_neighbours(hq: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Each hole's neighbour nearer the camera and farther from it, and the tilt.

    A board tilted away from the camera is drawn smaller where it is farther: the local
    scale of the lattice -> frame map grows towards the camera. Its gradient (fitted
    over the holes) says which way is "in front" without knowing the lens. The tilt is
    the scale's relative change per hole step."""
    q = HOLE_QR
    p = np.c_[q, np.ones(len(q))] @ hq.T
    w = p[:, 2:3]
    xy = p[:, :2] / w
    jac = (hq[None, :2, :2] - xy[:, :, None] * hq[None, 2:3, :2]) / w[:, :, None]
    scale = np.sqrt(np.abs(np.linalg.det(jac)))
    mm = q @ lattice_to_mm(1.0)[:2, :2].T
    a = np.c_[np.ones(len(q)), mm]
    coef, *_ = np.linalg.lstsq(a, scale, rcond=None)
    g = coef[1:]
    tilt = float(np.linalg.norm(g) / max(float(scale.mean()), 1e-9))
    if tilt < 1e-6:
        return NEIGHBOURS[:, 0], NEIGHBOURS[:, 3], 0.0
    along = _STEP_MM @ (g / np.linalg.norm(g))
    front, back = int(np.argmax(along)), int(np.argmin(along))
    return NEIGHBOURS[:, front], NEIGHBOURS[:, back], tilt


def _distance(x: np.ndarray, means: np.ndarray, invs: np.ndarray) -> np.ndarray:
    d = x - means
    invs = np.broadcast_to(invs, (len(d), 3, 3))
    return np.sqrt(np.maximum(np.einsum("ni,nij,nj->n", d, invs, d), 0))


def evidence(m: HoleMeasures) -> np.ndarray:
    """(121, len(FEATURES)) float32: the model's inputs."""
    n = len(m.shares)
    rows = np.arange(n)
    p = m.shares.shape[1]
    order = m.ranked
    best, runner = order[:, 0], order[:, 1] if p > 1 else order[:, 0]
    top, second = m.shares[rows, best], m.shares[rows, runner] if p > 1 else np.zeros(n)
    nb = NEIGHBOURS
    safe = np.maximum(nb, 0)
    # Each neighbour's share of this hole's best (runner-up) player.
    nb_best = np.where(nb >= 0, m.shares[safe, best[:, None]], 0.0)
    nb_runner = np.where(nb >= 0, m.shares[safe, runner[:, None]], 0.0)
    front, back, tilt = tilt_neighbours(m.homography)
    front_share = np.where(front >= 0, m.shares[np.maximum(front, 0), best], 0.0)
    back_share = np.where(back >= 0, m.shares[np.maximum(back, 0), best], 0.0)
    known = m.empty_look is not None
    if known:
        look_mean, look_inv = m.empty_look
        like_empty = np.minimum(_distance(m.colour, look_mean, look_inv), 10.0) / 10.0
        over_empty = m.colour - look_mean
    else:
        like_empty, over_empty = np.ones(n), np.zeros((n, 3))
    like_surface = (np.minimum(m.like_surface, 10.0) / 10.0 if m.like_surface is not None
                    else np.ones(n))
    to_best = _distance(m.colour, m.player_means[best], m.player_invs[best])
    to_runner = _distance(m.colour, m.player_means[runner], m.player_invs[runner])
    state = np.array(m.state, dtype=object)
    piece = np.array([s not in ("", "?") for s in m.state])
    x = np.column_stack([
        top, second, m.ncc, np.minimum(m.contrast, 4.0) / 4.0, m.foreign,
        like_empty, np.full(n, float(known)), like_surface,
        np.minimum(to_best, 10.0) / 10.0, np.minimum(to_runner, 10.0) / 10.0,
        np.clip(over_empty, -1.0, 1.0), np.clip(m.colour - m.player_means[best], -1.0, 1.0),
        nb_best.max(axis=1), nb_best.mean(axis=1), nb_runner.max(axis=1),
        front_share, back_share,
        np.full(n, min(tilt * 10.0, 1.0)), np.full(n, float(m.printed)),
        np.full(n, float(m.placed_in_doubt)),
        piece.astype(float), (state == "").astype(float), (state == "?").astype(float),
        m.doubted_as_empty.astype(float), m.confidence,
        np.full(n, p / 6.0), np.full(n, m.view.mean()),
    ])
    return x.astype(np.float32)


class HoleModel(HiddenLayerNet):
    """The network's weights: inputs standardised, one hidden layer of ReLUs, softmax."""

    def chances(self, x: np.ndarray) -> np.ndarray:
        """(N, 4) the chance of each of :data:`CLASSES` for every row of ``x``."""
        z = self.hidden(x) @ self.w2 + self.b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def to_json(self) -> dict:
        return {"features": list(FEATURES), "classes": list(CLASSES), **self.weights_json()}

    @classmethod
    def from_json(cls, data: dict) -> HoleModel:
        if list(data.get("features", [])) != list(FEATURES):
            raise ModelError("the hole model was trained on other measures: train it again "
                             "(python -m vision.petri.training)")
        return cls(**checked_weights(data, np.float32, len(FEATURES), (len(CLASSES),),
                                     "the hole model"))


@cache
def load(path: Path = MODEL) -> HoleModel:
    """The shipped model, read once; a ModelError saying what to do if it is missing or
    broken."""
    fix = "reinstall the package, or train it again (python -m vision.petri.training)"
    try:
        return HoleModel.from_json(json.loads(path.read_text()))
    except FileNotFoundError:
        raise ModelError(f"the hole model {path} is missing: {fix}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ModelError(f"the hole model {path} cannot be read ({e}): {fix}") from None


def judge(chances: np.ndarray, m: HoleMeasures, players: list[str]
          ) -> tuple[list[str], np.ndarray]:
    """Each hole's reading and confidence from the model's ``chances`` and the rules'.

    The model's most likely reading is taken, sure when its chance is SURE or more.
    Where the rules were sure of another reading, the two judges disagree: the rules'
    reading stands, doubtfully, so the referee is asked (a frame like the ones the rules
    were made on keeps their reading; one they were not made on is not read surely)."""
    order = m.ranked
    pick = chances.argmax(axis=1)
    sure = np.clip(0.5 + (chances.max(axis=1) - SURE) / (2 * (1 - SURE)), 0.0, 1.0)
    states, conf = list(m.state), sure.copy()
    for i in np.nonzero(m.view)[0]:
        rule = m.state[i]
        by_rules = (0 if rule == players[order[i, 0]] else 1 if rule == "" else
                    2 if len(players) > 1 and rule == players[order[i, 1]] else 3)
        if rule != "?" and m.confidence[i] >= 0.5 and by_rules != pick[i]:
            conf[i] = min(float(m.confidence[i]), DISAGREE)
            continue
        k = int(pick[i])
        states[i] = (players[order[i, 0]] if k == 0 else "" if k == 1 else
                     players[order[i, 1]] if k == 2 else "?")
    return states, conf
