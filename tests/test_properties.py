"""Properties over random legal Peep War games (Hypothesis)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.gamelog import GameLog
from companion.rules.peepwar import Draw, Eat, PeepBeans, PeepWar, PeepWarState, Phase

MAX_STEPS = 400


def _health(s: PeepWarState) -> int:
    return sum(stack.peep for who in s.pieces.values() for stack in who.values())


def _troops(s: PeepWarState) -> int:
    return sum(s.totals(p)[0] for p in s.players)


games = st.tuples(st.integers(2, 6), st.sampled_from([2001, 2005]))


def _random_game(data: st.DataObject, n: int, edition: int):
    rules = PeepWar(players=[f"p{i}" for i in range(n)], edition=edition)
    state = rules.new_state()
    steps = []
    for _ in range(MAX_STEPS):
        if rules.is_over(state):
            break
        actions = list(rules.legal_actions(state))
        assert actions, f"no legal action for {rules.to_act(state)} in {state.phase}"
        # Ending phases less often lets pieces meet and fight.
        action = data.draw(st.sampled_from(actions))
        new, events = rules.apply(state, action)
        steps.append((state, action, new, events))
        state = new
    return rules, steps


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, data=st.data())
def test_no_limit_is_exceeded_after_upkeep(game, data) -> None:
    rules, steps = _random_game(data, *game)
    for before, _action, after, _events in steps:
        for cell, who in after.pieces.items():
            for player, stack in who.items():
                assert 0 <= stack.troops <= 5, (cell, player, stack)
                assert 0 <= stack.peep <= 3, (cell, player, stack)
        entered_movement = after.phase is Phase.MOVEMENT and (
            before.phase is not Phase.MOVEMENT or before.turn != after.turn)
        if entered_movement:
            p = after.current
            troops, peeps = after.totals(p)
            max_troops, max_peeps = after.support(p)
            assert troops <= max_troops and peeps <= max_peeps, (p, troops, peeps)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, data=st.data())
def test_beans_are_conserved_through_combat_except_those_eaten(game, data) -> None:
    rules, steps = _random_game(data, *game)
    for before, action, after, events in steps:
        if not isinstance(action, Draw | Eat | PeepBeans):
            continue
        eaten_troops = sum(1 for e in events if e.kind == "eat" and e.data["what"] == "troop")
        eaten_segments = sum(1 for e in events if e.kind == "eat" and e.data["what"] == "peep")
        assert _troops(before) - _troops(after) == eaten_troops
        lost_kept_out = 0
        c = before.combat
        # Who kept their peep out of the egg: so far, and the player keeping it out now (whose
        # fight can end with that very choice, their peep lost with it).
        kept_out = set(c.kept_out) if c is not None else set()
        if isinstance(action, PeepBeans) and not action.commit:
            kept_out.add(action.player)
        over = [e for e in events if e.kind == "combat_over"]
        if over and c is not None and over[0].data["loser"] in kept_out:
            lost_kept_out = before.stack(c.cell, over[0].data["loser"]).peep
        assert _health(before) - _health(after) == eaten_segments + lost_kept_out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, data=st.data())
def test_replaying_the_log_reproduces_the_state_exactly(game, data) -> None:
    rules, steps = _random_game(data, *game)
    final = steps[-1][2] if steps else rules.new_state()
    with tempfile.TemporaryDirectory() as tmp:
        with GameLog(Path(tmp) / "g.sqlite") as log:
            logged = log.new_game(rules)
            for _before, action, _after, _events in steps:
                # Through JSON, as the log stores it.
                wire = json.loads(json.dumps(rules.encode_action(action)))
                logged.play(rules.decode_action(wire))
        with GameLog(Path(tmp) / "g.sqlite") as log:
            again = log.open(logged.id)
    assert again.state == final
    assert rules.state_to_dict(again.state) == rules.state_to_dict(final)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games, data=st.data())
def test_generated_actions_are_exactly_the_legal_ones(game, data) -> None:
    rules, steps = _random_game(data, *game)
    for before, action, _after, _events in steps[-20:]:
        assert rules.why_not(before, action) is None
        assert action in set(rules.legal_actions(before))
