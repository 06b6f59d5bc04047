"""What a request's body may be: small, JSON sent as JSON, an object, finite numbers, shallow
nesting, each field once.

The table page and every game's panel read their requests through
:func:`json_body`, so a body that is too large, too deep, not JSON, sent as another type or
holding a number that does not fit gets one clear refusal instead of an error inside.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request

from companion.errors import clipped, quoted
from companion.rules.json_values import RepeatedKey, no_repeated_keys

MAX_BODY = 64_000  # bytes in a request's body (a photo upload sets its own, larger limit)
MAX_DEPTH = 16  # nesting of a request's JSON: the page's requests need 4
MAX_ECHO = 300  # characters of a refused request's own text repeated in the error
JSON_TYPE = "application/json"


class NotJsonType(ValueError):
    """A body sent as another type than JSON: refused with 415, not read as JSON anyway."""

    status = 415


def json_body() -> dict[str, Any]:
    """The request's JSON object ({} when empty); ValueError saying what is wrong with it,
    :class:`NotJsonType` when a body came as another type (a form's text/plain)."""
    raw = request.get_data(cache=False)  # at most MAX_CONTENT_LENGTH: a 413 beyond
    if not raw.strip():
        # Nothing to misread: a bare POST (or fetch's empty text/plain) asks for no fields.
        return {}
    if request.mimetype != JSON_TYPE:
        # text/plain is what a form on any site may post without asking the browser first.
        sent = clipped(request.mimetype) or "no type"
        raise NotJsonType(f"send the body as {JSON_TYPE} (it came as {sent})")
    try:
        body = json.loads(raw, parse_int=_whole, parse_float=_finite,
                          parse_constant=_no_constant, object_pairs_hook=no_repeated_keys)
    except RecursionError:
        raise ValueError(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise ValueError("the body is not UTF-8 text") from None
    except RepeatedKey as e:
        # {"text": "hex 1,0", "text": "hex -1,0"} would silently be the last: say which is
        # meant.
        raise ValueError(f"the field {quoted(e.key, 40)} is given twice: send it once"
                         ) from None
    except _TooLong as e:
        raise ValueError(str(e)) from None
    except ValueError as e:
        raise ValueError(f"the body is not JSON ({clipped(str(e), MAX_ECHO)})") from None
    if _depth(body) > MAX_DEPTH:
        raise ValueError(f"the JSON is nested deeper than {MAX_DEPTH} levels")
    if not isinstance(body, dict):
        raise ValueError("send a JSON object")
    return body


class _TooLong(ValueError):
    """A whole number of more digits than Python reads (4,300): said in the page's words,
    not Python's advice to raise its limit."""


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _TooLong("the body holds a number too long to read "
                       f"({len(text.lstrip('-')):,} digits)") from None


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {clipped(text, 40)} is too large")
    return value


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is not a number JSON allows")


def _depth(value: Any) -> int:
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        if isinstance(v, dict):
            todo.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            todo.extend((x, d + 1) for x in v)
    return deepest

