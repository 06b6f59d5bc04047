"""Where PeltaPeeps pieces lie, and which of them fit together.

Pieces are discs of one size (radius 1 in layout units). Two pieces touch when
their centres are two radii apart; where they touch, the connector of each
that faces the other (if any) decides the contact: a tab in a notch is a join;
a tab against a plain edge or another tab cannot be (the pieces would have to
overlap); notches and plain edges may simply meet.

The Sleeping PeltaPeep's curve "fits most other pieces": it takes a tab, and
it joins the plain rim ("the curved part") of any piece, as long as it covers
no notch there ("it cannot block any openings in that piece"): a notch of
that piece within :data:`CURVE_COVER` of the line between the centres, or
facing the curve, makes the contact impossible. Two curves are two hollows:
they just touch.

>>> from companion.rules.peltapeeps.catalog import default_catalog
>>> cat = default_catalog("core")
>>> a = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
>>> b = attach(cat.piece("E1"), a, 0, cat.piece("E3"), 0, "red", True)
>>> [c.kind for c in contacts({"red:E1": a, b.uid: b}, {"red": cat})]
['join']
>>> s2 = place_against(a, 90.0, cat.piece("S2"), 0.0, "blue", True)  # curve on E1's rim
>>> contact(cat.piece("E1"), a, cat.piece("S2"), s2).kind
'join'
>>> s2 = place_against(a, 160.0, cat.piece("S2"), 0.0, "blue", True)  # E1's notch is at 180
>>> contact(cat.piece("E1"), a, cat.piece("S2"), s2).why
'the curve of blue:S2 would block a notch of red:E1: a curve may not cover an opening'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from companion.rules.peltapeeps.catalog import Catalog, Connector, Piece

RADIUS = 1.0
TOUCH_TOLERANCE = 0.08  # in radii: hand-placed pieces are not exact
ANGLE_TOLERANCE = 14.0  # degrees between a connector and the line to the neighbour
# The curve lies against about 21 degrees of the other piece's rim either side of the
# line between the centres (a 12 mm scallop 6 mm deep in a 25 mm disc:
# vision/peltapeeps/geometry.py), and a notch's opening reaches 9 degrees either side of
# its angle: a notch within this angle of the line has part of its opening under the curve.
CURVE_COVER = 30.0
RIM_STEP = 15.0  # degrees between the places on a plain rim tried for a curve


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
    """What two facing connector types (None: a plain rim) make: join, touch (no join) or
    clash. A curve against a plain rim also needs no notch nearby (:func:`covered_notch`).
    """
    types = {a, b}
    if types in ({"tab", "notch"}, {"curve", "tab"}, {"curve", None}):
        return "join"
    if types == {"curve", "notch"} or "tab" in types:
        return "clash"  # a curve over a notch blocks that opening
    return "touch"


def covered_notch(cons: list[Connector], direction: float) -> int | None:
    """The notch of a piece (connectors as they lie) that a curve lying against its rim
    in ``direction`` would cover, if any."""
    for i, c in enumerate(cons):
        if c.type == "notch" and _angle_gap(c.angle, direction) <= CURVE_COVER:
            return i
    return None


def plain_rim(cons: list[Connector], start: float = 0.0) -> list[float]:
    """Directions, every :data:`RIM_STEP` degrees from ``start``, where a curve may lie
    against the rim: no connector faces there and no notch would be covered."""
    out = []
    for k in range(round(360 / RIM_STEP)):
        d = (start + k * RIM_STEP) % 360
        if _facing(cons, d) is None and covered_notch(cons, d) is None:
            out.append(d)
    return out


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
    if "curve" in (ta, tb) and kind != "touch":
        curved, rim = (a, b) if ta == "curve" else (b, a)
        rim_cons, back = (wb, (direction + 180) % 360) if rim is b else (wa, direction)
        if tb != "tab" and ta != "tab" and covered_notch(rim_cons, back) is not None:
            kind = "clash"
            why = (f"the curve of {curved.uid} would block a notch of {rim.uid}: a curve may "
                   "not cover an opening")
    if kind == "clash" and not why:
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
    return place_against(target, theta, piece, piece.face(face_up)[connector].angle, team,
                         face_up)


def place_against(target: Placed, theta: float, piece: Piece, own: float, team: str,
                  face_up: bool) -> Placed:
    """The pose of ``piece`` touching ``target`` in direction ``theta`` (world degrees from
    ``target``), turned so that its own direction ``own`` (degrees on the piece as it
    lies face up or down, before turning) faces ``target``."""
    x = target.x + 2 * RADIUS * math.cos(math.radians(theta))
    y = target.y + 2 * RADIUS * math.sin(math.radians(theta))
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
