"""PeltaPeeps pieces as data: each piece's kind and its connectors around the disc.

The number and angles of connectors per piece are not published, so a set is a
JSON catalog a user can edit to describe their own pieces. A connector is an
angle (degrees, measured on the painted face from the piece's "up", clockwise
in a top view like the table frame) and a type: ``tab`` (sticks out), ``notch``
(cut in) or ``curve`` (the Sleeping PeltaPeep's curved connection). Turning a
piece face down mirrors its connectors: angle a becomes -a.

A catalog also gives the pieces' sizes in mm (``sizes_mm``): the disc's
diameter and each connector type's width and depth, each a nominal value or a
range [low, high] (a group measures its own set; the shipped sets give the
range the reader is made for). A catalog without them has the shipped sizes.

>>> cat = default_catalog("core")
>>> len(cat.pieces), len({p.pattern() for p in cat.pieces})
(8, 8)
>>> cat.piece("E1").kind
'egg'
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from companion.bounded_read import NotText, TooLarge, read_text_at_most
from companion.errors import PATH_ECHO, clipped, quoted
from companion.rules.json_values import RepeatedKey, finite_number, no_repeated_keys

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
class Size:
    """A length in mm a set's pieces have: ``low`` to ``high`` (equal when measured)."""

    low: float
    high: float

    @property
    def nominal(self) -> float:
        return (self.low + self.high) / 2

    def to_json(self) -> float | list[float]:
        return self.low if self.low == self.high else [self.low, self.high]


# What each connector type's width and depth are (see docs/peltapeeps.md).
SIZE_FIELDS = {"disc": ("diameter",), "tab": ("width", "depth"),
               "notch": ("width", "depth"), "curve": ("width", "depth")}
# The shipped sets' sizes (mm): a 50 mm disc; a tab 8 mm wide sticking out 6 mm, and
# a notch the same cut in (a tab fills it); the curve a round scallop 18.3 mm wide at
# the rim and 6 mm deep (a 12 mm circle). Ranges allow for the cut and for sets
# that differ a little; a group that measures its own set writes its numbers.
DEFAULT_SIZES = {"disc": {"diameter": [49.0, 51.0]},
                 "tab": {"width": [7.0, 9.0], "depth": [5.0, 7.0]},
                 "notch": {"width": [7.0, 9.0], "depth": [5.0, 7.0]},
                 "curve": {"width": [16.3, 20.4], "depth": [5.0, 7.0]}}


