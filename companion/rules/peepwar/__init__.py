"""Peep War (Invisible City Productions, 2001 text and 2005 revision)."""

from companion.rules.peepwar.actions import (
    ACTION_TYPES,
    Draw,
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
from companion.rules.peepwar.rules import PeepWar, setup_order, supply_centers_to_win
from companion.rules.peepwar.state import Combat, PeepWarState, Phase, Stack

__all__ = [
    "ACTION_TYPES",
    "Combat",
    "Draw",
    "Eat",
    "EndMovement",
    "EndTurn",
    "Move",
    "PeepBeans",
    "PeepWar",
    "PeepWarState",
    "Phase",
    "PlaceSupplyCenter",
    "PlaceTile",
    "Produce",
    "Remove",
    "Stack",
    "setup_order",
    "supply_centers_to_win",
]
