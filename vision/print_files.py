"""The file names ``companion print`` writes to: each must end in the format written.

A PDF written as ``map.png`` opens in no image viewer and prints as garbage from
most of them, so a name whose suffix names another format is refused before
anything is drawn, with the name that would fit.

>>> need_suffix("--out", "m.PNG", ".png", "the A3 map")
>>> need_suffix("--out", "m.png", ".pdf", "the kit")
Traceback (most recent call last):
ValueError: --out m.png ends in .png, but the kit is written as a PDF: name it m.pdf

A name with no stem of its own to keep gets the generic advice:

>>> for name in (".", "..", "dir/.png", ".hidden", "out/"):
...     try:
...         need_suffix("--out", name, ".png", "the tile")
...     except ValueError as e:
...         print(str(e).split(": ")[-1])
name it a file ending in .png
name it a file ending in .png
name it a file ending in .png
name it a file ending in .png
name it a file ending in .png
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.errors import PATH_ECHO, clipped

FORMATS = {".png": "a PNG", ".pdf": "a PDF", ".json": "JSON"}


@dataclass(frozen=True)
class Printed:
    """What a game's sheet (``Game.printables``) made: each file as ``(what, path, bytes)``,
    and the line that says so. The sheet draws; ``companion print`` writes the files, all of
    them or none (a map without its layout, or a layout for another map, would mislead)."""

    line: str
    files: tuple[tuple[str, str, bytes], ...]


def need_suffix(option: str, path: str, suffix: str, what: str) -> None:
    """ValueError (one line, naming ``option`` and the file) unless ``path`` ends in
    ``suffix`` (any case): ``what`` is written there as that format."""
    p = Path(path)
    if p.suffix.lower() == suffix:
        return
    ends = f"ends in {p.suffix}" if p.suffix else "has no suffix"
    # '.', '..', a folder ('out/') and a dot file ('.png', '.hidden') have no stem to keep:
    # with the suffix added they would be '...png' or '.png.png', no name anyone meant.
    folder = path.endswith(("/", "\\")) or p.name in ("", ".", "..")
    if folder or not p.stem or p.name.startswith(".") or len(path) > PATH_ECHO:
        fit = f"a file ending in {suffix}"
    else:
        fit = str(p.with_suffix(suffix))
    # A runaway --out (thousands of characters) is named once, cut.
    raise ValueError(f"{option} {clipped(path, PATH_ECHO)} {clipped(ends)}, but {what} is "
                     f"written as {FORMATS[suffix]}: name it {fit}")
