"""The camera's view of a Petri board: the observation JSON, corrections, and move inference."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.gamelog import GameLog
from companion.observation import BadObservation
from companion.referee import Referee
from companion.rules.petri import Capture, Choose, Petri, Place, Remove, Roll, Step
from companion.rules.petri.bot import Bot
from companion.rules.petri.game import GAME
from companion.rules.petri.inference import differences, expected_observation, infer
from companion.rules.petri.observation import HoleReading, PetriObservation
from tests.petri.conftest import play, position

VISIBLE = (Place, Remove, Capture)


def seen(board: dict[str, str], **extra: dict) -> PetriObservation:
    holes = {h: {"player": p} for h, p in board.items()}
    holes.update(extra)
    return PetriObservation.from_dict({"game": "petri", "holes": holes})


# --- the observation ------------------------------------------------------------------------


def test_the_observation_json_round_trips() -> None:
    data = {"game": "petri", "holes": {"0,0": {"player": "red"},
                                       "5,-2": {"player": "blue", "confidence": 0.3},
                                       "1,3": {"occluded": True}},
            "warnings": ["glare on the left"], "extra": 1}
    obs = GAME.parse_observation(data)
    assert obs.to_dict() == {k: v for k, v in data.items() if k != "extra"}
    assert obs.doubtful(0.5) == ["5,-2"] and obs.occluded == {"1,3"}
    assert obs.reading("2,2") == HoleReading()


@pytest.mark.parametrize("data, message", [
    ([], "an observation is a JSON object"),
    ({"holes": {}}, "no \"game\" name"),
    ({"game": "petri", "holes": []}, "\"holes\" must map hole names"),
    ({"game": "petri", "holes": {"x": {}}}, "hole 'x' is not a hole"),
    ({"game": "petri", "holes": {"0,0": "red"}}, "hole 0,0: a reading must be an object"),
    ({"game": "petri", "holes": {"0,0": {"player": 3}}}, "\"player\" must be a player key"),
    ({"game": "petri", "holes": {"0,0": {"player": "red", "confidence": 2}}},
     "\"confidence\" must be a number from 0 to 1"),
    ({"game": "petri", "warnings": "bad"}, "\"warnings\" must be a list"),
])
def test_bad_observations_say_what_is_wrong(data: object, message: str) -> None:
    with pytest.raises(BadObservation, match=message):
        PetriObservation.from_dict(data)


def test_corrections_name_a_hole_and_a_player_or_nothing() -> None:
    rules = Petri(players=("red", "blue"))
    state = rules.new_state()
    assert GAME.correction(rules, state, {"hole": "0, 0", "player": "red"}) == (
        "0,0", HoleReading("red"))
    assert GAME.correction(rules, state, {"hole": "0,0", "player": None}) == (
        "0,0", HoleReading())
    with pytest.raises(ValueError, match="player must be one of red, blue or null"):
        GAME.correction(rules, state, {"hole": "0,0", "player": "green"})
    with pytest.raises(ValueError, match="not on the board"):
        GAME.correction(rules, state, {"hole": "9,9", "player": "red"})
    with pytest.raises(ValueError, match="hole must name a hole"):
        GAME.correction(rules, state, {"player": "red"})


@pytest.mark.parametrize(("data", "echo"), [
    ({"hole": "0,0", "player": "x" * 5000}, f"not '{'x' * 59}…'"),
    ({"hole": "x" * 5000, "player": "red"}, f"'{'x' * 59}…' is not a hole: write q,r"),
    ({"hole": "1" * 5000 + ",0", "player": "red"}, f"'{'1' * 59}…' is not a hole: write q,r"),
])
def test_a_runaway_correction_is_echoed_cut_on_one_line(data: dict, echo: str) -> None:
    # The page's correction fields were repeated whole: 5,000 characters in one error.
    rules = Petri(players=("red", "blue"))
    with pytest.raises(ValueError) as refused:
        GAME.correction(rules, rules.new_state(), data)
    assert echo in str(refused.value) and len(str(refused.value)) < 200


# --- inference -------------------------------------------------------------------------------


def _turns(rules: Petri, seed: int, limit: int = 600):
    """(state before, state after, actions) for each run of one player's visible actions."""
    state, bot = rules.new_state(), Bot(rules, seed)
    start, run = state, []
    for _ in range(limit):
        if rules.is_over(state):
            break
        action = bot.choose(state)
        visible = isinstance(action, VISIBLE)
        if run and (not visible or action.player != run[-1].player):
            yield start, state, run
            run = []
        if visible and not run:
            start = state
        if visible:
            run.append(action)
        state, _ = rules.apply(state, action)
    if run:
        yield start, state, run


