"""Setting up: laying hexes, placing Supply Centers, the garrison and the first turn.

2001: "Each player takes a turn building their Territory … Each player places three
Hexes in this fashion" — read as each player laying all three in one go.
2005: "Once all players have placed a hex, repeat the process" — round by round.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from companion.rules.peepwar import (
    PeepWar,
    PeepWarState,
    Phase,
    PlaceSupplyCenter,
    PlaceTile,
    Stack,
    setup_order,
)

from .conftest import SEATS, kinds, play, refusal, setup_actions

THREE = ("red", "blue", "green")


def _expected_order(players: tuple[str, ...], edition: int) -> list[tuple[Phase, str]]:
    if edition == 2001:
        tiles = [p for p in players for _ in range(3)]
        supply = [p for p in players for _ in range(2)]
    else:
        tiles = list(players) * 3
        supply = list(players) * 2
    return [(Phase.SETUP_TILES, p) for p in tiles] + [(Phase.SETUP_SUPPLY, p) for p in supply]


@pytest.mark.parametrize("n", [2, 3, 6])
def test_setup_order_function_per_edition(edition: int, n: int) -> None:
    players = SEATS[:n]
    assert setup_order(players, edition) == _expected_order(players, edition)


def test_2001_order_is_three_hexes_in_a_row_then_two_supply_centers_in_a_row() -> None:
    assert [p for _, p in setup_order(THREE, 2001)] == (
        ["red"] * 3 + ["blue"] * 3 + ["green"] * 3 + ["red"] * 2 + ["blue"] * 2 + ["green"] * 2
    )


def test_2005_order_is_round_robin() -> None:
    assert [p for _, p in setup_order(THREE, 2005)] == ["red", "blue", "green"] * 5


def test_playing_a_setup_asks_the_players_in_the_editions_order(edition: int) -> None:
    rules = PeepWar(players=THREE, edition=edition)
    state = rules.new_state()
    seen = []
    for action in setup_actions(rules):
        seen.append((state.phase, rules.to_act(state)))
        state, _ = rules.apply(state, action)
    assert seen == _expected_order(THREE, edition)


def test_after_the_first_hex_2001_keeps_the_same_player_and_2005_passes_on(edition: int) -> None:
    rules = PeepWar(players=THREE, edition=edition)
    state, _ = play(rules, rules.new_state(), "hex 1,0")
    assert rules.to_act(state) == ("red" if edition == 2001 else "blue")
    assert state.tiles[(1, 0)] == "red"


# --- laying hexes -------------------------------------------------------------------------


def test_new_game_has_only_the_neutral_territory(game: PeepWar) -> None:
    state = game.new_state()
    assert dict(state.tiles) == {(0, 0): None}
    assert state.phase is Phase.SETUP_TILES
    assert game.to_act(state) == "red"
    assert state.turn == 0


@pytest.mark.parametrize("at", ["2,0", "0,2", "-2,1", "1,1", "3,-3"])
def test_first_hex_must_share_a_side_with_the_neutral_territory(game: PeepWar, at: str) -> None:
    assert refusal(game, game.new_state(), f"hex {at}") == (
        f"red cannot place a hex at {at}: your first hex must share a side with the "
        "Neutral Territory at 0,0"
    )


@pytest.mark.parametrize("at", ["1,0", "0,1", "-1,1", "-1,0", "0,-1", "1,-1"])
def test_first_hex_on_any_side_of_the_neutral_territory(game: PeepWar, at: str) -> None:
    state, events = play(game, game.new_state(), f"hex {at}")
    q, r = map(int, at.split(","))
    assert state.tiles[(q, r)] == "red"
    assert events[0].text == f"red places a hex at {at}"


def test_later_hexes_must_touch_your_own_territory_2001() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state, _ = play(rules, rules.new_state(), "hex 1,0")
    # 0,-2 touches nothing of red's; -1,1 touches the Neutral Territory but not red's hex.
    assert refusal(rules, state, "hex 0,-2").endswith(
        "it must share a side with a hex of your territory (1,0)")
    assert refusal(rules, state, "hex -1,1").endswith(
        "it must share a side with a hex of your territory (1,0)")
    state, _ = play(rules, state, "hex 2,0", "hex 3,-1")
    assert {t for t, o in state.tiles.items() if o == "red"} == {(1, 0), (2, 0), (3, -1)}


def test_later_hexes_must_touch_your_own_territory_2005() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state, _ = play(rules, rules.new_state(), "hex 1,0", "hex -1,0")
    # Touching blue's hex is not enough for red: it must touch red's own.
    assert refusal(rules, state, "hex -2,0").endswith(
        "it must share a side with a hex of your territory (1,0)")
    state, _ = play(rules, state, "hex 2,-1")
    assert refusal(rules, state, "hex 3,-1").endswith(
        "it must share a side with a hex of your territory (-1,0)")


def test_occupied_positions_are_refused(game: PeepWar) -> None:
    state = game.new_state()
    assert refusal(game, state, "hex 0,0") == (
        "red cannot place a hex at 0,0: the Neutral Territory is there")
    state, _ = play(game, state, "hex 1,0")
    if game.edition == 2001:
        state, _ = play(game, state, "hex 2,0", "hex 2,-1")
    assert game.to_act(state) == "blue"
    assert refusal(game, state, "hex 1,0") == (
        "blue cannot place a hex at 1,0: red's hex is already there")


def test_2001_neutral_sides_are_kept_for_players_still_to_lay_a_first_hex() -> None:
    """Six players, six sides: the first player may not take a second side."""
    rules = PeepWar(players=SEATS, edition=2001)
    state, _ = play(rules, rules.new_state(), "hex 1,0")
    reason = refusal(rules, state, "hex 0,1")  # touches red's hex and the Neutral Territory
    assert reason.startswith("red cannot place a hex at 0,1: ")
    assert re.search(r"Neutral Territory .*kept for .*blue, green, gold, pink, teal", reason)
    state, _ = play(rules, state, "hex 2,0")  # away from the Neutral Territory: fine
    assert state.tiles[(2, 0)] == "red"


def test_2001_neutral_reserve_with_five_players_allows_exactly_one_spare_side() -> None:
    rules = PeepWar(players=SEATS[:5], edition=2001)
    # Six sides, five first hexes: red may take one extra side, not two.
    state, _ = play(rules, rules.new_state(), "hex 1,0", "hex 0,1")
    reason = refusal(rules, state, "hex -1,1")
    assert re.search(r"Neutral Territory .*kept for .*blue, green, gold, pink$", reason)
    state, _ = play(rules, state, "hex 1,1")
    assert rules.to_act(state) == "blue"


def test_2005_neutral_reserve_never_bites_after_the_first_round() -> None:
    rules = PeepWar(players=THREE, edition=2005)
    state, _ = play(rules, rules.new_state(), "hex 1,0", "hex -1,1", "hex 0,-1")
    # Every player has a first hex: red may take a second side of the Neutral Territory.
    state, _ = play(rules, state, "hex 0,1")
    assert state.tiles[(0, 1)] == "red"


def test_a_hemmed_in_territory_may_grow_anywhere_touching_the_table(game: PeepWar) -> None:
    """The texts are silent; the engine lets a player whose hexes have no free side
    lay the next hex anywhere that shares a side with a hex on the table."""
    state = game.new_state()
    # Red's only hex 1,0 is closed in by the Neutral Territory and blue's five hexes.
    tiles = {(0, 0): None, (1, 0): "red", (2, 0): "blue", (1, 1): "blue", (0, 1): "blue",
             (1, -1): "blue", (2, -1): "blue"}
    state = replace(state, tiles=tiles, current="red")
    assert game.to_act(state) == "red"
    for at in ("-1,0", "3,0", "0,2"):
        assert game.why_not(state, PlaceTile("red", *map(int, at.split(",")))) is None, at
    assert refusal(game, state, "hex 5,5") == (
        "red cannot place a hex at 5,5: your territory (1,0) is hemmed in, so this hex may go "
        "anywhere that shares a side with a hex on the table")
    # Open one side of red's hex: the ordinary rule is back.
    state = replace(state, tiles={t: o for t, o in tiles.items() if t != (2, 0)})
    assert refusal(game, state, "hex -1,0").endswith(
        "it must share a side with a hex of your territory (1,0)")


def test_placing_a_supply_center_while_hexes_are_being_laid_is_refused(game: PeepWar) -> None:
    assert refusal(game, game.new_state(), "sc 1,0") == (
        "red cannot place a Supply Center on 1,0/c: it is the placing hexes phase")


def test_wrong_player_during_setup(game: PeepWar) -> None:
    reason = game.why_not(game.new_state(), PlaceTile("blue", 1, 0))
    assert reason == "blue cannot place a hex at 1,0: it is red's turn to act (placing hexes)"


# --- Supply Centers ---------------------------------------------------------------------


def _to_supply_phase(rules: PeepWar) -> PeepWarState:
    """The state when the first Supply Center is due (all hexes laid)."""
    state = rules.new_state()
    for action in setup_actions(rules):
        if state.phase is Phase.SETUP_SUPPLY:
            break
        state, _ = rules.apply(state, action)
    assert state.phase is Phase.SETUP_SUPPLY
    return state


def test_supply_centers_only_on_your_own_hexes(game: PeepWar) -> None:
    state = _to_supply_phase(game)
    assert game.to_act(state) == "red"
    # Territories from conftest: red 1,0 2,0 1,1; blue -1,0 -2,0 -1,-1.
    assert refusal(game, state, "sc -1,0") == (
        "red cannot place a Supply Center on -1,0/c: -1,0 is not in your territory")
    assert refusal(game, state, "sc 0,0") == (
        "red cannot place a Supply Center on 0,0/c: 0,0 is not in your territory")
    assert refusal(game, state, "sc 5,5") == (
        "red cannot place a Supply Center on 5,5/c: there is no hex at 5,5")
    assert refusal(game, state, "hex 3,0") == (
        "red cannot place a hex at 3,0: it is the placing Supply Centers phase")


def test_a_hex_holds_one_supply_center(game: PeepWar) -> None:
    state = _to_supply_phase(game)
    state, events = play(game, state, "sc 1,1")
    assert "1,1/c" in state.supply_centers
    assert events[0].text == "red places a Supply Center on 1,1/c"
    if game.edition == 2005:
        state, _ = play(game, state, "sc -1,0")
    assert game.to_act(state) == "red"
    assert refusal(game, state, "sc 1,1") == (
        "red cannot place a Supply Center on 1,1/c: a Supply Center is already on 1,1/c")
    state, _ = play(game, state, "sc 2,0")
    assert {"1,1/c", "2,0/c"} <= state.supply_centers


def test_setup_ends_with_garrisons_the_neutral_supply_center_and_turn_one(game: PeepWar) -> None:
    state = game.new_state()
    actions = setup_actions(game)
    for action in actions[:-1]:
        state, _ = game.apply(state, action)
    assert not state.pieces  # nothing on the table before the last Supply Center
    assert "0,0/c" not in state.supply_centers
    last = actions[-1]
    assert isinstance(last, PlaceSupplyCenter)
    state, events = game.apply(state, last)

    assert state.supply_centers == {"1,0/c", "2,0/c", "-1,0/c", "-2,0/c", "0,0/c"}
    full = Stack(troops=1, peep=3)
    assert {cell: dict(who) for cell, who in state.pieces.items()} == {
        "1,0/c": {"red": full}, "2,0/c": {"red": full},
        "-1,0/c": {"blue": full}, "-2,0/c": {"blue": full},
    }
    # The Neutral Supply Center starts empty, so nobody controls it.
    assert state.controller("0,0/c") is None
    assert state.controlled("red") == ["1,0/c", "2,0/c"]
    assert state.controlled("blue") == ["-1,0/c", "-2,0/c"]

    assert kinds(events) == ["place_supply_center"] + ["garrison"] * 4 + [
        "place_supply_center", "setup_done", "turn"]
    assert events[-3].data == {"player": None, "cell": "0,0/c"}
    assert events[-1].text == "turn 1: red to play"
    assert (state.phase, state.current, state.turn) == (Phase.MOVEMENT, "red", 1)
    assert game.to_act(state) == "red"


@pytest.mark.parametrize("n", [3, 6])
def test_the_first_seat_plays_the_first_turn_with_more_players(edition: int, n: int) -> None:
    rules = PeepWar(players=SEATS[:n], edition=edition)
    state, _ = rules.replay(setup_actions(rules))
    assert (state.phase, state.current, state.turn) == (Phase.MOVEMENT, "red", 1)
    assert len(state.supply_centers) == 2 * n + 1
    assert all(len(state.controlled(p)) == 2 for p in SEATS[:n])


@pytest.mark.parametrize(
    ("players", "edition", "message"),
    [
        (("red",), 2005, "needs 2 to 6 players, not 1"),
        (SEATS + ("gray",), 2005, "needs 2 to 6 players, not 7"),
        (("red", "red"), 2001, "each player needs a different key"),
        (("Red", "blue"), 2001, "is not a player key"),
        (("red", "blue"), 2003, "edition must be 2001 or 2005"),
    ],
)
def test_table_options_are_checked(players: tuple[str, ...], edition: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PeepWar(players=players, edition=edition)
