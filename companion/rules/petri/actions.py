"""Petri's actions: the dice, the die chosen, placing, removing, and the captures.

Holes are named ``"q,r"`` (see :mod:`companion.rules.petri.board`).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules.base import Action


@dataclass(frozen=True)
class Roll(Action):
    """What the two dice showed (a chance outcome, from the companion or real dice)."""

    kind = "roll"
    first: int
    second: int


@dataclass(frozen=True)
class Choose(Action):
    """The die whose number is placed (or removed) this turn."""

    kind = "die"
    die: int


@dataclass(frozen=True)
class Place(Action):
    """Pieces from the hand onto these holes, in this order (some or all of the die)."""

    kind = "place"
    holes: tuple[str, ...]


@dataclass(frozen=True)
class Remove(Action):
    """The player's own pieces taken off these holes (a hand too short to place)."""

    kind = "remove"
    holes: tuple[str, ...]


@dataclass(frozen=True)
class Capture(Action):
    """The pieces captured, in the order they are checked (empty: none)."""

    kind = "capture"
    order: tuple[str, ...]


ACTION_TYPES = (Roll, Choose, Place, Remove, Capture)
