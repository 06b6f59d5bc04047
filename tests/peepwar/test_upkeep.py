"""The beginning of a turn: who is out, and removing pieces the Supply Centers cannot support.

"If, at the beginning of your turn, you have no Supply Centers under your control,
you are out of the game." "… three Troops or less and no Peeps, or only one Peep and
no Troops, you are out of the game." (2005; the engine reads the 2001 "three
Platoons" the same way, docs/peepwar.md.) "You may have up to one Peep and up to six
Troops in play for each Supply Center under your control."

Each test builds the position at the end of the previous player's production and
plays ``end``, so the real start-of-turn code runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from companion.rules.peepwar import PeepWar, PeepWarState, Phase, Remove, Stack

from .conftest import SEATS, StackSpec, kinds, play, position, refusal

# Two players: red's Supply Centers 1,0/c and 2,0/c; blue's -1,0/c and -2,0/c.
BLUE_HOME = {"-1,0/c": {"blue": (2, 3)}}
# Three players: red 1,0/c 2,0/c; blue -1,1/c -2,2/c; green 0,-1/c 0,-2/c.
THREE = SEATS[:3]


def start_turn(
    rules: PeepWar, pieces: Mapping[str, Mapping[str, StackSpec]], player: str
) -> tuple[PeepWarState, list]:
    """``player``'s turn begins: the seat before them ends their production."""
    seats = rules.players
    before = seats[(seats.index(player) - 1) % len(seats)]
    state = position(rules, pieces, current=before, phase=Phase.PRODUCTION)
    return play(rules, state, "end")


# --- elimination ------------------------------------------------------------------------


def test_no_supply_center_means_out_and_the_last_player_wins(game: PeepWar) -> None:
    # Blue has plenty of pieces, but none on a Supply Center.
    pieces = {"1,0/c": {"red": (1, 3)}, "-1,0/1": {"blue": (5, 3)}, "-1,0/2": {"blue": 5}}
    state, events = start_turn(game, pieces, "blue")
    assert kinds(events) == ["end_turn", "out", "victory"]
    assert events[1].text == (
        "blue is out of the game: blue controls no Supply Center; blue's pieces leave the table")
    assert events[2].text == "red wins: red is the last player in the game"
    assert state.out == ("blue",)
    assert state.phase is Phase.OVER and state.winner == "red"
    assert not any("blue" in who for who in state.pieces.values())
    assert game.to_act(state) is None


@pytest.mark.parametrize("troops", [1, 2, 3])
def test_three_troops_or_fewer_and_no_peep_is_out(game: PeepWar, troops: int) -> None:
    # Troops spread over two cells still count together.
    pieces = {"1,0/c": {"red": (1, 3)}, "-1,0/c": {"blue": 1}}
    if troops > 1:
        pieces["-1,0/0"] = {"blue": troops - 1}
    state, events = start_turn(game, pieces, "blue")
    word = "troop" if troops == 1 else "troops"
    assert events[1].text == (
        f"blue is out of the game: blue has only {troops} {word} and no peep; "
        "blue's pieces leave the table")
    assert state.winner == "red"


def test_four_troops_and_no_peep_plays_on(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (1, 3)}, "-1,0/c": {"blue": 4}}
    state, events = start_turn(game, pieces, "blue")
    assert kinds(events) == ["end_turn", "turn"]
    assert (state.phase, state.current, state.out) == (Phase.MOVEMENT, "blue", ())


def test_one_peep_and_no_troops_is_out(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (1, 3)}, "-1,0/c": {"blue": (0, 2)}}
    state, events = start_turn(game, pieces, "blue")
    assert events[1].text == (
        "blue is out of the game: blue has only one peep and no troops; "
        "blue's pieces leave the table")
    assert state.winner == "red"


