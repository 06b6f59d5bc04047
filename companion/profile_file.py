"""The colour profile file read as plain JSON, with a ceiling on its size.

The camera's reader loads a profile through ``calibration.profile``; the egg's
references (``companion.inputs.egg_colours``) and ``companion calibrate-egg``
need only its JSON, every key kept, so they read it here. All three share the
one ceiling, so a file one of them takes is never too large for another.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.bounded_read import NotText, TooLarge, read_text_at_most
from companion.errors import PATH_ECHO, UserError, clipped

# A profile holds colour models, lens numbers and notes: about 2 KB. Its learned examples
# (crops and pixel statistics) live in a SQLite file beside it, not in the JSON, so even a
# well-used profile stays small; 16 MB is far past any real one.
MAX_PROFILE_BYTES = 16_000_000


class ProfileFileError(UserError):
    """A profile file that cannot be read as JSON. ``fault`` says which way, so a caller
    with more to say of one (a missing file: how to make one) can say it: "missing",
    "unreadable", "too large", "not text" or "not JSON"."""

    def __init__(self, message: str, fault: str) -> None:
        super().__init__(message)
        self.fault = fault


def read_profile_json(path: Path, fix: str) -> Any:
    """The decoded JSON of the profile at ``path``; :class:`ProfileFileError` naming the
    file and what is wrong, ending with ``fix`` (what to do) where the content is not JSON."""
    shown = clipped(str(path), PATH_ECHO)  # the path as given, which may be any text
    try:
        text = read_text_at_most(path, MAX_PROFILE_BYTES, "calibration profile",
                                 name=f"profile {shown}")
    except OSError as e:
        fault = "missing" if isinstance(e, FileNotFoundError) else "unreadable"
        raise ProfileFileError(f"profile {shown} cannot be read ({e.strerror})", fault) from None
    except TooLarge as e:
        raise ProfileFileError(str(e), "too large") from None
    except NotText:
        raise ProfileFileError(f"profile {shown} is not a colour profile (not text): give the "
                               "JSON file companion calibrate wrote", "not text") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        # ValueError: bad JSON, or a number of more than 4300 digits.
        raise ProfileFileError(f"profile {shown} is not valid JSON: {fix}", "not JSON") from None
