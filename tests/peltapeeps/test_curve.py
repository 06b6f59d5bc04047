"""The Sleeping PeltaPeep's curve: it joins a tab or a plain rim, and never covers a notch."""

from __future__ import annotations

import math
from dataclasses import replace

from companion.rules.peltapeeps.catalog import default_catalog
from companion.rules.peltapeeps.layout import (
    CURVE_COVER,
    Placed,
    contact,
    contacts,
    place_against,
)
from companion.rules.peltapeeps.rules import CannotPlace, PeltaPeeps, Place
from vision.peltapeeps.geometry import (
    CURVE_DEPTH_MM,
    CURVE_RADIUS_MM,
    DISC_RADIUS_MM,
    NOTCH_WIDTH_MM,
)

TWO = [("ann", "red"), ("bob", "blue")]
FULL = default_catalog("full")
# E1: tab at 0, notch at 180. S2: curve at 0, notch at 180.
RED_E1 = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)


def _s2_at(theta: float) -> Placed:
    """Blue S2 touching red E1 in direction ``theta``, its curve facing E1."""
    return place_against(RED_E1, theta, FULL.piece("S2"), 0.0, "blue", True)


def _bobs_turn(rules: PeltaPeeps, *placed: Placed, turn: int = 1):
    return replace(rules.new_state(), layout={p.uid: p for p in placed}, turn=turn)


def test_a_curve_on_a_plain_rim_is_a_join_and_scores() -> None:
    s2 = _s2_at(90.0)  # E1's rim at 90: its tab and notch are 90 degrees away
    c = contact(FULL.piece("E1"), RED_E1, FULL.piece("S2"), s2)
    assert (c.kind, c.a_connector, c.b_connector) == ("join", None, 0)
    rules = PeltaPeeps(seats=TWO)
    state = _bobs_turn(rules, RED_E1)
    assert rules.why_not(state, Place("bob", "blue", "S2", s2.x, s2.y, s2.rotation, True)) is None
    after, events = rules.apply(state, Place("bob", "blue", "S2", s2.x, s2.y, s2.rotation, True))
    assert events[0].data["joins"] == 1
    sheet = rules.score_sheet(after)
    assert sheet["ann"]["joins"] == 1 and sheet["bob"]["joins"] == 1  # one join, a point each


def test_a_curve_may_not_cover_a_notch_and_says_why() -> None:
    rules = PeltaPeeps(seats=TWO)
    state = _bobs_turn(rules, RED_E1)
    for theta in (180.0, 165.0, 155.0):  # facing E1's notch, or with it under the curve
        s2 = _s2_at(theta)
        c = contact(FULL.piece("E1"), RED_E1, FULL.piece("S2"), s2)
        assert c.kind == "clash", theta
        assert c.why == ("the curve of blue:S2 would block a notch of red:E1: a curve may "
                         "not cover an opening")
        why = rules.why_not(state, Place("bob", "blue", "S2", s2.x, s2.y, s2.rotation, True))
        assert why == ("bob cannot place blue S2: it does not fit against red:E1: the curve "
                       "of blue:S2 would block a notch of red:E1: a curve may not cover an "
                       "opening"), theta
    # Just past the cover the rim is free again.
    s2 = _s2_at(180.0 - CURVE_COVER - 5)
    assert contact(FULL.piece("E1"), RED_E1, FULL.piece("S2"), s2).kind == "join"


def test_a_curve_takes_a_tab_and_two_curves_only_touch() -> None:
    on_tab = _s2_at(0.0)  # E1's tab at 0 into S2's curve
    assert contact(FULL.piece("E1"), RED_E1, FULL.piece("S2"), on_tab).kind == "join"
    red_s2 = Placed("red:S2", "red", "S2", 0.0, 0.0, 0.0, True)  # its curve points at 0
    blue_s2 = place_against(red_s2, 0.0, FULL.piece("S2"), 0.0, "blue", True)
    c = contact(FULL.piece("S2"), red_s2, FULL.piece("S2"), blue_s2)
    assert (c.kind, c.a_connector, c.b_connector) == ("touch", 0, 0)


# A two-piece set where only the curve on a plain rim can join: R has a single notch,
# S a single curve (no tab anywhere).
TINY = {"name": "tiny", "pieces": [
    {"id": "R", "kind": "egg", "connectors": [{"angle": 0, "type": "notch"}]},
    {"id": "S", "kind": "sleeping", "connectors": [{"angle": 0, "type": "curve"}]}]}
AFTER_OPENING = 7  # round 3 (any piece may be placed), bob to play


def _direction(a: Placed, b: Placed) -> float:
    return math.degrees(math.atan2(b.y - a.y, b.x - a.x)) % 360


def test_the_engine_offers_a_curve_anywhere_on_a_free_rim() -> None:
    rules = PeltaPeeps(seats=TWO, catalog=TINY)
    red_r = Placed("red:R", "red", "R", 0.0, 0.0, 0.0, True)
    state = _bobs_turn(rules, red_r, turn=AFTER_OPENING)
    places = [a for a in rules.legal_actions(state) if isinstance(a, Place)]
    assert places and {a.piece for a in places} == {"S"}
    directions = set()
    for a in places:
        new = Placed("blue:S", "blue", "S", a.x, a.y, a.rotation, a.face_up)
        found = contacts({red_r.uid: red_r, new.uid: new}, rules.catalogs)
        assert [c.kind for c in found] == ["join"]
        d = _direction(red_r, new)
        assert min(d, 360 - d) > CURVE_COVER  # never over R's notch at 0
        directions.add(round(d))
    assert directions == {d for d in range(45, 316, 15)}  # every 15 degrees round the rest
    assert rules.why_not(state, CannotPlace("bob")) == "bob cannot say no piece fits: blue S fits"


def test_the_engine_offers_a_plain_rim_against_a_free_curve() -> None:
    rules = PeltaPeeps(seats=TWO, catalog=TINY)
    red_s = Placed("red:S", "red", "S", 0.0, 0.0, 90.0, True)  # its curve points at 90
    state = _bobs_turn(rules, red_s, turn=AFTER_OPENING)
    places = [a for a in rules.legal_actions(state) if isinstance(a, Place)]
    assert {a.piece for a in places} == {"R", "S"}  # blue S: its curve on red S's rim
    rims = [a for a in places if a.piece == "R"]
    assert len(rims) == 2 * (360 // 15 - 5)  # each face: every 15 degrees but near the notch
    for a in rims:
        assert math.isclose(_direction(red_s, Placed("blue:R", "blue", "R", a.x, a.y, 0, True)),
                            90.0, abs_tol=1e-6)
        # R's notch (at 0 on either face, so at its turn as it lies) stays clear of the
        # curve, which lies towards 270 from R.
        gap = abs((a.rotation - 270.0 + 180) % 360 - 180)
        assert gap > CURVE_COVER


def test_the_cover_angle_matches_the_pieces_shape() -> None:
    # Where the scallop (a circle CURVE_RADIUS_MM wide, cut CURVE_DEPTH_MM deep) meets the
    # rim, seen from the centre; the neighbour's rim is covered as far, and a notch's
    # opening reaches half its width further.
    r, d, c = DISC_RADIUS_MM, CURVE_DEPTH_MM, CURVE_RADIUS_MM
    centre = r - d + c
    half = math.degrees(math.acos((r * r + centre * centre - c * c) / (2 * r * centre)))
    notch_half = math.degrees(math.asin(NOTCH_WIDTH_MM / 2 / r))
    assert abs(half + notch_half - CURVE_COVER) < 2.0
