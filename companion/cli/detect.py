"""``companion detect``: what one camera frame shows, as the observation JSON.

Finds every tile, its id and its lattice position, then reads every cell: each
player's troops and peep, Supply Centers, and cells covered by a hand (table
standard, section 4). A profile without players' colours gives the tiles only,
every cell reported occluded (unknown, never empty). A frame with nothing usable
still gives a valid observation, with a warning saying what to fix.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from companion.errors import UserError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``detect``."""
    parser = subparsers.add_parser(
        "detect",
        help="read a camera frame: tiles, and the pieces in every cell, as JSON",
        description="Print the observation JSON (table standard, section 4) for one image. "
        "--profile is required (a profile from companion calibrate or calibrate-camera).",
    )
    parser.add_argument("image", metavar="IMAGE", help="a photo or frame of the table")
    parser.add_argument("--game", default="peepwar", help="the game on the table (default "
                        "peepwar; any game with a camera reader)")
    parser.add_argument("--profile", metavar="PROFILE", help="calibration profile JSON")
    parser.add_argument("--home", action="append", default=[], metavar="PLAYER=K",
                        help="Petri: PLAYER's home is tip K (0-5) of the board (overrides the "
                        "profile's); once per player")
    parser.add_argument("--map", metavar="FILE", help="the game's own map file, for a game "
                        "played on a map (A Peloponnesian War; default: the game's map)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError, load_profile
    from companion import games
    from companion.camera_setup import make_reader
    from vision.image_io import ImageError, frame_warnings, read_image

    try:
        game = games.find(args.game)
    except games.UnknownGame as e:
        raise UserError(f"--game {args.game}: {e}") from None
    readable = sorted(n for n, g in games.all_games().items() if g.reader)
    if game.reader is None:
        raise UserError(f"--game {args.game}: {game.title} is not read by detect; games with "
                        f"a camera reader: {', '.join(readable)}")
    # An option the game's reader does not read would be ignored: refused, naming the games
    # whose readers read it.
    for option, given in (("home", args.home), ("map", args.map)):
        if given and option not in game.reader_takes:
            takers = sorted(n for n, g in games.all_games().items() if option in g.reader_takes)
            raise UserError(f"--{option}: {game.title}'s reader takes no --{option}; it is for "
                            f"{', '.join(takers)}")
    if not args.profile:
        raise UserError("detect needs --profile PROFILE.json (make one with companion calibrate)")
    try:
        profile = load_profile(args.profile)
        t0 = time.perf_counter()
        frame = read_image(args.image)
    except (ProfileError, ImageError) as e:
        raise UserError(str(e)) from None
    if args.home:
        from companion.cli.calibrate import parse_homes

        homes = parse_homes(args.home, list(profile.players) or list(profile.colours))
        merged = {**profile.extra.get("homes", {}), **homes}
        if len(set(merged.values())) != len(merged):  # one moved onto another's profile home
            raise UserError("--home gives a player the home the profile gives another: give "
                            "every player's --home")
        profile.extra["homes"] = merged
    if args.map:
        profile.extra["map"] = args.map
    t1 = time.perf_counter()
    obs = make_reader(game, profile).read(frame)
    obs["warnings"] = frame_warnings(frame) + obs["warnings"]
    obs["timings_ms"] = {"read": round((t1 - t0) * 1000, 2), **obs["timings_ms"]}
    print(json.dumps(obs, indent=2))
    # Nothing found (no tiles, no board): the first warning says why, on stderr too.
    found = obs.get("tiles", obs.get("board"))
    if not found and obs["warnings"]:
        print(f"companion detect: warning: {obs['warnings'][0]}", file=sys.stderr)
    return 0
