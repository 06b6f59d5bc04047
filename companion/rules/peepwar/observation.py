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

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from companion.observation import BadObservation, Observation
from companion.rules.peepwar.board import parse_cell

# Bounds that no real table reaches, so a reader's runaway number is refused by name
# instead of reaching the rules (a 5,000-digit count fails even to be printed).
MAX_TROOPS_SEEN = 99  # the rules allow 5 of a player's troops in a cell; more is reported
MAX_TILE_COORD = 9999

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
        raw_tiles = data.get("tiles", [])
        if not isinstance(raw_tiles, list):
            raise BadObservation("\"tiles\" must be a list of {id, q, r}")
        tiles = [_tile(i, t) for i, t in enumerate(raw_tiles)]
        cells: dict[str, CellReading] = {}
        raw_cells = data.get("cells", {})
        if not isinstance(raw_cells, Mapping):
            raise BadObservation("\"cells\" must map cell names to readings")
        for name, raw in raw_cells.items():
            if not isinstance(name, str):
                raise BadObservation(f"cell names are text such as \"0,0/c\", not {name!r}")
            try:
                key = str(parse_cell(name))
            except ValueError as e:
                raise BadObservation(str(e)) from e
            cells[key] = _reading(key, raw)
        warnings = data.get("warnings", [])
        if not isinstance(warnings, list):
            raise BadObservation("\"warnings\" must be a list of sentences")
        return cls(game=game, tiles=tuple(tiles), cells=cells,
                   warnings=tuple(str(w) for w in warnings))

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
        if not isinstance(player, str) or not player:
            raise BadObservation(f"cell {name}: a player is named by a key such as \"red\"")
        if not isinstance(v, Mapping):
            raise BadObservation(f"cell {name}: pieces of {player} must be an object")
        troops, peep = v.get("troops", 0), v.get("peep", False)
        if _whole(troops) is None or not 0 <= troops <= MAX_TROOPS_SEEN:
            raise BadObservation(f"cell {name}: {player}'s troops must be a whole number "
                                 f"0 to {MAX_TROOPS_SEEN}")
        if not isinstance(peep, bool):
            raise BadObservation(f"cell {name}: {player}'s peep must be true or false")
        if troops or peep:
            pieces[player] = Pieces(int(troops), peep)
    supply = raw.get("supply_center", False)
    if not isinstance(supply, bool):
        raise BadObservation(f"cell {name}: \"supply_center\" must be true or false")
    # A confidence that cannot be read is refused, not taken as certainty: a sure
    # reading is ruled on at once, and a confident wrong one is the worst a camera can do.
    conf = raw.get("confidence", 1.0)
    if (isinstance(conf, bool) or not isinstance(conf, numbers.Real)
            or not 0 <= conf <= 1):  # NaN fails this too
        raise BadObservation(f"cell {name}: \"confidence\" must be a number from 0 to 1")
    return CellReading(supply_center=supply, pieces=pieces, confidence=float(conf))


def _tile(i: int, raw: Any) -> TileSeen:
    if not isinstance(raw, Mapping):
        raise BadObservation(f"tile {i} must be an object with id, q and r")
    values = [_whole(raw.get(k)) for k in ("id", "q", "r")]
    if any(v is None or abs(v) > MAX_TILE_COORD for v in values):
        raise BadObservation(f"tile {i} needs whole-number id, q and r "
                             f"(-{MAX_TILE_COORD} to {MAX_TILE_COORD})")
    return TileSeen(*values)


def _whole(value: Any) -> int | None:
    """``value`` as an int when it is a whole number (numpy's too), else None: 0.7, "1",
    true and NaN are not, and are refused rather than rounded."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)
