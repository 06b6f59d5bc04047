"""Exact Peep War combat odds (table standard, section 6).

A fight is a bag of beans: each round one bean is drawn uniformly from
everything in the container, its owner wins the round and removes one of the
loser's beans, and the fight ends when only one side has beans. Who wins
depends only on the two bean totals, so the whole fight reduces to a walk on
``(attacker beans, defender beans)``. Which kind of bean the victor removes (a
troop, or a peep bean with a segment of the peep) decides only *what* survives
on the winning side, which :class:`Outcome` reports for the two extreme removal
policies.

Every path of ``n`` rounds has the same denominator ``N·(N−1)···(N−n+1)``
(``N`` = beans at the start, one bean leaves per round), so the walk is done
in plain integers and only the final states become :class:`~fractions.Fraction`.

>>> from companion.rules.peepwar.odds import Side, combat_odds, win_probability
>>> win_probability(2, 1)
Fraction(5, 6)
>>> odds = combat_odds(Side(3), Side(2, peep=3))
>>> odds.attacker_wins
Fraction(4541, 40320)
>>> odds.attacker_wins + odds.defender_wins
Fraction(1, 1)
>>> best = odds.likely(1)[0]
>>> best.winner, best.beans_left, best.probability
('defender', 5, Fraction(125, 336))

In the 2001 rules a peep's controller may keep its beans out: it then cannot be
wounded, but falls with its side.

>>> kept_out = combat_odds(Side(2, peep=3, peep_beans=False), Side(2))
>>> kept_out.attacker_wins
Fraction(1, 2)
>>> {o.troops_first.peep for o in kept_out.outcomes if o.winner == "attacker"}
{3}
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, Literal

Winner = Literal["attacker", "defender"]
Policy = Literal["troops_first", "peep_first"]

POLICIES: tuple[Policy, ...] = ("troops_first", "peep_first")
"""The loser's removal policies :class:`Outcome` reports survivors for."""

MAX_PEEP_HEALTH = 3


@dataclass(frozen=True)
class Side:
    """One side of a fight: its troops and (optionally) its peep.

    ``peep`` is the peep's health, 0 meaning no peep. ``peep_beans`` is False
    when, under the 2001 rules, the controller keeps the peep's beans out of
    the container.

    >>> Side(3, peep=2).beans
    5
    >>> Side(3, peep=2, peep_beans=False).beans
    3
    """

    troops: int
    peep: int = 0
    peep_beans: bool = True

    def __post_init__(self) -> None:
        if self.troops < 0:
            raise ValueError(f"troops must be 0 or more, not {self.troops}")
        if not 0 <= self.peep <= MAX_PEEP_HEALTH:
            raise ValueError(f"peep health must be 0..{MAX_PEEP_HEALTH}, not {self.peep}")

    @property
    def peep_in(self) -> bool:
        """Whether a peep's beans are in the container (so it can be wounded)."""
        return self.peep > 0 and self.peep_beans

    @property
    def beans(self) -> int:
        """Beans this side puts in the container."""
        return self.troops + (self.peep if self.peep_in else 0)

    def survivors(self, beans_left: int, policy: Policy) -> Survivors:
        """What is left of this side when it wins with ``beans_left`` beans.

        The opponent removed ``beans - beans_left`` of this side's beans; with
        ``"troops_first"`` they took troops before peep beans, with
        ``"peep_first"`` the reverse. A peep kept out is untouched.
        """
        if not 0 < beans_left <= self.beans:
            raise ValueError(f"a winner keeps 1..{self.beans} beans, not {beans_left}")
        if not self.peep_in:
            return Survivors(beans_left, self.peep or None)
        removed = self.beans - beans_left
        if policy == "troops_first":
            troops_lost = min(removed, self.troops)
        elif policy == "peep_first":
            troops_lost = max(0, removed - self.peep)
        else:
            raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
        health = self.peep - (removed - troops_lost)
        return Survivors(self.troops - troops_lost, health or None)

    def to_dict(self) -> dict[str, Any]:
        """The side as JSON-ready data."""
        return {
            "troops": self.troops,
            "peep": self.peep or None,
            "peep_beans": self.peep_in,
            "beans": self.beans,
        }


@dataclass(frozen=True)
class Survivors:
    """The winning side's pieces after a fight; ``peep`` is None when dead or absent."""

    troops: int
    peep: int | None