@dataclass(frozen=True)
class Sizes:
    """The pieces' sizes (mm): the disc's diameter, and each connector type's width
    (across, at the rim) and depth (a tab: how far it sticks out; a notch or curve: how
    far it cuts in), each a :class:`Size`.

    >>> s = Sizes.from_json({"tab": {"width": 7.5}})
    >>> s.tab_width, s.notch_depth.nominal, s.disc_radius
    (Size(low=7.5, high=7.5), 6.0, 25.0)
    """

    disc_diameter: Size
    tab_width: Size
    tab_depth: Size
    notch_width: Size
    notch_depth: Size
    curve_width: Size
    curve_depth: Size

    @property
    def disc_radius(self) -> float:
        """The nominal radius (mm)."""
        return self.disc_diameter.nominal / 2

    def to_json(self) -> dict[str, dict[str, float | list[float]]]:
        return {part: {f: getattr(self, f"{part}_{f}").to_json() for f in fields}
                for part, fields in SIZE_FIELDS.items()}

    @staticmethod
    def from_json(data: Any, source: str = "the catalog") -> Sizes:
        """Sizes from a catalog's ``sizes_mm`` (what it leaves out is the shipped size);
        a bad value is a :class:`CatalogError` naming the field."""
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise CatalogError(f"{source}: sizes_mm is an object (disc, tab, notch, curve)")
        for part in data:
            if part not in SIZE_FIELDS:
                raise CatalogError(f"{source}: sizes_mm.{part} is not a size the catalog "
                                   f"knows (disc, tab, notch, curve)")
        got: dict[str, Size] = {}
        for part, fields in SIZE_FIELDS.items():
            given = data.get(part, {})
            if not isinstance(given, Mapping):
                raise CatalogError(f"{source}: sizes_mm.{part} is an object with "
                                   f"{' and '.join(fields)}")
            for f in given:
                if f not in fields:
                    raise CatalogError(f"{source}: sizes_mm.{part}.{f} is not known: "
                                       f"give {' and '.join(fields)}")
            for f in fields:
                value = given.get(f, DEFAULT_SIZES[part][f])
                got[f"{part}_{f}"] = _size(value, f"{source}: sizes_mm.{part}.{f}")
        sizes = Sizes(**got)
        sizes.check(source)
        return sizes

    def check(self, source: str) -> None:
        """Sizes a laser-cut disc can have: connectors small against the disc."""
        radius = self.disc_diameter.low / 2
        for part in ("tab", "notch", "curve"):
            width, depth = getattr(self, f"{part}_width"), getattr(self, f"{part}_depth")
            if width.high > radius:
                raise CatalogError(f"{source}: sizes_mm.{part}.width ({width.high:g} mm) must "
                                   f"be less than the disc's radius ({radius:g} mm)")
            if depth.high > 0.3 * radius:  # the reader needs plain acrylic inside the cuts
                raise CatalogError(f"{source}: sizes_mm.{part}.depth ({depth.high:g} mm) must "
                                   f"be at most 0.3 of the disc's radius ({0.3 * radius:g} mm)")
        if self.curve_depth.high > self.curve_width.low / 2:
            raise CatalogError(f"{source}: sizes_mm.curve.depth ({self.curve_depth.high:g} mm) "
                               f"must be at most half its width ({self.curve_width.low:g} mm): "
                               "the curve is a round scallop")
        r, d = self.disc_radius, self.curve_depth.nominal
        widest = 2 * math.sqrt(2 * r * d - d * d)  # a straight cut that deep
        if self.curve_width.high >= widest:
            raise CatalogError(f"{source}: sizes_mm.curve.width ({self.curve_width.high:g} mm) "
                               f"must be less than {widest:.1f} mm: a cut {d:g} mm deep is "
                               "no wider than that at the rim")


def _size(value: Any, where: str) -> Size:
    """A size from a number (nominal) or [low, high], in mm."""
    if isinstance(value, bool):
        value = None
    try:
        if isinstance(value, int | float):
            low = high = float(value)
        elif isinstance(value, list) and len(value) == 2 \
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            low, high = float(value[0]), float(value[1])
        else:
            raise CatalogError(f"{where} must be a number of mm or a range [low, high], "
                               f"not {json.dumps(value)[:40]}")
    except OverflowError:  # an integer past the float range: no size either
        low = high = math.inf
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high < low:
        raise CatalogError(f"{where} must be positive mm, low before high (got "
                           f"{json.dumps(value)[:40]})")
    return Size(low, high)



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
    sizes: Sizes = field(default_factory=lambda: Sizes.from_json(None))

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
            for p in self.pieces], "sizes_mm": self.sizes.to_json()}

    @staticmethod
    def from_json(data: Any, source: str = "the catalog") -> Catalog:
        """The catalog ``data`` describes; a bad value is a :class:`CatalogError` naming
        ``source``, the piece and the field (never a TypeError from a value of the wrong
        type, since a catalog is a file a user edits)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("pieces"), list):
            raise CatalogError(f"{source}: a catalog is an object with a list of pieces")
        name = data.get("name", source)
        if not isinstance(name, str) or not name:
            raise CatalogError(f"{source}: name must be the set's name (text), not "
                               f"{_quote(name)}")
        pieces = []
        seen: set[str] = set()
        for i, raw in enumerate(data["pieces"]):
            where = f"{source}, piece {i + 1}"
            if not isinstance(raw, Mapping):
                raise CatalogError(f"{where}: each piece is an object")
            pid = raw.get("id", "")
            if not isinstance(pid, str) or not pid or pid in seen:
                raise CatalogError(f"{where}: every piece needs an id of its own (text), not "
                                   f"{_quote(pid)}")
            seen.add(pid)
            kind = raw.get("kind")
            if not isinstance(kind, str) or kind not in KINDS:
                raise CatalogError(f"{where} ({pid}): kind must be one of {', '.join(KINDS)}")
            raw_cons = raw.get("connectors", [])
            if not isinstance(raw_cons, list):
                raise CatalogError(f'{where} ({pid}): connectors must be a list of '
                                   f'{{"angle", "type"}}, not {_quote(raw_cons)}')
            cons = []
            for j, c in enumerate(raw_cons, 1):
                if not isinstance(c, Mapping) or "angle" not in c or "type" not in c:
                    raise CatalogError(f'{where} ({pid}): connector {j} needs an angle and a '
                                       f'type ({{"angle": 90, "type": "tab"}}), not {_quote(c)}')
                angle, ctype = finite_number(c["angle"]), c["type"]
                if angle is None:
                    raise CatalogError(f"{where} ({pid}): connector {j}'s angle must be a "
                                       f"finite number of degrees, not {_quote(c['angle'])}")
                if not isinstance(ctype, str) or ctype not in CONNECTOR_TYPES:
                    raise CatalogError(f"{where} ({pid}): connector type must be one of "
                                       f"{', '.join(CONNECTOR_TYPES)}, not {_quote(ctype)}")
                cons.append(Connector(angle % 360, ctype))
            angles = sorted(c.angle for c in cons)
            if any(b - a < 20 for a, b in zip(angles, angles[1:], strict=False)):
                raise CatalogError(f"{where} ({pid}): two connectors closer than 20 degrees")
            if kind == "sleeping" and not any(c.type == "curve" for c in cons):
                raise CatalogError(f"{where} ({pid}): a Sleeping PeltaPeep has a curve connector")
            pieces.append(Piece(pid, kind, tuple(cons)))
        sizes = Sizes.from_json(data.get("sizes_mm"), source)
        return Catalog(name, tuple(pieces), sizes)


def _quote(value: Any) -> str:
    """A bad value as a message quotes it: its JSON, cut short (it may be a whole list)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# The shipped full set is under 5 KB; a set with ten times the pieces is still well under
