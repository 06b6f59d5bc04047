"""What one camera frame says about a Petri board (table standard, section 7).

A :class:`PetriObservation` is the parsed, checked form of the JSON that
``companion detect --game petri`` prints: the holes that hold a piece, with
the player (and optionally the reader's confidence), and the holes the camera
cannot see. A hole left out is empty. Unknown keys are ignored, as the
standard asks; malformed input raises :class:`BadObservation` naming what is
wrong.

>>> obs = PetriObservation.from_dict({"game": "petri", "holes": {
...     "0,0": {"player": "red"}, "5,-2": {"player": "blue", "confidence": 0.4},
...     "1,3": {"occluded": True}}})
>>> obs.reading("0,0").player, obs.reading("2,2").player, obs.doubtful(0.5)
('red', None, ['5,-2'])
>>> obs.to_dict()["holes"]["1,3"]
{'occluded': True}
>>> PetriObservation.from_dict({"game": "petri", "holes": {"9,9": {"player": "red"}}})
Traceback (most recent call last):
...
companion.observation.BadObservation: hole '9,9' is not on the board (the star of 121 holes)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.observation import BadObservation, Observation
from companion.rules.petri.board import hole_order, parse_hole


@dataclass(frozen=True)
class HoleReading:
    """What one hole holds: a player's piece, nothing, or unknown (occluded)."""

    player: str | None = None
    occluded: bool = False
    confidence: float = 1.0


EMPTY = HoleReading()


@dataclass(frozen=True)
class PetriObservation(Observation):
    """The holes seen holding a piece or hidden (a hole left out is empty)."""

    game: str
    holes: Mapping[str, HoleReading] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def reading(self, place: str) -> HoleReading:
        return self.holes.get(place, EMPTY)

    def with_readings(self, readings: Mapping[str, Any]) -> PetriObservation:
        return replace(self, holes={**self.holes, **readings})

    def doubtful(self, below: float) -> list[str]:
        return sorted((h for h, r in self.holes.items() if not r.occluded and
                       r.player is not None and r.confidence < below), key=hole_order)

    @property
    def occluded(self) -> set[str]:
        return {h for h, r in self.holes.items() if r.occluded}

    def pieces(self) -> dict[str, str]:
        """hole -> player, for every hole seen holding a piece."""
        return {h: r.player for h, r in self.holes.items()
                if r.player is not None and not r.occluded}

    @classmethod
    def from_dict(cls, data: Any) -> PetriObservation:
        if not isinstance(data, Mapping):
            raise BadObservation("an observation is a JSON object with game and holes")
        game = data.get("game")
        if not isinstance(game, str):
            raise BadObservation("the observation has no \"game\" name")
        raw = data.get("holes", {})
        if not isinstance(raw, Mapping):
            raise BadObservation("\"holes\" must map hole names (\"q,r\") to readings")
        holes: dict[str, HoleReading] = {}
        for name, entry in raw.items():
            try:
                hole = parse_hole(str(name))
            except ValueError as e:
                raise BadObservation(f"hole {e}") from None
            holes[hole] = _reading(hole, entry)
        warnings = data.get("warnings", [])
        if not isinstance(warnings, list):
            raise BadObservation("\"warnings\" must be a list of sentences")
        return cls(game=game, holes=holes, warnings=tuple(str(w) for w in warnings))

    def to_dict(self) -> dict[str, Any]:
        holes: dict[str, Any] = {}
        for hole in sorted(self.holes, key=hole_order):
            r = self.holes[hole]
            if r.occluded:
                holes[hole] = {"occluded": True}
            elif r.player is not None:
                holes[hole] = {"player": r.player}
                if r.confidence != 1.0:
                    holes[hole]["confidence"] = r.confidence
        out: dict[str, Any] = {"game": self.game, "holes": holes}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def _reading(hole: str, raw: Any) -> HoleReading:
    if not isinstance(raw, Mapping):
        raise BadObservation(f"hole {hole}: a reading must be an object")
    if raw.get("occluded"):
        return HoleReading(occluded=True)
    player = raw.get("player")
    if player is not None and (not isinstance(player, str) or not player):
        raise BadObservation(f"hole {hole}: \"player\" must be a player key such as \"red\"")
    conf = raw.get("confidence", 1.0)
    if isinstance(conf, bool) or not isinstance(conf, int | float) or not 0 <= conf <= 1:
        raise BadObservation(f"hole {hole}: \"confidence\" must be a number from 0 to 1")
    return HoleReading(player=player, confidence=float(conf))
