"""A plain player for any seat: draws from the cup, places near home, plays a legal hand.

It plays for whoever the game waits for (several at once in simultaneous
rounds: the first of them in seat order). Its plays favour reaching areas
that are not yet its own, keep Voids for bluffing on its own areas and play
Special chits where they help the city they favour.

>>> from companion.rules.peloponnesian.rules import PeloponnesianWar
>>> rules = PeloponnesianWar(["sparta", "athens", "thebes"])
>>> s = rules.new_state()
>>> bot = Bot(rules, 1)
>>> for _ in range(200):
...     s, _ = rules.apply(s, bot.choose(s))
>>> rules.turn(s) > 1
True
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from companion.rules.base import Action, IllegalAction
from companion.rules.chance import Randomiser
from companion.rules.peloponnesian.actions import Keep, Play, Swap
from companion.rules.peloponnesian.chits import STAR, VOID
from companion.rules.peloponnesian.state import DELPHI, PLAY, SETUP, State

if TYPE_CHECKING:
    from companion.rules.peloponnesian.rules import PeloponnesianWar


class Bot:
    def __init__(self, rules: PeloponnesianWar, seed: int = 0) -> None:
        self.rules = rules
        self._rng = random.Random(seed)

    def choose(self, state: State) -> Action:
        chance = self.rules.chance(state)
        if chance is not None:
            return Randomiser(self._rng.randrange(2**32)).pick(chance)
        actions = list(self.rules.legal_actions(state))
        if not actions:
            raise IllegalAction("there is no legal action to take")
        who = min(a.player for a in actions)
        mine = [a for a in actions if a.player == who]
        if state.phase == SETUP:
            home = self.rules.map.homes[who]
            near = [a for a in mine if getattr(a, "area", "") in self.rules.map.neighbours(home)]
            return self._rng.choice(near or mine)
        if state.phase == DELPHI:
            voids = [a for a in mine if isinstance(a, Swap) and a.chit == VOID]
            return voids[0] if voids else next(a for a in mine if isinstance(a, Keep))
        if state.phase == PLAY:
            return max(mine, key=lambda a: self._worth(state, a))
        return self._rng.choice(mine)

    def _worth(self, s: State, a: Action) -> float:
        noise = self._rng.random()
        if not isinstance(a, Play):
            return noise
        holder = s.holder(a.area)
        kind = a.star_as if a.chit == STAR else a.chit
        if self.rules.chits.is_special(a.chit):
            city = self.rules.chits.special(a.chit).city
            return (3 if holder != city else 0) + (2 if city == a.player else -2) + noise
        if kind == VOID:
            return (1.5 if holder == a.player else 0) + noise
        mine = s.counters_in(a.area).get(a.player, 0)
        gain = 3 if holder not in (None, a.player) else 2.5 if holder is None else 1 - mine
        return gain + (1 if a.chit == STAR else 0) + noise
