"""The Peep War state: an immutable value, read through small helper methods.

Mappings inside a state are never mutated after the state is built; the rules
make changed copies. Supply-center control is not stored: it is derived from
who stands on the cell, as the rules define it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from companion.rules.peepwar.board import Hex, cells_of, parse_cell

PEEP_HEALTH = 3
MAX_TROOPS_PER_CELL = 5
TROOPS_PER_SUPPLY_CENTER = 6
PEEPS_PER_SUPPLY_CENTER = 1


class Phase(StrEnum):
    SETUP_TILES = "setup_tiles"
    SETUP_SUPPLY = "setup_supply"
    UPKEEP = "upkeep"
    MOVEMENT = "movement"
    COMBAT = "combat"
    PRODUCTION = "production"
    OVER = "over"


@dataclass(frozen=True)
class Stack:
    """One player's pieces in one cell."""

    troops: int = 0
    peep: int = 0  # the health of this player's peep here; 0 means no peep
    moved: int = 0  # troops that arrived here by moving this turn (they may not move again)
    peep_moved: bool = False

    @property
    def empty(self) -> bool:
        return self.troops == 0 and self.peep == 0

    @property
    def unmoved(self) -> int:
        return self.troops - self.moved


@dataclass(frozen=True)
class Combat:
    """A fight in progress: the egg's contents and whose hand goes in next."""

    cell: str
    attacker: str
    defender: str
    troops: Mapping[str, int]  # troop beans in the egg, per player
    peep_beans: Mapping[str, int]  # peep beans in the egg, per player (= that peep's health)
    undecided: tuple[str, ...] = ()  # 2001: peep owners yet to say whether the beans go in
    kept_out: tuple[str, ...] = ()  # 2001: peeps whose beans stayed out
    drawer: str = ""
    victor: str | None = None  # set while the round's victor chooses what to eat
    rounds: int = 0

    def beans(self, player: str) -> int:
        return self.troops.get(player, 0) + self.peep_beans.get(player, 0)

    def other(self, player: str) -> str:
        return self.defender if player == self.attacker else self.attacker

    @property
    def sides(self) -> tuple[str, str]:
        return self.attacker, self.defender


@dataclass(frozen=True)
class PeepWarState:
    players: tuple[str, ...]
    edition: int
    phase: Phase = Phase.SETUP_TILES
    current: str | None = None  # whose turn, or whose setup placement
    setup_step: int = 0
    turn: int = 0  # number of the current turn, counted from 1 after setup
    tiles: Mapping[Hex, str | None] = field(default_factory=dict)  # owner; None = Neutral
    supply_centers: frozenset[str] = frozenset()
    pieces: Mapping[str, Mapping[str, Stack]] = field(default_factory=dict)
    combat: Combat | None = None
    produced: frozenset[str] = frozenset()  # Supply Centers that produced this phase
    out: tuple[str, ...] = ()  # players out of the game, in the order they went out
    winner: str | None = None

    # --- reading -----------------------------------------------------------------

    def stack(self, cell: str, player: str) -> Stack:
        return self.pieces.get(cell, {}).get(player, _EMPTY)

    def occupants(self, cell: str) -> list[str]:
        return list(self.pieces.get(cell, {}))

    def controller(self, cell: str) -> str | None:
        """Who controls the Supply Center in ``cell``: its only occupant, if any."""
        who = self.pieces.get(cell, {})
        return next(iter(who)) if len(who) == 1 else None

    def controlled(self, player: str) -> list[str]:
        return sorted(c for c in self.supply_centers if self.controller(c) == player)

    def totals(self, player: str) -> tuple[int, int]:
        """(troops, peeps) a player has in play, counting beans in the egg during a fight."""
        troops = peeps = 0
        for cell in self.pieces.values():
            s = cell.get(player)
            if s:
                troops += s.troops
                peeps += 1 if s.peep else 0
        if self.combat:
            troops += self.combat.troops.get(player, 0)
        return troops, peeps

    def support(self, player: str) -> tuple[int, int]:
        """(troops, peeps) the player's Supply Centers can support right now."""
        n = len(self.controlled(player))
        return n * TROOPS_PER_SUPPLY_CENTER, n * PEEPS_PER_SUPPLY_CENTER

    def contested(self) -> list[str]:
        """Cells holding pieces of two players, in board order."""
        return sorted((c for c, who in self.pieces.items() if len(who) > 1), key=cell_order)

    def in_game(self) -> list[str]:
        return [p for p in self.players if p not in self.out]

    def all_cells(self) -> list[str]:
        return [c for t in sorted(self.tiles) for c in cells_of(t)]


_EMPTY = Stack()


def cell_order(name: str) -> tuple[int, int, int]:
    cell = parse_cell(name)
    return cell.tile[0], cell.tile[1], -1 if cell.is_central else int(cell.slot)
