"""A plain Peep War player, for scripted games, the demo and tests.

It plays to win but simply: it keeps a guard on its Supply Centers, marches
spare troops along shortest paths towards the nearest Supply Center it does not
hold, attacks when its stack is at least as strong as the defenders, and
produces wherever it may. Every decision goes through the rules' ``why_not``.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator

from companion.rules.base import Action
from companion.rules.chance import Randomiser
from companion.rules.peepwar.actions import (
    Eat,
    EndMovement,
    EndTurn,
    Move,
    PeepBeans,
    PlaceSupplyCenter,
    PlaceTile,
    Produce,
    Remove,
)
from companion.rules.peepwar.board import NEUTRAL, cell_neighbours, parse_cell, tiles_touch
from companion.rules.peepwar.rules import PeepWar
from companion.rules.peepwar.state import PeepWarState, Phase


class Bot:
    """Chooses the next action for whoever must act, including the egg's draws."""

    def __init__(self, rules: PeepWar, seed: int = 0) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.egg = Randomiser(seed + 1)
        self._plan: deque[Action] = deque()

    def play(self, state: PeepWarState, max_actions: int = 20000) -> Iterator[Action]:
        """Actions from ``state`` to the end of the game (or ``max_actions``)."""
        for _ in range(max_actions):
            if self.rules.is_over(state):
                return
            action = self.choose(state)
            yield action
            state, _ = self.rules.apply(state, action)

    def choose(self, s: PeepWarState) -> Action:
        while self._plan:
            a = self._plan.popleft()
            if self.rules.is_legal(s, a):
                return a
        p = self.rules.to_act(s)
        assert p is not None
        if s.phase is Phase.SETUP_TILES:
            return self._tile(s, p)
        if s.phase is Phase.SETUP_SUPPLY:
            return self._supply(s, p)
        if s.phase is Phase.UPKEEP:
            return self._upkeep(s, p)
        if s.phase is Phase.MOVEMENT:
            self._plan.extend(self._movement(s, p))
            self._plan.append(EndMovement(p))
            return self.choose(s)
        if s.phase is Phase.COMBAT:
            c = s.combat
            assert c is not None
            if c.undecided:
                return PeepBeans(p, True)
            if c.victor:
                order = ["peep", "troop"] if self.rng.random() < 0.5 else ["troop", "peep"]
                return next(Eat(p, w) for w in order if self.rules.is_legal(s, Eat(p, w)))
            egg = self.rules.chance(s)
            assert egg is not None
            return self.egg.pick(egg)
        return self._production(s, p)

    def _tile(self, s: PeepWarState, p: str) -> Action:
        options = [a for a in self.rules.legal_actions(s) if isinstance(a, PlaceTile)]
        # Stay near the Neutral Territory and spread out from the other players.
        def score(a: PlaceTile) -> float:
            at = (a.q, a.r)
            near = tiles_touch(at, NEUTRAL) * 2 + sum(
                tiles_touch(at, t) for t, o in s.tiles.items() if o == p)
            return near + self.rng.random()
        return max(options, key=score)

    def _supply(self, s: PeepWarState, p: str) -> Action:
        options = [a for a in self.rules.legal_actions(s) if isinstance(a, PlaceSupplyCenter)]
        return self.rng.choice(options)

    def _upkeep(self, s: PeepWarState, p: str) -> Action:
        options = [a for a in self.rules.legal_actions(s) if isinstance(a, Remove)]
        held = set(s.controlled(p))
        # Remove one piece at a time, away from Supply Centers first.
        singles = [a for a in options if a.troops + a.peep == 1]
        singles.sort(key=lambda a: (a.cell in held, self.rng.random()))
        return singles[0]

    def _distances(self, s: PeepWarState, targets: set[str]) -> dict[str, int]:
        dist = {t: 0 for t in targets}
        queue = deque(targets)
        while queue:
            c = queue.popleft()
            for n in cell_neighbours(parse_cell(c), s.tiles):
                if n not in dist:
                    dist[n] = dist[c] + 1
                    queue.append(n)
        return dist

    def _strength(self, s: PeepWarState, cell: str, player: str) -> int:
        st = s.stack(cell, player)
        return st.troops + st.peep

    def _movement(self, s: PeepWarState, p: str) -> list[Action]:
        targets = {c for c in s.supply_centers if s.controller(c) != p}
        if not targets:
            return []
        dist = self._distances(s, targets)
        held = set(s.controlled(p))
        plan: list[Action] = []
        planned_in: dict[str, int] = {}
        for cell in sorted(c for c, who in s.pieces.items() if p in who):
            st = s.stack(cell, p)
            guard = 1 if cell in held else 0
            spare = st.unmoved - guard
            if spare <= 0:
                continue
            steps = sorted(cell_neighbours(parse_cell(cell), s.tiles),
                           key=lambda n: (dist.get(n, 99), self.rng.random()))
            for dst in steps:
                if dist.get(dst, 99) >= dist.get(cell, 99):
                    break
                enemies = [o for o in s.occupants(dst) if o != p]
                mine = spare + planned_in.get(dst, 0)
                # Long games make it bolder, so scripted games reach a result.
                bold = self.rng.random() < min(0.5, s.turn / 100)
                if enemies and mine < self._strength(s, dst, enemies[0]) and not bold:
                    continue
                room = 5 - s.stack(dst, p).troops - planned_in.get(dst, 0)
                k = min(spare, room)
                if k > 0:
                    plan.append(Move(p, cell, dst, k, False))
                    planned_in[dst] = planned_in.get(dst, 0) + k
                    break
        return plan

    def _production(self, s: PeepWarState, p: str) -> Action:
        for cell in s.controlled(p):
            for what in ("troop", "peep"):
                a = Produce(p, cell, what)
                if self.rules.is_legal(s, a):
                    return a
        return EndTurn(p)