# 100 KB. 1 MB is far past any real catalog and still quick to read and check.
MAX_CATALOG_BYTES = 1_000_000


def load_catalog(path: str | Path) -> Catalog:
    """The catalog in the JSON file at ``path``; CatalogError with one line saying what is
    wrong."""
    p = Path(path)
    # The path as given, which may be any text: a runaway one is cut.
    shown = clipped(str(p), PATH_ECHO)
    # The file is read, then parsed, in two steps: each fault is said once, in its own words.
    try:
        text = read_text_at_most(p, MAX_CATALOG_BYTES, "catalog", name=shown)
    except FileNotFoundError:
        raise CatalogError(f"no catalog at {shown}") from None
    except (TooLarge, NotText) as e:
        raise CatalogError(str(e)) from None
    except OSError as e:
        # strerror, not str(e): the OS's text names the path again, uncut.
        raise CatalogError(f"{shown} is not a readable JSON catalog "
                           f"({e.strerror or type(e).__name__})") from None
    try:
        data = json.loads(text, object_pairs_hook=no_repeated_keys)
    except json.JSONDecodeError as e:
        raise CatalogError(f"{shown} is not a readable JSON catalog ({e})") from None
    except RepeatedKey as e:
        raise CatalogError(f"{shown}: {e}") from None
    except ValueError:
        # json turns a number of more than 4300 digits into a plain ValueError, in Python's
        # words ("use sys.set_int_max_str_digits()").
        raise CatalogError(f"{shown} is not a catalog (it holds a number too long to read)"
                           ) from None
    except RecursionError:
        raise CatalogError(f"{shown} is not a JSON catalog (nested too deep)") from None
    return Catalog.from_json(data, str(p))


def default_catalog(size: str = DEFAULT_SET) -> Catalog:
    """A shipped set, one team's worth: ``full`` (16 pieces, the default) or ``core`` (8)."""
    if size not in SET_SIZES:
        raise CatalogError(f"the default sets are 'core' and 'full', not {quoted(size)}")
    text = resources.files("companion.rules.peltapeeps").joinpath(
        f"data/{size}-set.json").read_text(encoding="utf-8")
    return Catalog.from_json(json.loads(text), f"the default {size} set")
