"""Where PeltaPeeps pieces lie, and which of them fit together.

Pieces are discs of one size (radius 1 in layout units). Two pieces touch when
their centres are two radii apart; where they touch, the connector of each
that faces the other (if any) decides the contact: a tab in a notch is a join,
as is the Sleeping PeltaPeep's curve against a tab or a notch; a tab against a
plain edge or another tab cannot be (the pieces would have to overlap); notches
and plain edges may simply meet.

>>> from companion.rules.peltapeeps.catalog import default_catalog
>>> cat = default_catalog("core")
>>> a = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
>>> b = attach(cat.piece("E1"), a, 0, cat.piece("E3"), 0, "red", True)
>>> [c.kind for c in contacts({"red:E1": a, b.uid: b}, {"red": cat})]
['join']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from companion.rules.peltapeeps.catalog import Catalog, Connector, Piece

RADIUS = 1.0
TOUCH_TOLERANCE = 0.08  # in radii: hand-placed pieces are not exact
ANGLE_TOLERANCE = 14.0  # degrees between a connector and the line to the neighbour


@dataclass(frozen=True)
class Placed:
    """A piece in play: ``uid`` is ``team:piece``; the pose is the centre and the turn."""

    uid: str
    team: str
    piece: str
    x: float
    y: float
    rotation: float  # degrees, clockwise in a top view, added to every connector angle
    face_up: bool


@dataclass(frozen=True)
class Contact:
    a: str
    b: str
    kind: str  # "join", "touch" or "clash"
    a_connector: int | None
    b_connector: int | None
    why: str = ""


def uid(team: str, piece: str) -> str:
    return f"{team}:{piece}"


def world(piece: Piece, placed: Placed) -> list[Connector]:
    """The piece's connectors as they point on the table."""
    return [Connector((c.angle + placed.rotation) % 360, c.type)
            for c in piece.face(placed.face_up)]


def _angle_gap(a: float, b: float) -> float:
    return abs((a - b + 180) % 360 - 180)


def _facing(cons: list[Connector], direction: float) -> int | None:
    best = None
    for i, c in enumerate(cons):
        gap = _angle_gap(c.angle, direction)
        if gap <= ANGLE_TOLERANCE and (best is None or gap < best[0]):
            best = (gap, i)
    return None if best is None else best[1]


def fits(a: str | None, b: str | None) -> str:
    """What two facing connector types make: join, touch (no join) or clash."""
    types = {a, b}
    if types in ({"tab", "notch"}, {"curve", "tab"}, {"curve", "notch"}):
        return "join"
    if "tab" in types:
        return "clash"
    return "touch"


def contact(pa: Piece, a: Placed, pb: Piece, b: Placed) -> Contact | None:
    """How ``a`` and ``b`` meet, or None when they are apart."""
    dx, dy = b.x - a.x, b.y - a.y
    d = math.hypot(dx, dy)
    if d > 2 * RADIUS + TOUCH_TOLERANCE:
        return None
    if d < 2 * RADIUS - TOUCH_TOLERANCE:
        return Contact(a.uid, b.uid, "clash", None, None, "the pieces overlap")
    direction = math.degrees(math.atan2(dy, dx)) % 360
    wa, wb = world(pa, a), world(pb, b)
    ia, ib = _facing(wa, direction), _facing(wb, (direction + 180) % 360)
    ta = wa[ia].type if ia is not None else None
    tb = wb[ib].type if ib is not None else None
    kind = fits(ta, tb)
    why = ""
    if kind == "clash":
        why = f"a tab of {a.uid if ta == 'tab' else b.uid} meets " + (
            "another tab" if ta == tb else "a plain edge")
    return Contact(a.uid, b.uid, kind, ia, ib, why)


def contacts(layout: Mapping[str, Placed], catalogs: Mapping[str, Catalog],
             only: str | None = None) -> list[Contact]:
    """Every contact in the layout (or only those of piece ``only``)."""
    items = sorted(layout.values(), key=lambda p: p.uid)
    if only is not None:
        pairs = [(a, b) for a in items for b in items
                 if a.uid < b.uid and only in (a.uid, b.uid)]
    else:
        pairs = [(a, b) for i, a in enumerate(items) for b in items[i + 1:]]
    reach = 2 * RADIUS + TOUCH_TOLERANCE
    out = []
    for a, b in pairs:
        if abs(a.x - b.x) > reach or abs(a.y - b.y) > reach:
            continue
        c = contact(catalogs[a.team].piece(a.piece), a, catalogs[b.team].piece(b.piece), b)
        if c is not None:
            out.append(c)
    return out


def contacts_of(new: Placed, layout: Mapping[str, Placed], catalogs: Mapping[str, Catalog]
                ) -> list[Contact]:
    """The contacts ``new`` would make with the pieces of ``layout`` (itself excluded)."""
    reach = 2 * RADIUS + TOUCH_TOLERANCE
    piece = catalogs[new.team].piece(new.piece)
    out = []
    for other in layout.values():
        if other.uid == new.uid or abs(other.x - new.x) > reach or abs(other.y - new.y) > reach:
            continue
        c = contact(piece, new, catalogs[other.team].piece(other.piece), other)
        if c is not None:
            out.append(c)
    return out


def attach(target_piece: Piece, target: Placed, target_connector: int, piece: Piece,
           connector: int, team: str, face_up: bool) -> Placed:
    """The pose that puts ``piece``'s connector into ``target``'s connector."""
    theta = world(target_piece, target)[target_connector].angle
    x = target.x + 2 * RADIUS * math.cos(math.radians(theta))
    y = target.y + 2 * RADIUS * math.sin(math.radians(theta))
    own = piece.face(face_up)[connector].angle
    rotation = ((theta + 180) - own) % 360
    return Placed(uid(team, piece.id), team, piece.id, round(x, 6), round(y, 6),
                  round(rotation, 6), face_up)


def connected(layout: Mapping[str, Placed], catalogs: Mapping[str, Catalog]) -> bool:
    """True when every piece is joined to every other through joins."""
    if len(layout) <= 1:
        return True
    links: dict[str, set[str]] = {u: set() for u in layout}
    for c in contacts(layout, catalogs):
        if c.kind == "join":
            links[c.a].add(c.b)
            links[c.b].add(c.a)
    start = next(iter(layout))
    seen, todo = {start}, [start]
    while todo:
        for n in links[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(layout)
