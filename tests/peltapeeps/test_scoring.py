"""The PeltaPeeps score sheet, line by line, on a layout worked by hand."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.peltapeeps.layout import Placed, contacts
from companion.rules.peltapeeps.rules import PeltaPeeps

# The default (full) set: E1 = tab@0, notch@180; E3 = notch@0, tab@60; A3 = tab@0 (one
# interface); 16 pieces a colour, 10 of them PeltaPeeps (S1-S4, A1-A6).
RED_E1 = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
# Blue E3 two radii to the right, turned half round: its notch (0) now faces E1's tab.
BLUE_E3 = Placed("blue:E3", "blue", "E3", 2.0, 0.0, 180.0, True)
# Red A3 two radii to the left, its tab (0) pointing into E1's notch (180), face down.
RED_A3 = Placed("red:A3", "red", "A3", -2.0, 0.0, 0.0, False)


def _game(**options):
    rules = PeltaPeeps(seats=[("ann", "red"), ("bob", "blue")], **options)
    layout = {p.uid: p for p in (RED_E1, BLUE_E3, RED_A3)}
    return rules, replace(rules.new_state(), layout=layout)


def test_the_hand_worked_layout_has_exactly_two_joins():
    rules, state = _game()
    found = contacts(state.layout, rules.catalogs)
    assert sorted((c.a, c.b, c.kind) for c in found) == [
        ("blue:E3", "red:E1", "join"), ("red:A3", "red:E1", "join")]


def test_join_points_one_per_occupied_interface():
    rules, state = _game()
    sheet = rules.score_sheet(state)
    # ann: E1 has two occupied interfaces, A3 one; bob: E3 one.
    assert sheet["ann"]["joins"] == 3
    assert sheet["bob"]["joins"] == 1


def test_same_team_join_bonus_counted_once_per_join():
    rules, state = _game()
    sheet = rules.score_sheet(state)
    assert sheet["ann"]["bonus"] == 1  # E1-A3, not once for each piece
    assert sheet["bob"]["bonus"] == 0


def test_face_up_points_egg_one_peltapeep_two():
    rules, state = _game()
    assert rules.score_sheet(state)["ann"]["face_up"] == 1  # E1 up; A3 (a peep) is face down
    flipped = replace(state, layout={**state.layout, "red:A3": replace(RED_A3, face_up=True)})
    assert rules.score_sheet(flipped)["ann"]["face_up"] == 3  # + an Awake PeltaPeep, 2


def test_minus_one_per_unplayed_piece_and_one_more_per_unplayed_peltapeep():
    rules, state = _game()
    sheet = rules.score_sheet(state)
    # red: 14 of 16 unplayed, 9 of them PeltaPeeps (all but A3); blue: 15, 10 PeltaPeeps.
    assert (sheet["ann"]["unplayed"], sheet["ann"]["unplayed_peeps"]) == (-14, -9)
    assert (sheet["bob"]["unplayed"], sheet["bob"]["unplayed_peeps"]) == (-15, -10)


def test_the_core_set_when_asked_for():
    rules, state = _game(set_size="core")
    sheet = rules.score_sheet(state)
    # red unplayed: E2, E3, S1, S2, A1, A2 (4 PeltaPeeps); blue: E1, E2, S1, S2, A1, A2, A3 (5).
    assert (sheet["ann"]["unplayed"], sheet["ann"]["unplayed_peeps"]) == (-6, -4)
    assert (sheet["bob"]["unplayed"], sheet["bob"]["unplayed_peeps"]) == (-7, -5)
    assert rules.state_to_dict(state)["set"] == "default core set, 8 pieces a colour"
    assert rules.options()["set_size"] == "core"  # a saved game keeps its set


def test_totals_and_tally():
    rules, state = _game()
    sheet = rules.score_sheet(state)
    assert sheet["ann"]["total"] == 3 + 1 + 1 - 14 - 9 == -18
    assert sheet["bob"]["total"] == 1 + 0 + 1 - 15 - 10 == -23
    tally = rules.tally(state)
    assert tally.winner is None  # not over yet
    assert tally.headline == "ann leads with -18 points"
    assert rules.tally(replace(state, over=True)).winner == "ann"
