"""What a camera frame says, and what it means for the game: the envelope every game fills.

Each game reads its own places (Peep War's cells, Petri's holes, A Peloponnesian
War's areas) into its own :class:`Observation` subclass; the referee only needs
what is here: the game's name, the warnings, the reading of one place, and a
copy with some places replaced by what the players said is really there.
:class:`Inference` is what the game's move inference makes of a new
observation, in the same words for every game.

>>> Inference("actions", actions=()).certain
True
>>> Inference("problem", problems=("red's peep is missing from 1,0/c",)).certain
False
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.rules.base import Action


class BadObservation(ValueError):
    """An observation that does not follow the table standard."""


class Observation(ABC):
    """One frame's reading of the table. Subclasses are frozen dataclasses with ``game``."""

    game: str
    warnings: Sequence[str]

    @abstractmethod
    def reading(self, place: str) -> Any:
        """What ``place`` holds; readings compare equal when the table looks the same."""

    @abstractmethod
    def with_readings(self, readings: Mapping[str, Any]) -> Observation:
        """A copy with the given places read as ``readings`` says (a player's correction)."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The observation JSON of the table standard."""

    def doubtful(self, below: float) -> list[str]:
        """Places read with confidence under ``below``: the referee asks about them."""
        return []


@dataclass(frozen=True)
class Inference:
    """What a new observation means.

    ``verdict`` is one of ``same`` (nothing changed), ``actions`` (``actions``
    explain it; ``alternatives`` counts other explanations as good), ``undo``
    (the table is back to how it was ``undo`` actions ago) or ``problem``
    (``problems`` says what does not fit).
    """

    verdict: str
    actions: tuple[Action, ...] = ()
    alternatives: int = 0
    undo: int = 0
    problems: tuple[str, ...] = ()

    @property
    def certain(self) -> bool:
        return self.verdict == "actions" and self.alternatives == 0
