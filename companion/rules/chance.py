"""Chance as data: the outcomes a game's random step can have, and one randomiser for all.

A game never rolls or draws by itself. When it waits for chance, its ruleset's
``chance(state)`` returns a :class:`Chance`: each possible outcome is an
ordinary action with a whole-number weight (beans of a colour in the egg, ways
two dice make a number, chits of a kind in the cup). The :class:`Randomiser`
picks one by weight for a table without the real thing; with a real egg, dice
or cup, the players report what came out and the same action goes to the rules.
Either way the rules check it like any other action, so a logged game replays
without the random generator.

>>> from companion.rules.base import Action
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Roll(Action):
...     kind = "roll"
...     value: int
>>> die = Chance("roll a die", tuple((Roll("red", v), 1) for v in range(1, 7)))
>>> die.probability(Roll("red", 6))
Fraction(1, 6)
>>> Randomiser(seed=3).pick(die) in [a for a, _ in die.outcomes]
True
>>> Chance("draw", ((Roll("red", 1), 0),))
Traceback (most recent call last):
...
ValueError: draw: chance needs an outcome of positive weight
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.rules.base import Action


@dataclass(frozen=True)
class Chance:
    """A random step: what it is, and each outcome (an action) with its weight."""

    label: str
    outcomes: tuple[tuple[Action, int], ...]
    # The odds would tell what is hidden (a cup's contents tell what the hands hold):
    # the page then gets the label only.
    hidden: bool = False

    def __post_init__(self) -> None:
        if any(w < 0 for _, w in self.outcomes) or self.total <= 0:
            raise ValueError(f"{self.label}: chance needs an outcome of positive weight")

    @property
    def total(self) -> int:
        return sum(w for _, w in self.outcomes)

    def probability(self, action: Action) -> Fraction:
        """The chance of ``action`` (0 for an action that is no outcome)."""
        return Fraction(sum(w for a, w in self.outcomes if a == action), self.total)

    def to_dict(self) -> dict[str, object]:
        """The label and each outcome's probability, for the page (the label only when
        the odds are hidden)."""
        if self.hidden:
            return {"label": self.label, "outcomes": [], "hidden": True}
        return {"label": self.label, "outcomes": [
            {"action": a.kind, "player": a.player, "probability": float(Fraction(w, self.total))}
            for a, w in self.outcomes if w]}


class Randomiser:
    """The companion's own egg, dice and cup: picks an outcome by weight, from a seed."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def pick(self, chance: Chance) -> Action:
        n = self._rng.randrange(chance.total)
        for action, weight in chance.outcomes:
            if n < weight:
                return action
            n -= weight
        raise AssertionError("unreachable: n < total")
