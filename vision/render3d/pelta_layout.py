"""Random legal PeltaPeeps layouts, placed piece by piece from the pieces' cut shapes.

Seats take turns; each places one of its colour's pieces so that it seats
physically against a piece already down: a tab pushed into a notch (centres
two radii apart), a tab into a Sleeping PeltaPeep's curve, or a curve against a
plain stretch of rim (the curve's lips resting on the rim, the centres a little
closer). A place is kept only when the cut outlines do not overlap (checked on
the shapes of :mod:`vision.render3d.pelta_shapes`, not on the engine's model)
and the engine calls the contacts legal: at least one join, nothing
impossible. In the first three rounds only pieces with two or more connectors
are placed, as the rules ask. Some pieces end up merely touching a neighbour
(a notch against a rim, two notches face to face): a contact that is no join.

The layout is in the engine's units (a disc's radius is 1), so the engine
scores it as it stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.rules.peltapeeps.catalog import Catalog, Piece
from companion.rules.peltapeeps.layout import Placed, connected, contacts, contacts_of, uid
from companion.rules.peltapeeps.rules import OPENING_ROUNDS, PeltaPeeps, PeltaState
from vision.render3d.pelta_shapes import CutGeometry, piece_outline

FACE_UP = 0.7  # share of pieces placed face up
OVERLAP_MM = 0.12  # an outline point this far inside another piece: the pieces collide
TRIES = 80  # random places tried for a piece before the seat gives it up
# A neighbour's centre this far beyond two radii (units) is neither clearly touching
# nor clearly apart: such places are refused so that the photo is not ambiguous.
DOUBTFUL_GAP = (0.065, 0.16)

PLAYER_NAMES = ("ann", "bob", "cem", "dee")


@dataclass
class Grown:
    layout: dict[str, Placed]
    seats: list[tuple[str, str]]
    order: list[str]  # uids in the order they were placed


def seats_for(rng: np.random.Generator, colours: list[str]) -> list[tuple[str, str]]:
    """Who plays which colour: one player a colour, or (four colours) two players with
    two each, seated so that no one plays twice in a row."""
    if len(colours) == 4 and rng.uniform() < 0.35:
        return [(PLAYER_NAMES[i % 2], c) for i, c in enumerate(colours)]
    return [(c, c) for c in colours]


def outline_on_table(piece: Piece, p: Placed, g: CutGeometry) -> np.ndarray:
    """The piece's outline on the table (mm, table frame)."""
    o = piece_outline(piece, g)
    if not p.face_up:
        o = o * np.array([1.0, -1.0])  # face down: the connectors mirrored
    a = math.radians(p.rotation)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return o @ rot.T + np.array([p.x, p.y]) * g.radius


