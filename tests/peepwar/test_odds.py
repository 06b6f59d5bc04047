"""Exact Peep War combat odds: hand values, brute force over every draw, the CLI."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from math import factorial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.peepwar import odds as odds_module
from companion.rules.peepwar.odds import (
    POLICIES,
    Side,
    Survivors,
    clear_caches,
    combat_odds,
    win_probability,
)

F = Fraction

# --- exact values by hand -----------------------------------------------------

# P(1,1): one draw from two beans decides it: 1/2.
# P(2,1): attacker bean first (2/3) wins at once; defender bean first (1/3) leaves 1 v 1,
#         so 2/3 + 1/3·1/2 = 5/6. (Not 2/3: that is only the first round.)
# P(1,2): by symmetry 1 − 5/6 = 1/6; directly, the lone bean must be drawn twice: 1/3·1/2.
# P(3,1): 3/4 + 1/4·P(2,1) = 3/4 + 5/24 = 23/24. In general the one bean must win A draws
#         running, so P(A,1) = 1 − 1/(A+1)!.
# P(3,2): 3/5·P(3,1) + 2/5·P(2,2) = 3/5·23/24 + 2/5·1/2 = 69/120 + 24/120 = 31/40.
# P(2,3): 1 − 31/40 = 9/40.
HAND_VALUES = [
    (1, 0, F(1)),
    (0, 1, F(0)),
    (1, 1, F(1, 2)),
    (2, 1, F(5, 6)),
    (1, 2, F(1, 6)),
    (2, 2, F(1, 2)),
    (3, 1, F(23, 24)),
    (3, 2, F(31, 40)),
    (2, 3, F(9, 40)),
]


@pytest.mark.parametrize(("a", "d", "expected"), HAND_VALUES)
def test_win_probability_matches_hand_values(a: int, d: int, expected: Fraction) -> None:
    assert win_probability(a, d) == expected


@pytest.mark.parametrize("n", range(1, 9))
def test_one_bean_must_win_every_draw(n: int) -> None:
    assert win_probability(n, 1) == 1 - F(1, factorial(n + 1))
    assert win_probability(1, n) == F(1, factorial(n + 1))


def test_two_v_one_outcomes_and_expected_beans_by_hand() -> None:
    # Attacker wins keeping 2 (attacker bean first, 2/3), keeping 1 (defender then attacker,
    # 1/3·1/2), or the defender wins keeping 1 (1/6). E[attacker] = 2·2/3 + 1·1/6 = 3/2.
    odds = combat_odds(Side(2), Side(1))
    assert [(o.winner, o.beans_left, o.probability) for o in odds.outcomes] == [
        ("attacker", 2, F(2, 3)),
        ("attacker", 1, F(1, 6)),
        ("defender", 1, F(1, 6)),
    ]
    assert odds.expected_beans_left == {"attacker": F(3, 2), "defender": F(1, 6)}


@cache
def recursion(a: int, d: int) -> Fraction:
    """The standard's recursion, written out plainly as an independent reference."""
    if d == 0:
        return F(1)
    if a == 0:
        return F(0)
    return F(a, a + d) * recursion(a, d - 1) + F(d, a + d) * recursion(a - 1, d)


def test_matches_the_standard_recursion_for_every_table_fight() -> None:
    for a in range(9):
        for d in range(9):
            if a or d:
                assert win_probability(a, d) == recursion(a, d), (a, d)


def test_symmetry_and_even_fights() -> None:
    for a in range(1, 9):
        assert win_probability(a, a) == F(1, 2)
        for d in range(1, 9):
            assert win_probability(a, d) + win_probability(d, a) == 1


def test_cleared_caches_give_the_same_answer() -> None:
    before = combat_odds(Side(5, 3), Side(4, 2))
    clear_caches()
    assert combat_odds(Side(5, 3), Side(4, 2)) == before


# --- brute force over every draw sequence ---------------------------------------

Choice = Callable[[str, int, int, int], str]
"""(victim side, victim troop beans, victim peep beans, round) -> "troop" or "peep"."""