@dataclass(frozen=True)
class Outcome:
    """One way a fight can end.

    ``beans_left`` counts the winner's beans in the container at the end;
    ``troops_first`` and ``peep_first`` say what survives on the winning side
    when the loser removed its beans by that policy. The loser keeps nothing:
    its troops are eaten and its peep is dead (a peep kept out falls with it).
    """

    winner: Winner
    beans_left: int
    probability: Fraction
    troops_first: Survivors
    peep_first: Survivors

    def survivors(self, policy: Policy) -> Survivors:
        """The survivors under ``policy`` ("troops_first" or "peep_first")."""
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
        return self.troops_first if policy == "troops_first" else self.peep_first

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data (float probability plus the exact fraction)."""
        return {
            "winner": self.winner,
            "beans_left": self.beans_left,
            "probability": float(self.probability),
            "probability_exact": fraction_text(self.probability),
            "survivors": {
                policy: {"troops": s.troops, "peep": s.peep}
                for policy in POLICIES
                for s in [self.survivors(policy)]
            },
        }


@dataclass(frozen=True)
class Odds:
    """The exact odds of one fight.

    ``outcomes`` runs from the attacker's best end (most beans left) to the
    defender's best; ``expected_beans_left`` maps "attacker"/"defender" to that
    side's expected beans in the container at the end, counting zero when it
    loses.
    """

    attacker: Side
    defender: Side
    attacker_wins: Fraction
    defender_wins: Fraction
    expected_beans_left: dict[str, Fraction]
    outcomes: tuple[Outcome, ...]

    def likely(self, n: int = 6) -> list[Outcome]:
        """The ``n`` most likely outcomes, best first (ties keep ``outcomes`` order)."""
        return sorted(self.outcomes, key=lambda o: -o.probability)[:n]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: floats for reading plus exact fractions as "a/b" strings."""
        return {
            "attacker_wins": float(self.attacker_wins),
            "defender_wins": float(self.defender_wins),
            "attacker_wins_exact": fraction_text(self.attacker_wins),
            "defender_wins_exact": fraction_text(self.defender_wins),
            "expected_beans_left": {k: float(v) for k, v in self.expected_beans_left.items()},
            "expected_beans_left_exact": {
                k: fraction_text(v) for k, v in self.expected_beans_left.items()
            },
            "attacker": self.attacker.to_dict(),
            "defender": self.defender.to_dict(),
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


def fraction_text(value: Fraction) -> str:
    """``value`` as "a/b" always (also "1/1", "0/1"), so readers parse one form."""
    return f"{value.numerator}/{value.denominator}"


@cache
def _final_states(
    attacker_beans: int, defender_beans: int
) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """Probabilities of ending with k beans left, for k = 0..A (attacker) and 0..D (defender).

    ``w[a][d]`` sums, over every draw sequence reaching ``(a, d)``, the product
    of the drawn side's bean counts; dividing by the falling factorial of the
    start total over the rounds played gives the probability of being there.
    Index 0 of each tuple is always 0 (a winner keeps at least one bean).
    """
    a0, d0 = attacker_beans, defender_beans
    if a0 < 0 or d0 < 0:
        raise ValueError(f"bean counts must be 0 or more, not {a0} and {d0}")
    if a0 == 0 and d0 == 0:
        raise ValueError("neither side has a bean in the container, so there is no fight")
    w = [[0] * (d0 + 1) for _ in range(a0 + 1)]
    w[a0][d0] = 1
    for a in range(a0, -1, -1):
        row, above = w[a], w[a + 1] if a < a0 else None
        for d in range(d0, -1, -1):
            if a == a0 and d == d0:
                continue
            total = 0
            if above is not None and d > 0:  # from (a+1, d): the defender drew
                total += above[d] * d
            if d < d0 and a > 0:  # from (a, d+1): the attacker drew
                total += row[d + 1] * a
            row[d] = total
    start = a0 + d0
    # falling[n] = start·(start−1)···(start−n+1): the common denominator after n rounds
    falling = [1] * (start + 1)
    for n in range(1, start + 1):
        falling[n] = falling[n - 1] * (start - n + 1)
    zero = Fraction(0)
    attacker = (zero,) + tuple(Fraction(w[k][0], falling[start - k]) for k in range(1, a0 + 1))
    defender = (zero,) + tuple(Fraction(w[0][k], falling[start - k]) for k in range(1, d0 + 1))
    return attacker, defender


@cache
def win_probability(attacker_beans: int, defender_beans: int) -> Fraction:
    """The exact chance that the side with ``attacker_beans`` beans wins.

    It satisfies P(A,0)=1, P(0,D)=0 and
    P(A,D) = A/(A+D)·P(A,D−1) + D/(A+D)·P(A−1,D).

    >>> win_probability(1, 1), win_probability(3, 1), win_probability(3, 2)
    (Fraction(1, 2), Fraction(23, 24), Fraction(31, 40))
    """
    return sum(_final_states(attacker_beans, defender_beans)[0], Fraction(0))


def clear_caches() -> None:
    """Forget every cached fight, so a benchmark can time the cold cost."""
    _final_states.cache_clear()
    win_probability.cache_clear()


def combat_odds(attacker: Side, defender: Side) -> Odds:
    """The exact odds and outcome distribution of ``attacker`` against ``defender``.

    A side with no beans in the container (a lone peep kept out in 2001) loses
    at once; if neither side has a bean there is no fight and this raises
    ValueError.

    >>> odds = combat_odds(Side(2), Side(1))
    >>> odds.attacker_wins, odds.expected_beans_left["attacker"]
    (Fraction(5, 6), Fraction(3, 2))
    >>> for o in odds.outcomes:
    ...     print(o.winner, o.beans_left, o.probability)
    attacker 2 2/3
    attacker 1 1/6
    defender 1 1/6
    >>> odds = combat_odds(Side(1, peep=2), Side(2))
    >>> o = odds.outcomes[1]
    >>> o.beans_left, o.troops_first, o.peep_first
    (2, Survivors(troops=0, peep=2), Survivors(troops=1, peep=1))
    """
    att_final, def_final = _final_states(attacker.beans, defender.beans)
    outcomes: list[Outcome] = []
    for winner, side, final, keys in (
        ("attacker", attacker, att_final, range(attacker.beans, 0, -1)),
        ("defender", defender, def_final, range(1, defender.beans + 1)),
    ):
        for k in keys:
            if final[k]:
                outcomes.append(
                    Outcome(
                        winner=winner,
                        beans_left=k,
                        probability=final[k],
                        troops_first=side.survivors(k, "troops_first"),
                        peep_first=side.survivors(k, "peep_first"),
                    )
                )
    attacker_wins = sum(att_final, Fraction(0))
    return Odds(
        attacker=attacker,
        defender=defender,
        attacker_wins=attacker_wins,
        defender_wins=1 - attacker_wins,
        expected_beans_left={
            "attacker": sum((k * p for k, p in enumerate(att_final)), Fraction(0)),
            "defender": sum((k * p for k, p in enumerate(def_final)), Fraction(0)),
        },
        outcomes=tuple(outcomes),
    )
