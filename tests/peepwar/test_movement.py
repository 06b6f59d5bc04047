"""Movement: one step, once per piece per turn, five troops and one own peep per cell.

"You may move each of your Troops and each of your Peeps from a cell into an adjacent
cell." "You may not have more than five of your Troops or one of your Peeps in a
single cell." 2001: "At no time may a Peep be placed in a cell inhabited by another
Peep." "If you move all of your pieces out of a cell containing a Supply Center, that
Supply Center is no longer considered to be under your control."
"""

from __future__ import annotations

import pytest

from companion.rules.peepwar import Move, PeepWar, Phase, Stack

from .conftest import kinds, play, position, refusal

BLUE_HOME = {"-1,0/c": {"blue": (2, 3)}}
RED_HOME = {"1,0/c": {"red": (2, 3)}}


def test_refusal_names_player_action_and_reason_cells_do_not_touch(game: PeepWar) -> None:
    state = position(game, {"0,0/3": {"blue": 2}, **BLUE_HOME, **RED_HOME}, current="blue")
    assert refusal(game, state, "move 2 0,0/3 1,0/0") == (
        "blue cannot move 2 troops from 0,0/3 to 1,0/0: the cells do not touch")


@pytest.mark.parametrize(
    ("src", "dst", "ok"),
    [
        ("1,0/c", "1,0/0", True),
        ("1,0/c", "1,0/4", True),
        ("1,0/3", "0,0/0", True),  # across the shared side into the Neutral Territory
        ("1,0/3", "1,0/2", True),
        ("1,0/3", "1,0/5", False),  # same tile, not next to each other
        ("1,0/c", "0,0/c", False),  # two steps
        ("1,0/3", "0,0/c", False),
        ("1,0/3", "0,0/1", False),  # only a corner
        ("1,0/2", "0,0/0", False),
    ],
)
def test_one_step_into_an_adjacent_cell_only(game: PeepWar, src: str, dst: str, ok: bool) -> None:
    state = position(game, {src: {"red": 1}, **BLUE_HOME})
    reason = game.why_not(state, Move("red", src, dst, 1))
    if ok:
        assert reason is None
        state, events = play(game, state, f"move 1 {src} {dst}")
        assert state.stack(dst, "red").troops == 1 and state.stack(src, "red").empty
        assert events[0].text == f"red moves 1 troop from {src} to {dst}"
    else:
        assert reason == f"red cannot move 1 troop from {src} to {dst}: the cells do not touch"


def test_cells_off_the_table_and_staying_put_are_refused(game: PeepWar) -> None:
    # Across side 0 of 2,0 lies 3,0: no hex there.
    state = position(game, {"2,0/0": {"red": 2}, **BLUE_HOME})
    assert refusal(game, state, "move 1 2,0/0 3,0/3") == (
        "red cannot move 1 troop from 2,0/0 to 3,0/3: there is no hex at 3,0")
    assert refusal(game, state, "move 1 2,0/0 2,0/0").endswith(
        "a piece must move to another cell")


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("move 3 1,0/c 1,0/0", "you have 2 troops at 1,0/c"),
        ("move peep 1,0/1 1,0/0", "you have no peep at 1,0/1"),
        ("move 0 1,0/c 1,0/0", "say how many troops (at least one) or the peep to move"),
        ("move 1 -1,0/c -1,0/0", "you have 0 troops at -1,0/c"),  # blue's troops
    ],
)
def test_only_your_own_pieces_that_are_there_move(game: PeepWar, command: str, reason: str) -> None:
    state = position(game, {"1,0/1": {"red": 1}, **RED_HOME, **BLUE_HOME})
    assert refusal(game, state, command).endswith(": " + reason)


def test_a_negative_count_is_refused(game: PeepWar) -> None:
    state = position(game, {**RED_HOME, **BLUE_HOME})
    assert game.why_not(state, Move("red", "1,0/c", "1,0/0", -1)).endswith(
        "say how many troops (at least one) or the peep to move")


