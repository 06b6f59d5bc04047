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

Each piece is pushed towards the one it seats against until the cut outlines
meet (:func:`seat_distance`), as a hand does: a tab stops at the bottom of a
notch or where the rims beside it meet, a curve's lips stop on the other rim.
At the catalog's sizes a curve resting on a plain rim brings the centres 0.1
to 0.2 radii closer than two radii, beyond the engine's touching tolerance,
while the engine models every contact at two radii. So two layouts are kept:
the *physical* one (mm, what the camera sees) and the engine's (its units, a
disc's radius 1), where each piece sits exactly two radii from the piece it
was seated against. A place is kept only when both agree on every pair:
touching in one exactly when touching in the other, so the engine scores the
layout the photo shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.rules.peltapeeps.catalog import Catalog, Piece
from companion.rules.peltapeeps.layout import Placed, connected, contacts, contacts_of, uid
from companion.rules.peltapeeps.rules import OPENING_ROUNDS, PeltaPeeps, PeltaState
from vision.render3d.pelta_shapes import CutGeometry, piece_outline

FACE_UP = 0.7  # share of pieces placed face up
OVERLAP_MM = 0.12  # an outline point this far inside another piece: the pieces collide
TOUCH_MM = 1.0  # outlines closer than this touch (a seated piece stops at 0; two
# notches facing each other leave the rims beside them about 0.7 mm apart)
APART_MM = 3.0  # ... and between TOUCH_MM and this, they neither clearly touch nor not
TRIES = 80  # random places tried for a piece before the seat gives it up
# A neighbour's centre this far beyond two radii (units) is neither clearly touching
# nor clearly apart: such places are refused so that the photo is not ambiguous.
DOUBTFUL_GAP = (0.065, 0.16)

PLAYER_NAMES = ("ann", "bob", "cem", "dee")


@dataclass
class Grown:
    layout: dict[str, Placed]  # the engine's (units: a disc's radius)
    seats: list[tuple[str, str]]
    order: list[str]  # uids in the order they were placed
    physical: dict[str, Placed] = field(default_factory=dict)  # as seen: mm / radius


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


