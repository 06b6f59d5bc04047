"""A plain Petri player, for scripted games, the demo and tests.

It rolls through the rules' chance, places when its hand allows (the larger
such die), otherwise removes; it grows towards the centre of the board, where
the others are, keeping its pieces together, removes its most exposed pieces,
and captures in the best order.
Every choice is a legal action of the rules.
"""

from __future__ import annotations

import random

from companion.rules.base import Action, IllegalAction
from companion.rules.chance import Randomiser
from companion.rules.petri.actions import Capture, Choose, Place, Remove
from companion.rules.petri.board import NEIGHBOURS, coords, hole_order
from companion.rules.petri.captures import tallies
from companion.rules.petri.rules import Petri
from companion.rules.petri.state import PetriState, Step


class Bot:
    """Chooses the next action for the first player (in seat order) the game waits for."""

    def __init__(self, rules: Petri, seed: int = 0) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.dice = Randomiser(seed + 1)

    def choose(self, state: PetriState) -> Action:
        waiting = self.rules.waiting_for(state)
        who = next((p for p in self.rules.players if p in waiting), None)
        if who is None:
            raise IllegalAction("the game waits for nobody")
        part = state.parts[who]
        if part.step is Step.ROLL:
            chance = self.rules.chance(state)
            assert chance is not None
            return self.dice.pick(chance)
        if part.step is Step.DIE:
            hand = state.hands[who]
            fits = [d for d in part.dice if d <= hand]
            return Choose(who, max(fits) if fits else min(part.dice))
        if part.step is Step.PLACE:
            spots = sorted(self.rules.placeable(state, who), key=hole_order)
            return Place(who, (max(spots, key=lambda h: (
                self._friends(state, who, h) - ring(h), self.rng.random())),))
        if part.step is Step.REMOVE:
            mine = state.holes_of(who)
            return Remove(who, (max(mine, key=lambda h: (tallies(state.board, h)[1]
                                                          - tallies(state.board, h)[0],
                                                          self.rng.random())),))
        return Capture(who, self.rules.advice(state, who).order)

    @staticmethod
    def _friends(state: PetriState, who: str, hole: str) -> int:
        return sum(state.board.get(n) == who for n in NEIGHBOURS[hole]) - sum(
            state.board.get(n) not in (None, who) for n in NEIGHBOURS[hole])


def ring(hole: str) -> int:
    """How far a hole is from the centre, in steps."""
    q, r = coords(hole)
    return max(abs(q), abs(r), abs(q + r))