def test_a_troop_that_moved_may_not_move_again_counted_per_cell(game: PeepWar) -> None:
    state = position(game, {"1,0/0": {"red": 2}, "1,0/1": {"red": 1}, **BLUE_HOME})
    state, _ = play(game, state, "move 2 1,0/0 1,0/1")
    assert state.stack("1,0/1", "red") == Stack(troops=3, moved=2)
    assert refusal(game, state, "move 2 1,0/1 1,0/2") == (
        "red cannot move 2 troops from 1,0/1 to 1,0/2: only 1 troop at 1,0/1 has not moved "
        "this turn")
    state, _ = play(game, state, "move 1 1,0/1 1,0/2")
    assert refusal(game, state, "move 1 1,0/1 1,0/c").endswith(
        "only 0 troops at 1,0/1 have not moved this turn")
    # The one that arrived at 1,0/2 may not go on either.
    assert refusal(game, state, "move 1 1,0/2 1,0/3").endswith(
        "only 0 troops at 1,0/2 have not moved this turn")


def test_a_peep_that_moved_may_not_move_again(game: PeepWar) -> None:
    state = position(game, {"1,0/0": {"red": (1, 3)}, **BLUE_HOME})
    state, events = play(game, state, "move 1+peep 1,0/0 1,0/1")
    assert events[0].text == "red moves 1 troop and a peep (3 health) from 1,0/0 to 1,0/1"
    assert refusal(game, state, "move peep 1,0/1 1,0/2") == (
        "red cannot move a peep from 1,0/1 to 1,0/2: your peep at 1,0/1 has already moved "
        "this turn")


def test_pieces_may_move_again_next_turn(game: PeepWar) -> None:
    state = position(game, {"1,0/0": {"red": (2, 3)}, "1,0/c": {"red": 4}, **BLUE_HOME})
    state, _ = play(game, state, "move 2+peep 1,0/0 1,0/1", "end", "end", "end", "end")
    assert (state.current, state.phase, state.turn) == ("red", Phase.MOVEMENT, 3)
    assert state.stack("1,0/1", "red") == Stack(troops=2, peep=3)
    state, _ = play(game, state, "move 2+peep 1,0/1 1,0/2")
    assert state.stack("1,0/2", "red").troops == 2


def test_at_most_five_own_troops_in_a_cell(game: PeepWar) -> None:
    state = position(game, {"1,0/0": {"red": 4}, "1,0/1": {"red": (2, 3)}, **BLUE_HOME})
    assert refusal(game, state, "move 2 1,0/1 1,0/0") == (
        "red cannot move 2 troops from 1,0/1 to 1,0/0: that would put 6 of your troops in "
        "1,0/0; a cell holds at most 5 of a player's troops")
    # Five troops and a peep may share a cell.
    state, _ = play(game, state, "move 1+peep 1,0/1 1,0/0")
    assert state.stack("1,0/0", "red") == Stack(troops=5, peep=3, moved=1, peep_moved=True)


def test_enemy_troops_do_not_count_towards_your_five(game: PeepWar) -> None:
    state = position(game, {"0,0/0": {"red": 5}, "0,0/c": {"blue": 5}, **BLUE_HOME})
    state, events = play(game, state, "move 5 0,0/0 0,0/c")
    assert events[0].text == "red moves 5 troops from 0,0/0 to 0,0/c: a fight with blue"
    assert set(state.occupants("0,0/c")) == {"red", "blue"}


def test_one_own_peep_per_cell(game: PeepWar) -> None:
    state = position(game, {"1,0/0": {"red": (0, 3)}, **RED_HOME, **BLUE_HOME})
    assert refusal(game, state, "move peep 1,0/0 1,0/c") == (
        "red cannot move a peep from 1,0/0 to 1,0/c: you already have a peep in 1,0/c")


def test_2001_no_peep_into_a_cell_holding_another_players_peep() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = position(rules, {"0,0/0": {"red": (2, 3)}, "0,0/c": {"blue": (1, 2)}, **BLUE_HOME})
    assert refusal(rules, state, "move 2+peep 0,0/0 0,0/c") == (
        "red cannot move 2 troops and a peep from 0,0/0 to 0,0/c: blue's peep is in 0,0/c and "
        "two peeps may never share a cell")
    assert refusal(rules, state, "move peep 0,0/0 0,0/c").endswith(
        "two peeps may never share a cell")
    # Troops alone may attack the peep's cell.
    state, _ = play(rules, state, "move 2 0,0/0 0,0/c")
    assert set(state.occupants("0,0/c")) == {"red", "blue"}


