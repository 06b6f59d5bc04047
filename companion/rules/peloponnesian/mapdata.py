"""The map of A Peloponnesian War as data: areas, links, the home cities and Delphi.

No map of the game is published, so the map is a JSON file a group can edit
(``maps/greece.json`` is the default; its schema is in ``docs/peloponnesian.md``).
Land and sea links play alike; the loader refuses a bad file with one line.

>>> greece = load_map(None)
>>> greece.homes["athens"], greece.delphi, greece.distance("attica", "laconia")
('attica', 'phocis', 3)
>>> sorted(greece.neighbours("aegina"))
['argos', 'attica', 'corinth']
>>> try:
...     parse_map({"areas": {"attica": {"name": "Attica", "at": [0, 0]}}, "links": []}, "x.json")
... except BadMap as e:
...     print(e)
x.json: area 'attica' has no link: nobody could ever reach it
"""

from __future__ import annotations

import difflib
import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.bounded_read import NotText, TooLarge, read_text_at_most
from companion.errors import PATH_ECHO, clipped, quoted
from companion.rules.json_values import RepeatedKey, finite_number, no_repeated_keys, plain_copy

DEFAULT_MAP = Path(__file__).with_name("maps") / "greece.json"
# The shipped map of Greece is under 4 KB; a hand-drawn map with ten times the areas is
# still well under 100 KB. 8 MB is far past any real map and still quick to read and check.
MAX_MAP_BYTES = 8_000_000
CITIES = ("sparta", "athens", "thebes")
LINK_KINDS = ("land", "sea")


class BadMap(ValueError):
    """A map file or map data that cannot be used; the message is one line."""


# The drawing is at most 10 m a side: any larger is a typing slip, and a huge size
# would draw the areas as dots (or overflow when scaled to pixels).
MAX_SIZE_MM = 10_000.0


@dataclass(frozen=True)
class Area:
    id: str
    name: str
    at: tuple[float, float]  # where the map is drawn, mm from its top-left corner
    island: bool = False


