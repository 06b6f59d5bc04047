"""The rules' refusal of an action holding a runaway value (a name of 5,000 characters, a
number of 4,000 digits), sent as JSON to the page or asked of the rules, is one short line:
the value is quoted cut, as every other error cuts it, instead of repeated whole."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import pytest

from companion import games
from companion.errors import ECHO
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.base import Action, Ruleset
from web.app import create_app

RUNAWAY = "x" * 5000
HUGE = 10 ** 4000  # a whole number the page reads (fewer than 4,300 digits)
SHORT = 250  # characters a refusal naming a runaway value keeps to

GAMES = ["peepwar", "peloponnesian", "petri", "peltapeeps"]


def _rules(game: str) -> Ruleset:
    bundle = games.find(game)
    return bundle.new_rules(list(bundle.default_players), {})


def _made(value: object, word: str, number: int) -> object | None:
    """``value`` made ``word`` or ``number``: a string, a number or a list's first name;
    None for a flag."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return number
    if isinstance(value, str):
        return word
    if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        return (word, *value[1:])
    return None


def _with_one_field_made(action: Action) -> list[tuple[str, Action, Action]]:
    """Each field that can be: the action with it made runaway, and made short ("y", 99)."""
    changed = []
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        runaway, short = _made(value, RUNAWAY, HUGE), _made(value, "y", 99)
        if runaway is not None:
            changed.append((f.name, dataclasses.replace(action, **{f.name: runaway}),
                            dataclasses.replace(action, **{f.name: short})))
    return changed


@pytest.mark.parametrize("game", GAMES)
def test_every_refusal_of_an_action_with_a_runaway_value_is_one_short_line(game: str) -> None:
    # Each legal action of a seeded game, at each of its positions, with one field made
    # runaway: the refusal repeated it whole (5,000 characters, twice in Peep War). Cut, it
    # is at most two echoes longer than the refusal of a short value (which may list the
    # map's areas).
    rules, rng = _rules(game), random.Random(7)
    state, long = rules.new_state(), []
    for _ in range(300):
        if rules.is_over(state):
            break
        chance = rules.chance(state)
        actions = list(rules.legal_actions(state))
        if chance is not None:
            actions += [a for a, _ in chance.outcomes]
        for action in rng.sample(actions, min(len(actions), 12)):
            for name, runaway, short in _with_one_field_made(action):
                reason = rules.why_not(state, runaway)
                bound = len(rules.why_not(state, short) or "") + 2 * ECHO
                if reason is not None and (len(reason) > bound or "\n" in reason):
                    long.append(f"{type(action).__name__}.{name}: {reason[:120]}…")
        state, _ = rules.apply(state, rng.choice(actions))
    assert not long, "\n".join(sorted(set(long)))


@pytest.mark.parametrize("game", GAMES)
def test_an_action_with_a_runaway_player_posted_to_the_page_is_refused_in_one_short_line(
        tmp_path: Path, game: str) -> None:
    rules = _rules(game)
    action = next(iter(rules.legal_actions(rules.new_state())))
    with GameLog(tmp_path / "g.sqlite") as log:
        referee = Referee(log, log.new_game(rules))
        client = create_app(referee).test_client()
        token = re.search(r'token: "([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
        body = {**rules.encode_action(action), "player": RUNAWAY}
        resp = client.post("/api/action", json=body, headers={"X-Companion-Token": token})
        error = resp.get_json()["error"]
        assert resp.status_code == 409, error
        assert "x" * 59 + "…" in error and len(error) < SHORT, error[:300]
        assert referee.game.actions == []


@pytest.mark.parametrize("order", [(RUNAWAY,), (RUNAWAY, RUNAWAY)])
def test_a_petri_capture_order_naming_a_runaway_hole_is_refused_in_one_short_line(
        order: tuple[str, ...]) -> None:
    # The capture step is rarely reached by a seeded game: asked of the order's check.
    from companion.rules.petri.captures import why_not_order
    from tests.petri.test_rules import TANGLE

    reason = why_not_order(TANGLE, order, "red", False)
    assert reason is not None and "x" * 59 + "…" in reason and len(reason) < 100, reason[:300]


@pytest.mark.parametrize("field", ["player", "team", "piece"])
def test_a_peltapeeps_action_typed_with_a_runaway_name_is_refused_in_one_short_line(
        tmp_path: Path, field: str) -> None:
    # "red cannot place red xxx…xxx: there is no piece xxx…xxx in the red set", 10,000
    # characters: the piece's name was repeated whole, twice.
    from tests.test_terminal_echo import _answer

    place = {"kind": "place", "player": "red", "team": "red", "piece": "E1", "x": 0, "y": 0,
             "rotation": 0, "face_up": True, field: RUNAWAY}
    said = _answer(tmp_path / "g.sqlite", "peltapeeps", json.dumps(place))
    assert said.startswith("  ✗ ") and said.count("\n") == 1, said[:300]
    assert "x" * (ECHO - 1) + "…" in said and len(said) < SHORT, said[:300]