def troops_first(victim: str, troops: int, peep: int, rnd: int) -> str:
    return "troop" if troops else "peep"


def peep_first(victim: str, troops: int, peep: int, rnd: int) -> str:
    return "peep" if peep else "troop"


def zigzag(victim: str, troops: int, peep: int, rnd: int) -> str:
    """A state-dependent mix, to show composition never changes who wins."""
    want = "peep" if (rnd + troops + (victim == "defender")) % 2 else "troop"
    if want == "peep" and not peep:
        return "troop"
    return "peep" if want == "troop" and not troops else want


POLICY_CHOICES: dict[str, Choice] = {"troops_first": troops_first, "peep_first": peep_first}


def brute_force(attacker: Side, defender: Side, choose: Choice) -> dict[tuple, Fraction]:
    """Every sequence of individual bean draws, to the end of the fight.

    Returns the probability of each (winner, surviving troops, surviving peep health,
    beans left). Written from the standard's words, sharing nothing with the module.
    """
    sides = {"attacker": attacker, "defender": defender}
    start: list[tuple[str, str]] = []
    for name, side in sides.items():
        start += [(name, "troop")] * side.troops
        if side.peep and side.peep_beans:
            start += [(name, "peep")] * side.peep
    result: dict[tuple, Fraction] = defaultdict(Fraction)

    def walk(beans: list[tuple[str, str]], prob: Fraction, rnd: int) -> None:
        owners = {owner for owner, _ in beans}
        if len(owners) < 2:
            (winner,) = owners  # a side with no beans loses at once
            side = sides[winner]
            troops = sum(1 for owner, kind in beans if kind == "troop")
            if not side.peep:
                peep = None
            elif side.peep_beans:
                peep = sum(1 for owner, kind in beans if kind == "peep") or None
            else:
                peep = side.peep  # kept out: untouched
            result[(winner, troops, peep, len(beans))] += prob
            return
        for victor, _ in beans:  # each bean in the container is one equally likely draw
            victim = "defender" if victor == "attacker" else "attacker"
            troops = sum(1 for owner, kind in beans if owner == victim and kind == "troop")
            peep = sum(1 for owner, kind in beans if owner == victim and kind == "peep")
            kind = choose(victim, troops, peep, rnd)
            rest = list(beans)
            rest.remove((victim, kind))
            walk(rest, prob / len(beans), rnd + 1)

    walk(start, F(1), 0)
    return dict(result)


def expected_left(odds_outcomes: dict[tuple, Fraction], side: str) -> Fraction:
    return sum((p * left for (w, _, _, left), p in odds_outcomes.items() if w == side), F(0))


SMALL_FIGHTS = [
    (Side(1), Side(1)),
    (Side(2), Side(1)),
    (Side(1, 2), Side(2)),
    (Side(2, 1), Side(1, 2)),
    (Side(0, 3), Side(2)),
    (Side(2, 3), Side(1)),
    (Side(1, 3), Side(1, 2)),
    (Side(0, 3), Side(0, 3)),
    (Side(3), Side(0, 3)),
    (Side(1, 1), Side(3, 2)),
    (Side(2, 3, peep_beans=False), Side(1, 2)),
    (Side(0, 2, peep_beans=False), Side(1)),
    (Side(2), Side(1, 3, peep_beans=False)),
]


@pytest.mark.parametrize(("attacker", "defender"), SMALL_FIGHTS)
def test_outcomes_match_brute_force(attacker: Side, defender: Side) -> None:
    odds = combat_odds(attacker, defender)
    for policy, choose in POLICY_CHOICES.items():
        brute = brute_force(attacker, defender, choose)
        ours = {
            (o.winner, o.survivors(policy).troops, o.survivors(policy).peep, o.beans_left): (
                o.probability
            )
            for o in odds.outcomes
        }
        assert ours == brute, policy
        assert odds.expected_beans_left == {
            "attacker": expected_left(brute, "attacker"),
            "defender": expected_left(brute, "defender"),
        }