@pytest.mark.parametrize(
    "blue",
    [
        {"-1,0/c": {"blue": (1, 1)}},  # one troop and a peep
        {"-1,0/c": {"blue": (0, 3)}, "-2,0/c": {"blue": (0, 3)}},  # two peeps, no troops
    ],
    ids=["troop-and-peep", "two-peeps"],
)
def test_small_forces_with_a_peep_play_on(game: PeepWar, blue: dict) -> None:
    state, _ = start_turn(game, {"1,0/c": {"red": (1, 3)}, **blue}, "blue")
    assert (state.phase, state.current, state.out) == (Phase.MOVEMENT, "blue", ())


def test_out_player_is_skipped_and_play_passes_on(edition: int) -> None:
    rules = PeepWar(players=THREE, edition=edition)
    pieces = {
        "1,0/c": {"red": (2, 3)},
        "-1,1/c": {"blue": 3},  # three troops, no peep: out
        "-1,1/0": {"green": 1},  # a green troop beside blue's cell stays
        "0,-1/c": {"green": (2, 3)},
    }
    turn_before = position(rules, pieces).turn
    state, events = start_turn(rules, pieces, "blue")
    assert kinds(events) == ["end_turn", "out", "turn"]
    assert events[2].text == f"turn {turn_before + 1}: green to play"
    assert (state.current, state.phase, state.out, state.winner) == (
        "green", Phase.MOVEMENT, ("blue",), None)
    assert "-1,1/c" not in state.pieces  # blue's pieces left the table
    assert state.pieces["-1,1/0"] == {"green": Stack(troops=1)}
    # Green's turn ends: play passes to red, not to the out player.
    state, events = play(rules, replace(state, phase=Phase.PRODUCTION), "end")
    assert state.current == "red"
    # An out player cannot act.
    assert rules.why_not(state, Remove("blue", "1,0/c", 1)).endswith("blue is out of the game")
    assert rules.tally(state).standings[1].out is True


# --- support limits -----------------------------------------------------------------------


def test_exactly_six_troops_and_one_peep_per_supply_center_need_no_upkeep(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (5, 3)}, "1,0/0": {"red": 1}, **BLUE_HOME}
    state, events = start_turn(game, pieces, "red")
    assert state.phase is Phase.MOVEMENT
    assert "upkeep" not in kinds(events)


def test_too_many_troops_start_an_upkeep_phase(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (5, 3)}, "1,0/0": {"red": 3}, **BLUE_HOME}
    state, events = start_turn(game, pieces, "red")
    assert state.phase is Phase.UPKEEP and game.to_act(state) == "red"
    assert events[-1].kind == "upkeep"
    assert events[-1].text == (
        "red's Supply Centers cannot support everything: red must remove 2 troops")
    assert events[-1].data == {"player": "red", "troops": 2, "peeps": 0}
    # Only troops are over the limit, and only two of them.
    assert refusal(game, state, "remove peep 1,0/c") == (
        "red cannot remove a peep from 1,0/c: your Supply Centers support all your peeps")
    assert refusal(game, state, "remove 3 1,0/0") == (
        "red cannot remove 3 troops from 1,0/0: you only have to remove 2 troops")
    assert refusal(game, state, "move 1 1,0/0 1,0/1").endswith(
        "it is the removing unsupported pieces phase")
    assert refusal(game, state, "end").endswith("it is the removing unsupported pieces phase")
    # One at a time: still in upkeep after the first, movement after the second.
    state, events = play(game, state, "remove 1 1,0/0")
    assert events[0].text == "red removes 1 troop from 1,0/0"
    assert state.phase is Phase.UPKEEP
    assert refusal(game, state, "remove 2 1,0/c").endswith("you only have to remove 1 troop")
    state, events = play(game, state, "remove 1 1,0/c")
    assert kinds(events) == ["remove"]
    assert state.phase is Phase.MOVEMENT
    assert state.totals("red") == (6, 1)


