"""The star of 121 holes, its neighbours and its six homes (table standard, section 7)."""

from __future__ import annotations

import pytest

from companion.rules.petri.board import (
    HOLES,
    HOMES,
    NEIGHBOURS,
    TIPS,
    coords,
    default_homes,
    home_of_hole,
    homes_problem,
    parse_hole,
)


def test_the_board_is_the_union_of_two_triangles() -> None:
    assert len(HOLES) == 121 == len(set(HOLES))
    for hole in HOLES:
        q, r = coords(hole)
        s = -q - r
        assert max(q, r, s) <= 4 or min(q, r, s) >= -4
    central = [h for h in HOLES if max(abs(c) for c in (*coords(h), sum(coords(h)))) <= 4]
    assert len(central) == 61


def test_neighbours_are_mutual_and_on_the_board() -> None:
    for hole, near in NEIGHBOURS.items():
        assert len(near) <= 6
        for n in near:
            assert hole in NEIGHBOURS[n]
    assert len(NEIGHBOURS["0,0"]) == 6 and len(NEIGHBOURS["8,-4"]) == 2


def test_six_homes_of_ten_holes_each_with_their_tip() -> None:
    assert [len(h) for h in HOMES] == [10] * 6
    assert len(set().union(*HOMES)) == 60
    for k, (q, r) in enumerate(TIPS):
        assert f"{q},{r}" in HOMES[k] and home_of_hole(f"{q},{r}") == k
        opposite = TIPS[(k + 3) % 6]
        assert opposite == (-q, -r)


@pytest.mark.parametrize("n, homes", [(2, (0, 3)), (3, (0, 2, 4)), (4, (0, 1, 3, 4)),
                                      (5, (0, 1, 2, 3, 4)), (6, (0, 1, 2, 3, 4, 5))])
def test_the_usual_homes_for_each_number_of_players(n: int, homes: tuple[int, ...]) -> None:
    assert default_homes(n) == homes and homes_problem(homes) is None


@pytest.mark.parametrize("homes, problem", [
    ((0, 1), "two players sit at opposite tips (k and k+3)"),
    ((0, 1, 2), "three players sit at alternate tips (0,2,4 or 1,3,5)"),
    ((0, 1, 2, 3), "four players sit at two opposite pairs of tips"),
    ((0, 0), "each player needs a home of their own"),
    ((0, 6), "homes are tips 0 to 5"),
])
def test_unusual_homes_are_refused_in_words(homes: tuple[int, ...], problem: str) -> None:
    assert homes_problem(homes) == problem


def test_five_players_may_take_any_five_tips() -> None:
    assert homes_problem((1, 2, 3, 4, 5)) is None and homes_problem((0, 2, 3, 4, 5)) is None


def test_hole_names() -> None:
    assert parse_hole(" 5, -2") == "5,-2"
    with pytest.raises(ValueError, match="not on the board"):
        parse_hole("9,9")
    with pytest.raises(ValueError, match="write q,r"):
        parse_hole("a1")
