"""The chits: the mix in the cup, the Special chits (names and favoured cities are data),
and the grid that decides a struggle between two chits.

>>> mix = load_chits(None)
>>> mix.total, mix.special("pericles").city
(29, 'athens')
>>> grid(MILITARY, COUP), grid(MILITARY, INFLUENCE), grid(COUP, COUP)
('win', 'lose', 'draw')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.bounded_read import NotText, TooLarge, read_text_at_most
from companion.errors import PATH_ECHO, clipped, quoted
from companion.rules.json_values import RepeatedKey, no_repeated_keys, plain_copy
from companion.rules.peloponnesian.mapdata import CITIES

DEFAULT_CHITS = Path(__file__).with_name("data") / "chits.json"
# The shipped chit set is under 1 KB and a hand-made one with many Specials a few KB;
# 1 MB is far past any real chit file and still quick to read and check.
MAX_CHITS_BYTES = 1_000_000

MILITARY, INFLUENCE, COUP, VOID, STAR = "military", "influence", "coup", "void", "star"
KINDS = (MILITARY, INFLUENCE, COUP, VOID, STAR)
GRID_KINDS = (MILITARY, INFLUENCE, COUP)
STAR_AS = (MILITARY, INFLUENCE, COUP, VOID)  # what the Star chit may be played as
STAR_LIFE = 3  # the Star chit is retired after its third play

# The rules' grid: row chit against column chit.
_BEATS = {MILITARY: COUP, INFLUENCE: MILITARY, COUP: INFLUENCE}


def grid(a: str, b: str) -> str:
    """"win", "lose" or "draw" for chit type ``a`` against ``b`` (both of GRID_KINDS)."""
    if a == b:
        return "draw"
    return "win" if _BEATS[a] == b else "lose"


class BadChits(ValueError):
    """A chit file or data that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Special:
    id: str
    name: str
    city: str  # the city the chit favours, whoever plays it


@dataclass(frozen=True, eq=False)
class ChitSet:
    """How many chits of each kind are in the game, and the Special chits."""

    mix: tuple[tuple[str, int], ...]
    specials: tuple[Special, ...]
    data: Mapping[str, Any]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.mix) + len(self.specials)

    def special(self, chit: str) -> Special:
        for s in self.specials:
            if s.id == chit:
                return s
        raise KeyError(chit)

    def is_special(self, chit: str) -> bool:
        return any(s.id == chit for s in self.specials)

    def ids(self) -> tuple[str, ...]:
        """Every chit id, kinds first, in a fixed order (the cup's order)."""
        return tuple(k for k, _ in self.mix) + tuple(s.id for s in self.specials)

    def cup(self, players: Sequence[str]) -> tuple[tuple[str, int], ...]:
        """The full cup for a game of ``players`` (Special chits of absent cities stay out)."""
        return (tuple((k, n) for k, n in self.mix)
                + tuple((s.id, 1) for s in self.specials if s.city in players))

    def name(self, chit: str) -> str:
        """The chit as the players call it: "Military", "Pericles (Athens)"."""
        if chit in KINDS:
            return {"military": "Military", "influence": "Influence", "coup": "Coup!",
                    "void": "Void", "star": "Star"}[chit]
        s = self.special(chit)
        return f"{s.name} ({s.city.capitalize()})"


def load_chits(source: str | Path | Mapping[str, Any] | None) -> ChitSet:
    """The chit set from a file, from its data (a game's options), or the default."""
    if source is None or source == "":
        source = DEFAULT_CHITS
    if isinstance(source, Mapping):
        return parse_chits(source, "the chit data")
    path = Path(source)
    try:
        text = read_text_at_most(path, MAX_CHITS_BYTES, "chit file")
    except OSError as e:
        # The path as given, which may be any text: a runaway one is cut.
        raise BadChits(f"cannot read the chits {clipped(str(path), PATH_ECHO)}: "
                       f"{e.strerror or e}") from None
    except (TooLarge, NotText) as e:
        raise BadChits(str(e)) from None
    try:
        data = json.loads(text, object_pairs_hook=no_repeated_keys)
    except json.JSONDecodeError as e:
        raise BadChits(f"{path} is not valid JSON ({e})".splitlines()[0]) from None
    except RepeatedKey as e:
        raise BadChits(f"{path}: {e}") from None
    except RecursionError:
        raise BadChits(f"{path} is not a chit file (its JSON is nested too deep)") from None
    except ValueError:
        # json turns a number of more than 4300 digits into a plain ValueError.
        raise BadChits(f"{path} is not a chit file (it holds a number too long to read)") from None
    return parse_chits(data, str(path))


def parse_chits(data: Any, where: str) -> ChitSet:
    def bad(text: str) -> BadChits:
        return BadChits(f"{where}: {text}")

    if not isinstance(data, Mapping) or not isinstance(data.get("mix"), Mapping):
        raise bad('the chits need "mix": {"military": 5, "influence": 5, ...}')
    mix = []
    for kind in KINDS:
        n = data["mix"].get(kind, 0)
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 20:
            raise bad(f"{kind} must be a count from 0 to 20, not {quoted(n)}")
        mix.append((kind, n))
    stray = set(data["mix"]) - set(KINDS)
    if stray:
        raise bad(f"unknown chit kind {quoted(sorted(stray)[0])}; kinds: {', '.join(KINDS)}")
    raw = data.get("specials", [])
    if not isinstance(raw, list):
        raise bad('"specials" must be a list of {"id", "name", "city"}')
    specials: list[Special] = []
    for i, s in enumerate(raw, 1):
        if not isinstance(s, Mapping) or not all(isinstance(s.get(k), str) and s.get(k)
                                                  for k in ("id", "name", "city")):
            raise bad(f'special chit {i} needs "id", "name" and "city"')
        if s["city"] not in CITIES:
            raise bad(f"special chit {quoted(s['id'])} favours {quoted(s['city'])}; cities: "
                      f"{', '.join(CITIES)}")
        if s["id"] in KINDS or s["id"] in {x.id for x in specials} or " " in s["id"]:
            raise bad(f"special chit id {quoted(s['id'])} is taken or has a space")
        specials.append(Special(s["id"], s["name"], s["city"]))
    try:
        # The data is kept in the game's options and served to the page: NaN or Infinity
        # anywhere in it (even in a key the companion does not read) would break both.
        kept = plain_copy(data)
    except ValueError:
        raise bad("the chits hold NaN or Infinity; every number must be finite") from None
    return ChitSet(tuple(mix), tuple(specials), kept)