@dataclass(frozen=True, eq=False)
class GreekMap:
    """A checked map. ``data`` is its JSON form, kept so a logged game replays on it."""

    name: str
    size_mm: tuple[float, float]
    areas: Mapping[str, Area]
    links: tuple[tuple[str, str, str], ...]
    homes: Mapping[str, str]
    delphi: str
    data: Mapping[str, Any]
    _near: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _dist: dict[str, dict[str, int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        near: dict[str, set[str]] = {a: set() for a in self.areas}
        for a, b, _ in self.links:
            near[a].add(b)
            near[b].add(a)
        self._near.update({a: frozenset(n) for a, n in near.items()})
        for start in self.areas:
            self._dist[start] = _bfs(start, self._near)

    def neighbours(self, area: str) -> frozenset[str]:
        return self._near[area]

    def distance(self, a: str, b: str) -> int:
        """Links on the shortest way from ``a`` to ``b`` (land and sea count alike)."""
        return self._dist[a].get(b, 10**6)

    def within(self, area: str, steps: int) -> frozenset[str]:
        """Every area at most ``steps`` links from ``area`` (itself included)."""
        return frozenset(b for b, d in self._dist[area].items() if d <= steps)

    def name_of(self, area: str) -> str:
        return self.areas[area].name

    def no_area(self, area: str) -> str:
        """Why ``area`` (not on this map) is refused: with the nearest area's id when it
        looks like a slip ("atica", "Attica"), else with every area's.

        >>> load_map(None).no_area("atica")
        "there is no area 'atica' on the map: did you mean attica?"
        """
        near = difflib.get_close_matches(area.lower(), self.areas, n=1)
        if near:
            return f"there is no area {quoted(area)} on the map: did you mean {near[0]}?"
        return f"there is no area {quoted(area)} on the map ({', '.join(self.areas)})"


def _bfs(start: str, near: Mapping[str, frozenset[str]]) -> dict[str, int]:
    dist = {start: 0}
    todo = deque([start])
    while todo:
        a = todo.popleft()
        for b in near[a]:
            if b not in dist:
                dist[b] = dist[a] + 1
                todo.append(b)
    return dist


def load_map(source: str | Path | Mapping[str, Any] | None) -> GreekMap:
    """The map from a file path, from its data (as stored in a game's options), or the
    default (None or ""); raises :class:`BadMap` with one line saying what is wrong."""
    if source is None or source == "":
        source = DEFAULT_MAP
    if isinstance(source, Mapping):
        return parse_map(source, "the map data")
    path = Path(source)
    try:
        text = read_text_at_most(path, MAX_MAP_BYTES, "map")
    except OSError as e:
        # The path as given, which may be any text: a runaway one is cut.
        raise BadMap(f"cannot read the map {clipped(str(path), PATH_ECHO)}: "
                     f"{e.strerror or e}") from None
    except (TooLarge, NotText) as e:
        raise BadMap(str(e)) from None
    try:
        data = json.loads(text, object_pairs_hook=no_repeated_keys)
    except json.JSONDecodeError as e:
        raise BadMap(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: "
                     f"{e.msg})") from None
    except RepeatedKey as e:
        raise BadMap(f"{path}: {e}") from None
    except RecursionError:
        raise BadMap(f"{path} is not a map (its JSON is nested too deep)") from None
    except ValueError:
        # json turns a number of more than 4300 digits into a plain ValueError.
        raise BadMap(f"{path} is not a map (it holds a number too long to read)") from None
    return parse_map(data, str(path))


def parse_map(data: Any, where: str) -> GreekMap:
    """The checked map ``data`` describes (``where`` names it in error messages)."""
    def bad(text: str) -> BadMap:
        return BadMap(f"{where}: {text}")

    if not isinstance(data, Mapping):
        raise bad("the map must be a JSON object with areas, links, homes and delphi")
    raw_areas = data.get("areas")
    if not isinstance(raw_areas, Mapping) or not raw_areas:
        if not isinstance(data.get("links"), list):
            raise bad('the map needs "links", a list of [area, area, "land" or "sea"]')
        raise bad('the map needs "areas", an object of area id to {"name", "at": [x, y]}')
    areas: dict[str, Area] = {}
    for key, a in raw_areas.items():
        if not isinstance(a, Mapping):
            raise bad(f'area {quoted(key)} must be an object with "name" and "at"')
        name, at = a.get("name", key), a.get("at")
        if not isinstance(name, str) or not name:
            raise bad(f"area {quoted(key)} needs a name")
        if not isinstance(at, list) or len(at) != 2:
            raise bad(f'area {quoted(key)} needs "at": [x, y], where it is drawn (mm)')
        x, y = finite_number(at[0]), finite_number(at[1])
        if x is None or y is None:
            # NaN or Infinity would pass into the log and the page's JSON, which browsers refuse.
            raise bad(f'area {quoted(key)} has "at": {quoted(at)}; x and y must be finite '
                      "numbers (mm)")
        island = a.get("island", False)
        if not isinstance(island, bool):  # bool("no") would be True
            raise bad(f'area {quoted(key)} has "island": {quoted(island)}; it must be true '
                      "or false")
        areas[key] = Area(key, name, (x, y), island)
    raw_links = data.get("links")
    if not isinstance(raw_links, list):
        raise bad('the map needs "links", a list of [area, area, "land" or "sea"]')
    links: list[tuple[str, str, str]] = []
    for i, link in enumerate(raw_links, 1):
        if (not isinstance(link, list) or len(link) not in (2, 3)
                or not all(isinstance(v, str) for v in link)):
            raise bad(f'link {i} must be [area, area, "land" or "sea"], not {quoted(link)}')
        a, b, kind = link[0], link[1], link[2] if len(link) == 3 else "land"
        for end in (a, b):
            if end not in areas:
                raise bad(f"link {i} ({clipped(a)}-{clipped(b)}) names an unknown area "
                          f"{quoted(end)}")
        if a == b:
            raise bad(f"link {i} joins {clipped(a)} to itself")
        if kind not in LINK_KINDS:
            raise bad(f"link {i} ({clipped(a)}-{clipped(b)}) is {quoted(kind)}; a link is "
                      '"land" or "sea"')
        links.append((a, b, kind))
    linked = {a for a, _, _ in links} | {b for _, b, _ in links}
    for key, area in areas.items():
        if key not in linked:
            what = "island" if area.island else "area"
            raise bad(f"{what} {quoted(key)} has no link: nobody could ever reach it")
    homes = data.get("homes")
    if not isinstance(homes, Mapping):
        raise bad('the map needs "homes": {"sparta": area, "athens": area, "thebes": area}')
    for city in CITIES:
        if city not in homes:
            raise bad(f"the map has no home city for {city} (\"homes\": {{\"{city}\": area}})")
        # A list or object is no area id (and cannot even be looked up: unhashable).
        if not isinstance(homes[city], str) or homes[city] not in areas:
            raise bad(f"{city}'s home {quoted(homes[city])} is not an area of the map")
    if len({homes[c] for c in CITIES}) != len(CITIES):
        raise bad("two cities share a home area")
    delphi = data.get("delphi")
    if not isinstance(delphi, str) or delphi not in areas:
        raise bad(f'"delphi" must name the area that holds Delphi, not {quoted(delphi)}')
    size = data.get("size_mm", [420, 297])
    w = h = None
    if isinstance(size, list) and len(size) == 2:
        w, h = finite_number(size[0]), finite_number(size[1])
    if w is None or h is None or not (0 < w <= MAX_SIZE_MM and 0 < h <= MAX_SIZE_MM):
        raise bad(f'"size_mm" must be [width, height] in mm, each above 0 and at most '
                  f"{MAX_SIZE_MM:g}, not {quoted(size)}")
    name = data.get("name", "a map of Greece")
    if not isinstance(name, str) or not name:
        raise bad(f'"name" must be the map\'s name (text), not {quoted(name)}')
    try:
        # The data is kept in the game's options and served to the page: NaN or Infinity
        # anywhere in it (even in a key the companion does not read) would break both.
        kept = plain_copy(data)
    except ValueError:
        raise bad("the map holds NaN or Infinity; every number must be finite") from None
    checked = GreekMap(name, (w, h),
                       areas, tuple(links), {c: homes[c] for c in CITIES}, delphi, kept)
    first = next(iter(areas))
    cut = [a for a in areas if checked.distance(first, a) >= 10**6]
    if cut:
        raise bad(f"area {quoted(cut[0])} cannot be reached from {quoted(first)}: the map "
                  "falls apart")
    return checked