@pytest.mark.parametrize(("attacker", "defender"), SMALL_FIGHTS)
def test_removal_choices_never_change_who_wins(attacker: Side, defender: Side) -> None:
    p = win_probability(attacker.beans, defender.beans)
    for choose in (troops_first, peep_first, zigzag):
        brute = brute_force(attacker, defender, choose)
        assert sum(q for (w, *_), q in brute.items() if w == "attacker") == p


@cache
def win_extremes(at: int, ap: int, dt: int, dp: int) -> tuple[Fraction, Fraction]:
    """The lowest and highest attacker chance over every way victors may choose beans."""
    a, d = at + ap, dt + dp
    if d == 0:
        return F(1), F(1)
    if a == 0:
        return F(0), F(0)
    att_drawn = [win_extremes(at, ap, dt - 1, dp)] * bool(dt) + [
        win_extremes(at, ap, dt, dp - 1)
    ] * bool(dp)
    def_drawn = [win_extremes(at - 1, ap, dt, dp)] * bool(at) + [
        win_extremes(at, ap - 1, dt, dp)
    ] * bool(ap)
    lo = F(a, a + d) * min(x[0] for x in att_drawn) + F(d, a + d) * min(x[0] for x in def_drawn)
    hi = F(a, a + d) * max(x[1] for x in att_drawn) + F(d, a + d) * max(x[1] for x in def_drawn)
    return lo, hi


def test_no_strategy_of_either_victor_changes_who_wins_in_any_table_fight() -> None:
    for at in range(6):
        for ap in range(4):
            for dt in range(6):
                for dp in range(4):
                    if at + ap and dt + dp:
                        lo, hi = win_extremes(at, ap, dt, dp)
                        assert lo == hi == win_probability(at + ap, dt + dp)


# --- properties -----------------------------------------------------------------

sides = st.builds(
    Side,
    troops=st.integers(0, 5),
    peep=st.integers(0, 3),
    peep_beans=st.booleans(),
)


@given(sides, sides)
def test_odds_are_a_distribution_with_consistent_survivors(attacker: Side, defender: Side) -> None:
    if attacker.beans == 0 and defender.beans == 0:
        with pytest.raises(ValueError, match="no fight"):
            combat_odds(attacker, defender)
        return
    odds = combat_odds(attacker, defender)
    assert odds.attacker_wins == win_probability(attacker.beans, defender.beans)
    assert odds.attacker_wins + odds.defender_wins == 1
    assert sum(o.probability for o in odds.outcomes) == 1
    assert all(o.probability > 0 for o in odds.outcomes)
    for name, side in (("attacker", attacker), ("defender", defender)):
        mine = [o for o in odds.outcomes if o.winner == name]
        assert sum(o.probability for o in mine) == (
            odds.attacker_wins if name == "attacker" else odds.defender_wins
        )
        assert odds.expected_beans_left[name] == sum(
            (o.beans_left * o.probability for o in mine), F(0)
        )
        assert 0 <= odds.expected_beans_left[name] <= side.beans
        for o in mine:
            for policy in POLICIES:
                s = o.survivors(policy)
                assert 0 <= s.troops <= side.troops
                if not side.peep:
                    assert s.peep is None
                elif not side.peep_beans:
                    assert s.peep == side.peep  # kept out: never wounded
                    assert s.troops == o.beans_left
                else:
                    assert s.troops + (s.peep or 0) == o.beans_left
            if side.peep_in:
                # Eating troops first spares the peep as long as any troop is left.
                tf, pf = o.troops_first, o.peep_first
                assert tf.peep == min(side.peep, o.beans_left)
                assert pf.troops == min(side.troops, o.beans_left)


@given(sides, sides)
def test_swapping_sides_mirrors_the_odds(attacker: Side, defender: Side) -> None:
    if attacker.beans == 0 and defender.beans == 0:
        return
    here, there = combat_odds(attacker, defender), combat_odds(defender, attacker)
    assert here.attacker_wins == there.defender_wins
    assert here.expected_beans_left["attacker"] == there.expected_beans_left["defender"]
    flip = {"attacker": "defender", "defender": "attacker"}
    assert {(o.winner, o.beans_left, o.probability) for o in here.outcomes} == {
        (flip[o.winner], o.beans_left, o.probability) for o in there.outcomes
    }


