"""``companion calibrate``: players' colours from a photo of the loaded colour card.

Slot 1 holds the first key's bean and peep, slot 2 the second's, and so on. The
profile keeps camera intrinsics already stored in ``--out`` by calibrate-camera,
and the egg's colours stored there by calibrate-egg. A card with pegs or marbles
on the bean spots and every peep spot empty gives a Petri profile; ``--home
PLAYER=K`` records which home (0-5) of a Petri board is whose, which the reader
needs when a board looks the same from every side.

A new profile starts with nothing learned: the examples corrections on the page taught
the reader (``PROFILE.json.examples.sqlite``, :mod:`calibration.examples`) are deleted
when it is written. ``--reset-examples`` deletes them alone, the profile kept.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from companion.errors import UserError, clipped, quoted

_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,15}$")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``calibrate``."""
    parser = subparsers.add_parser(
        "calibrate",
        help="players' bean and peep colours from a photo of the colour card",
        description="Build a profile from a photo of the colour card (companion print card) "
        "with one bean and one peep of each player on their slots: slot 1 = KEY1, and so on.",
    )
    parser.add_argument("image", metavar="IMAGE", nargs="?",
                        help="photo of the loaded colour card")
    parser.add_argument("--players", metavar="KEY1,KEY2,...", help="player keys, e.g. red,blue")
    parser.add_argument("--out", metavar="PROFILE.json", help="profile file to write")
    parser.add_argument("--home", action="append", default=[], metavar="PLAYER=K",
                        help="Petri: PLAYER's home is tip K (0-5) of the board; once per player")
    parser.add_argument("--reset-examples", action="store_true",
                        help="forget what corrections on the page taught the reader for the "
                        "profile --out (no photo needed; the profile is kept)")
    parser.set_defaults(func=run)


def parse_homes(items: list[str], keys: list[str]) -> dict[str, int]:
    """``["red=0", "blue=3"]`` -> {"red": 0, "blue": 3}, each checked."""
    homes: dict[str, int] = {}
    for item in items:
        player, _, k = item.partition("=")
        player = player.strip().lower()
        # The item as given, and its player, each cut when it runs away.
        if player not in keys:
            raise UserError(f"--home {clipped(item)}: {quoted(player)} is not one of the "
                            f"players ({', '.join(keys)})")
        if k.strip() not in {str(i) for i in range(6)}:
            raise UserError(f"--home {clipped(item)}: write PLAYER=K with K a home 0-5, "
                            "e.g. red=0")
        if player in homes:  # a slip for another player's: the last must not quietly win
            raise UserError(f"--home {clipped(item)}: {player}'s home is already given "
                            f"({player}={homes[player]}): give each player's home once")
        homes[player] = int(k)
    if len(set(homes.values())) != len(homes):
        raise UserError("--home gives two players the same home: give each its own")
    return homes


def parse_keys(text: str) -> list[str]:
    from vision.card_art import MAX_PLAYERS

    keys = [k.strip().lower() for k in text.split(",") if k.strip()]
    bad = [k for k in keys if not _KEY.match(k)]
    if bad:
        raise UserError(f"player key {quoted(bad[0])} is not valid: use short lowercase names "
                        "like red")
    if len(set(keys)) != len(keys):
        raise UserError("--players names a player twice: give each player one key")
    if not 1 <= len(keys) <= MAX_PLAYERS:
        raise UserError(f"--players needs 1 to {MAX_PLAYERS} keys, e.g. red,blue, "
                        f"not {len(keys)}")
    return keys


def check_out_is_a_profile(path: Path) -> None:
    """Refuse an ``--out`` that exists and is no profile, damaged or not: a game log, a
    photo, a folder or a settings file named by mistake is never replaced by a profile.
    A profile cut short or damaged (JSON text, or what is left of it) may be replaced."""
    from companion.profile_file import ProfileFileError, read_profile_json

    if not path.exists():
        return
    try:
        data = read_profile_json(path, "")
        if isinstance(data, dict) and {"version", "colours"} & data.keys():
            return
        why = "JSON, but no profile's: a map, catalog or card layout?"
    except ProfileFileError as e:
        if e.fault == "not JSON":
            try:
                text = path.read_text(encoding="utf-8-sig").lstrip()
            except (OSError, ValueError):
                text = "?"
            if not text or text.startswith("{"):
                return
            why = "text that is not JSON"
        else:
            why = {"not text": "not text: a game log or a photo?",
                   "too large": "far larger than a profile"}.get(
                       e.fault, str(e).removeprefix(f"profile {path} "))
    raise UserError(f"--out {path} exists and is not a colour profile ({why}); nothing was "
                    "written: give the profile's file name, or a new one")


def run(args: argparse.Namespace) -> int:
    from calibration.colour import CalibrationError, calibrate_card
    from calibration.examples import ExamplesError, forget_examples
    from calibration.profile import Profile, ProfileError, load_profile, save_profile
    from vision.image_io import ImageError, read_image

    if args.reset_examples:
        if not args.out or args.image or args.players:
            raise UserError("calibrate --reset-examples needs --out PROFILE.json only (no "
                            "photo, no --players)")
        try:
            had = forget_examples(args.out)
        except ExamplesError as e:
            raise UserError(str(e)) from None
        print(f"{args.out}: " + ("the examples learned from corrections are forgotten" if had
                                 else "no examples learned from corrections to forget"))
        return 0
    if not args.players or not args.out or not args.image:
        raise UserError("calibrate needs IMAGE, --players KEY1,KEY2,... and --out PROFILE.json")
    keys = parse_keys(args.players)
    homes = parse_homes(args.home, keys)
    check_out_is_a_profile(Path(args.out))
    try:
        photo = read_image(args.image)
        found = calibrate_card(photo, keys)
        colours, warnings = found.models, found.warnings
    except (ImageError, CalibrationError) as e:
        raise UserError(str(e)) from None
    old = Profile()
    if Path(args.out).exists():
        try:
            # Its homes are replaced below, so damaged ones must not lose the rest.
            old = load_profile(args.out, check_homes=False)
        except ProfileError:
            warnings.append(f"{args.out} was not a usable profile; it is replaced")
    intrinsics = old.intrinsics
    # The card's white tells a reader with no white paper in view (a wooden board) the lamp.
    extra = {k: v for k, v in old.extra.items() if k != "homes"}
    extra["card_white"] = [round(float(v), 5) for v in found.white]
    if homes:
        extra["homes"] = homes
    try:
        save_profile(Profile(keys, colours, intrinsics, extra=extra), args.out)
        # New colours: what was learned for the old ones goes (the reader would not use it).
        forgot = forget_examples(args.out)
    except (ProfileError, ExamplesError) as e:
        raise UserError(str(e)) from None
    for w in warnings:
        print(f"companion calibrate: warning: {w}", file=sys.stderr)
    kept = (["camera intrinsics"] if intrinsics is not None else []) + (
        ["egg colours"] if "egg" in old.extra else [])
    print(f"profile written to {args.out}: colours of {', '.join(keys)}"
          + (f" ({' and '.join(kept)} kept)" if kept else "")
          + ("; the examples learned from corrections are forgotten" if forgot else ""))
    return 0
