"""Numbers and data from files a user edits (maps, chit sets, catalogs), checked alike.

Python's ``json`` reads ``NaN``, ``Infinity`` and integers past the float range; none
of them is a size, a place or an angle, and NaN in data kept in a game's options
breaks the page (browsers' JSON refuses it).

>>> finite_number(2), finite_number(True), finite_number(float("nan")), finite_number(10**400)
(2.0, None, None, None)
>>> plain_copy({"a": [1, 2.5]})
{'a': [1, 2.5]}
>>> unknown_fields({"cell": "0,0/c", "peices": {}, 3: 1}, {"cell", "pieces"})
'3, peices'
>>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=no_repeated_keys)
Traceback (most recent call last):
...
companion.rules.json_values.RepeatedKey: the key 'a' is written twice: write each once
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from typing import Any

from companion.errors import quoted


def finite_number(value: Any) -> float | None:
    """``value`` as a finite float, or None if it is no number (text, a bool, NaN,
    infinite, or an integer past the float range)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def plain_copy(data: Any) -> Any:
    """A copy of JSON ``data`` as stored in a game's options; ValueError when NaN or
    Infinity lies anywhere in it (even in a key nothing reads)."""
    return json.loads(json.dumps(data, allow_nan=False))


def unknown_fields(data: Mapping[Any, Any], known: Collection[str]) -> str:
    """The keys of ``data`` outside ``known``, sorted and joined ("" when none): a misspelt
    field is refused by name rather than ignored, which would act as if it were absent."""
    # str(): a Mapping built in code may have non-string keys, which sorted() cannot mix.
    return ", ".join(sorted(str(k) for k in data if k not in known))


class RepeatedKey(ValueError):
    """An object with one key written twice; the message names the key, and ``key`` holds
    it for a caller with its own words (a request's body calls it a field)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {quoted(key)} is written twice: write each once")
        self.key = key


def no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` for a file a user edits or a request's body:
    JSON keeps the last of a key written twice without a word, so an area copied and not
    renamed would drop the first; raises :class:`RepeatedKey` instead."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RepeatedKey(key)
        out[key] = value
    return out
