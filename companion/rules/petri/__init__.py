"""Petri (Invisible City Productions, 2004): crowding out pieces on a Chinese-checkers board."""

from companion.rules.petri.actions import ACTION_TYPES, Capture, Choose, Place, Remove, Roll
from companion.rules.petri.rules import Petri
from companion.rules.petri.state import Part, PetriState, Step

__all__ = ["ACTION_TYPES", "Capture", "Choose", "Part", "Petri", "PetriState", "Place",
           "Remove", "Roll", "Step"]
