"""Properties over random legal Petri games (Hypothesis): they end, and no piece is lost."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.petri import Petri, Place

MAX_ACTIONS = 6000  # far above the longest game the end rules allow (see docs/petri.md)

tables = st.fixed_dictionaries({
    "n": st.integers(2, 6), "pieces": st.sampled_from([10, 15]),
    "variant": st.sampled_from(["standard", "realtime"]),
    "placement": st.sampled_from(["chain", "start"]),
    "own_pieces": st.sampled_from(["checked", "safe"]),
})


def _play(data: st.DataObject, rules: Petri, limit: int) -> int:
    state = rules.new_state()
    start = rules.pieces * len(rules.players)
    for n in range(limit):
        if rules.is_over(state):
            return n
        assert rules.waiting_for(state), "a game that is not over waits for someone"
        actions = list(rules.legal_actions(state))
        assert actions, f"no legal action at {rules.phase(state)}"
        state, events = rules.apply(state, data.draw(st.sampled_from(actions)))
        assert events and all(e.text for e in events)
        assert state.counted() == start, "board + hands + cups + box is the starting count"
        assert all(v >= 0 for pot in (state.hands, state.cups, state.boxed)
                   for v in pot.values())
    return limit


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(table=tables, removed=st.sampled_from(["box", "cup"]), data=st.data())
def test_random_legal_games_end_and_keep_every_piece(table, removed, data) -> None:
    n = table.pop("n")
    rules = Petri(players=[f"p{i}" for i in range(n)], removed=removed, **table)
    assert _play(data, rules, MAX_ACTIONS) < MAX_ACTIONS


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(table=tables, data=st.data())
def test_pieces_removed_back_to_hand_are_kept_too(table, data) -> None:
    # Pieces going back to the hand keep a game going as long as nobody is captured out,
    # so only conservation is checked here, over a few hundred actions.
    n = table.pop("n")
    _play(data, Petri(players=[f"p{i}" for i in range(n)], removed="hand", **table), 300)



def test_a_realtime_piece_that_takes_anothers_last_hole_sends_that_piece_to_its_cup() -> None:
    # Found by the property test above: in Realtime one player's piece filled the only hole
    # another could still use, and the game then waited for that player with no legal action.
    from dataclasses import replace

    from companion.rules.petri.board import neighbours
    from companion.rules.petri.state import Part, Step

    rules = Petri(players=["a", "b"], variant="realtime")
    state = rules.new_state()
    centre = "0,0"
    ring = list(neighbours(centre))
    last, a_at = ring[0], next(h for h in neighbours(ring[0]) if h not in ring and h != centre)
    # b holds the centre, every other hole round it is a's, and a also sits next to ``last``.
    board = {centre: "b", a_at: "a", **{h: "a" for h in ring[1:]}}
    placing = Part(step=Step.PLACE, dice=(1, 1), die=1, left=1)
    state = replace(state, board=board, parts={"a": placing, "b": placing},
                    hands={"a": 10 - len(ring), "b": 9})
    assert rules.placeable(state, "b") == {last} and last in rules.placeable(state, "a")

    state, _ = rules.apply(state, Place("a", (last,)))

    assert state.cups["b"] == 1 and state.hands["b"] == 8  # b's piece could go nowhere
    assert state.parts["b"].step is not Step.PLACE
    assert list(rules.legal_actions(state)) or state.over