def test_too_many_peeps_start_an_upkeep_phase(game: PeepWar) -> None:
    # Red holds one Supply Center but has two peeps (and blue holds the other).
    pieces = {"1,0/c": {"red": (1, 3)}, "1,0/1": {"red": (0, 2)}, **BLUE_HOME}
    state, events = start_turn(game, pieces, "red")
    assert events[-1].text == (
        "red's Supply Centers cannot support everything: red must remove 1 peep")
    assert refusal(game, state, "remove 1 1,0/c") == (
        "red cannot remove 1 troop from 1,0/c: your Supply Centers support all your troops")
    assert refusal(game, state, "remove 1+peep 1,0/c").endswith(
        "your Supply Centers support all your troops")
    state, events = play(game, state, "remove peep 1,0/1")
    assert events[0].text == "red removes the peep from 1,0/1"
    assert state.phase is Phase.MOVEMENT
    assert "1,0/1" not in state.pieces


def test_troops_and_peep_over_the_limit_go_together(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (5, 3)}, "1,0/1": {"red": (2, 3)}, **BLUE_HOME}
    state, events = start_turn(game, pieces, "red")
    assert events[-1].text.endswith("red must remove 1 troop and 1 peep")
    state, _ = play(game, state, "remove 1+peep 1,0/1")
    assert state.phase is Phase.MOVEMENT
    assert state.totals("red") == (6, 1)


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("remove 2 1,0/2", "you have 1 troop at 1,0/2"),
        ("remove peep 1,0/2", "you have no peep at 1,0/2"),
        ("remove 0 1,0/2", "say how many troops (at least one) or the peep to remove"),
        ("remove 1 9,9/c", "there is no hex at 9,9"),
        ("remove 1 -1,0/c", "you have 0 troops at -1,0/c"),
    ],
)
def test_remove_refusals(game: PeepWar, command: str, reason: str) -> None:
    pieces = {"1,0/c": {"red": (5, 3)}, "1,0/1": {"red": 5}, "1,0/2": {"red": 1}, **BLUE_HOME}
    state, _ = start_turn(game, pieces, "red")
    assert state.phase is Phase.UPKEEP
    assert refusal(game, state, command).endswith(": " + reason)


def test_removing_the_last_piece_on_a_supply_center_lowers_the_limit(game: PeepWar) -> None:
    # Two Supply Centers support 12 troops; red has 14. 1,0/c is held by a lone troop.
    pieces = {
        "1,0/c": {"red": 1},
        "2,0/c": {"red": (5, 3)},
        "2,0/0": {"red": 5},
        "2,0/1": {"red": 3},
        **BLUE_HOME,
    }
    state, events = start_turn(game, pieces, "red")
    assert events[-1].data == {"player": "red", "troops": 2, "peeps": 0}
    state, events = play(game, state, "remove 1 1,0/c")
    # The Supply Center is given up: one left, supporting 6 of the 13 troops.
    assert state.controller("1,0/c") is None
    assert state.controlled("red") == ["2,0/c"]
    assert state.phase is Phase.UPKEEP
    # Had the limit stayed at 12, one more troop would do; now seven must go.
    assert game.why_not(state, Remove("red", "2,0/0", 5)) is None
    state, _ = play(game, state, "remove 5 2,0/0")
    assert refusal(game, state, "remove 3 2,0/1").endswith("you only have to remove 2 troops")
    state, _ = play(game, state, "remove 2 2,0/1")
    assert state.phase is Phase.MOVEMENT
    assert state.totals("red") == (6, 1)


def test_elimination_is_checked_again_when_removals_are_done(edition: int) -> None:
    rules = PeepWar(players=THREE, edition=edition)
    # Red has two peeps, no troops, one Supply Center: not out, but one peep too many.
    pieces = {
        "1,0/c": {"red": (0, 3)},
        "1,0/1": {"red": (0, 3)},
        "-1,1/c": {"blue": (2, 3)},
        "0,-1/c": {"green": (2, 3)},
    }
    state, events = start_turn(rules, pieces, "red")
    assert state.phase is Phase.UPKEEP and state.current == "red"
    state, events = play(rules, state, "remove peep 1,0/1")
    assert kinds(events) == ["remove", "out", "turn"]
    assert events[1].text.startswith("red is out of the game: red has only one peep and no troops")
    assert (state.current, state.phase, state.out) == ("blue", Phase.MOVEMENT, ("red",))
    assert "1,0/c" not in state.pieces