def test_2001_a_peep_may_attack_a_cell_of_enemy_troops() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = position(rules, {"0,0/0": {"red": (0, 3)}, "0,0/c": {"blue": 2}, **BLUE_HOME})
    state, _ = play(rules, state, "move peep 0,0/0 0,0/c")
    assert state.stack("0,0/c", "red").peep == 3


def test_2005_a_peep_may_attack_a_cell_holding_an_enemy_peep() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state = position(rules, {"0,0/0": {"red": (2, 3)}, "0,0/c": {"blue": (1, 2)}, **BLUE_HOME})
    state, events = play(rules, state, "move 2+peep 0,0/0 0,0/c", "end")
    assert events[0].text.endswith(": a fight with blue")
    c = state.combat
    assert c is not None and c.cell == "0,0/c"
    # Both peeps' beans are in the egg.
    assert dict(c.peep_beans) == {"red": 3, "blue": 2}
    assert dict(c.troops) == {"red": 2, "blue": 1}


def test_moving_everything_off_a_supply_center_gives_up_control(game: PeepWar) -> None:
    state = position(game, {"1,0/c": {"red": (2, 3)}, **BLUE_HOME})
    assert state.controller("1,0/c") == "red"
    # Part of the pieces leaves: still red's.
    state, events = play(game, state, "move 1 1,0/c 1,0/0", "move peep 1,0/c 1,0/1")
    assert "give_up" not in kinds(events)
    assert state.controller("1,0/c") == "red"
    state, events = play(game, state, "move 1 1,0/c 1,0/2")
    assert kinds(events) == ["move", "give_up"]
    assert events[1].text == "red gives up the Supply Center at 1,0/c"
    assert events[1].data == {"player": "red", "cell": "1,0/c"}
    assert state.controller("1,0/c") is None
    assert state.controlled("red") == []


def test_a_lone_peep_holds_a_supply_center_and_emptying_an_ordinary_cell_gives_nothing_up(
    game: PeepWar,
) -> None:
    state = position(game, {"1,0/c": {"red": (1, 3)}, "1,0/4": {"red": 2}, **BLUE_HOME})
    state, events = play(game, state, "move 1 1,0/c 1,0/0", "move 2 1,0/4 1,0/5")
    assert "give_up" not in kinds(events)
    assert state.controller("1,0/c") == "red"  # the peep alone holds it


def test_moving_into_an_enemy_cell_sets_up_a_fight(game: PeepWar) -> None:
    state = position(game, {"-1,0/0": {"red": 3}, **RED_HOME, **BLUE_HOME})
    state, events = play(game, state, "move 3 -1,0/0 -1,0/c")
    assert events[0].text == "red moves 3 troops from -1,0/0 to -1,0/c: a fight with blue"
    assert state.phase is Phase.MOVEMENT  # all moves first, then the fights
    assert state.contested() == ["-1,0/c"]
    assert state.controller("-1,0/c") is None  # contested: nobody's
    state, events = play(game, state, "end")
    assert kinds(events)[:2] == ["end_movement", "combat"]
    c = state.combat
    assert state.phase is Phase.COMBAT and c is not None
    assert (c.cell, c.attacker, c.defender, c.drawer) == ("-1,0/c", "red", "blue", "blue")


def test_ending_movement_without_fights_goes_to_production(game: PeepWar) -> None:
    state = position(game, {**RED_HOME, **BLUE_HOME})
    state, events = play(game, state, "end")
    assert kinds(events) == ["end_movement", "production"]
    assert state.phase is Phase.PRODUCTION and game.to_act(state) == "red"


def test_wrong_player_and_wrong_phase_are_refused(game: PeepWar) -> None:
    state = position(game, {**RED_HOME, **BLUE_HOME})
    assert game.why_not(state, Move("blue", "-1,0/c", "-1,0/0", 1)) == (
        "blue cannot move 1 troop from -1,0/c to -1,0/0: it is red's turn to act (movement)")
    assert game.why_not(state, Move("gray", "1,0/c", "1,0/0", 1)).endswith(
        "there is no player 'gray' at this table (red, blue)")
    state, _ = play(game, state, "end")
    assert refusal(game, state, "move 1 1,0/c 1,0/0") == (
        "red cannot move 1 troop from 1,0/c to 1,0/0: it is the production phase")
