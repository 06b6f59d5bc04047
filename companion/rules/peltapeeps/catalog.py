"""PeltaPeeps pieces as data: each piece's kind and its connectors around the disc.

The number and angles of connectors per piece are not published, so a set is a
JSON catalog a user can edit to describe their own pieces. A connector is an
angle (degrees, measured on the painted face from the piece's "up", clockwise
in a top view like the table frame) and a type: ``tab`` (sticks out), ``notch``
(cut in) or ``curve`` (the Sleeping PeltaPeep's curved connection). Turning a
piece face down mirrors its connectors: angle a becomes -a.

>>> cat = default_catalog("core")
>>> len(cat.pieces), len({p.pattern() for p in cat.pieces})
(8, 8)
>>> cat.piece("E1").kind
'egg'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

KINDS = ("egg", "sleeping", "awake")
SET_SIZES = ("core", "full")
# The set every entry point uses unless told otherwise: the full set, the one the
# photo reader is measured on, so a game and a photo of it score the same pieces.
DEFAULT_SET = "full"
CONNECTOR_TYPES = ("tab", "notch", "curve")
KIND_NAMES = {"egg": "PeltaDragon Egg", "sleeping": "Sleeping PeltaPeep",
              "awake": "Awake PeltaPeep"}


class CatalogError(ValueError):
    """A catalog that cannot be used; the message names the piece and the field."""


@dataclass(frozen=True)
class Connector:
    angle: float
    type: str

    def mirrored(self) -> Connector:
        return Connector((-self.angle) % 360, self.type)


@dataclass(frozen=True)
class Piece:
    id: str
    kind: str
    connectors: tuple[Connector, ...]

    @property
    def interfaces(self) -> int:
        return len(self.connectors)

    @property
    def is_peep(self) -> bool:
        return self.kind in ("sleeping", "awake")

    def face(self, face_up: bool) -> tuple[Connector, ...]:
        """The connectors as they lie: as catalogued face up, mirrored face down."""
        return self.connectors if face_up else tuple(c.mirrored() for c in self.connectors)

    def pattern(self, face_up: bool = True) -> tuple[tuple[int, str], ...]:
        """The connectors up to turning: what a camera can tell pieces apart by."""
        cons = sorted((round(c.angle) % 360, c.type) for c in self.face(face_up))
        if not cons:
            return ()
        best = None
        for base, _ in cons:
            rotated = tuple(sorted(((a - base) % 360, t) for a, t in cons))
            if best is None or rotated < best:
                best = rotated
        return best or ()


@dataclass(frozen=True)
class Catalog:
    name: str
    pieces: tuple[Piece, ...]

    def piece(self, piece_id: str) -> Piece:
        for p in self.pieces:
            if p.id == piece_id:
                return p
        raise KeyError(f"no piece {piece_id!r} in the catalog {self.name!r}")

    def label(self) -> str:
        """The set as a score sheet names it: its name and how many pieces a colour has."""
        return f"{self.name}, {len(self.pieces)} pieces a colour"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "pieces": [
            {"id": p.id, "kind": p.kind,
             "connectors": [{"angle": c.angle, "type": c.type} for c in p.connectors]}
            for p in self.pieces]}

    @staticmethod
    def from_json(data: Any, source: str = "the catalog") -> Catalog:
        if not isinstance(data, Mapping) or not isinstance(data.get("pieces"), list):
            raise CatalogError(f"{source}: a catalog is an object with a list of pieces")
        pieces = []
        seen: set[str] = set()
        for i, raw in enumerate(data["pieces"]):
            where = f"{source}, piece {i + 1}"
            if not isinstance(raw, Mapping):
                raise CatalogError(f"{where}: each piece is an object")
            pid = str(raw.get("id", ""))
            if not pid or pid in seen:
                raise CatalogError(f"{where}: every piece needs an id of its own ({pid!r})")
            seen.add(pid)
            kind = raw.get("kind")
            if kind not in KINDS:
                raise CatalogError(f"{where} ({pid}): kind must be one of {', '.join(KINDS)}")
            cons = []
            for c in raw.get("connectors", []):
                try:
                    angle, ctype = float(c["angle"]) % 360, str(c["type"])
                except (KeyError, TypeError, ValueError) as e:
                    raise CatalogError(f"{where} ({pid}): a connector needs an angle and a "
                                       f"type ({e})") from e
                if ctype not in CONNECTOR_TYPES:
                    raise CatalogError(f"{where} ({pid}): connector type must be one of "
                                       f"{', '.join(CONNECTOR_TYPES)}, not {ctype!r}")
                cons.append(Connector(angle, ctype))
            angles = sorted(c.angle for c in cons)
            if any(b - a < 20 for a, b in zip(angles, angles[1:], strict=False)):
                raise CatalogError(f"{where} ({pid}): two connectors closer than 20 degrees")
            if kind == "sleeping" and not any(c.type == "curve" for c in cons):
                raise CatalogError(f"{where} ({pid}): a Sleeping PeltaPeep has a curve connector")
            pieces.append(Piece(pid, kind, tuple(cons)))
        return Catalog(str(data.get("name", source)), tuple(pieces))


def load_catalog(path: str | Path) -> Catalog:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(f"no catalog at {p}") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CatalogError(f"{p} is not a readable JSON catalog ({e})") from None
    return Catalog.from_json(data, str(p))


def default_catalog(size: str = DEFAULT_SET) -> Catalog:
    """A shipped set, one team's worth: ``full`` (16 pieces, the default) or ``core`` (8)."""
    if size not in SET_SIZES:
        raise CatalogError(f"the default sets are 'core' and 'full', not {size!r}")
    text = resources.files("companion.rules.peltapeeps").joinpath(
        f"data/{size}-set.json").read_text(encoding="utf-8")
    return Catalog.from_json(json.loads(text), f"the default {size} set")
