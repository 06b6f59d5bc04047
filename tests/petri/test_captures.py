"""The best capture order is optimal: checked against every order of checking, by brute force."""

from __future__ import annotations

from itertools import permutations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.petri import Petri
from companion.rules.petri.board import HOLES, coords
from companion.rules.petri.captures import (
    advise,
    careless,
    checked_pieces,
    crowded,
    why_not_order,
)
from tests.petri.conftest import position
from tests.petri.test_rules import TANGLE

NEAR_CENTRE = [h for h in HOLES if max(abs(c) for c in (*coords(h), sum(coords(h)))) <= 2]
PLAYERS = ("red", "blue", "green", "yellow")


def every_order(board: dict[str, str], mover: str, own_checked: bool
                ) -> list[tuple[str, ...]]:
    """What each order of checking all the pieces captures, in order."""
    out = []
    for perm in permutations(checked_pieces(board, mover, own_checked)):
        live, taken = dict(board), []
        for hole in perm:
            if crowded(live, hole):
                del live[hole]
                taken.append(hole)
        out.append(tuple(taken))
    return out


def score(board: dict[str, str], mover: str, taken: tuple[str, ...]) -> tuple[int, int]:
    """(enemy captured, -own lost): higher is better."""
    own = sum(board[h] == mover for h in taken)
    return len(taken) - own, -own


boards = st.integers(2, 4).flatmap(lambda n: st.dictionaries(
    st.sampled_from(NEAR_CENTRE), st.sampled_from(PLAYERS[:n]), min_size=3, max_size=7))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards, own_checked=st.booleans(), data=st.data())
def test_the_best_order_is_the_best_of_all_orders(board, own_checked, data) -> None:
    mover = data.draw(st.sampled_from(sorted(set(board.values()) | {"red"})))
    results = every_order(board, mover, own_checked)
    best = max(score(board, mover, t) for t in results)
    advice = advise(board, mover, own_checked)
    assert (advice.enemy, -advice.own) == best
    assert why_not_order(board, advice.order, mover, own_checked) is None
    assert score(board, mover, advice.order) == best
    # Every order of checking gives a legal capture order, and the careless one is one.
    for taken in set(results):
        assert why_not_order(board, taken, mover, own_checked) is None
    assert advice.careless == careless(board, mover, own_checked) <= advice.enemy


def test_an_own_piece_beside_the_captured_piece_alone_is_counted_lost() -> None:
    # Blue's 1,-1 stands beside green's 0,0 and nothing else that can fall: taking 0,0 loses
    # it as well as -2,1, where taking red's -1,1 loses 1,-1 only. Found by the search above.
    board = {"-1,2": "red", "-1,1": "red", "1,-1": "blue", "-2,1": "blue", "2,-1": "green",
             "0,0": "green", "1,0": "green"}
    best = max(score(board, "blue", t) for t in every_order(board, "blue", True))
    advice = advise(board, "blue", True)
    assert best == (1, -1) and (advice.enemy, -advice.own) == best
    assert advice.order == ("-1,1", "1,-1")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards, own_checked=st.booleans())
def test_the_listed_capture_orders_are_exactly_the_possible_results(board, own_checked) -> None:
    players = tuple(dict.fromkeys((*sorted(set(board.values())), "red", "blue")))
    rules = Petri(players=players, own_pieces="checked" if own_checked else "safe")
    mover = players[0]
    state = position(rules, board, mover=mover)
    listed = {frozenset(a.order) for a in rules.legal_actions(state)}
    possible = {frozenset(t) for t in every_order(board, mover, own_checked)}
    assert listed == possible


def test_the_careless_order_is_reading_order() -> None:
    # Reading order checks green's 0,-1 while it still has its friend, then takes 0,0
    # and 1,0; the best order takes 0,0 first and catches 0,-1 alone.
    advice = advise(TANGLE, "red", own_checked=False)
    assert set(advice.order) == {"0,0", "1,0", "0,-1"} and advice.order[0] == "0,0"
    assert why_not_order(TANGLE, advice.order, "red", False) is None
    assert (advice.enemy, advice.careless, advice.careless_loss) == (3, 2, 1)


def test_two_players_capture_everything_that_falls() -> None:
    # With one opponent a capture never saves another piece: the cascade is taken whole.
    board = {"0,0": "blue", "1,0": "blue", "-1,0": "red", "-1,1": "red", "0,1": "red",
             "1,1": "red", "2,0": "red", "2,-1": "red"}
    advice = advise(board, "red")
    assert advice.enemy == 2 and advice.own == 0
    assert why_not_order(board, advice.order, "red", True) is None


def test_an_order_is_legal_or_not_by_its_order_not_only_its_set() -> None:
    # Blue to capture. Taking green's 0,-1 first leaves green's 1,-1 crowded out at every
    # point, so it must fall too; taking red's 1,-2 first lets 1,-1 be checked safely.
    board = {"0,-2": "red", "1,-2": "red", "2,-2": "blue", "-1,-1": "red", "0,-1": "green",
             "1,-1": "green"}
    assert why_not_order(board, ("1,-2", "0,-1"), "blue", False) is None
    assert why_not_order(board, ("0,-1", "1,-2"), "blue", False) is not None
    rules = Petri(players=("blue", "green", "red"), own_pieces="safe")
    listed = {frozenset(a.order) for a in rules.legal_actions(position(rules, board))}
    assert frozenset({"1,-2", "0,-1"}) in listed


def test_a_search_out_of_budget_still_gives_a_legal_order() -> None:
    import random

    rng = random.Random(5)
    for _ in range(200):
        board = {h: rng.choice(PLAYERS) for h in rng.sample(HOLES, 30)}
        quick = advise(board, "red", True, budget=1)
        if not quick.exact:
            break
    assert not quick.exact, "some tangled board needs more than one group searched"
    assert why_not_order(board, quick.order, "red", True) is None
    full = advise(board, "red", True)
    assert full.exact and (full.enemy, -full.own) >= (quick.enemy, -quick.own)
    assert quick.to_dict()["exact"] is False
