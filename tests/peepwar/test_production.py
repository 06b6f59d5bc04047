"""Production: a troop per manned Supply Center, Peep Growth Jelly, the limits, the end of turn.

"During each Production phase, you may produce one bean from each Supply Center
manned by a Troop and a Peep." "If you have at least three Troops in the same cell as
a Supply Center, you may convert them to Peep Growth Jelly … Supply Centers that
generate Peeps in this fashion may not also produce Troops during the same Production
phase." "You cannot produce Troops or Peeps if this would cause you to have more
Troops or Peeps than the Supply Centers that are currently under your control can
support." "At the end of your Production Phase, your turn is over, and play passes to
the left."
"""

from __future__ import annotations

import pytest

from companion.rules.peepwar import EndTurn, PeepWar, PeepWarState, Phase, Produce, Stack

from .conftest import SEATS, kinds, play, position, refusal

BLUE_HOME = {"-1,0/c": {"blue": (2, 3)}, "-2,0/c": {"blue": (2, 3)}}


def producing(rules: PeepWar, pieces: dict, **kw: object) -> PeepWarState:
    """Red's production phase with blue at home and ``pieces`` for red."""
    return position(rules, {**BLUE_HOME, **pieces}, phase=Phase.PRODUCTION, **kw)


def test_a_manned_supply_center_produces_one_troop(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": (1, 3)}, "2,0/c": {"red": (2, 1)}})
    state, events = play(game, state, "produce 1,0/c")
    assert events[0].text == "red produces a troop at 1,0/c"
    assert state.stack("1,0/c", "red") == Stack(troops=2, peep=3)
    assert state.produced == {"1,0/c"}
    # One bean per Supply Center per phase, but each Supply Center may produce.
    assert refusal(game, state, "produce 1,0/c") == (
        "red cannot produce a troop at 1,0/c: the Supply Center at 1,0/c has already produced "
        "this phase")
    state, _ = play(game, state, "produce 2,0/c")
    assert state.stack("2,0/c", "red").troops == 3
    assert state.phase is Phase.PRODUCTION and game.to_act(state) == "red"


@pytest.mark.parametrize("stack", [(2, 0), (0, 3)], ids=["troops-only", "peep-only"])
def test_a_troop_needs_both_a_troop_and_a_peep_on_the_supply_center(
    game: PeepWar, stack: tuple[int, int]
) -> None:
    state = producing(game, {"1,0/c": {"red": stack}, "1,0/0": {"red": (2, 3)}})
    assert refusal(game, state, "produce 1,0/c").endswith(
        "a Supply Center produces a troop only when a troop and a peep man it")


@pytest.mark.parametrize("troops", [3, 4, 5])
def test_peep_growth_jelly_turns_three_troops_into_a_full_peep(game: PeepWar, troops: int) -> None:
    state = producing(game, {"1,0/c": {"red": troops}})
    state, events = play(game, state, "jelly 1,0/c")
    assert events[0].text == "red turns three troops into a peep at 1,0/c (Peep Growth Jelly)"
    assert events[0].data == {"player": "red", "cell": "1,0/c", "what": "peep"}
    assert state.stack("1,0/c", "red") == Stack(troops=troops - 3, peep=3)
    assert state.totals("red") == (troops - 3, 1)


def test_jelly_and_a_troop_not_both_at_one_supply_center(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": 4}})
    state, _ = play(game, state, "jelly 1,0/c")
    # Now manned by a troop and a peep, but it has produced this phase.
    assert refusal(game, state, "produce 1,0/c").endswith(
        "the Supply Center at 1,0/c has already produced this phase")
    state = producing(game, {"1,0/c": {"red": (3, 3)}, "2,0/c": {"red": 1}})
    state, _ = play(game, state, "produce 1,0/c")
    assert refusal(game, state, "jelly 1,0/c").endswith(
        "the Supply Center at 1,0/c has already produced this phase")


def test_jelly_needs_three_troops_and_no_peep_of_yours_there(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": 2}, "2,0/c": {"red": (3, 2)}})
    assert refusal(game, state, "jelly 1,0/c") == (
        "red cannot turn three troops into a peep at 1,0/c: Peep Growth Jelly needs three troops "
        "at 1,0/c")
    assert refusal(game, state, "jelly 2,0/c").endswith(
        "your peep is already at 2,0/c; two peeps may never share a cell")


def test_no_troop_over_the_support_limit(game: PeepWar) -> None:
    # One Supply Center (blue holds both of its own): six troops is the limit.
    state = producing(game, {"1,0/c": {"red": (1, 3)}, "1,0/0": {"red": 5}})
    assert refusal(game, state, "produce 1,0/c").endswith(
        "your 1 Supply Center support 6 troops and you have 6")


def test_the_limit_counts_troops_just_produced(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (1, 3)}, "2,0/c": {"red": (1, 3)},
              "1,0/0": {"red": 5}, "1,0/1": {"red": 4}}  # 11 troops, 12 supported
    state = producing(game, pieces)
    state, _ = play(game, state, "produce 1,0/c")
    assert state.totals("red") == (12, 2)
    assert refusal(game, state, "produce 2,0/c").endswith(
        "your 2 Supply Centers support 12 troops and you have 12")


def test_no_peep_over_the_support_limit(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": 3}, "1,0/0": {"red": (0, 3)}})
    assert refusal(game, state, "jelly 1,0/c").endswith(
        "your 1 Supply Center support 1 peep and you have 1")


def test_no_sixth_troop_in_a_cell(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": (5, 3)}, "2,0/c": {"red": 1}})
    assert refusal(game, state, "produce 1,0/c").endswith(
        "a cell holds at most 5 of a player's troops")


def test_only_at_supply_centers_you_control(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (1, 3)}, "1,0/1": {"red": (1, 3)}, "-2,0/0": {"red": 1}}
    state = producing(game, pieces)
    assert refusal(game, state, "produce -1,0/c").endswith(
        "you do not control the Supply Center at -1,0/c")
    assert refusal(game, state, "produce 0,0/c").endswith(
        "you do not control the Supply Center at 0,0/c")
    assert refusal(game, state, "produce 1,0/1").endswith("there is no Supply Center at 1,0/1")
    assert refusal(game, state, "produce 9,9/c").endswith("there is no hex at 9,9")
    assert game.why_not(state, Produce("red", "1,0/c", "dragon")).endswith(
        "produce a 'troop' or a 'peep', not 'dragon'")


def test_the_neutral_supply_center_produces_for_whoever_holds_it(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": (1, 3)}, "0,0/c": {"red": (1, 2)}})
    state, _ = play(game, state, "produce 0,0/c")
    assert state.stack("0,0/c", "red") == Stack(troops=2, peep=2)


def test_production_and_end_turn_only_in_the_production_phase(game: PeepWar) -> None:
    state = position(game, {"1,0/c": {"red": (1, 3)}, **BLUE_HOME})
    assert refusal(game, state, "produce 1,0/c") == (
        "red cannot produce a troop at 1,0/c: it is the movement phase")
    assert game.why_not(state, EndTurn("red")) == (
        "red cannot end the turn: it is the movement phase")
    state = producing(game, {"1,0/c": {"red": (1, 3)}})
    assert game.why_not(state, Produce("blue", "-1,0/c", "troop")).endswith(
        "it is red's turn to act (production)")


def test_end_turn_passes_to_the_left_and_clears_production(game: PeepWar) -> None:
    state = producing(game, {"1,0/c": {"red": (1, 3)}})
    state, _ = play(game, state, "produce 1,0/c")
    turn = state.turn
    state, events = play(game, state, "end")
    assert kinds(events) == ["end_turn", "turn"]
    assert events[0].text == "red ends the turn"
    assert events[1].text == f"turn {turn + 1}: blue to play"
    assert (state.current, state.phase, state.turn) == ("blue", Phase.MOVEMENT, turn + 1)
    assert state.produced == frozenset()


def test_end_turn_skips_players_already_out(edition: int) -> None:
    rules = PeepWar(players=SEATS[:3], edition=edition)
    pieces = {"1,0/c": {"red": (1, 3)}, "0,-1/c": {"green": (1, 3)}}
    state = position(rules, pieces, phase=Phase.PRODUCTION, out=("blue",))
    state, events = play(rules, state, "end")
    # Straight to green: blue is not asked again, nor put out a second time.
    assert kinds(events) == ["end_turn", "turn"]
    assert state.current == "green" and state.out == ("blue",)
    state = position(rules, pieces, current="green", phase=Phase.PRODUCTION, out=("blue",))
    state, events = play(rules, state, "end")
    assert kinds(events) == ["end_turn", "turn"]
    assert state.current == "red"  # round the table, past blue
