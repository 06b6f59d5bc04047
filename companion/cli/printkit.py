"""``companion print``: the printable kit at exact physical size.

``peepwar-tile`` and ``card`` write PNGs that state their dpi; ``kit`` writes a
PDF for A4 or US Letter with every tile of a game, the colour card and the
ChArUco board, each page with cut lines and a 100 mm scale bar; ``charuco``
writes the camera calibration board alone (table standard, section 5). A game's
own sheets (Petri's board, A Peloponnesian War's map and pieces) come from its
bundle's ``printables``, each naming which of ``--dpi``, ``--out``, ``--json``,
``--paper`` and ``--map`` it takes; its function says what it needs. An option
the item does not take is refused, and so is an output whose suffix is not the
format written there (``--out map.png`` for a PDF).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from pathlib import Path

from companion.errors import PATH_ECHO, UserError, clipped, quoted
from vision.kit_sizes import MAX_PLAYERS, MAX_TILES

DPI_RANGE = (50.0, 1200.0)


# Every option an item of ``print`` may take, and how argparse reads it. Each item's parser
# knows them all, so one it does not take is refused by :func:`run` with what it does take,
# instead of argparse's usage text, and never ignored.
OPTIONS: dict[str, dict[str, object]] = {
    "id": {"type": int}, "players": {"type": int}, "dpi": {"type": float}, "out": {},
    "json": {}, "paper": {}, "map": {},
}


def _item(kinds: argparse._SubParsersAction, kind: str, text: str, description: str,
          takes: dict[str, str], defaults: dict[str, object] | None = None
          ) -> argparse.ArgumentParser:
    """The parser of one item: the options it ``takes`` (name -> help) shown, the rest hidden.
    An option it takes and leaves out is its ``defaults`` value (``--dpi``: 300), else None;
    one it does not take stays None, so :func:`_takes_only` sees it given."""
    own = {"dpi": 300.0, **(defaults or {})}
    sheet = kinds.add_parser(kind, help=text, description=description)
    for name, kwargs in OPTIONS.items():
        sheet.add_argument(f"--{name}", default=own.get(name) if name in takes else None,
                           help=takes.get(name, argparse.SUPPRESS), **kwargs)
    sheet.set_defaults(takes=tuple(n for n in OPTIONS if n in takes))
    return sheet


DPI_HELP = "pixels per inch (default 300)"


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``print`` and its kinds of sheet."""
    parser = subparsers.add_parser(
        "print",
        help="printable tiles, colour card, ChArUco board and the whole kit as a PDF",
        description="Write the printable kit at exact physical size. Print at 100% "
        "(turn off 'fit to page') and check the 100 mm scale bar with a ruler.",
    )
    kinds = parser.add_subparsers(dest="kind", metavar="KIND")
    _item(kinds, "peepwar-tile", "one Peep War tile as a PNG",
          "One Peep War tile, hexagon centred, D pixels per inch.",
          {"id": f"tile id 0..{MAX_TILES - 1} (0 = Neutral Territory)", "dpi": DPI_HELP,
           "out": "PNG file to write (.png)"})
    _item(kinds, "card", "the colour-calibration card as a PNG and its layout",
          "The colour card, edge to edge, and its layout as JSON.",
          {"players": f"player slots 1..{MAX_PLAYERS}", "dpi": DPI_HELP,
           "out": "PNG file to write (.png)",
           "json": "JSON file for the card's layout (slot centres in mm, .json)"})
    _item(kinds, "kit", "the whole kit as a print-ready PDF",
          "Neutral tile, three tiles per player, the colour card and the ChArUco board, one "
          "per page, with cut lines and scale bars.",
          {"paper": "a4 or letter (default a4)", "players": f"players 1..{MAX_PLAYERS}",
           "dpi": "image resolution (default 300)", "out": "PDF file to write (.pdf)"},
          defaults={"paper": "a4"})
    _item(kinds, "charuco", "the camera calibration board as a PNG",
          "The ChArUco board for companion calibrate-camera.",
          {"dpi": DPI_HELP, "out": "PNG file to write (.png)"})
    # The games' own sheets, from their bundles (``Game.printables``): imported only to
    # build the real parser of ``print``, not when the command line just notes its name.
    from companion import games

    real = isinstance(subparsers, argparse._SubParsersAction)
    for game in games.all_games().values() if real else ():
        for kind, text, ref, takes in game.printables:
            sheet = _item(kinds, kind, text, text[:1].upper() + text[1:] + ".",
                          dict(games.sheet_options(takes, GAME_SHEET_HELP)))
            sheet.set_defaults(printable=ref)
    parser.set_defaults(func=run)


