"""What one camera frame says about a Peep War table (table standard, section 4).

A :class:`PeepWarObservation` is the parsed, checked form of the JSON that
``companion detect --game peepwar`` prints. Unknown keys are ignored, as the standard asks;
malformed input raises :class:`BadObservation` naming what is wrong.

>>> red = {"red": {"troops": 2, "peep": True}}
>>> obs = PeepWarObservation.from_dict({"game": "peepwar", "tiles": [{"id": 0, "q": 0, "r": 0}],
...     "cells": {"0,0/c": {"supply_center": True, "pieces": red}}})
>>> obs.cells["0,0/c"].pieces["red"]
Pieces(troops=2, peep=True)
>>> obs.to_dict()["cells"]["0,0/c"]["pieces"]
{'red': {'troops': 2, 'peep': True}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from companion.observation import BadObservation, Observation
from companion.rules.peepwar.board import parse_cell


class Pieces(NamedTuple):
    troops: int
    peep: bool


class TileSeen(NamedTuple):
    id: int
    q: int
    r: int


@dataclass(frozen=True)
class CellReading:
    supply_center: bool = False
    pieces: Mapping[str, Pieces] = field(default_factory=dict)
    occluded: bool = False
    confidence: float = 1.0

    @property
    def empty(self) -> bool:
        return not self.occluded and not self.supply_center and not any(
            p.troops or p.peep for p in self.pieces.values())


@dataclass(frozen=True)
class PeepWarObservation(Observation):
    """The tiles seen, and what each cell holds (a cell left out is empty)."""

    game: str
    tiles: tuple[TileSeen, ...] = ()
    cells: Mapping[str, CellReading] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def positions(self) -> set[tuple[int, int]]:
        return {(t.q, t.r) for t in self.tiles}

    def reading(self, cell: str) -> CellReading:
        return self.cells.get(cell, _EMPTY)

    def with_readings(self, readings: Mapping[str, Any]) -> PeepWarObservation:
        return replace(self, cells={**self.cells, **readings})

    def doubtful(self, below: float) -> list[str]:
        return sorted(c for c, r in self.cells.items()
                      if not r.occluded and r.confidence < below)

    @property
    def occluded(self) -> set[str]:
        return {c for c, r in self.cells.items() if r.occluded}

    @classmethod
    def from_dict(cls, data: Any) -> PeepWarObservation:
        if not isinstance(data, Mapping):
            raise BadObservation("an observation is a JSON object with game, tiles and cells")
        game = data.get("game")
        if not isinstance(game, str):
            raise BadObservation("the observation has no \"game\" name")
        tiles = []
        for i, t in enumerate(data.get("tiles", [])):
            try:
                tiles.append(TileSeen(int(t["id"]), int(t["q"]), int(t["r"])))
            except (KeyError, TypeError, ValueError) as e:
                raise BadObservation(f"tile {i} needs integer id, q and r ({e})") from e
        cells: dict[str, CellReading] = {}
        raw_cells = data.get("cells", {})
        if not isinstance(raw_cells, Mapping):
            raise BadObservation("\"cells\" must map cell names to readings")
        for name, raw in raw_cells.items():
            try:
                key = str(parse_cell(name))
            except ValueError as e:
                raise BadObservation(str(e)) from e
            cells[key] = _reading(key, raw)
        warnings = tuple(str(w) for w in data.get("warnings", []))
        return cls(game=game, tiles=tuple(tiles), cells=cells, warnings=warnings)

    def to_dict(self) -> dict[str, Any]:
        cells: dict[str, Any] = {}
        for name, r in self.cells.items():
            if r.occluded:
                cells[name] = {"occluded": True}
                continue
            if r.empty:
                continue
            cells[name] = {
                "supply_center": r.supply_center,
                "pieces": {p: {"troops": v.troops, "peep": v.peep}
                           for p, v in sorted(r.pieces.items()) if v.troops or v.peep},
            }
        out: dict[str, Any] = {
            "game": self.game,
            "tiles": [{"id": t.id, "q": t.q, "r": t.r} for t in self.tiles],
            "cells": cells,
        }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


_EMPTY = CellReading()


def _reading(name: str, raw: Any) -> CellReading:
    if not isinstance(raw, Mapping):
        raise BadObservation(f"cell {name}: a reading must be an object")
    if raw.get("occluded"):
        return CellReading(occluded=True)
    pieces: dict[str, Pieces] = {}
    raw_pieces = raw.get("pieces", {})
    if not isinstance(raw_pieces, Mapping):
        raise BadObservation(f"cell {name}: \"pieces\" must map players to counts")
    for player, v in raw_pieces.items():
        if not isinstance(v, Mapping):
            raise BadObservation(f"cell {name}: pieces of {player} must be an object")
        troops, peep = v.get("troops", 0), v.get("peep", False)
        if not isinstance(troops, int) or isinstance(troops, bool) or troops < 0:
            raise BadObservation(f"cell {name}: {player}'s troops must be a whole number >= 0")
        if not isinstance(peep, bool):
            raise BadObservation(f"cell {name}: {player}'s peep must be true or false")
        if troops or peep:
            pieces[str(player)] = Pieces(troops, peep)
    conf = raw.get("confidence", 1.0)
    return CellReading(supply_center=bool(raw.get("supply_center", False)), pieces=pieces,
                       confidence=float(conf) if isinstance(conf, int | float) else 1.0)
