"""Petri's rules, sentence by sentence, and each documented reading of an unclear one."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from companion.rules.base import IllegalAction
from companion.rules.petri import (
    Capture,
    Choose,
    Part,
    Petri,
    Place,
    Remove,
    Roll,
    Step,
    notation,
)
from companion.rules.petri.board import HOMES
from tests.petri.conftest import play, position

RED_HOME = sorted(HOMES[0])
BLUE_HOME = sorted(HOMES[3])


@pytest.fixture
def rules() -> Petri:
    return Petri(players=("red", "blue"))


# --- Setting up -------------------------------------------------------------------------


def test_everyone_starts_with_all_pieces_in_hand_and_an_empty_cup() -> None:
    for pieces in (10, 15):
        rules = Petri(players=("red", "blue", "green"), pieces=pieces)
        state = rules.new_state()
        assert state.board == {} and state.hands == dict.fromkeys(rules.players, pieces)
        assert state.cups == dict.fromkeys(rules.players, 0)
        assert rules.waiting_for(state) == {"red"} and rules.phase(state) == "roll"
        assert rules.homes == (0, 2, 4)


@pytest.mark.parametrize("kwargs, message", [
    ({"players": ("red",)}, "Petri needs 2 to 6 players, not 1"),
    ({"players": ("red", "red")}, "each player needs a different key"),
    ({"pieces": 12}, "pieces must be 10 or 15, not 12"),
    ({"homes": "0,1"}, "homes 0,1: two players sit at opposite tips"),
    ({"homes": "0"}, "homes must name one tip per player"),
    ({"variant": "fast"}, "variant must be standard or realtime"),
    ({"placement": "any"}, "placement must be chain or start"),
    ({"removed": "floor"}, "removed must be box or hand or cup"),
    ({"own_pieces": "never"}, "own_pieces must be checked or safe"),
])
def test_bad_options_are_refused_in_words(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Petri(**kwargs)


def test_best_with_more_after_it_is_told_to_stand_alone() -> None:
    rules = Petri(players=("red", "blue"))
    with pytest.raises(ValueError, match="type best alone"):
        notation.parse("best 99999", rules, rules.new_state())


def test_homes_may_be_chosen() -> None:
    rules = Petri(players=("red", "blue"), homes="1,4")
    assert rules.home("red") == HOMES[1] and rules.options()["homes"] == "1,4"


# --- Roll ---------------------------------------------------------------------------------


def test_roll_both_dice_thirty_six_equal_outcomes(rules: Petri) -> None:
    chance = rules.chance(rules.new_state())
    assert chance is not None and len(chance.outcomes) == 36
    assert {w for _, w in chance.outcomes} == {1}
    assert chance.probability(Roll("red", 3, 5)) == Fraction(1, 36)
    state, events = rules.apply(rules.new_state(), Roll("red", 3, 5))
    assert events[0].text == "red rolls 3 and 5" and rules.chance(state) is None


def test_refusals_before_and_after_the_roll(rules: Petri) -> None:
    state = rules.new_state()
    assert rules.why_not(state, Place("red", ("8,-4",))) == "red must roll the dice first"
    assert rules.why_not(state, Roll("blue", 1, 1)) == (
        "it is not blue's turn: the game waits for red")
    assert rules.why_not(state, Roll("red", 0, 7)) == "each die shows 1 to 6"
    assert rules.why_not(state, Roll("grey", 1, 1)) == "there is no player 'grey' at this table"
    state, _ = rules.apply(state, Roll("red", 2, 5))
    assert rules.why_not(state, Roll("red", 1, 1)) == "red has rolled already (2 and 5)"
    assert rules.why_not(state, Choose("red", 4)) == "red rolled 2 and 5, not 4"
    assert rules.why_not(state, Place("red", ("8,-4",))) == (
        "red must choose a die now, not place pieces")


# --- Transform: placing ---------------------------------------------------------------------


def test_choose_a_die_and_place_that_many(rules: Petri) -> None:
    state, events = play(rules, rules.new_state(), "roll 2 5", "die 5")
    assert "red chooses 5: places 5 pieces" in events[-1].text
    state, _ = play(rules, state, "place 8,-4 7,-4 7,-3")
    assert state.parts["red"].left == 2 and state.hands["red"] == 7
    assert rules.why_not(state, Place("red", ("6,-3", "6,-2", "5,-2"))) == (
        "red has only 2 pieces left to place")
    state, events = play(rules, state, "place 6,-3 6,-2")
    assert state.on_board("red") == 5 and rules.waiting_for(state) == {"blue"}
    assert events[-1].text == "red places at 6,-3 6,-2"


def test_the_first_piece_goes_in_the_home_area(rules: Petri) -> None:
    state, _ = play(rules, rules.new_state(), "roll 1 1", "die 1")
    assert rules.why_not(state, Place("red", ("0,0",))) == (
        "red's first piece goes in red's home area, not 0,0")
    assert rules.why_not(state, Place("red", (BLUE_HOME[0],))) is not None
    for hole in RED_HOME:
        assert rules.why_not(state, Place("red", (hole,))) is None


def test_then_each_piece_next_to_one_you_occupy(rules: Petri) -> None:
    state = position(rules, {"5,-1": "red"}, step=Step.PLACE, left=2, die=2, dice=(2, 2))
    assert rules.why_not(state, Place("red", ("0,0",))) == "0,0 is not next to a hole red occupies"
    assert rules.why_not(state, Place("red", ("8,-4",))) == (
        "8,-4 is not next to a hole red occupies")  # home holes too, once you have a piece
    assert rules.why_not(state, Place("red", ("4,0", "3,0"))) is None  # chain: 3,0 touches 4,0


def test_placed_pieces_count_for_the_next_in_the_chain_reading_only() -> None:
    rules = Petri(players=("red", "blue"), placement="start")
    state = position(rules, {"5,-1": "red"}, step=Step.PLACE, left=2, die=2, dice=(2, 2),
                     start=frozenset({"5,-1"}))
    assert rules.why_not(state, Place("red", ("4,0", "3,0"))) == (
        "3,0 is not next to a hole red held when the turn began")
    assert rules.why_not(state, Place("red", ("4,0", "4,-1"))) is None
    fresh, _ = play(rules, rules.new_state(), "roll 2 2", "die 2")
    assert rules.why_not(fresh, Place("red", ("5,-1", "4,0"))) == (
        "red held no hole when the turn began: each piece goes in red's home area, not 4,0")
    assert rules.why_not(fresh, Place("red", ("5,-1", "8,-4"))) is None


def test_a_taken_hole_and_a_hole_off_the_board_are_refused(rules: Petri) -> None:
    state = position(rules, {"5,-1": "red", "4,0": "blue"}, step=Step.PLACE, left=1, die=1,
                     dice=(1, 1))
    assert rules.why_not(state, Place("red", ("4,0",))) == "4,0 is taken (blue)"
    assert rules.why_not(state, Place("red", ("9,9",))) == "'9,9' is not a hole of the board"
    assert rules.why_not(state, Place("red", ())) == (
        "name the holes to place on (a piece that cannot be placed goes to the cup)")


def test_a_piece_that_cannot_be_placed_goes_to_your_capture_cup(rules: Petri) -> None:
    blocked = {h: "blue" for h in RED_HOME}
    state = position(rules, blocked, step=Step.ROLL, hands={"red": 10, "blue": 0})
    state, events = play(rules, state, "roll 3 4", "die 3")
    assert "red cannot place 3 pieces: they go to red's capture cup" in [e.text for e in events]
    assert state.cups["red"] == 3 and state.hands["red"] == 7
    assert rules.waiting_for(state) == {"blue"}  # nothing is crowded out: the turn is over


def test_pieces_left_over_when_no_hole_is_free_go_to_the_cup(rules: Petri) -> None:
    board = {"8,-4": "red", "7,-3": "blue", "6,-4": "blue", "6,-3": "blue"}
    state = position(rules, board, step=Step.DIE, dice=(2, 6))
    state, events = play(rules, state, "die 2", "place 7,-4")
    assert events[-1].text == "red cannot place 1 piece: it goes to red's capture cup"
    assert state.cups["red"] == 1 and state.parts["red"].step is Step.CAPTURE


# --- Transform: a short hand --------------------------------------------------------------


def test_a_short_hand_removes_that_many_then_captures_follow(rules: Petri) -> None:
    board = {h: "red" for h in RED_HOME[:6]}
    state = position(rules, board, step=Step.DIE, dice=(5, 6), hands={"red": 2, "blue": 10})
    state, events = play(rules, state, "die 5")
    assert "removes 5 pieces from the board" in events[-1].text
    assert rules.why_not(state, Remove("red", ("0,0",))) == "0,0 does not hold a piece of red"
    assert rules.why_not(state, Remove("red", (RED_HOME[0], RED_HOME[0]))) == (
        "a hole is listed twice")
    boxed = state.boxed["red"]
    state, events = play(rules, state, "remove " + " ".join(RED_HOME[:5]))
    assert events[-1].text.endswith("(out of the game)") and state.boxed["red"] == boxed + 5
    assert state.on_board("red") == 1 and rules.waiting_for(state) == {"blue"}


def test_running_out_of_pieces_to_remove_ends_the_turn(rules: Petri) -> None:
    board = {"8,-4": "red", "7,-4": "red", "0,0": "blue", "1,0": "blue"}
    state = position(rules, board, step=Step.DIE, dice=(5, 6), hands={"red": 2, "blue": 8})
    state, _ = play(rules, state, "die 6")
    assert state.parts["red"].left == 2
    state, events = play(rules, state, "remove 8,-4 7,-4")
    assert events[-1].text == "red has run out of pieces to remove: the turn ends"
    assert rules.waiting_for(state) == {"blue"}


def test_exactly_as_many_on_the_board_as_the_die_goes_on_to_the_captures() -> None:
    # Red's last two pieces come off; blue's 0,0, crowded out by green, is then captured.
    rules = Petri(players=("red", "blue", "green"))
    board = {"8,-4": "red", "7,-4": "red", "0,0": "blue", "1,0": "green", "-1,0": "green"}
    state = position(rules, board, step=Step.DIE, dice=(2, 6),
                     hands={"red": 1, "blue": 9, "green": 8})
    state, events = play(rules, state, "die 2", "remove 8,-4 7,-4")
    assert "run out" not in " ".join(e.text for e in events)
    assert rules.phase(state) == "capture" and rules.waiting_for(state) == {"red"}
    state, _ = play(rules, state, "capture 0,0")
    assert state.cups["red"] == 1


def test_no_pieces_to_place_or_remove_ends_the_turn(rules: Petri) -> None:
    state = position(rules, {"0,0": "blue"}, step=Step.DIE, dice=(5, 6),
                     hands={"red": 3, "blue": 9})
    state, events = play(rules, state, "die 5")
    assert "none on the board: the turn ends" in events[-1].text
    assert rules.waiting_for(state) == {"blue"} and state.hands["red"] == 3


@pytest.mark.parametrize("where, pot", [("box", "boxed"), ("hand", "hands"), ("cup", "cups")])
def test_where_removed_pieces_go_is_an_option(where: str, pot: str) -> None:
    rules = Petri(players=("red", "blue"), removed=where)
    board = {h: "red" for h in RED_HOME[:3]}
    state = position(rules, board, step=Step.REMOVE, die=2, left=2, dice=(2, 6),
                     hands={"red": 1, "blue": 10}, start=frozenset(board))
    before = getattr(state, pot)["red"]
    state, _ = play(rules, state, f"remove {RED_HOME[0]}", f"remove {RED_HOME[1]}")
    assert getattr(state, pot)["red"] == before + 2 and state.counted() == 20


# --- Captures -----------------------------------------------------------------------------

# Green's 0,0 is crowded out while blue's 1,0 stands beside it; taking 1,0 first saves it.
# Taking 0,0 first leaves 1,0 still crowded out by red, and then green's 0,-1 too.
TANGLE = {"0,0": "green", "0,-1": "green", "1,0": "blue", "-1,0": "red", "-2,0": "red",
          "-2,1": "red", "2,0": "red", "1,1": "red"}


@pytest.fixture
def three() -> Petri:
    return Petri(players=("red", "blue", "green"))


def test_a_crowded_out_piece_goes_to_the_cup_of_the_player_whose_turn_it_is(
        rules: Petri) -> None:
    board = {"0,0": "blue", "1,0": "red", "0,1": "red", "-1,1": "red"}
    state = position(rules, board)
    state, events = play(rules, state, "capture 0,0")
    assert events[-1].text == "red captures 0,0 (blue)"
    assert state.cups == {"red": 1, "blue": 0} and "0,0" not in state.board


def test_as_many_supporting_as_opposed_is_not_captured(rules: Petri) -> None:
    state = position(rules, {"0,0": "blue", "0,-1": "blue", "1,0": "red"})
    assert rules.why_not(state, Capture("red", ("0,0",))) == (
        "0,0 is not crowded out then (1 friendly, 1 enemy neighbours)")


def test_you_choose_the_order_and_the_order_matters() -> None:
    rules = Petri(players=("red", "blue", "green"), own_pieces="safe")
    state = position(rules, TANGLE)
    greedy, _ = play(rules, state, "capture 1,0")
    assert greedy.cups["red"] == 1 and "0,0" in greedy.board
    best, events = play(rules, state, "capture 0,0 1,0 0,-1")
    assert best.cups["red"] == 3 and events[-1].text == (
        "red captures 0,0 (green), 1,0 (blue), 0,-1 (green)")
    # Taking 0,0 and 1,0 and keeping 0,-1 is an order too: 0,-1 was checked before.
    assert rules.why_not(state, Capture("red", ("0,0", "1,0"))) is None


def test_capture_orders_that_cannot_happen_say_why() -> None:
    rules = Petri(players=("red", "blue", "green"), own_pieces="safe")
    state = position(rules, TANGLE)
    assert rules.why_not(state, Capture("red", ())) == (
        "0,0 is crowded out at every point of that order (1 friendly, 2 enemy neighbours): "
        "it is captured too")
    assert rules.why_not(state, Capture("red", ("1,0", "0,0"))) == (
        "0,0 is not crowded out then (1 friendly, 1 enemy neighbours)")
    assert rules.why_not(state, Capture("red", ("0,0", "0,0"))) == "0,0 is listed twice"
    assert rules.why_not(state, Capture("red", ("3,3",))) == "there is no piece at 3,3 to capture"
    assert rules.why_not(state, Capture("red", ("-1,0",))) == (
        "-1,0 holds red's own piece, which is never captured on red's turn")


def test_your_own_crowded_out_pieces_are_checked_too_by_default(rules: Petri) -> None:
    board = {"0,0": "red", "1,0": "blue", "-1,0": "blue", "2,0": "blue", "-2,0": "blue",
             "5,-1": "red"}
    state = position(rules, board)
    assert "0,0 is crowded out at every point" in rules.why_not(state, Capture("red", ()))
    state, events = play(rules, state, "capture 0,0")
    assert state.cups["red"] == 1 and events[-1].text == "red captures 0,0 (red)"
    safe = Petri(players=("red", "blue"), own_pieces="safe")
    after, _ = play(safe, position(safe, board), "capture")
    assert "0,0" in after.board and after.cups["red"] == 0


def test_no_capture_step_when_nothing_is_crowded_out(rules: Petri) -> None:
    state, _ = play(rules, rules.new_state(), "roll 1 2", "die 1", "place 8,-4")
    assert rules.waiting_for(state) == {"blue"} and rules.phase(state) == "roll"


def test_legal_capture_orders_are_listed_and_each_is_legal() -> None:
    rules = Petri(players=("red", "blue", "green"), own_pieces="safe")
    state = position(rules, TANGLE)
    orders = list(rules.legal_actions(state))
    assert {frozenset(a.order) for a in orders} == {
        frozenset({"1,0"}), frozenset({"0,0", "1,0"}), frozenset({"0,0", "1,0", "0,-1"})}
    assert all(rules.why_not(state, a) is None for a in orders)


# --- Play passes to the left ---------------------------------------------------------------


def test_play_passes_to_the_left(three: Petri) -> None:
    state = three.new_state()
    seen = []
    for _ in range(4):
        who = three.to_act(state)
        seen.append(who)
        state, _ = three.apply(state, Roll(who, 1, 1))
        state, _ = three.apply(state, Choose(who, 1))
        state, _ = three.apply(state, Place(who, (sorted(three.placeable(state, who))[0],)))
    assert seen == ["red", "blue", "green", "red"] and three.turn(state) == 5


# --- Winning --------------------------------------------------------------------------------


def test_the_game_ends_when_a_player_has_nothing_in_play_or_in_hand(rules: Petri) -> None:
    board = {"0,0": "blue", "1,0": "red", "0,1": "red", "-1,1": "red"}
    state = position(rules, board, hands={"red": 7, "blue": 0})
    state, events = play(rules, state, "capture 0,0")
    assert rules.is_over(state) and rules.waiting_for(state) == frozenset()
    assert events[-1].text == "the game is over: blue has no pieces left in play or in hand"
    tally = rules.tally(state)
    assert tally.winners == ("red",) and tally.reason.startswith("most pieces in capture cups (1)")
    assert rules.why_not(state, Roll("blue", 1, 1)) == "the game is over"


def test_the_game_ends_on_an_empty_board_once_everyone_has_had_a_turn(rules: Petri) -> None:
    state = position(rules, {"8,-4": "red"}, step=Step.DIE, dice=(5, 6),
                     hands={"red": 2, "blue": 3})
    state, _ = play(rules, state, "die 5", "remove 8,-4")
    assert rules.is_over(state)
    assert state.reason == "the board is empty and everyone has had a turn"
    assert rules.tally(state).winners == ("red", "blue")  # 0 each: a tie
    assert rules.tally(state).reason.startswith("tied on 0 pieces")


def test_an_empty_board_before_everyone_has_played_goes_on(rules: Petri) -> None:
    state = position(rules, {}, step=Step.DIE, dice=(5, 6), hands={"red": 2, "blue": 10})
    state = replace(state, played=frozenset())
    state, _ = play(rules, state, "die 5")
    assert not rules.is_over(state) and rules.waiting_for(state) == {"blue"}


def test_ties_name_several_winners(three: Petri) -> None:
    state = replace(three.new_state(), cups={"red": 2, "blue": 2, "green": 1}, over=True,
                    reason="green has no pieces left in play or in hand")
    assert three.tally(state).winners == ("red", "blue")


# --- Realtime ---------------------------------------------------------------------------------


def test_realtime_everyone_plays_at_once() -> None:
    rules = Petri(players=("red", "blue"), variant="realtime")
    state = rules.new_state()
    assert rules.waiting_for(state) == {"red", "blue"} and rules.to_act(state) is None
    with pytest.raises(ValueError, match="red and blue may all act now"):
        play(rules, state, "roll 1 2")
    state, _ = play(rules, state, "blue: roll 1 2", "red: roll 3 3", "blue: die 1",
                    "blue: place -8,4")
    assert rules.waiting_for(state) == {"red"}  # blue is done and waits for the round
    state, _ = play(rules, state, "red: die 3", "red: place 8,-4 7,-4 7,-3")
    assert rules.waiting_for(state) == {"red", "blue"} and rules.turn(state) == 2
    assert rules.chance(state).outcomes[0][0].player == "red"


def test_realtime_captures_happen_together() -> None:
    # Blue's 0,0 has red on two sides and green on one: red's cup. Red's 0,1 and green's
    # -1,1 are crowded out by one piece of each of two enemies: a tie, so to the box.
    rules = Petri(players=("red", "blue", "green"), variant="realtime")
    board = {"0,0": "blue", "1,0": "red", "0,1": "red", "-1,1": "green"}
    state = position(rules, board, mover="red", step=Step.PLACE, die=1, left=1, dice=(1, 1))
    state = replace(state, parts={"red": state.parts["red"], "blue": Part(step=Step.DONE),
                                  "green": Part(step=Step.DONE)})
    boxed = dict(state.boxed)
    state, events = play(rules, state, "red: place 2,0")
    assert events[-1].text == ("captured at once: 0,0 (blue) to red, -1,1 (green) to the box, "
                               "0,1 (red) to the box")
    assert state.cups["red"] == 1 and state.boxed["green"] == boxed["green"] + 1
    assert state.counted() == 30 and rules.waiting_for(state) == {"red", "blue", "green"}


def test_illegal_actions_raise_with_the_reason(rules: Petri) -> None:
    with pytest.raises(IllegalAction, match="red must roll the dice first"):
        rules.apply(rules.new_state(), Choose("red", 3))
