"""Reading a user's file with a ceiling on its size.

A path given as a map, chit set or similar can name anything: ``/dev/zero`` or a
runaway file would be read whole into memory and end in a MemoryError (or a long
stall in the page) before any check of its contents could say what is wrong.
Devices like ``/dev/zero`` report no size, so the ceiling is applied while reading,
not by asking the file system first.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "small.json"
>>> _ = path.write_bytes(b"{}")
>>> read_at_most(path, 2), read_at_most(path, 1)
(b'{}', None)
"""

from __future__ import annotations

from pathlib import Path


def read_at_most(path: str | Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it holds at most ``limit`` of them, else None (the caller
    says why in its own words); raises OSError as ``open`` does."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)  # one byte past the limit tells "too large" from "just fits"
    return None if len(data) > limit else data
