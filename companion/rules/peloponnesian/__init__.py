"""A Peloponnesian War with Thebes (Lumaca Games): map, rules, secret hands."""

from companion.rules.peloponnesian.actions import Draw, Keep, Pass, Place, Play, Resolve, Swap
from companion.rules.peloponnesian.rules import PeloponnesianWar

__all__ = ["Draw", "Keep", "Pass", "PeloponnesianWar", "Place", "Play", "Resolve", "Swap"]