@given(st.integers(0, 10), st.integers(1, 10))
def test_more_beans_never_hurt(a: int, d: int) -> None:
    assert win_probability(a + 1, d) > win_probability(a, d)
    assert win_probability(a + 1, d + 1) < win_probability(a + 1, d)


@settings(max_examples=40, deadline=None)
@given(
    st.builds(Side, troops=st.integers(0, 3), peep=st.integers(0, 3), peep_beans=st.booleans()),
    st.builds(Side, troops=st.integers(0, 3), peep=st.integers(0, 3), peep_beans=st.booleans()),
)
def test_brute_force_agrees_on_random_small_fights(attacker: Side, defender: Side) -> None:
    if attacker.beans == 0 and defender.beans == 0 or attacker.beans + defender.beans > 6:
        return
    odds = combat_odds(attacker, defender)
    for policy, choose in POLICY_CHOICES.items():
        brute = brute_force(attacker, defender, choose)
        for o in odds.outcomes:
            s = o.survivors(policy)
            assert brute[(o.winner, s.troops, s.peep, o.beans_left)] == o.probability
        assert len(brute) == len(odds.outcomes)


# --- the 2001 reading: a peep kept out --------------------------------------------


def test_kept_out_peep_adds_no_beans_and_cannot_be_wounded() -> None:
    odds = combat_odds(Side(2, 3, peep_beans=False), Side(2))
    assert odds.attacker_wins == F(1, 2)
    for o in odds.outcomes:
        if o.winner == "attacker":
            assert o.troops_first == o.peep_first == Survivors(o.beans_left, 3)
    committed = combat_odds(Side(2, 3), Side(2))
    assert committed.attacker_wins == win_probability(5, 2) > odds.attacker_wins


def test_a_side_with_no_beans_loses_at_once() -> None:
    lone = combat_odds(Side(0, 3, peep_beans=False), Side(1))
    assert lone.attacker_wins == 0
    assert [(o.winner, o.beans_left, o.probability) for o in lone.outcomes] == [
        ("defender", 1, F(1))
    ]
    assert combat_odds(Side(1), Side(0, 2, peep_beans=False)).attacker_wins == 1


def test_bad_sides_are_refused() -> None:
    with pytest.raises(ValueError, match="troops"):
        Side(-1)
    with pytest.raises(ValueError, match="peep health"):
        Side(1, peep=4)
    with pytest.raises(ValueError, match="no fight"):
        combat_odds(Side(0), Side(0, 2, peep_beans=False))
    with pytest.raises(ValueError, match="policy"):
        combat_odds(Side(1), Side(1)).outcomes[0].survivors("random")  # type: ignore[arg-type]


def test_likely_is_best_first_and_to_dict_is_json() -> None:
    odds = combat_odds(Side(5, 3), Side(5, 3))
    assert len(odds.outcomes) == 16
    top = odds.likely()
    assert len(top) == 6
    assert [o.probability for o in top] == sorted((o.probability for o in top), reverse=True)
    assert top[0].probability == max(o.probability for o in odds.outcomes)
    assert len(odds.likely(100)) == 16
    data = json.loads(json.dumps(odds.to_dict()))
    assert data["attacker_wins"] == 0.5 == data["defender_wins"]
    assert data["attacker_wins_exact"] == "1/2"
    assert sum(o["probability"] for o in data["outcomes"]) == pytest.approx(1, abs=1e-12)
    assert set(data["outcomes"][0]["survivors"]) == {"troops_first", "peep_first"}
    assert data["attacker"] == {"troops": 5, "peep": 3, "peep_beans": True, "beans": 8}


def test_docstring_examples_run() -> None:
    result = doctest.testmod(odds_module)
    assert result.attempted > 5
    assert result.failed == 0


