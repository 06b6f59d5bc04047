"""PeltaPeeps rules: seats, the opening rounds, fitting, moves and flips, the end."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion.rules.base import BadActionData
from companion.rules.peltapeeps.catalog import Catalog, CatalogError, default_catalog
from companion.rules.peltapeeps.layout import Placed, attach, connected
from companion.rules.peltapeeps.rules import (
    CannotPlace,
    EndTurn,
    FlipOther,
    MoveOther,
    PeltaPeeps,
    Place,
)

TWO = [("ann", "red"), ("bob", "blue")]


def test_seats_follow_the_player_counts():
    PeltaPeeps(seats=TWO)
    PeltaPeeps(seats=[("ann", "red"), ("bob", "blue"), ("ann", "green"), ("bob", "white")])
    PeltaPeeps(seats=[("a", "1"), ("b", "2"), ("c", "3"), ("a", "4"), ("b", "5"), ("c", "6")])
    with pytest.raises(ValueError, match="two turns in a row"):
        PeltaPeeps(seats=[("ann", "red"), ("ann", "green"), ("bob", "blue"), ("bob", "white")])
    with pytest.raises(ValueError, match="3 players two each"):
        PeltaPeeps(seats=[("a", "1"), ("b", "2"), ("c", "3")])
    with pytest.raises(ValueError, match="2 to 6 players"):
        PeltaPeeps(seats=[(str(i), str(i)) for i in range(7)])


def test_opening_rounds_need_two_interfaces_and_the_first_piece_goes_anywhere():
    rules = PeltaPeeps(seats=TWO)
    s = rules.new_state()
    assert "2 or more interfaces" in rules.why_not(s, Place("ann", "red", "A3", 0, 0, 0, True))
    s, _ = rules.apply(s, Place("ann", "red", "E1", 5.0, 5.0, 30.0, True))
    assert "not" not in str(rules.why_not(s, EndTurn("ann")))
    assert "it is ann's turn" in rules.why_not(s, EndTurn("bob"))


def _with(rules, *placed):
    return replace(rules.new_state(), layout={p.uid: p for p in placed}, placed=False)


def test_a_placement_must_fit_and_never_clash():
    rules = PeltaPeeps(seats=TWO)
    cat = default_catalog()
    e1 = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
    s = replace(_with(rules, e1), turn=1)  # bob's turn
    ok = attach(cat.piece("E1"), e1, 0, cat.piece("E3"), 0, "blue", True)
    assert rules.why_not(s, Place("bob", "blue", "E3", ok.x, ok.y, ok.rotation, True)) is None
    far = rules.why_not(s, Place("bob", "blue", "E3", 9.0, 9.0, 0.0, True))
    assert "must fit into a piece already in play" in far
    overlap = rules.why_not(s, Place("bob", "blue", "E3", 1.0, 0.0, 0.0, True))
    assert "overlap" in overlap
    # E2's tab (0) turned to face E1's tab: tab against tab cannot be.
    clash = rules.why_not(s, Place("bob", "blue", "E2", 2.0, 0.0, 180.0, True))
    assert "tab" in clash and "does not fit" in clash


def test_moves_and_flips_after_placing_only_others_pieces_once():
    rules = PeltaPeeps(seats=TWO)
    cat = default_catalog()
    e1 = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
    e3 = attach(cat.piece("E1"), e1, 0, cat.piece("E3"), 0, "blue", True)
    s = replace(_with(rules, e1, e3), turn=2)  # ann again (round 1)
    assert "first place a piece" in rules.why_not(s, FlipOther("ann", "blue:E3"))
    a1 = attach(cat.piece("E1"), e1, 1, cat.piece("A1"), 0, "red", True)
    s, _ = rules.apply(s, Place("ann", "red", "A1", a1.x, a1.y, a1.rotation, True))
    assert "never move or flip their own" in rules.why_not(s, FlipOther("ann", "red:E1"))
    # Blue E3 face down still offers its notch to E1's tab (the notch is at 0, its own
    # mirror), and its moved tab meets nothing: the flip fits.
    assert rules.why_not(s, FlipOther("ann", "blue:E3")) is None
    after, _ = rules.apply(s, FlipOther("ann", "blue:E3"))
    assert after.layout["blue:E3"].face_up is False
    assert "only one move or flip" in rules.why_not(after, FlipOther("ann", "blue:E3"))
    assert "only one move or flip" in rules.why_not(after, MoveOther("ann", "blue:E3", 0, 0, 0))


def test_a_move_may_not_cut_the_group():
    rules = PeltaPeeps(seats=TWO)
    cat = default_catalog()
    e1 = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
    # A row: red E1's tab into blue E1's notch, blue E1's tab into red E3's notch.
    blue = attach(cat.piece("E1"), e1, 0, cat.piece("E1"), 1, "blue", True)
    e3 = attach(cat.piece("E1"), blue, 0, cat.piece("E3"), 0, "red", True)
    s = replace(_with(rules, e1, blue, e3), turn=2, placed=True)  # ann has placed
    assert connected(s.layout, rules.catalogs)
    assert "cut pieces off" in rules.why_not(s, MoveOther("ann", "blue:E1", 10.0, 10.0, 0.0))
    # Red E3 lifted leaves E1 and blue joined; put back where it was, it fits again.
    s = replace(s, turn=3)  # bob's turn
    assert rules.why_not(s, MoveOther("bob", "red:E3", e3.x, e3.y, e3.rotation)) is None
    assert "must fit" in rules.why_not(s, MoveOther("bob", "red:E3", 20.0, 0.0, 0.0))


def test_the_last_piece_ends_the_game_after_the_round():
    rules = PeltaPeeps(seats=TWO)
    rng = random.Random(4)
    s = rules.new_state()
    endings = []
    while not rules.is_over(s):
        s, events = rules.apply(s, rng.choice(list(rules.legal_actions(s))))
        endings += [e for e in events if e.kind == "ending"]
    assert len(endings) == 1
    assert s.turn % len(s.seats) == 0  # the round was finished
    assert "wins" in rules.tally(s).headline or "tie" in rules.tally(s).headline
    assert rules.why_not(s, EndTurn("ann")).endswith("the game is over")


def test_cannot_place_is_only_true_when_nothing_fits():
    rules = PeltaPeeps(seats=TWO)
    s = rules.new_state()
    assert "fits" in rules.why_not(s, CannotPlace("ann"))


def test_catalog_as_data_and_mirroring():
    cat = default_catalog("full")
    assert len(cat.pieces) == 16
    assert len({p.pattern() for p in cat.pieces}) == 16
    e3 = cat.piece("E3")
    assert [c.angle for c in e3.face(False)] == [0.0, 300.0]
    again = Catalog.from_json(cat.to_json())
    assert again.pieces == cat.pieces
    with pytest.raises(CatalogError, match="kind must be"):
        Catalog.from_json({"pieces": [{"id": "X", "kind": "dragon", "connectors": []}]})
    with pytest.raises(CatalogError, match="curve"):
        Catalog.from_json({"pieces": [{"id": "S", "kind": "sleeping",
                                       "connectors": [{"angle": 0, "type": "tab"}]}]})


def test_no_move_or_flip_after_saying_no_piece_fits():
    """Rules, PLAY 4a: "If a player chooses to move another player's piece: It's only done
    *after placing* a new piece." A seat that could place nothing placed no new piece, so
    it may not move or flip one either."""
    # T: tabs both ways; N: one notch; M: two notches. Red T joins red N and blue N, every
    # connector is taken, and no piece left has a curve: nothing of blue's fits.
    cat = {"pieces": [
        {"id": "T", "kind": "egg", "connectors": [{"angle": 0, "type": "tab"},
                                                  {"angle": 180, "type": "tab"}]},
        {"id": "N", "kind": "egg", "connectors": [{"angle": 0, "type": "notch"}]},
        {"id": "M", "kind": "egg", "connectors": [{"angle": 0, "type": "notch"},
                                                  {"angle": 180, "type": "notch"}]}]}
    rules = PeltaPeeps(seats=TWO, catalog=cat)
    layout = [Placed("red:T", "red", "T", 0.0, 0.0, 0.0, True),
              Placed("red:N", "red", "N", 2.0, 0.0, 180.0, True),
              Placed("blue:N", "blue", "N", -2.0, 0.0, 0.0, True)]
    s = replace(_with(rules, *layout), turn=7)  # bob's turn, past the opening rounds
    assert rules.why_not(s, CannotPlace("bob")) is None
    s, _ = rules.apply(s, CannotPlace("bob"))
    assert "placing" in rules.why_not(s, FlipOther("bob", "red:T"))
    assert "placing" in rules.why_not(s, MoveOther("bob", "red:T", 0.0, 0.0, 0.0))
    assert list(rules.legal_actions(s)) == [EndTurn("bob")]
    s, _ = rules.apply(s, EndTurn("bob"))
    assert rules.is_over(s)  # bob was the round's last seat (PLAY 5b)


def test_the_round_is_finished_after_the_last_piece_and_a_tie_has_two_winners():
    """Rules, Game Ends When 1 and PLAY 5a: when a player plays their last piece, "all
    players who have not played in a round can take their turn to finish the round"; then
    SCORING: the most points wins, and players tied on the most all win."""
    cat = {"pieces": [
        {"id": "T", "kind": "egg", "connectors": [{"angle": 0, "type": "tab"},
                                                  {"angle": 180, "type": "tab"}]},
        {"id": "M", "kind": "egg", "connectors": [{"angle": 0, "type": "notch"},
                                                  {"angle": 180, "type": "notch"}]}]}
    rules = PeltaPeeps(seats=TWO, catalog=cat)
    s = rules.new_state()
    for action in (Place("ann", "red", "T", 0.0, 0.0, 0.0, True), EndTurn("ann"),
                   Place("bob", "blue", "M", 2.0, 0.0, 0.0, True), EndTurn("bob"),
                   Place("ann", "red", "M", -2.0, 0.0, 0.0, True)):  # red's last piece
        s, events = rules.apply(s, action)
    assert [e.kind for e in events] == ["place", "ending"]
    s, _ = rules.apply(s, EndTurn("ann"))
    assert not rules.is_over(s) and rules.to_act(s) == "bob"  # bob finishes the round
    s, _ = rules.apply(s, Place("bob", "blue", "T", 4.0, 0.0, 0.0, True))
    s, _ = rules.apply(s, EndTurn("bob"))
    assert rules.is_over(s)
    # Each: 3 JOIN points (T-M across, and one of their own), 1 BONUS, 2 eggs face up.
    tally = rules.tally(s)
    assert [x.score for x in tally.standings] == [6, 6]
    assert tally.winners == ("ann", "bob") and tally.winner is None


@pytest.mark.parametrize("x", [10**4000, -(10**400), float("inf"), float("nan")])
def test_a_place_action_at_no_finite_point_is_refused_in_one_line(x: float) -> None:
    # A whole number too large for a float ended on OverflowError (a 500 on the page).
    rules = PeltaPeeps(seats=TWO)
    data = {"kind": "place", "player": "ann", "team": "red", "piece": "E1", "x": x, "y": 0,
            "rotation": 0, "face_up": True}
    with pytest.raises(BadActionData) as e:
        rules.decode_action(data)
    text = str(e.value)
    assert "field 'x' must be float" in text and "\n" not in text and len(text) < 150, text
