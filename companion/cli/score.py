"""``companion score peltapeeps PHOTO``: the score sheet of a finished layout, from one photo.

Reads every piece (colour, catalog piece, face) and every join in the photo
with the colour profile, then scores it line by line as the score sheet does.
Unplayed pieces default to each colour's catalog minus the pieces seen;
``--unplayed`` names them instead. ``--page`` opens the photo on the
score-sheet page to correct what was misread.

>>> parse_seats("Ann=red, Bob=blue,Ann=green", ["red", "blue", "green"])
[('Ann', 'red'), ('Bob', 'blue'), ('Ann', 'green')]
>>> parse_unplayed("red:E1,red:A2", ["red"], ["E1", "A2"])
{'red': ['E1', 'A2']}
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from companion.errors import UserError, clipped, quoted

GAMES = ("peltapeeps",)
LINE_NAMES = (("joins", "JOIN points"), ("bonus", "Same-team bonus"),
              ("face_up", "Face-up points"), ("unplayed", "Unplayed pieces"),
              ("unplayed_peeps", "Unplayed PeltaPeeps"), ("total", "Total"))


def _sets_help() -> str:
    from companion.rules.peltapeeps.catalog import DEFAULT_SET, SET_SIZES

    return (f"the shipped sets (--set): {', '.join(SET_SIZES)}; default {DEFAULT_SET}, as a "
            "game in the companion")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``score``."""
    p = subparsers.add_parser(
        "score", help="score a finished PeltaPeeps layout from a photo",
        description="Read a photo of a finished PeltaPeeps layout (every piece, its colour "
        "and face, and every join) and print each player's score sheet. Unplayed pieces "
        "default to each colour's catalog minus the pieces seen.")
    p.add_argument("game", metavar="GAME", help="the game: peltapeeps")
    p.add_argument("photo", metavar="PHOTO", help="photo of the layout, from above")
    p.add_argument("--profile", metavar="FILE", help="colour profile from 'companion calibrate' "
                   "(one key per team colour)")
    p.add_argument("--catalog", metavar="FILE", help="your set's piece catalog (JSON); see "
                   "docs/peltapeeps.md")
    p.add_argument("--set", metavar="SET", help="a shipped set instead of --catalog (the sets "
                   "are listed below)")
    p.more_help = _sets_help  # type: ignore[attr-defined]
    p.add_argument("--seats", metavar="NAME=COLOUR,...", help="who played which colour, e.g. "
                   "Ann=red,Bob=blue (a name twice for two colours); default: one player per "
                   "colour seen, named by the colour")
    p.add_argument("--unplayed", metavar="COLOUR:PIECE,...", help="pieces not in play, e.g. "
                   "red:E1,blue:A2; colours not named default to the catalog minus those seen")
    p.add_argument("--unplayed-none", action="store_true", help="every piece was played")
    p.add_argument("--json", action="store_true", help="print the reading and sheet as JSON")
    p.add_argument("--page", action="store_true", help="open the score-sheet page on this "
                   "photo to correct it (serves on 127.0.0.1 until Ctrl-C)")
    p.add_argument("--port", type=int, default=0, help="port for --page (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="with --page, only print its address")
    p.set_defaults(func=run)


def _entries(text: str, sep: str, option: str, form: str) -> Iterator[tuple[str, str]]:
    """The ``A<sep>B`` items of a comma-separated option, each side non-empty."""
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        left, mark, right = (x.strip() for x in item.partition(sep))
        if not mark or not left or not right:
            raise UserError(f"{option} entry {quoted(item)} is not {form}")
        yield left, right


def _known_colour(colour: str, colours: Sequence[str], option: str) -> str:
    if colour not in colours:
        raise UserError(f"unknown colour {quoted(colour)} in {option}: the profile knows "
                        f"{', '.join(colours)}")
    return colour


def parse_seats(text: str, colours: Sequence[str]) -> list[tuple[str, str]]:
    """``Ann=red,Bob=blue`` -> [(player, colour)], each colour one the profile knows."""
    seats = [(player, _known_colour(colour, colours, "--seats"))
             for player, colour in _entries(text, "=", "--seats", "NAME=COLOUR, e.g. Ann=red")]
    if not seats:
        raise UserError("--seats is empty: give NAME=COLOUR pairs, e.g. Ann=red,Bob=blue")
    return seats


def parse_unplayed(text: str, colours: Sequence[str], pieces: Sequence[str]
                   ) -> dict[str, list[str]]:
    """``red:E1,red:A2`` -> {colour: [piece ids]}, checked against the profile and catalog."""
    out: dict[str, list[str]] = {}
    for colour, pid in _entries(text, ":", "--unplayed", "COLOUR:PIECE, e.g. red:E1"):
        _known_colour(colour, colours, "--unplayed")
        if pid not in pieces:
            raise UserError(f"unplayed piece {colour}:{clipped(pid)} is not in the catalog: "
                            f"its pieces are {', '.join(pieces)}")
        if pid in out.get(colour, []):
            raise UserError(f"--unplayed names {colour}:{pid} twice: name each piece once")
        out.setdefault(colour, []).append(pid)
    return out


def format_sheet(result: Mapping[str, Any], photo: str) -> str:
    """The breakdown as a table: one column per player, one row per line of the sheet.

    When the reading may not be a layout at all, the reason comes first and no
    winner is named.
    """
    from vision.peltapeeps.verdict import LAYOUT  # the reader's words: loaded to score only

    sheet: Mapping[str, Mapping[str, int]] = result["sheet"]
    verdict = result["verdict"]
    players = list(sheet)
    label_w = max(len(name) for _, name in LINE_NAMES)
    widths = [max(len(p), 5) for p in players]
    seen = ", ".join(f"{t} {n} ({result['face_up'].get(t, 0)} face up)"
                     for t, n in result["seen"].items())
    lines = [f"warning: the photo may not show a PeltaPeeps layout: {verdict['reason']}; "
             "no winner is named"] if verdict["level"] != LAYOUT else []
    lines += [f"PeltaPeeps score for {photo}", f"Set: {result['set']}",
             f"Pieces seen: {seen or 'none'}; {result['joins']} "
             f"join{'s' if result['joins'] != 1 else ''}"]
    teams: dict[str, list[str]] = {}
    for player, team in result["seats"]:
        teams.setdefault(player, []).append(team)
    if any(teams[p] != [p] for p in players):
        lines.append("Seats: " + ", ".join(f"{p} {'+'.join(teams[p])}" for p in players))
    lines.append("")
    lines.append(" " * label_w + "".join(f"  {p:>{w}}" for p, w in zip(players, widths,
                                                                         strict=True)))
    for key, name in LINE_NAMES:
        if key == "total":
            lines.append("-" * (label_w + sum(w + 2 for w in widths)))
        lines.append(f"{name:<{label_w}}" + "".join(
            f"  {sheet[p][key]:>{w}}" for p, w in zip(players, widths, strict=True)))
    if players:
        lines.append("")
        lines.append(result["headline"] if verdict["level"] == LAYOUT else
                     "No winner named: check the photo (--page shows what was read)")
    for player, uids in result["to_check"].items():
        lines.append(f"check {player}'s line: it rests on pieces read unsure ({', '.join(uids)})")
    unplayed = {t: ids for t, ids in result["unplayed"].items() if ids}
    lines.append("Not in play: " + ("; ".join(f"{t} {' '.join(ids)}" for t, ids in
                                              unplayed.items()) or "none"))
    for w in result["warnings"]:
        lines.append(f"warning: {w}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError, load_profile
    from companion.rules.peltapeeps.catalog import (
        DEFAULT_SET,
        CatalogError,
        default_catalog,
        load_catalog,
    )
    from vision.image_io import ImageError, read_image
    from vision.peltapeeps.reading import ReadingError
    from vision.peltapeeps.verdict import NOT_A_LAYOUT, judge
    from web.scoresheet import ScoreInputError, check_layout_seats, score_result

    if args.game not in GAMES:
        raise UserError(f"companion score knows {', '.join(GAMES)}, not {quoted(args.game)}")
    if not args.profile:
        raise UserError("score needs --profile PROFILE.json (made by 'companion calibrate' "
                        "with one key per team colour)")
    if args.catalog and args.set:
        raise UserError("give --catalog or --set, not both")
    if args.unplayed and args.unplayed_none:
        raise UserError("give --unplayed or --unplayed-none, not both")
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0 to 65535, not {quoted(args.port)}")
    try:
        profile = load_profile(args.profile)
    except ProfileError as e:
        raise UserError(str(e)) from None
    colours = list(profile.players)
    if not colours:
        raise UserError(f"profile {args.profile} has no colours: run companion calibrate "
                        "with --players red,blue,... (the team colours)")
    try:
        catalog = load_catalog(args.catalog) if args.catalog else default_catalog(
            args.set or DEFAULT_SET)
    except CatalogError as e:
        raise UserError(str(e)) from None
    if not catalog.pieces:
        raise UserError(f"the catalog {quoted(catalog.name)} has no pieces")
    seats = parse_seats(args.seats, colours) if args.seats else None
    if seats:
        try:
            check_layout_seats(seats, colours)
        except ScoreInputError as e:
            raise UserError(f"--seats: {e}") from None
    ids = [p.id for p in catalog.pieces]
    unplayed = parse_unplayed(args.unplayed, colours, ids) if args.unplayed else None
    try:
        frame = read_image(args.photo)
    except ImageError as e:
        raise UserError(str(e)) from None

    import cv2

    from vision.errors import VisionError
    from vision.peltapeeps.read import read_layout

    cv2.setNumThreads(1)
    try:
        reading = read_layout(frame, profile, catalog)
    except (ReadingError, VisionError, cv2.error) as e:
        raise UserError(f"{args.photo}: the photo could not be read ({e})") from None
    verdict = judge(reading)
    if verdict.level == NOT_A_LAYOUT and not args.page:  # --page: the user may correct it
        advice = ("photograph the whole layout from above, in even light, with the profile "
                  "made for these pieces")
        if not reading.pieces:
            raise UserError(f"no pieces found in {args.photo}: {advice}")
        raise UserError(f"{args.photo} does not look like a PeltaPeeps layout: "
                        f"{verdict.reason}; {advice} (or correct it with --page)")
    if args.unplayed_none:
        unplayed = {t: [] for t in ([t for _, t in seats] if seats else reading.teams())}
    try:
        result = score_result(reading, catalog, seats, unplayed)
    except ReadingError as e:
        raise UserError(f"{e}") from None
    if args.json:
        data = reading.to_json() | {
            "photo": str(args.photo), "catalog": catalog.name, "set": result["set"],
            "verdict": result["verdict"], "winner": result["winner"],
            "headline": result["headline"], "sheet": result["sheet"],
            "seats": result["seats"], "unplayed": result["unplayed"], "seen": result["seen"],
            "face_up": result["face_up"], "join_count": result["joins"],
            "to_check": result["to_check"], "warnings": result["warnings"]}
        print(json.dumps(data, indent=2))
    else:
        print(format_sheet(result, str(args.photo)))
    sys.stdout.flush()
    if args.page:
        return _serve_page(args, frame, reading, catalog, colours, seats, unplayed)
    return 0


def _serve_page(args: argparse.Namespace, frame: Any, reading: Any, catalog: Any,
                colours: list[str], seats: list[tuple[str, str]] | None,
                unplayed: dict[str, list[str]] | None) -> int:
    from companion.service import open_browser, run_until_interrupted
    from companion.web_server import GreenServer, listen
    from web.scoresheet import ScoredPhoto, create_score_app, shown_jpeg

    photo = ScoredPhoto(shown_jpeg(frame), reading, catalog, Path(args.photo).name,
                        teams=colours, seats=seats, unplayed=unplayed)
    app = create_score_app(photo)
    try:
        sock = listen("127.0.0.1", args.port)
    except (OSError, OverflowError) as e:
        raise UserError(f"cannot listen on 127.0.0.1:{args.port}; the port may be in use: "
                        "choose another --port") from e
    server = GreenServer(sock, lambda _waits: app)
    server.start()
    url = f"http://127.0.0.1:{server.server_port}/score/"
    opened = False if args.no_browser else open_browser(url)
    print(f"Score-sheet page at {url}" + (" (opened in your browser)" if opened else "")
          + "; stop with Ctrl-C.", flush=True)
    run_until_interrupted(server.shutdown)
    return 0
