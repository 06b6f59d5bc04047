"""Peep War actions: small value objects, one per thing a player can do.

Each action names the player taking it. ``describe()`` words it the way the
refusal messages and the game log need ("move 2 troops from 0,0/3 to 1,0/0").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from companion.errors import clipped
from companion.rules.base import Action

# Characters of a cell, coordinate or count a description repeats: a real one is shown whole
# ("-9999,-9999/c" is the longest cell), a runaway one sent as an action (a cell name of
# 5,000 characters, a count of 4,000 digits) is cut, keeping the refusal one short line.
ECHO = 20


def _echo(value: object) -> str:
    return clipped(str(value), ECHO)


def _pieces(troops: int, peep: bool) -> str:
    parts = []
    if troops:
        parts.append(f"{_echo(troops)} troop" + ("s" if troops != 1 else ""))
    if peep:
        parts.append("a peep")
    return " and ".join(parts) or "nothing"


@dataclass(frozen=True)
class PlaceTile(Action):
    """Setup: lay a hex of your territory at lattice position (q, r)."""

    kind: ClassVar[str] = "place_tile"
    q: int
    r: int

    def describe(self) -> str:
        return f"place a hex at {_echo(self.q)},{_echo(self.r)}"


@dataclass(frozen=True)
class PlaceSupplyCenter(Action):
    """Setup: put a Supply Center on the central cell of your hex (q, r)."""

    kind: ClassVar[str] = "place_supply_center"
    q: int
    r: int

    def describe(self) -> str:
        return f"place a Supply Center on {_echo(self.q)},{_echo(self.r)}/c"


@dataclass(frozen=True)
class Remove(Action):
    """Upkeep: take pieces you cannot support off the table."""

    kind: ClassVar[str] = "remove"
    cell: str
    troops: int = 0
    peep: bool = False

    def describe(self) -> str:
        return f"remove {_pieces(self.troops, self.peep)} from {_echo(self.cell)}"


@dataclass(frozen=True)
class Move(Action):
    """Movement: move troops and/or your peep one step to an adjacent cell."""

    kind: ClassVar[str] = "move"
    src: str
    dst: str
    troops: int = 0
    peep: bool = False

    def describe(self) -> str:
        return f"move {_pieces(self.troops, self.peep)} from {_echo(self.src)} to {_echo(self.dst)}"


@dataclass(frozen=True)
class EndMovement(Action):
    """Movement is over; fights (if any) come next."""

    kind: ClassVar[str] = "end_movement"

    def describe(self) -> str:
        return "end movement"


@dataclass(frozen=True)
class PeepBeans(Action):
    """2001 edition: the peep's controller says whether its beans go into the egg."""

    kind: ClassVar[str] = "peep_beans"
    commit: bool

    def describe(self) -> str:
        return "put the peep's beans in the egg" if self.commit else "keep the peep's beans out"


@dataclass(frozen=True)
class Draw(Action):
    """Combat: ``player`` (whose turn it is to draw) drew a bean belonging to ``owner``."""

    kind: ClassVar[str] = "draw"
    owner: str

    def describe(self) -> str:
        return f"draw a bean of {clipped(self.owner)}"  # a typed owner may be any text


@dataclass(frozen=True)
class Eat(Action):
    """Combat: the round's victor eats a troop bean, or a peep bean and a segment."""

    kind: ClassVar[str] = "eat"
    what: str  # "troop" or "peep"

    def describe(self) -> str:
        return "eat a troop bean" if self.what == "troop" else "eat a peep bean and a segment"


@dataclass(frozen=True)
class Produce(Action):
    """Production at a Supply Center: a troop, or a peep from three troops (Peep Growth Jelly)."""

    kind: ClassVar[str] = "produce"
    cell: str
    what: str  # "troop" or "peep"

    def describe(self) -> str:
        if self.what == "peep":
            return f"turn three troops into a peep at {_echo(self.cell)}"
        return f"produce a troop at {_echo(self.cell)}"


@dataclass(frozen=True)
class EndTurn(Action):
    """Production is over; play passes to the left."""

    kind: ClassVar[str] = "end_turn"

    def describe(self) -> str:
        return "end the turn"


ACTION_TYPES: tuple[type[Action], ...] = (
    PlaceTile,
    PlaceSupplyCenter,
    Remove,
    Move,
    EndMovement,
    PeepBeans,
    Draw,
    Eat,
    Produce,
    EndTurn,
)
