"""The digital egg: draws a bean at random from a fight's container.

Randomness stays outside the rules: the egg turns a state into a
:class:`~companion.rules.peepwar.actions.Draw`, which the rules check like a
draw reported by a person or by the serial egg. Seeded, so a game replays.

>>> from companion.rules.peepwar.state import Combat
>>> egg = DigitalEgg(seed=1)
>>> c = Combat("0,0/c", "red", "blue", {"red": 1, "blue": 0}, {"red": 0, "blue": 3}, drawer="blue")
>>> egg.owner_of_next_bean(c) in ("red", "blue")
True
"""

from __future__ import annotations

import random

from companion.rules.peepwar.actions import Draw
from companion.rules.peepwar.state import Combat, PeepWarState


class DigitalEgg:
    """Draws uniformly from every bean in the egg, from a seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def owner_of_next_bean(self, combat: Combat) -> str:
        a, d = combat.attacker, combat.defender
        pick = self._rng.randrange(combat.beans(a) + combat.beans(d))
        return a if pick < combat.beans(a) else d

    def draw(self, state: PeepWarState) -> Draw:
        """The draw the egg makes for whoever is due to draw now."""
        c = state.combat
        if c is None or c.undecided or c.victor:
            raise ValueError("the egg is not ready to be drawn from now")
        return Draw(c.drawer, self.owner_of_next_bean(c))
