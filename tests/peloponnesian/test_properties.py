"""Random legal games: they end by turn 15, chits are conserved, the area limits hold.

Hypothesis picks every decision (each draw's outcome and each legal action)
of whole games under each option; after every action the invariants are
checked on the whole state.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.peloponnesian import PeloponnesianWar
from companion.rules.peloponnesian.notation import format, parse
from companion.rules.peloponnesian.state import State
from companion.rules.peloponnesian.struggle import MAX_COUNTERS

MAX_ACTIONS = 2000  # a game is at most 15 turns of some 30 actions


def _check(rules: PeloponnesianWar, s: State, total: int) -> None:
    everywhere = (s.cup_size() + sum(len(h) for _, h in s.hands) + len(s.board)
                  + (1 if s.aside else 0) + len(s.retired))
    assert everywhere == total, "a chit appeared or vanished"
    assert all(n >= 0 for _, n in s.cup)
    assert all(0 < n <= MAX_COUNTERS for _, _, n in s.counters)
    for area in rules.map.areas:
        assert len(s.counters_in(area)) <= 1, f"{area} is oriented to two players"
        assert len({c.player for c in s.chits_in(area)}) <= 2, f"three players in {area}"
    assert s.turn <= 15
    assert len(s.hands) == len(rules.players)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), order=st.sampled_from(["simultaneous", "in-turn"]),
       influence=st.sampled_from(["adjacent", "adjacent-or-own"]),
       players=st.sampled_from([("sparta", "athens", "thebes"), ("thebes", "sparta"),
                                ("athens", "sparta", "thebes")]))
def test_random_legal_games_end_by_turn_fifteen_and_keep_their_chits(
        data: st.DataObject, order: str, influence: str, players: tuple[str, ...]) -> None:
    rules = PeloponnesianWar(list(players), order=order, influence=influence,
                             youngest=data.draw(st.sampled_from(players)))
    s = rules.new_state()
    total = s.cup_size()
    assert total == 20 + 3 * len(players)  # the mix, and the Specials of the cities here
    for _ in range(MAX_ACTIONS):
        if rules.is_over(s):
            break
        chance = rules.chance(s)
        if chance is not None:
            outcomes = [a for a, w in chance.outcomes if w]
            action = data.draw(st.sampled_from(outcomes))
        else:
            legal = list(rules.legal_actions(s))
            assert legal, f"nobody can act in {rules.phase(s)} of turn {s.turn}"
            action = data.draw(st.sampled_from(legal))
        assert rules.why_not(s, action) is None
        assert parse(format(action), rules, s) == action  # the notation reads itself back
        s, _ = rules.apply(s, action)
        _check(rules, s, total)
    assert rules.is_over(s) and 1 <= s.turn <= 15 and s.winners
    assert set(s.winners) <= set(players)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_bundles_bot_plays_a_whole_game_legally(seed: int) -> None:
    from companion.rules.peloponnesian.game import GAME

    rules = GAME.new_rules(["sparta", "athens", "thebes"])
    bot = GAME.bot(rules, seed)
    s = rules.new_state()
    kinds: Counter[str] = Counter()
    for _ in range(MAX_ACTIONS):
        if rules.is_over(s):
            break
        action = bot.choose(s)
        kinds[action.kind] += 1
        s, _ = rules.apply(s, action)
    assert rules.is_over(s) and kinds["play"] > 0 and kinds["resolve"] == s.turn
