"""The actions of A Peloponnesian War, each a small frozen value naming its player."""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules.base import Action


@dataclass(frozen=True)
class Place(Action):
    """Set-up: the player's second orientation counter, put where they choose."""

    kind = "place"
    area: str


@dataclass(frozen=True)
class Draw(Action):
    """A chit taken from the cup (the randomiser's pick, or what the player really drew)."""

    kind = "draw"
    chit: str


@dataclass(frozen=True)
class Swap(Action):
    """Delphi's holder discards ``chit`` to draw a new one."""

    kind = "swap"
    chit: str


@dataclass(frozen=True)
class Keep(Action):
    """Delphi's holder keeps the hand as it is."""

    kind = "keep"


@dataclass(frozen=True)
class Play(Action):
    """A chit put face down on an area; the Star chit says what it is played as."""

    kind = "play"
    chit: str
    area: str
    star_as: str = ""


@dataclass(frozen=True)
class Pass(Action):
    """No chit can be played this round (legal only then)."""

    kind = "pass"


@dataclass(frozen=True)
class Resolve(Action):
    """The chits are face up: resolve the struggles and end the turn."""

    kind = "resolve"


ACTIONS = (Place, Draw, Swap, Keep, Play, Pass, Resolve)
