"""The typed notation: every action kind reads back as itself, and bad input says what to write."""

from __future__ import annotations

import pytest

from companion.rules.base import Action, BadActionData
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
)

from .conftest import position


def _states(rules: PeepWar) -> dict[Phase, PeepWarState]:
    """A state per phase with red to act (parse takes the player from the state)."""
    pieces = {"1,0/c": {"red": (2, 3)}, "-1,0/c": {"blue": (2, 3)}}
    return {phase: position(rules, pieces, phase=phase)
            for phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY, Phase.UPKEEP, Phase.MOVEMENT,
                          Phase.COMBAT, Phase.PRODUCTION)}


ROUND_TRIPS: list[tuple[Phase, Action, str]] = [
    (Phase.SETUP_TILES, PlaceTile("red", 1, -1), "hex 1,-1"),
    (Phase.SETUP_TILES, PlaceTile("red", -12, 7), "hex -12,7"),
    (Phase.SETUP_SUPPLY, PlaceSupplyCenter("red", 2, 0), "sc 2,0"),
    (Phase.UPKEEP, Remove("red", "1,0/c", 2), "remove 2 1,0/c"),
    (Phase.UPKEEP, Remove("red", "1,0/c", 0, True), "remove peep 1,0/c"),
    (Phase.UPKEEP, Remove("red", "-1,2/5", 1, True), "remove 1+peep -1,2/5"),
    (Phase.MOVEMENT, Move("red", "0,0/3", "1,0/0", 2), "move 2 0,0/3 1,0/0"),
    (Phase.MOVEMENT, Move("red", "0,0/c", "0,0/1", 0, True), "move peep 0,0/c 0,0/1"),
    (Phase.MOVEMENT, Move("red", "0,0/c", "0,0/1", 5, True), "move 5+peep 0,0/c 0,0/1"),
    (Phase.MOVEMENT, EndMovement("red"), "end"),
    (Phase.COMBAT, PeepBeans("red", True), "in"),
    (Phase.COMBAT, PeepBeans("red", False), "out"),
    (Phase.COMBAT, Draw("red", "blue"), "draw blue"),
    (Phase.COMBAT, Eat("red", "troop"), "eat troop"),
    (Phase.COMBAT, Eat("red", "peep"), "eat peep"),
    (Phase.PRODUCTION, Produce("red", "1,0/c", "troop"), "produce 1,0/c"),
    (Phase.PRODUCTION, Produce("red", "1,0/c", "peep"), "jelly 1,0/c"),
    (Phase.PRODUCTION, EndTurn("red"), "end"),
]


def test_round_trips_cover_every_action_kind() -> None:
    assert {type(a) for _, a, _ in ROUND_TRIPS} == set(ACTION_TYPES)


@pytest.mark.parametrize(("phase", "action", "text"), ROUND_TRIPS,
                         ids=[t for _, _, t in ROUND_TRIPS])
def test_format_and_parse_are_inverse(
    game: PeepWar, phase: Phase, action: Action, text: str
) -> None:
    state = _states(game)[phase]
    assert notation.format(action) == text
    assert notation.parse(text, game, state) == action
    assert notation.format(notation.parse(text, game, state)) == text


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("tile 1,0", PlaceTile("red", 1, 0)),
        ("HEX 1,0", PlaceTile("red", 1, 0)),
        ("supply 2,0", PlaceSupplyCenter("red", 2, 0)),
        ("sc 2,0/c", PlaceSupplyCenter("red", 2, 0)),
        ("move 2 0,0/3->1,0/0", Move("red", "0,0/3", "1,0/0", 2)),
        ("  move   2   0,0/3   1,0/0  ", Move("red", "0,0/3", "1,0/0", 2)),
        ("produce troop 1,0/c", Produce("red", "1,0/c", "troop")),
        ("produce peep 1,0/c", Produce("red", "1,0/c", "peep")),
        ("draw BLUE", Draw("red", "blue")),
        ("eat Peep", Eat("red", "peep")),
    ],
)
def test_accepted_variants(game: PeepWar, text: str, action: Action) -> None:
    # The phase only matters for "end"; a movement state serves every other command.
    assert notation.parse(text, game, _states(game)[Phase.MOVEMENT]) == action


def test_end_means_end_movement_or_end_turn_by_phase(game: PeepWar) -> None:
    states = _states(game)
    assert notation.parse("end", game, states[Phase.MOVEMENT]) == EndMovement("red")
    assert notation.parse("end", game, states[Phase.PRODUCTION]) == EndTurn("red")


def test_the_player_is_whoever_must_act(game: PeepWar) -> None:
    state = position(game, {"1,0/c": {"red": (2, 3)}, "-1,0/c": {"blue": (2, 3)},
                            "0,0/c": {"blue": 1, "red": 1}})
    state, _ = game.apply(state, EndMovement("red"))
    assert game.to_act(state) == "blue"
    assert notation.parse("draw red", game, state) == Draw("blue", "red")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a command; 'help' lists them"),
        ("   ", "type a command; 'help' lists them"),
        ("fly 1,0", "unknown command 'fly'; 'help' lists the commands"),
        ("hex", r"write: hex Q,R \(e.g. hex 1,0\)"),
        ("hex 1", "is not a hex position"),
        ("sc 1,0 2,0", r"write: sc Q,R"),
        ("move 2 0,0/3", "write: move N SRC DST"),
        ("move two 0,0/3 1,0/0", "'two' is not a number of pieces: write 2, peep or 2\\+peep"),
        ("move -1 0,0/3 1,0/0", "is not a number of pieces"),
        ("move peep+2 0,0/3 1,0/0", "is not a number of pieces"),
        ("move 2 0,0/9 1,0/0", "is not a cell name"),
        ("remove 1", "write: remove N CELL or remove peep CELL"),
        ("remove 1 1,0", "is not a cell name"),
        ("in now", "write: in"),
        ("draw", "write: draw PLAYER"),
        ("draw red blue", "write: draw PLAYER"),
        ("eat", "write: eat troop or eat peep"),
        ("produce", r"write: produce CELL \(e.g. produce 1,0/c\)"),
        ("jelly 1,0/c 2", "write: jelly CELL"),
    ],
)
def test_parse_errors_say_what_to_write(game: PeepWar, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        notation.parse(text, game, _states(game)[Phase.MOVEMENT])


def test_format_refuses_a_foreign_action() -> None:
    with pytest.raises(ValueError, match="no notation for"):
        notation.format(Action("red"))


@pytest.mark.parametrize(("phase", "action", "text"), ROUND_TRIPS,
                         ids=[t for _, _, t in ROUND_TRIPS])
def test_action_records_round_trip(phase: Phase, action: Action, text: str) -> None:
    rules = PeepWar(players=("red", "blue"))
    record = rules.encode_action(action)
    assert record["kind"] == action.kind and record["player"] == "red"
    assert rules.decode_action(record) == action


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"kind": "teleport", "player": "red"}, "unknown action kind 'teleport'"),
        ({"kind": "move", "player": "red", "src": "0,0/c"}, "needs the field 'dst'"),
        ({"kind": "move", "player": "red", "src": "0,0/c", "dst": "0,0/1", "troops": "2"},
         "field 'troops' must be int"),
        ({"kind": "end_turn", "player": "red", "extra": 1}, "unknown fields: extra"),
    ],
)
def test_bad_action_records_are_refused(record: dict, message: str) -> None:
    with pytest.raises(BadActionData, match=message):
        PeepWar(players=("red", "blue")).decode_action(record)
