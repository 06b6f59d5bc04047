"""``companion print``: the printable kit at exact physical size.

``peepwar-tile`` and ``card`` write PNGs that state their dpi; ``kit`` writes a
PDF for A4 or US Letter with every tile of a game, the colour card and the
ChArUco board, each page with cut lines and a 100 mm scale bar; ``charuco``
writes the camera calibration board alone (table standard, section 5). A game's
own sheets (Petri's board, A Peloponnesian War's map and pieces) come from its
bundle's ``printables``: each gets ``--dpi``, ``--out``, ``--json``, ``--paper``
and ``--map``, and its function says what it needs.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.errors import UserError
from vision.kit_sizes import MAX_PLAYERS, MAX_TILES

DPI_RANGE = (50.0, 1200.0)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``print`` and its four kinds of sheet."""
    parser = subparsers.add_parser(
        "print",
        help="printable tiles, colour card, ChArUco board and the whole kit as a PDF",
        description="Write the printable kit at exact physical size. Print at 100% "
        "(turn off 'fit to page') and check the 100 mm scale bar with a ruler.",
    )
    kinds = parser.add_subparsers(dest="kind", metavar="KIND")
    tile = kinds.add_parser("peepwar-tile", help="one Peep War tile as a PNG",
                            description="One Peep War tile, hexagon centred, D pixels per inch.")
    tile.add_argument("--id", type=int, help=f"tile id 0..{MAX_TILES - 1} (0 = Neutral Territory)")
    tile.add_argument("--dpi", type=float, default=300.0, help="pixels per inch (default 300)")
    tile.add_argument("--out", help="PNG file to write")
    card = kinds.add_parser("card", help="the colour-calibration card as a PNG and its layout",
                            description="The colour card, edge to edge, and its layout as JSON.")
    card.add_argument("--players", type=int, help=f"player slots 1..{MAX_PLAYERS}")
    card.add_argument("--dpi", type=float, default=300.0, help="pixels per inch (default 300)")
    card.add_argument("--out", help="PNG file to write")
    card.add_argument("--json", help="JSON file for the card's layout (slot centres in mm)")
    kit = kinds.add_parser("kit", help="the whole kit as a print-ready PDF",
                           description="Neutral tile, three tiles per player, the colour card "
                           "and the ChArUco board, one per page, with cut lines and scale bars.")
    kit.add_argument("--paper", default="a4", help="a4 or letter (default a4)")
    kit.add_argument("--players", type=int, help=f"players 1..{MAX_PLAYERS}")
    kit.add_argument("--dpi", type=float, default=300.0, help="image resolution (default 300)")
    kit.add_argument("--out", help="PDF file to write")
    charuco = kinds.add_parser("charuco", help="the camera calibration board as a PNG",
                               description="The ChArUco board for companion calibrate-camera.")
    charuco.add_argument("--dpi", type=float, default=300.0, help="pixels per inch (default 300)")
    charuco.add_argument("--out", help="PNG file to write")
    # The games' own sheets, from their bundles (``Game.printables``): imported only to
    # build the real parser of ``print``, not when the command line just notes its name.
    from companion import games

    real = isinstance(subparsers, argparse._SubParsersAction)
    for game in games.all_games().values() if real else ():
        for kind, text, ref in game.printables:
            sheet = kinds.add_parser(kind, help=text, description=text[:1].upper() + text[1:]
                                     + ".")
            sheet.add_argument("--dpi", type=float, default=300.0,
                               help="pixels per inch (default 300)")
            sheet.add_argument("--out", help="file to write")
            sheet.add_argument("--json", help="JSON file for the layout (mm), where it has one")
            sheet.add_argument("--paper", help="paper size, where there is a choice")
            sheet.add_argument("--map", help="the game's map file, where it has one")
            sheet.set_defaults(printable=ref)
    parser.set_defaults(func=run)


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
        raise UserError(f"--players {n} is out of range: use 1..{MAX_PLAYERS}")
    return n


def _write(what: str, path: str, write) -> None:
    try:
        write(Path(path))
    except OSError as e:
        raise UserError(f"cannot write {what} to {path} ({e.strerror}): check the folder") from None


def run(args: argparse.Namespace) -> int:
    # Drawing needs OpenCV and NumPy: loaded only to print, so other commands start fast.
    from calibration.charuco import board_image
    from vision.card_art import card_image, card_layout
    from vision.pdf_pages import PAPER_MM, write_pdf
    from vision.peepwar.tile_art import tile_image
    from vision.png_dpi import write_png
    from vision.print_kit import kit_pages

    if args.kind is None:
        raise UserError("say what to print: peepwar-tile, card, kit, charuco or a game's "
                        "sheet (see --help)")
    if getattr(args, "printable", None):
        from companion import games

        _dpi(args.dpi)
        try:
            print(games.load(args.printable)(args))
        except OSError as e:
            raise UserError(f"cannot write {args.kind} ({e.strerror or e}): check the "
                            "folder") from None
        except ValueError as e:
            raise UserError(str(e)) from None
        return 0
    if args.kind == "peepwar-tile":
        _need(args, "id", "out")
        if not 0 <= args.id < MAX_TILES:
            raise UserError(f"--id {args.id} is out of range: use 0..{MAX_TILES - 1}")
        dpi = _dpi(args.dpi)
        img = tile_image(args.id, dpi / 25.4)
        _write("the tile", args.out, lambda p: write_png(p, img, dpi))
        print(f"tile {args.id} written to {args.out} ({img.shape[1]}x{img.shape[0]} px at "
              f"{dpi:g} dpi)")
    elif args.kind == "card":
        _need(args, "players", "out", "json")
        n = _players(args.players)
        dpi = _dpi(args.dpi)
        img = card_image(n, dpi / 25.4)
        layout = card_layout(n)
        _write("the card", args.out, lambda p: write_png(p, img, dpi))
        _write("the card layout", args.json,
               lambda p: p.write_text(json.dumps(layout.to_json(), indent=2) + "\n"))
        print(f"card for {n} players written to {args.out} and {args.json} "
              f"({layout.width_mm:g} x {layout.height_mm:g} mm)")
    elif args.kind == "kit":
        _need(args, "players", "out")
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
        dpi = _dpi(args.dpi)
        img = board_image(dpi / 25.4)
        _write("the board", args.out, lambda p: write_png(p, img, dpi))
        print(f"ChArUco board written to {args.out}")
    return 0
