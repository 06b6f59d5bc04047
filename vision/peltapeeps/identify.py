"""Which catalog piece each disc is, from the connectors seen around it.

A disc's connectors (angle, type) are compared with every catalog piece of its
team, face up and face down (mirrored), at every turn that lines one seen
connector up with one catalogued connector of the same type. The cost of a
match counts connectors seen but not catalogued, catalogued but not seen, and
type mistakes; the face the paint suggests adds a cost when contradicted. Each
piece appears once per team, so the team's discs and its pieces are matched by
the cheapest assignment (:func:`vision.peltapeeps.assign.assign`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.rules.peltapeeps.catalog import Catalog, Piece
from vision.peltapeeps.assign import assign

ANGLE_TOL = 16.0  # degrees between a seen and a catalogued connector
MISSING = 1.0  # a connector on one side only
WRONG_TYPE = 0.8  # two connectors that line up but differ in type
NOT_IN_SET = 20.0  # a disc left without a piece of the set
SLEEPING_PAINT = 0.18  # painted share below which a face-up piece looks asleep
KIND_COST = 0.6


@dataclass(frozen=True)
class Match:
    piece: str
    face_up: bool
    rotation: float  # degrees: catalogue angle (mirrored face down) + rotation = seen angle
    cost: float  # connector cost, without the face


def _gap(a: float, b: float) -> float:
    return abs((a - b + 180) % 360 - 180)


def _cost_at(seen: Sequence[tuple[float, str, float]], cat: list[tuple[float, str]],
             rot: float) -> tuple[float, float]:
    """(cost, refined rotation) of ``cat`` turned by ``rot`` against ``seen``."""
    used = [False] * len(cat)
    cost, offsets = 0.0, []
    for ang, typ, sure in seen:
        best, bj = ANGLE_TOL, -1
        for j, (ca, _) in enumerate(cat):
            g = _gap(ang, ca + rot)
            if not used[j] and g < best:
                best, bj = g, j
        if bj < 0:
            cost += MISSING * sure
            continue
        used[bj] = True
        offsets.append(((ang - cat[bj][0] - rot + 180) % 360) - 180)
        if cat[bj][1] != typ:
            cost += WRONG_TYPE * sure
        cost += best / (4 * ANGLE_TOL)  # prefer the turn that lines up best
    cost += MISSING * used.count(False)
    refined = rot + (sum(offsets) / len(offsets) if offsets else 0.0)
    return cost, refined % 360


def best_match(seen: Sequence[tuple[float, str, float]], piece: Piece, face_up: bool
               ) -> Match:
    cat = [(c.angle, c.type) for c in piece.face(face_up)]
    rots = {(ang - ca) % 360 for ang, typ, _ in seen for ca, ct in cat if ct == typ}
    rots |= {(ang - ca) % 360 for ang, _, _ in seen for ca, _ in cat} if not rots else set()
    if not rots:
        rots = {0.0}
    best = None
    for rot in sorted(rots):
        cost, refined = _cost_at(seen, cat, rot)
        if best is None or cost < best[0]:
            best = (cost, refined)
    assert best is not None
    return Match(piece.id, face_up, round(best[1], 2), round(best[0], 3))


def identify_team(seen: Sequence[Sequence[tuple[float, str, float]]],
                  face_evidence: Sequence[float], catalog: Catalog,
                  paint: Sequence[float] | None = None,
                  face_weight: float = 2.5) -> list[tuple[Match | None, float]]:
    """Each disc's piece (or None when the team shows more discs than pieces) and its cost.

    ``face_evidence`` per disc runs from -1 (surely face down) to 1 (surely up).
    ``paint`` (share of the centre painted) hints at the kind when face up: a
    Sleeping PeltaPeep's closed eyes cover far less than open eyes or scales.
    """
    if not seen:
        return []
    pieces = list(catalog.pieces)
    table: list[list[Match]] = []
    costs: list[list[float]] = []
    for cons, ev in zip(seen, face_evidence, strict=True):
        row_m, row_c = [], []
        for p in pieces:
            options = []
            for up in (True, False):
                m = best_match(cons, p, up)
                contra = max(0.0, -ev) if up else max(0.0, ev)
                kind = 0.0
                if up and paint is not None and ev > 0.5:
                    sleepy = paint[len(table)] < SLEEPING_PAINT
                    kind = KIND_COST * ((p.kind == "sleeping") != sleepy)
                options.append((m.cost + face_weight * contra + kind, m))
            c, m = min(options, key=lambda o: o[0])
            row_m.append(m)
            row_c.append(c)
        table.append(row_m)
        costs.append(row_c)
    n, k = len(seen), len(pieces)
    # Extra columns let surplus discs go unmatched, at a price.
    square = [row + [NOT_IN_SET] * n for row in costs]
    cols = assign(square) if n <= k + n else []
    out: list[tuple[Match | None, float]] = []
    for i, j in enumerate(cols):
        out.append((table[i][j], costs[i][j]) if j < k else (None, NOT_IN_SET))
    return out