# What the options of a game's sheet mean where the game gives no words of its own; the
# sheet's function says more in its errors. ``--paper`` has none: its choices and default are
# the sheet's, so the game names them (companion.games.Game checks it does).
GAME_SHEET_HELP = {
    "dpi": DPI_HELP, "out": "file to write", "json": "JSON file for the layout (mm, .json)",
    "map": "the game's map file",
}


def _takes_only(args: argparse.Namespace) -> None:
    """UserError when an option the item does not use was given: ignoring it would print
    something other than what was asked for, without a word."""
    extra = [f"--{n}" for n in OPTIONS if n not in args.takes and getattr(args, n) is not None]
    if extra:
        taken = [f"--{n}" for n in args.takes]
        raise UserError(f"print {args.kind} takes {_and(taken)}, not {_and(extra)}")


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _dpi(value: float) -> float:
    if not DPI_RANGE[0] <= value <= DPI_RANGE[1]:
        raise UserError(f"--dpi {value:g} is out of range: use {DPI_RANGE[0]:g}..{DPI_RANGE[1]:g}")
    return value


def _need(args: argparse.Namespace, *names: str) -> None:
    missing = [f"--{n}" for n in names if getattr(args, n) is None]
    if missing:
        raise UserError(f"print {args.kind} needs {' and '.join(missing)}")


def _players(n: int) -> int:
    if not 1 <= n <= MAX_PLAYERS:
        raise UserError(f"--players {quoted(n)} is out of range: use 1..{MAX_PLAYERS}")
    return n


def _suffix(option: str, path: str, suffix: str, what: str) -> None:
    from vision.print_files import need_suffix

    try:
        need_suffix(option, path, suffix, what)
    except ValueError as e:
        raise UserError(str(e)) from None


def _outputs(args: argparse.Namespace) -> None:
    """UserError, before anything is drawn or written, when ``--out`` or ``--json`` cannot
    be a file: a folder, or in a folder that does not exist or is a file. An item writing
    two files (the card and its layout) would otherwise write the first and fail on the
    second."""
    for name in ("out", "json"):
        path = getattr(args, name, None)
        if name not in args.takes or path is None:
            continue
        p = Path(path)
        try:
            folder, parent = p.is_dir(), p.parent.is_dir()
            # The nearest of the folders above it that is there: a file where a folder
            # belongs is said as such, not as a folder that is missing.
            there = next((a for a in p.parents if a.exists()), None)
        except OSError:  # a name too long for the system: writing it says so
            continue
        if folder:
            raise UserError(f"--{name} {clipped(path, PATH_ECHO)} is a folder: name a file "
                            "to write (nothing was written)")
        if not parent and there is not None and not there.is_dir():
            raise UserError(f"--{name} {clipped(path, PATH_ECHO)}: "
                            f"{clipped(str(there), PATH_ECHO)} is not a folder (nothing was "
                            "written)")
        if not parent:
            raise UserError(f"--{name} {clipped(path, PATH_ECHO)}: there is no folder "
                            f"{clipped(str(p.parent), PATH_ECHO)} to write it in (nothing "
                            "was written)")


def _write_all(files: list[tuple[str, str, bytes]]) -> None:
    """Write every ``(what, path, data)``, or none: each goes to a file beside its path
    first, and only when all are written are they put in place. The file beside it has a
    short name of its own: the path's name with more added could pass the system's limit
    (255 bytes) where the name itself does not.

    Putting them in place is a rename each, and a later one can still fail (the folder's
    permissions changed, a folder made in the file's place meanwhile): the files already
    put in place are then taken back, and what was there before is put back, from a hard
    link kept beside it until all are in place."""
    temps: list[Path] = []
    kept: list[tuple[bool, Path | None]] = []  # per file: was one there, a link to it
    placed: list[Path] = []
    try:
        for n, (what, path, data) in enumerate(files):
            tmp = Path(path).with_name(f".companion-print-{os.getpid()}-{n}.part")
            temps.append(tmp)
            _write(what, path, lambda _p, tmp=tmp, data=data: tmp.write_bytes(data))
        try:
            for n, ((what, path, _), tmp) in enumerate(zip(files, temps, strict=True)):
                kept.append(_keep(Path(path), n))
                _write(what, path, lambda p, tmp=tmp: os.replace(tmp, p))
                placed.append(Path(path))
        except UserError:
            for path, (was, old) in zip(placed, kept, strict=False):
                with contextlib.suppress(OSError):
                    if old is not None:
                        os.replace(old, path)
                    elif not was:
                        path.unlink()
            raise
    finally:
        for leftover in [*temps, *(old for _, old in kept if old is not None)]:
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)