# --- the command line -----------------------------------------------------------


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``companion`` command (or ``python -m companion`` without it)."""
    script = Path(sys.executable).parent / "companion"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "companion"]
    return subprocess.run(
        [*cmd, "odds", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_cli_json_parses_and_sums_to_one() -> None:
    run = companion("--attacker", "3", "--defender", "2+3", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["attacker_wins"] + data["defender_wins"] == pytest.approx(1, abs=1e-15)
    exact = combat_odds(Side(3), Side(2, 3))
    assert F(data["attacker_wins_exact"]) == exact.attacker_wins
    assert data["expected_beans_left"]["defender"] == float(exact.expected_beans_left["defender"])
    assert sum(o["probability"] for o in data["outcomes"]) == pytest.approx(1, abs=1e-12)
    assert data["edition"] == 2005
    assert "peep_beans_choices" not in data


def test_cli_text_shows_percentages_and_both_policies() -> None:
    run = companion("--attacker", "5+3", "--defender", "5+3")
    assert run.returncode == 0, run.stderr
    assert "attacker wins   50.00%" in run.stdout
    assert "troops first" in run.stdout and "peep first" in run.stdout
    assert "expected beans left: attacker 2.41, defender 2.41" in run.stdout


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--attacker", "3+5", "--defender", "2"), "3+5"),
        (("--attacker", "x", "--defender", "2"), "'x'"),
        (("--attacker", "2", "--defender", "6"), "'6'"),
        (("--attacker", "0", "--defender", "2"), "'0'"),
        (("--attacker", "2+3", "--defender", "1", "--attacker-peep-out"), "2001"),
        (
            ("--attacker", "2", "--defender", "1", "--edition", "2001", "--defender-peep-out"),
            "peep",
        ),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], named: str) -> None:
    run = companion(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert named in lines[0]
    assert "T+P" in lines[0] or "--edition" in lines[0] or "peep" in lines[0]


@pytest.mark.parametrize("side", ["x" * 5000, "9" * 5000, "0" * 5000, "1+" + "9" * 5000,
                                  "1+" + "0" * 4000 + "9", " " * 5000 + "9"])
@pytest.mark.parametrize("option", ["--attacker", "--defender"])
def test_cli_a_runaway_side_is_echoed_cut_on_one_line(capsys, option: str, side: str) -> None:
    # It was repeated whole (5,000 characters), or, past 4,300 digits, ended on a traceback.
    from companion.cli import main

    sides = {"--attacker": "2", "--defender": "2", option: side}
    assert main(["odds", *(x for kv in sides.items() for x in kv)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and len(err) < 200
    assert err.startswith(f"companion odds: error: {option} '")


def test_cli_2001_json_gives_every_peep_choice() -> None:
    run = companion("--attacker", "2+3", "--defender", "3+1", "--edition", "2001", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert F(data["attacker_wins_exact"]) == win_probability(5, 4)  # both peeps in by default
    choices = data["peep_beans_choices"]
    expected_choices = {
        "attacker_peep_in,defender_peep_in": win_probability(5, 4),
        "attacker_peep_in,defender_peep_out": win_probability(5, 3),
        "attacker_peep_out,defender_peep_in": win_probability(2, 4),
        "attacker_peep_out,defender_peep_out": win_probability(2, 3),
    }
    assert {k: F(v["attacker_wins_exact"]) for k, v in choices.items()} == expected_choices


def test_cli_2001_peep_out_changes_the_main_figures() -> None:
    run = companion(
        "--attacker", "0+3", "--defender", "0+2", "--edition", "2001", "--json",
        "--defender-peep-out",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["attacker_wins"] == 1.0  # the defender's lone peep put nothing in
    assert data["defender"]["peep_beans"] is False
    # Both lone peeps kept out is no fight, so that choice is left out.
    assert set(data["peep_beans_choices"]) == {
        "attacker_peep_in,defender_peep_in",
        "attacker_peep_in,defender_peep_out",
        "attacker_peep_out,defender_peep_in",
    }
    both_out = companion(
        "--attacker", "0+3", "--defender", "0+2", "--edition", "2001",
        "--attacker-peep-out", "--defender-peep-out",
    )  # fmt: skip
    assert both_out.returncode == 2
    assert len(both_out.stderr.strip().splitlines()) == 1
    assert "no fight" in both_out.stderr
