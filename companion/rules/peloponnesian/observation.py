"""What one camera frame says about the map of A Peloponnesian War (table standard, section 8).

A :class:`PeloObservation` is the parsed, checked form of the JSON that
``companion detect --game peloponnesian`` prints: per area the orientation
counters by player and the chits lying there by type and side, or that the
camera cannot see the area. An area left out is empty. Unknown keys are
ignored; malformed input raises :class:`BadObservation` naming what is wrong.

>>> obs = PeloObservation.from_dict({"game": "peloponnesian", "areas": {
...     "attica": {"counters": {"athens": 2}},
...     "boeotia": {"counters": {"thebes": 1},
...                 "chits": [{"type": "military", "player": "sparta"}]},
...     "megara": {"occluded": True}}})
>>> obs.reading("attica").counters, obs.reading("corinth").counters, obs.occluded
({'athens': 2}, {}, {'megara'})
>>> obs.to_dict()["areas"]["boeotia"]["chits"]
[{'type': 'military', 'player': 'sparta'}]
>>> PeloObservation.from_dict({"game": "peloponnesian", "areas": {"attica": {"counters":
...     {"athens": -1}}}})
Traceback (most recent call last):
...
companion.observation.BadObservation: area attica: a count of counters is a whole number 0 to 9
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.observation import BadObservation, Observation


@dataclass(frozen=True)
class AreaReading:
    """What one area holds: counters by player and chits as (type, player), or unknown."""

    counters: Mapping[str, int] = field(default_factory=dict)
    chits: tuple[tuple[str, str], ...] = ()
    occluded: bool = False
    confidence: float = 1.0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AreaReading):
            return NotImplemented
        return (dict(self.counters) == dict(other.counters)
                and sorted(self.chits) == sorted(other.chits) and self.occluded == other.occluded)

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.counters.items())), tuple(sorted(self.chits)),
                     self.occluded))


EMPTY = AreaReading()


@dataclass(frozen=True)
class PeloObservation(Observation):
    """The areas seen holding something or hidden (an area left out is empty)."""

    game: str
    areas: Mapping[str, AreaReading] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def reading(self, place: str) -> AreaReading:
        return self.areas.get(place, EMPTY)

    def with_readings(self, readings: Mapping[str, Any]) -> PeloObservation:
        return replace(self, areas={**self.areas, **readings})

    def doubtful(self, below: float) -> list[str]:
        return sorted(a for a, r in self.areas.items() if not r.occluded and r.confidence < below)

    @property
    def occluded(self) -> set[str]:
        return {a for a, r in self.areas.items() if r.occluded}

    @classmethod
    def from_dict(cls, data: Any) -> PeloObservation:
        if not isinstance(data, Mapping):
            raise BadObservation("an observation is a JSON object with game and areas")
        game = data.get("game")
        if not isinstance(game, str):
            raise BadObservation("the observation has no \"game\" name")
        raw = data.get("areas", {})
        if not isinstance(raw, Mapping):
            raise BadObservation("\"areas\" must map area ids (\"attica\") to readings")
        areas = {str(a): _reading(str(a), entry) for a, entry in raw.items()}
        warnings = data.get("warnings", [])
        if not isinstance(warnings, list):
            raise BadObservation("\"warnings\" must be a list of sentences")
        return cls(game=game, areas=areas, warnings=tuple(str(w) for w in warnings))

    def to_dict(self) -> dict[str, Any]:
        areas: dict[str, Any] = {}
        for a in sorted(self.areas):
            r = self.areas[a]
            if r.occluded:
                areas[a] = {"occluded": True}
                continue
            entry: dict[str, Any] = {}
            if r.counters:
                entry["counters"] = dict(r.counters)
            if r.chits:
                entry["chits"] = [{"type": t, "player": p} for t, p in r.chits]
            if r.confidence != 1.0:
                entry["confidence"] = r.confidence
            if entry:
                areas[a] = entry
        out: dict[str, Any] = {"game": self.game, "areas": areas}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def _reading(area: str, raw: Any) -> AreaReading:
    if not isinstance(raw, Mapping):
        raise BadObservation(f"area {area}: a reading must be an object")
    if raw.get("occluded"):
        return AreaReading(occluded=True)
    counters = raw.get("counters", {})
    if not isinstance(counters, Mapping):
        raise BadObservation(f"area {area}: \"counters\" must map players to counts")
    for n in counters.values():
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 9:
            raise BadObservation(f"area {area}: a count of counters is a whole number 0 to 9")
    chits = raw.get("chits", [])
    if not isinstance(chits, list):
        raise BadObservation(f"area {area}: \"chits\" must be a list of {{type, player}}")
    seen: list[tuple[str, str]] = []
    for c in chits:
        if (not isinstance(c, Mapping) or not isinstance(c.get("type"), str)
                or not isinstance(c.get("player"), str)):
            raise BadObservation(f"area {area}: a chit is {{\"type\": ..., \"player\": ...}}")
        seen.append((c["type"], c["player"]))
    conf = raw.get("confidence", 1.0)
    if isinstance(conf, bool) or not isinstance(conf, int | float) or not 0 <= conf <= 1:
        raise BadObservation(f"area {area}: \"confidence\" must be a number from 0 to 1")
    return AreaReading({str(p): n for p, n in counters.items() if n}, tuple(seen),
                       confidence=float(conf))
