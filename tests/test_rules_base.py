"""The generic rules interface: richer action fields, who acts, results, hidden events."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from companion.rules.base import Action, BadActionData, Event, Ruleset, Tally


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Capture(Action):
    kind = "capture"
    order: tuple[str, ...]
    dice: tuple[int, int]
    colour: Colour
    side: Literal["left", "right"] = "left"
    note: str | None = None


class Simultaneous(Ruleset[frozenset]):
    """Every player not yet done may act: the state is the set of players done."""

    name = "simultaneous"
    title = "Simultaneous"
    action_types = (Capture,)

    def options(self) -> dict[str, Any]:
        return {}

    def new_state(self) -> frozenset:
        return frozenset()

    def why_not(self, state: frozenset, action: Action) -> str | None:
        return None if action.player in self.waiting_for(state) else "you are done"

    def legal_actions(self, state: frozenset):
        return iter(())

    def _apply(self, state: frozenset, action: Action):
        return state | {action.player}, []

    def tally(self, state: frozenset) -> Tally:
        return Tally([])

    def waiting_for(self, state: frozenset) -> frozenset[str]:
        return frozenset({"athens", "sparta", "thebes"}) - state

    def is_over(self, state: frozenset) -> bool:
        return not self.waiting_for(state)

    def state_to_dict(self, state: frozenset) -> dict[str, Any]:
        return {"done": sorted(state)}


def test_tuple_enum_and_literal_fields_go_to_json_and_back() -> None:
    rules = Simultaneous()
    action = Capture("athens", ("1,2", "0,3"), (3, 5), Colour.BLUE, "right")
    data = rules.encode_action(action)
    assert data == {"kind": "capture", "player": "athens", "order": ["1,2", "0,3"],
                    "dice": [3, 5], "colour": "blue", "side": "right", "note": None}
    assert rules.decode_action(data) == action


@pytest.mark.parametrize("field, value, words", [
    ("order", "1,2", "a list of str"),
    ("order", [1, 2], "a list of str"),
    ("dice", [3], "a list of int, int"),
    ("dice", [3, 5.5], "a list of int, int"),
    ("colour", "green", "'red' or 'blue'"),
    ("side", "up", "'left' or 'right'"),
    ("note", 3, "str or None"),
])
def test_a_bad_field_is_refused_naming_what_it_must_be(field: str, value: Any, words: str
                                                       ) -> None:
    data = {"kind": "capture", "player": "athens", "order": ["1,2"], "dice": [3, 5],
            "colour": "red", field: value}
    with pytest.raises(BadActionData, match=f"field '{field}' must be {words}"):
        Simultaneous().decode_action(data)


def test_several_players_act_at_once_and_none_is_the_one_to_act() -> None:
    rules = Simultaneous()
    state = rules.new_state()
    assert rules.waiting_for(state) == {"athens", "sparta", "thebes"}
    assert rules.to_act(state) is None
    state, _ = rules.apply(state, Capture("sparta", (), (1, 1), Colour.RED))
    state, _ = rules.apply(state, Capture("athens", (), (1, 1), Colour.RED))
    assert rules.to_act(state) == "thebes"


def test_a_ruleset_must_say_who_acts() -> None:
    with pytest.raises(TypeError, match="must define to_act or waiting_for"):
        type("Nobody", (Simultaneous,), {"waiting_for": Ruleset.waiting_for})


def test_a_result_may_have_several_winners_or_none() -> None:
    tie = Tally([], winners=("athens", "thebes"), reason="most areas", over=True)
    assert tie.winner is None and tie.to_dict()["winners"] == ["athens", "thebes"]
    draw = Tally([], reason="a draw", over=True)
    assert draw.to_dict()["winners"] == [] and draw.to_dict()["reason"] == "a draw"


def test_a_private_event_shows_its_public_words_to_others_and_the_log_keeps_all() -> None:
    ev = Event("draw", "sparta draws Persian Gold", {"chit": "persian-gold"},
               private_to=frozenset({"sparta"}), public="sparta draws a chit")
    assert ev.seen_by("sparta") is ev
    assert ev.seen_by("athens") == Event("draw", "sparta draws a chit")
    logged = ev.to_dict()
    assert logged["private_to"] == ["sparta"] and logged["data"] == {"chit": "persian-gold"}


@pytest.mark.parametrize("kind", [["capture"], {"capture": 1}, 3, None])
def test_a_kind_that_is_not_a_string_is_refused_naming_the_known_kinds(kind: Any) -> None:
    with pytest.raises(BadActionData,
                       match=r"kind must be a string, not .*; known kinds for simultaneous: "
                             r"capture"):
        Simultaneous().decode_action({"kind": kind, "player": "athens"})


def test_unknown_fields_with_keys_of_mixed_types_are_all_named() -> None:
    data = {"kind": "capture", "player": "athens", "order": [], "dice": [1, 2],
            "colour": "red", 7: "x", "zz": "y"}
    with pytest.raises(BadActionData, match="has unknown fields: 7, zz"):
        Simultaneous().decode_action(data)