def _signed_distance(pts: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Distance (mm) of each point to polygon ``poly``'s outline: negative inside."""
    a, b = poly, np.roll(poly, -1, axis=0)
    ab = b - a
    ap = pts[:, None, :] - a[None]
    t = np.clip((ap * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-12), 0, 1)
    dist = np.hypot(*(ap - t[..., None] * ab).transpose(2, 0, 1)).min(axis=1)
    # Crossing number along +x: inside when odd.
    ya, yb = a[None, :, 1], b[None, :, 1]
    py = pts[:, None, 1]
    straddle = (ya > py) != (yb > py)
    xc = a[None, :, 0] + (py - ya) / np.where(yb == ya, 1e-12, yb - ya) * ab[None, :, 0]
    inside = ((straddle & (pts[:, None, 0] < xc)).sum(axis=1) % 2) == 1
    return np.where(inside, -dist, dist)


def clearance(a: np.ndarray, b: np.ndarray, reach: float = 5.0) -> float:
    """The gap (mm) between outlines ``a`` and ``b``, or minus the deepest point of one
    inside the other; ``reach`` or more when they are farther apart than that.

    >>> sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    >>> clearance(sq, sq + [12, 0]), clearance(sq, sq + [9, 3])
    (2.0, -1.0)
    """
    lo = np.maximum(a.min(0), b.min(0)) - reach
    hi = np.minimum(a.max(0), b.max(0)) + reach
    out = reach
    for p, q in ((a, b), (b, a)):
        near = p[((p >= lo) & (p <= hi)).all(axis=1)]
        if len(near):
            out = min(out, float(_signed_distance(near, q).min()))
    return out


def seat_distance(fixed: np.ndarray, moving: np.ndarray, direction: float, start: float,
                  stop: float) -> float | None:
    """How far (mm) ``moving`` (an outline centred at the origin) comes from the origin
    along ``direction`` (degrees) when pushed in from ``start`` until it meets
    ``fixed``; None when it meets nothing before ``stop`` or overlaps from the start."""
    u = np.array([math.cos(math.radians(direction)), math.sin(math.radians(direction))])

    def gap(d: float) -> float:
        return clearance(fixed, moving + d * u)

    if gap(start) <= 0:
        return None
    free, d = start, start
    while True:  # coarse steps in, then halve the step
        d -= 1.0
        if d < stop:
            return None
        if gap(d) <= 0:
            break
        free = d
    hit = d
    for _ in range(8):
        mid = (free + hit) / 2
        free, hit = (mid, hit) if gap(mid) > 0 else (free, mid)
    return free


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
        self.layout: dict[str, Placed] = {}  # the engine's
        self.physical: dict[str, Placed] = {}  # as seen (mm / radius)
        self.outlines: dict[str, np.ndarray] = {}  # of the physical layout
        self.order: list[str] = []

    def candidate(self, piece: Piece, team: str) -> tuple[Placed, Placed] | None:
        """One random seating of ``piece`` against a piece in play: (engine, physical)."""
        rng = self.rng
        target_uid = self.order[int(rng.integers(len(self.order)))]
        target, seen = self.layout[target_uid], self.physical[target_uid]
        tpiece = self.catalog.piece(target.piece)
        tcons = [((c.angle + target.rotation) % 360, c.type) for c in tpiece.face(target.face_up)]
        face_up = bool(rng.uniform() < FACE_UP)
        own = list(piece.face(face_up))
        options = []  # (world direction from the target, own connector angle)
        for theta, ttype in tcons:
            want = {"tab": ("notch", "curve"), "notch": ("tab",), "curve": ("tab",)}[ttype]
            options += [(theta, c.angle) for c in own if c.type in want]
        curves = [c for c in own if c.type == "curve"]
        if curves:  # a curve against a plain stretch of the target's rim
            for _ in range(3):
                theta = float(rng.uniform(0, 360))
                options += [(theta, c.angle) for c in curves]
        if not options:
            return None
        theta, own_angle = options[int(rng.integers(len(options)))]
        t = math.radians(theta)
        rotation = ((theta + 180) - own_angle) % 360
        engine = Placed(uid(team, piece.id), team, piece.id, target.x + 2 * math.cos(t),
                        target.y + 2 * math.sin(t), rotation, face_up)
        return engine, Placed(engine.uid, team, piece.id, seen.x, seen.y, rotation, face_up)

    def acceptable(self, new: Placed, seen: Placed, target: str) -> Placed | None:
        """The physical pose of ``new`` pushed against ``target`` (``seen`` is its
        direction, at the target's place), or None when the place is refused."""
        cons = contacts_of(new, self.layout, self.catalogs)
        if not any(c.kind == "join" for c in cons) or any(c.kind == "clash" for c in cons):
            return None
        for other in self.layout.values():
            gap = math.hypot(other.x - new.x, other.y - new.y) - 2.0
            if DOUBTFUL_GAP[0] < gap < DOUBTFUL_GAP[1]:
                return None
        g = self.g
        piece = self.catalog.piece(new.piece)
        at_origin = outline_on_table(piece, Placed(new.uid, new.team, new.piece, 0.0, 0.0,
                                                   new.rotation, new.face_up), g)
        anchor = self.physical[target]
        fixed = self.outlines[target] - np.array([anchor.x, anchor.y]) * g.radius
        direction = math.degrees(math.atan2(new.y - self.layout[target].y,
                                            new.x - self.layout[target].x))
        d = seat_distance(fixed, at_origin, direction, 2 * g.radius + 3.0, 1.7 * g.radius)
        if d is None:
            return None
        t = math.radians(direction)
        placed = Placed(new.uid, new.team, new.piece, anchor.x + d / g.radius * math.cos(t),
                        anchor.y + d / g.radius * math.sin(t), new.rotation, new.face_up)
        mine = at_origin + np.array([placed.x, placed.y]) * g.radius
        touching = {tuple(sorted((c.a, c.b))) for c in cons}
        reach = 2.0 * g.reach + APART_MM
        for u, other in self.physical.items():
            if math.hypot(other.x - placed.x, other.y - placed.y) * g.radius > reach:
                if (tuple(sorted((u, new.uid))) in touching):
                    return None  # the engine has them touch; the photo would not
                continue
            c = clearance(mine, self.outlines[u], APART_MM)
            engine_touch = tuple(sorted((u, new.uid))) in touching
            if c < -OVERLAP_MM or TOUCH_MM <= c < APART_MM or (c < TOUCH_MM) != engine_touch:
                return None
        return placed

    def put(self, p: Placed, seen: Placed) -> None:
        self.layout[p.uid] = p
        self.physical[p.uid] = seen
        self.outlines[p.uid] = outline_on_table(self.catalog.piece(p.piece), seen, self.g)
        self.order.append(p.uid)

    def place(self, piece: Piece, team: str) -> bool:
        if not self.layout:
            p = Placed(uid(team, piece.id), team, piece.id, 0.0, 0.0,
                       float(self.rng.uniform(0, 360)), bool(self.rng.uniform() < FACE_UP))
            self.put(p, p)
            return True
        for _ in range(TRIES):
            cand = self.candidate(piece, team)
            if cand is None:
                continue
            engine, seen = cand
            target = min(self.layout, key=lambda u: math.hypot(
                self.layout[u].x - engine.x, self.layout[u].y - engine.y))
            placed = self.acceptable(engine, seen, target)
            if placed is not None:
                self.put(engine, placed)
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
    return Grown(grower.layout, list(seats), grower.order, grower.physical)


def jittered(rng: np.random.Generator, grown: Grown, catalog: Catalog, g: CutGeometry,
             mm: float = 0.2, deg: float = 0.7) -> tuple[dict[str, Placed], dict[str, Placed]]:
    """Each piece nudged a little as a hand leaves it, where the contacts stay as they were
    (in the engine's layout and in the photo's): (engine layout, physical layout)."""
    catalogs = {t: catalog for _, t in grown.seats}
    before = {(c.a, c.b): c.kind for c in contacts(grown.layout, catalogs)}
    layout, physical = dict(grown.layout), dict(grown.physical or grown.layout)
    outlines = {u: outline_on_table(catalog.piece(p.piece), p, g) for u, p in physical.items()}

    def moved(p: Placed, dx: float, dy: float, da: float) -> Placed:
        return Placed(p.uid, p.team, p.piece, p.x + dx, p.y + dy, (p.rotation + da) % 360,
                      p.face_up)

    for u in grown.order:
        dx, dy = (float(v) / g.radius for v in rng.normal(0, mm, 2))
        da = float(rng.normal(0, deg))
        q, seen = moved(layout[u], dx, dy, da), moved(physical[u], dx, dy, da)
        trial = {**layout, u: q}
        mine = {(c.a, c.b): c.kind for c in contacts_of(q, trial, catalogs)}
        mine = {tuple(sorted(k)): v for k, v in mine.items()}
        old = {k: v for k, v in before.items() if u in k}
        if mine != old:
            continue
        shape = outline_on_table(catalog.piece(seen.piece), seen, g)
        near = [v for v, o in physical.items() if v != u
                and math.hypot(o.x - seen.x, o.y - seen.y) * g.radius < 2 * g.reach + APART_MM]
        ok = True
        for v in near:
            c = clearance(shape, outlines[v], APART_MM)
            touch = tuple(sorted((u, v))) in mine
            if c < -OVERLAP_MM or (touch and c >= TOUCH_MM) or (not touch and c < APART_MM):
                ok = False
                break
        if ok:
            layout[u], physical[u], outlines[u] = q, seen, shape
    return layout, physical


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