def _keep(path: Path, n: int) -> tuple[bool, Path | None]:
    """Whether a file is at ``path`` now, and a hard link beside it to that file so it can
    be put back (None when there is none, or the file system has no hard links: the new
    file then stays, as a single file written over another does)."""
    link = path.with_name(f".companion-print-{os.getpid()}-{n}.old")
    was = False
    try:
        was = path.is_file()
        link.unlink(missing_ok=True)
        if was:
            os.link(path, link)
    except OSError:
        return was, None
    return was, link if was else None


def _write(what: str, path: str, write) -> None:
    try:
        write(Path(path))
    except OSError as e:
        raise UserError(f"cannot write {what} to {clipped(path, PATH_ECHO)} ({e.strerror}): "
                        "check the folder") from None


def run(args: argparse.Namespace) -> int:
    # Drawing needs OpenCV and NumPy: loaded only to print, so other commands start fast.
    from calibration.charuco import board_image
    from vision.card_art import card_image, card_layout
    from vision.pdf_pages import PAPER_MM, write_pdf
    from vision.peepwar.tile_art import tile_image
    from vision.png_dpi import png_bytes, write_png
    from vision.print_kit import kit_pages

    if args.kind is None:
        raise UserError("say what to print: peepwar-tile, card, kit, charuco or a game's "
                        "sheet (see --help)")
    _takes_only(args)
    if getattr(args, "printable", None):
        _outputs(args)
        from companion import games

        if "dpi" in args.takes:
            _dpi(args.dpi)
        try:
            printed = games.load(args.printable)(args)
        except OSError as e:  # a map file the sheet reads (--map)
            raise UserError(f"cannot print {args.kind} ({e.strerror or e})") from None
        except ValueError as e:
            raise UserError(str(e)) from None
        _write_all(list(printed.files))
        print(printed.line)
        return 0
    if args.kind == "peepwar-tile":
        _need(args, "id", "out")
        _suffix("--out", args.out, ".png", "the tile")
        if not 0 <= args.id < MAX_TILES:
            raise UserError(f"--id {quoted(args.id)} is out of range: use 0..{MAX_TILES - 1}")
        dpi = _dpi(args.dpi)
        img = tile_image(args.id, dpi / 25.4)
        _write("the tile", args.out, lambda p: write_png(p, img, dpi))
        print(f"tile {args.id} written to {args.out} ({img.shape[1]}x{img.shape[0]} px at "
              f"{dpi:g} dpi)")
    elif args.kind == "card":
        _need(args, "players", "out", "json")
        _suffix("--out", args.out, ".png", "the card")
        _suffix("--json", args.json, ".json", "the card's layout")
        _outputs(args)
        n = _players(args.players)
        dpi = _dpi(args.dpi)
        img = card_image(n, dpi / 25.4)
        layout = card_layout(n)
        _write_all([("the card", args.out, png_bytes(img, dpi)),
                    ("the card layout", args.json,
                     (json.dumps(layout.to_json(), indent=2) + "\n").encode())])
        print(f"card for {n} players written to {args.out} and {args.json} "
              f"({layout.width_mm:g} x {layout.height_mm:g} mm)")
    elif args.kind == "kit":
        _need(args, "players", "out")
        _suffix("--out", args.out, ".pdf", "the kit")
        paper = args.paper.lower()
        if paper not in PAPER_MM:
            raise UserError(f"--paper {args.paper} is unknown: use a4 or letter")
        n = _players(args.players)
        pages = kit_pages(paper, n, _dpi(args.dpi))
        _write("the kit", args.out, lambda p: write_pdf(p, pages))
        print(f"kit for {n} players written to {args.out}: {len(pages)} {paper} pages; print "
              "at 100% and check the 100 mm bars")
    else:
        _need(args, "out")
        _suffix("--out", args.out, ".png", "the board")
        dpi = _dpi(args.dpi)
        img = board_image(dpi / 25.4)
        _write("the board", args.out, lambda p: write_png(p, img, dpi))
        print(f"ChArUco board written to {args.out}")
    return 0
