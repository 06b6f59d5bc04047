"""Winning: 80% of the Supply Centers (each edition its own count), or last one standing.

2001: "You win … if you control 80% of the Supply Centers in play", with the table
2→4, 3→6, 4→7, 5→9, 6→10. 2005: "… 80% … round fractions up" (2n+1 Supply Centers:
4, 6, 8, 9, 11). docs/peepwar.md: checked when the mover's fights are over.
"""

from __future__ import annotations

import pytest

from companion.rules.base import IllegalAction
from companion.rules.peepwar import (
    ACTION_TYPES,
    Draw,
    Eat,
    EndMovement,
    EndTurn,
    Move,
    PeepBeans,
    PeepWar,
    PeepWarState,
    Phase,
    PlaceSupplyCenter,
    PlaceTile,
    Produce,
    Remove,
    notation,
    supply_centers_to_win,
)
from companion.rules.peepwar.state import cell_order

from .conftest import SEATS, kinds, play, position

TABLE_2001 = {2: 4, 3: 6, 4: 7, 5: 9, 6: 10}
ROUNDED_2005 = {2: 4, 3: 6, 4: 8, 5: 9, 6: 11}


@pytest.mark.parametrize("n", range(2, 7))
def test_thresholds_per_edition_and_player_count(n: int) -> None:
    assert supply_centers_to_win(2001, n) == TABLE_2001[n]
    assert supply_centers_to_win(2005, n) == ROUNDED_2005[n]
    assert ROUNDED_2005[n] == -(-(2 * n + 1) * 8 // 10)  # 80% of 2n+1, rounded up
    for edition, table in ((2001, TABLE_2001), (2005, ROUNDED_2005)):
        rules = PeepWar(players=SEATS[:n], edition=edition)
        assert rules.needed() == table[n]
        assert rules.tally(rules.new_state()).needed == table[n]


def _holding(rules: PeepWar, held: int) -> PeepWarState:
    """Red to end movement, standing alone on ``held`` Supply Centers (board order)."""
    base = position(rules, {})
    cells = sorted(base.supply_centers, key=cell_order)[:held]
    return position(rules, {c: {"red": 1} for c in cells})


@pytest.mark.parametrize("n", range(2, 7))
def test_exactly_the_threshold_wins_one_fewer_does_not(edition: int, n: int) -> None:
    rules = PeepWar(players=SEATS[:n], edition=edition)
    needed = (TABLE_2001 if edition == 2001 else ROUNDED_2005)[n]
    state, events = play(rules, _holding(rules, needed - 1), "end")
    assert state.phase is Phase.PRODUCTION and state.winner is None
    state, events = play(rules, _holding(rules, needed), "end")
    assert kinds(events) == ["end_movement", "victory"]
    assert events[-1].text == (
        f"red wins: red controls {needed} of {2 * n + 1} Supply Centers ({needed} needed)")
    assert (state.phase, state.winner, state.current, state.combat) == (
        Phase.OVER, "red", None, None)
    assert rules.to_act(state) is None and rules.is_over(state)
    tally = rules.tally(state)
    assert tally.winner == "red" and tally.headline == "red has won"
    assert tally.standings[0].score == needed


def test_four_players_seven_centers_win_in_2001_but_not_in_2005() -> None:
    for edition, over in ((2001, True), (2005, False)):
        rules = PeepWar(players=SEATS[:4], edition=edition)
        state, _ = play(rules, _holding(rules, 7), "end")
        assert rules.is_over(state) is over


def _attack(rules: PeepWar, extra: dict) -> PeepWarState:
    """Red holds 1,0/c, 2,0/c and 0,0/c (3 of 5) and has moved in on blue."""
    pieces = {"1,0/c": {"red": (1, 3)}, "2,0/c": {"red": 1}, "0,0/c": {"red": 1},
              "-2,0/c": {"blue": (2, 3)}, **extra}
    return position(rules, pieces)


def test_win_is_checked_when_the_movers_fights_are_over(game: PeepWar) -> None:
    state = _attack(game, {"-1,0/c": {"blue": 1, "red": 2}, "-1,0/1": {"blue": 1, "red": 1}})
    state, events = play(game, state, "end")
    assert state.combat is not None and state.combat.cell == "-1,0/c"
    state, events = play(game, state, "draw red")
    # Red now holds four Supply Centers, but another fight is still to come.
    assert state.controlled("red") == ["-1,0/c", "0,0/c", "1,0/c", "2,0/c"]
    assert state.phase is Phase.COMBAT and state.combat is not None
    assert state.combat.cell == "-1,0/1" and "victory" not in kinds(events)
    state, events = play(game, state, "draw blue")  # red loses the second fight: no matter
    assert kinds(events)[-2:] == ["combat_over", "victory"]
    assert state.winner == "red"


def test_losing_the_decisive_fight_means_no_win(game: PeepWar) -> None:
    state = _attack(game, {"-1,0/c": {"blue": 1, "red": 1}})
    state, _ = play(game, state, "end", "draw blue")
    assert state.phase is Phase.PRODUCTION and state.winner is None
    assert len(state.controlled("red")) == 3


def test_win_by_moving_alone_without_a_fight(game: PeepWar) -> None:
    pieces = {"1,0/c": {"red": (1, 3)}, "2,0/c": {"red": 1}, "-1,0/c": {"red": 1},
              "0,0/0": {"red": 1}, "-2,0/c": {"blue": (2, 3)}}
    state = position(game, pieces)
    state, _ = play(game, state, "move 1 0,0/0 0,0/c")
    assert state.phase is Phase.MOVEMENT  # not yet: only when movement (and fights) are done
    state, events = play(game, state, "end")
    assert kinds(events) == ["end_movement", "victory"]


def test_last_player_standing_wins(edition: int) -> None:
    rules = PeepWar(players=SEATS[:3], edition=edition)
    # Blue and green hold no Supply Center: each is out when their turn begins.
    pieces = {"1,0/c": {"red": (1, 3)}, "-1,1/0": {"blue": (5, 3)}, "0,-1/0": {"green": 5}}
    state = position(rules, pieces, phase=Phase.PRODUCTION)
    state, events = play(rules, state, "end")
    assert kinds(events) == ["end_turn", "out", "out", "victory"]
    assert state.out == ("blue", "green")
    assert events[-1].text == "red wins: red is the last player in the game"
    assert state.winner == "red" and state.phase is Phase.OVER
    assert [s.out for s in rules.tally(state).standings] == [False, True, True]


def _every_kind_of_action(player: str) -> list:
    return [
        PlaceTile(player, 3, 0),
        PlaceSupplyCenter(player, 1, 0),
        Remove(player, "1,0/c", 1),
        Move(player, "1,0/c", "1,0/0", 1),
        EndMovement(player),
        PeepBeans(player, True),
        Draw(player, "red"),
        Eat(player, "troop"),
        Produce(player, "1,0/c", "troop"),
        EndTurn(player),
    ]


def test_after_the_game_is_over_every_action_is_refused(game: PeepWar) -> None:
    state, _ = play(game, _holding(game, 4), "end")
    assert state.phase is Phase.OVER
    actions = _every_kind_of_action("red") + _every_kind_of_action("blue")
    assert {type(a) for a in actions} == set(ACTION_TYPES)
    for action in actions:
        reason = game.why_not(state, action)
        assert reason is not None and reason.endswith(": the game is over; red won"), reason
        with pytest.raises(IllegalAction, match="the game is over"):
            game.apply(state, action)
    assert list(game.legal_actions(state)) == []
    with pytest.raises(ValueError, match="the game is over"):
        notation.parse("end", game, state)
