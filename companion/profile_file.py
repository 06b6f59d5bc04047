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

from companion.bounded_read import read_at_most
from companion.errors import UserError

# A profile holds colour models, lens numbers and notes: about 2 KB. Its learned examples
# (crops and pixel statistics) live in a SQLite file beside it, not in the JSON, so even a
# well-used profile stays small; 16 MB is far past any real one.
MAX_PROFILE_BYTES = 16_000_000


def read_profile_json(path: Path, fix: str) -> Any:
    """The decoded JSON of the profile at ``path``; UserError naming the file and what is
    wrong, ending with ``fix`` (what to do) where the content is not JSON."""
    try:
        raw = read_at_most(path, MAX_PROFILE_BYTES)
    except OSError as e:
        raise UserError(f"profile {path} cannot be read ({e.strerror})") from None
    if raw is None:
        raise UserError(f"profile {path} is too large to be a calibration profile "
                        f"(more than {MAX_PROFILE_BYTES // 1_000_000} MB)")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"profile {path} is not a colour profile (not text): give the JSON "
                        "file companion calibrate wrote") from None
    except (ValueError, RecursionError):
        # ValueError: bad JSON, or a number of more than 4300 digits.
        raise UserError(f"profile {path} is not valid JSON: {fix}") from None