@pytest.mark.parametrize("players, seed", [(2, 1), (4, 2), (6, 3)])
def test_every_turn_seen_by_the_camera_is_explained(players: int, seed: int) -> None:
    rules = Petri(players=[f"p{i}" for i in range(players)])
    explained = captures = 0
    for before, after, run in _turns(rules, seed):
        result = infer(rules, before, expected_observation(after))
        assert result.verdict == "actions" and result.certain, (run, result)
        state = before
        for action in result.actions:
            state, _ = rules.apply(state, action)
        assert state.board == after.board and state.cups == after.cups
        explained += 1
        captures += any(isinstance(a, Capture) and a.order for a in run)
    assert explained > 10
    if players == 6:
        assert captures, "a six-player game should see captures"


def test_placements_then_captures_in_one_reading() -> None:
    rules = Petri(players=("red", "blue"))
    board = {"0,0": "blue", "1,0": "red", "0,1": "red"}
    state = position(rules, board, step=Step.PLACE, die=1, left=1, dice=(1, 4))
    result = infer(rules, state, seen({"1,0": "red", "0,1": "red", "-1,1": "red"}))
    assert result.actions == (Place("red", ("-1,1",)), Capture("red", ("0,0",)))


def test_a_capture_the_rules_do_not_allow_is_a_problem_never_applied() -> None:
    rules = Petri(players=("red", "blue"))
    board = {"0,0": "blue", "0,-1": "blue", "1,0": "red", "0,1": "red", "-1,1": "red"}
    state = position(rules, board)
    result = infer(rules, state, seen({"0,-1": "blue", "1,0": "red", "0,1": "red",
                                       "-1,1": "red"}))
    assert result.verdict == "actions"  # 0,0 is crowded out: that capture is fine
    result = infer(rules, state, seen({"0,0": "blue", "1,0": "red", "0,1": "red",
                                       "-1,1": "red"}))
    assert result.verdict == "problem" and not result.actions
    assert result.problems[0] == (
        "the camera sees 0,-1 taken off, but the rules do not capture it so: 0,-1 is not "
        "crowded out then (1 friendly, 0 enemy neighbours)")


def test_a_partial_placement_is_taken_as_it_comes() -> None:
    rules = Petri(players=("red", "blue"))
    state, _ = play(rules, rules.new_state(), "roll 3 6", "die 3")
    result = infer(rules, state, seen({"8,-4": "red", "7,-4": "red"}))
    assert result.actions == (Place("red", ("7,-4", "8,-4")),)
    state, _ = rules.apply(state, result.actions[0])
    result = infer(rules, state, seen({"8,-4": "red", "7,-4": "red", "7,-3": "red"}))
    assert result.actions == (Place("red", ("7,-3",)),)


def test_changes_before_the_dice_are_problems() -> None:
    rules = Petri(players=("red", "blue"))
    state = rules.new_state()
    result = infer(rules, state, seen({"8,-4": "red"}))
    assert result.problems[0] == "red must roll the dice before changing the board"
    state, _ = rules.apply(state, Roll("red", 2, 3))
    assert infer(rules, state, seen({"8,-4": "red"})).problems[0] == (
        "red must choose a die before changing the board")
    assert infer(rules, state, seen({"8,-4": "pink"})).problems[0] == (
        "the camera sees pieces of pink, who is not at this table")


def test_hidden_holes_are_never_read_as_empty() -> None:
    rules = Petri(players=("red", "blue"))
    state = position(rules, {"0,0": "red"}, step=Step.ROLL)
    assert infer(rules, state, seen({}, **{"0,0": {"occluded": True}})).verdict == "same"
    assert differences(dict(state.board), seen({})) == [
        "0,0: the camera sees nothing; the game has red"]


def test_a_table_put_back_is_offered_as_an_undo() -> None:
    rules = Petri(players=("red", "blue"))
    before, _ = play(rules, rules.new_state(), "roll 1 6", "die 1")
    after, _ = play(rules, before, "place 8,-4", "roll 1 1", "die 1")
    result = infer(rules, after, seen({}), history=[before])
    assert result.verdict == "undo" and result.undo == 1


def test_the_referee_takes_a_turn_from_the_camera(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        referee = Referee(log, log.new_game(GAME.new_rules(["red", "blue"])))
        referee.play(Roll("red", 2, 5), "test")
        referee.play(Choose("red", 2), "test")
        referee.observe(seen({"8,-4": "red", "7,-4": "red"}))
        assert referee.state.board == {"7,-4": "red", "8,-4": "red"}
        assert referee.rules.waiting_for(referee.state) == {"blue"}
        referee.observe(seen({"8,-4": "red", "0,0": "blue"}))
        assert referee.problems and "blue must roll the dice" in referee.problems[0].text