def intrudes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether some point of outline ``a`` lies inside outline ``b`` by more than OVERLAP_MM."""
    cb = b.astype(np.float32).reshape(-1, 1, 2)
    lo, hi = b.min(0) - OVERLAP_MM, b.max(0) + OVERLAP_MM
    near = a[(a[:, 0] > lo[0]) & (a[:, 1] > lo[1]) & (a[:, 0] < hi[0]) & (a[:, 1] < hi[1])]
    for q in near:
        if cv2.pointPolygonTest(cb, (float(q[0]), float(q[1])), True) > OVERLAP_MM:
            return True
    return False


class Grower:
    def __init__(self, rng: np.random.Generator, catalog: Catalog, g: CutGeometry,
                 seats: list[tuple[str, str]]) -> None:
        self.rng, self.catalog, self.g, self.seats = rng, catalog, g, seats
        self.rules = PeltaPeeps(seats)
        self.catalogs = {t: catalog for _, t in seats}
        self.layout: dict[str, Placed] = {}
        self.outlines: dict[str, np.ndarray] = {}
        self.order: list[str] = []

    def _pose(self, target: Placed, theta: float, piece: Piece, own: float, team: str,
              face_up: bool, distance_mm: float) -> Placed:
        d = distance_mm / self.g.radius
        x = target.x + d * math.cos(math.radians(theta))
        y = target.y + d * math.sin(math.radians(theta))
        return Placed(uid(team, piece.id), team, piece.id, x, y, ((theta + 180) - own) % 360,
                      face_up)

    def candidate(self, piece: Piece, team: str) -> Placed | None:
        """One random physical seating of ``piece`` against a piece in play."""
        rng = self.rng
        target = self.layout[self.order[int(rng.integers(len(self.order)))]]
        tpiece = self.catalog.piece(target.piece)
        tcons = [((c.angle + target.rotation) % 360, c.type) for c in tpiece.face(target.face_up)]
        face_up = bool(rng.uniform() < FACE_UP)
        own = list(piece.face(face_up))
        options = []  # (world direction from the target, own connector angle, types)
        for theta, ttype in tcons:
            want = {"tab": ("notch", "curve"), "notch": ("tab",), "curve": ("tab",)}[ttype]
            options += [(theta, c.angle, {ttype, c.type}) for c in own if c.type in want]
        curves = [c for c in own if c.type == "curve"]
        if curves:  # a curve against a plain stretch of the target's rim
            for _ in range(3):
                theta = float(rng.uniform(0, 360))
                options += [(theta, c.angle, {"curve", None}) for c in curves]
        if not options:
            return None
        theta, own_angle, types = options[int(rng.integers(len(options)))]
        return self._pose(target, theta, piece, own_angle, team, face_up,
                          self.g.join_distance(types))

    def acceptable(self, new: Placed) -> bool:
        cons = contacts_of(new, self.layout, self.catalogs)
        if not any(c.kind == "join" for c in cons) or any(c.kind == "clash" for c in cons):
            return False
        for other in self.layout.values():
            gap = math.hypot(other.x - new.x, other.y - new.y) - 2.0
            if DOUBTFUL_GAP[0] < gap < DOUBTFUL_GAP[1]:
                return False
        mine = outline_on_table(self.catalog.piece(new.piece), new, self.g)
        reach = 2.0 * self.g.radius + 2 * self.g.tab_length + 1.0
        for u, other in self.layout.items():
            if math.hypot(other.x - new.x, other.y - new.y) * self.g.radius > reach:
                continue
            theirs = self.outlines[u]
            if intrudes(mine, theirs) or intrudes(theirs, mine):
                return False
        return True

    def put(self, p: Placed) -> None:
        self.layout[p.uid] = p
        self.outlines[p.uid] = outline_on_table(self.catalog.piece(p.piece), p, self.g)
        self.order.append(p.uid)

    def place(self, piece: Piece, team: str) -> bool:
        if not self.layout:
            self.put(Placed(uid(team, piece.id), team, piece.id, 0.0, 0.0,
                            float(self.rng.uniform(0, 360)), bool(self.rng.uniform() < FACE_UP)))
            return True
        for _ in range(TRIES):
            cand = self.candidate(piece, team)
            if cand is not None and self.acceptable(cand):
                self.put(cand)
                return True
        return False


def grow(rng: np.random.Generator, catalog: Catalog, g: CutGeometry,
         seats: list[tuple[str, str]], per_team: int) -> Grown:
    """Seats place pieces in turn until each has tried ``per_team`` of its pieces
    (a piece that fits nowhere stays unplayed)."""
    grower = Grower(rng, catalog, g, seats)
    bags = {t: [catalog.pieces[int(i)] for i in rng.permutation(len(catalog.pieces))]
            for _, t in seats}
    tried = {t: 0 for _, t in seats}
    turn = 0
    while any(tried[t] < per_team and bags[t] for _, t in seats) and turn < 40 * len(seats):
        _, team = seats[turn % len(seats)]
        opening = turn // len(seats) < OPENING_ROUNDS
        turn += 1
        if tried[team] >= per_team or not bags[team]:
            continue
        pool = [p for p in bags[team] if not opening or p.interfaces >= 2]
        if not pool:
            continue
        piece = pool[0]
        bags[team].remove(piece)
        tried[team] += 1
        grower.place(piece, team)
    return Grown(grower.layout, list(seats), grower.order)


def jittered(rng: np.random.Generator, grown: Grown, catalog: Catalog, g: CutGeometry,
             mm: float = 0.2, deg: float = 0.7) -> dict[str, Placed]:
    """Each piece nudged a little as a hand leaves it, where the contacts stay as they were."""
    catalogs = {t: catalog for _, t in grown.seats}
    before = {(c.a, c.b): c.kind for c in contacts(grown.layout, catalogs)}
    layout = dict(grown.layout)
    for u in grown.order:
        p = layout[u]
        q = Placed(p.uid, p.team, p.piece, p.x + float(rng.normal(0, mm)) / g.radius,
                   p.y + float(rng.normal(0, mm)) / g.radius,
                   (p.rotation + float(rng.normal(0, deg))) % 360, p.face_up)
        trial = {**layout, u: q}
        mine = {(c.a, c.b): c.kind for c in contacts_of(q, trial, catalogs)}
        mine = {tuple(sorted(k)): v for k, v in mine.items()}
        old = {k: v for k, v in before.items() if u in k}
        if mine == old:
            layout[u] = q
    return layout


def score(seats: list[tuple[str, str]], layout: dict[str, Placed]
          ) -> tuple[dict[str, dict[str, int]], list[tuple[str, str]]]:
    """The engine's score sheet of the layout and its joins (uid pairs, a < b)."""
    rules = PeltaPeeps(seats)
    state = PeltaState(seats=tuple(seats), layout=layout)
    if not connected(layout, rules.catalogs):
        raise ValueError("the layout is not one group joined together")
    joins = sorted(tuple(sorted((c.a, c.b))) for c in contacts(layout, rules.catalogs)
                   if c.kind == "join")
    return rules.score_sheet(state), joins
