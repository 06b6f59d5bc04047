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
>>> read_text_at_most(path, 2, "map")
'{}'
>>> _ = path.write_bytes(b"\\xef\\xbb\\xbf{}")  # the byte-order mark Notepad writes
>>> read_text_at_most(path, 5, "map")
'{}'
>>> _ = path.write_bytes("caf\xe9".encode("latin-1"))
>>> read_text_at_most(path, 1_000_000, "map", name="small.json")
Traceback (most recent call last):
...
companion.bounded_read.NotText: small.json is not a text file (not UTF-8)
"""

from __future__ import annotations

from pathlib import Path


class TooLarge(ValueError):
    """A file past its ceiling; the message is the one line to show, naming the file."""


class NotText(ValueError):
    """A file that is not UTF-8 text; the message is the one line to show, naming the file."""


def read_at_most(path: str | Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it holds at most ``limit`` of them, else None (the caller
    says why in its own words); raises OSError as ``open`` does."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)  # one byte past the limit tells "too large" from "just fits"
    return None if len(data) > limit else data


def read_text_at_most(path: str | Path, limit: int, what: str, name: str | None = None) -> str:
    """The UTF-8 text of ``path`` if it holds at most ``limit`` bytes; raises OSError as
    ``open`` does, :class:`TooLarge` ("NAME is too large to be a WHAT (more than N MB)") and
    :class:`NotText` ("NAME is not a text file (not UTF-8)"), NAME being ``name`` or the
    path. The text is UTF-8 whatever the locale, so a file reads the same on every machine;
    a leading byte-order mark (Windows Notepad writes one) is dropped, not read as text."""
    shown = str(path) if name is None else name
    raw = read_at_most(path, limit)
    if raw is None:
        raise TooLarge(f"{shown} is too large to be a {what} "
                       f"(more than {limit // 1_000_000} MB)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotText(f"{shown} is not a text file (not UTF-8)") from None
