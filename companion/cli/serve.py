"""``companion serve``: the live referee with the table page, camera, egg and buttons."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.cli.game_options import add_game_args
from companion.cli.games import rules_from_args


def run(args: argparse.Namespace) -> int:
    # The service brings the web server, OpenCV and Flask: loaded only to serve.
    from companion.service import (
        ServiceOptions,
        banner,
        bound_service,
        run_until_interrupted,
    )
    from companion.settings import load_settings

    settings = load_settings(args.settings)
    rules = rules_from_args(args)
    options = rules.options()
    opts = ServiceOptions(
        host=args.host or settings.host,
        port=args.port if args.port is not None else settings.port,
        log=args.log or (Path(settings.log) if settings.log else None),
        game=rules.name, players=list(options.pop("players")), options=options,
        new_game=args.new,
        given=(("players",) if args.players is not None else ()) + tuple(args.options or {}),
        auto_accept=settings.auto_accept,
        score_profile=args.score_profile or settings.score_profile,
        score_catalog=args.score_catalog or settings.score_catalog,
        # The page may start a game on a map kept beside the settings file, and on no
        # other file of this machine (the command line names any).
        page_files=settings.path.parent,
    )
    # Everything the command line and settings name is checked before the service opens
    # the log: a refused start must not leave a new, empty game behind (resume and replay
    # would open it by default).
    camera = args.camera if args.camera is not None else settings.camera
    profile = args.profile or settings.profile
    camera_parts = None
    if camera:
        from companion import games
        from companion.camera_setup import camera_parts as make_camera_parts

        camera_parts = make_camera_parts(camera, games.find(rules.name), profile)
    egg = args.egg if args.egg is not None else settings.egg
    colours = None
    if egg and profile:
        from companion.inputs.egg_colours import load_egg_colours

        colours = load_egg_colours(profile)
    pins = None
    if args.buttons or settings.buttons_enabled:
        from companion.inputs.buttons import ButtonPins

        pins = ButtonPins.from_mapping(settings.buttons)
    service = bound_service(opts)  # the port is bound before the game is opened or made
    try:
        notes = _parts(service, settings, camera, camera_parts, egg, colours, pins)
        if args.profile and not camera and not egg:
            # A profile named here and never read would leave a bad one unnoticed until
            # the camera is plugged in: say so where the start is reported.
            notes.append(f"--profile {args.profile} was not read: it holds the colours for "
                         "the camera and the egg (give --camera or --egg)")
        url = service.start()
    except BaseException:
        service.stop()  # the socket and the log, whichever part failed
        raise
    print(banner(service, "; ".join(notes)), flush=True)
    del url
    run_until_interrupted(service.stop)
    return 0


def _parts(service, settings, camera, camera_parts, egg, colours, pins) -> list[str]:
    """Add the camera loop, egg and buttons to ``service``; what to say of each."""
    notes = []
    if camera_parts is not None:
        from companion.camera_setup import loop_for
        from companion.frames import CaptureSource

        if isinstance(camera_parts[0], CaptureSource):  # a webcam or stream, retried
            camera_parts[0].unreachable.listener = _say_camera_unreachable
        service.set_camera(loop_for(*camera_parts, service.referee, settings))
        notes.append(f"camera: {camera}")
    if egg:
        from companion.inputs.egg import EggLink

        link = EggLink(None if egg == "auto" else egg, colours=colours,
                       on_unreachable=_say_egg_unreachable)
        link.source_name = "egg"
        service.add_source(link)
        notes.append(f"egg: {egg}")
    if pins is not None:
        from companion.inputs.buttons import ButtonPanel

        panel = ButtonPanel.open(pins)
        panel.source_name = "buttons"
        service.add_source(panel)
        service.referee.on_change(lambda _reason: _leds(panel, service))
        notes.append(f"buttons: {panel.status().message}")
    return notes


def _say_egg_unreachable(why: str) -> None:
    # Once each time the egg is lost or not found: the service keeps trying (it must live
    # through an unplugged egg), and the terminal says why it waits, not only the page.
    print(f"companion serve: the egg is not connected ({why}); still trying", file=sys.stderr,
          flush=True)


def _say_camera_unreachable(why: str) -> None:
    # Once each time the camera cannot be opened or is lost, in the program's own words
    # beside OpenCV's: the loop keeps trying, so a camera plugged in later is read.
    print(f"companion serve: {why}", file=sys.stderr, flush=True)


def _leds(panel, service) -> None:
    r = service.referee
    panel.show_problem(bool(r.problems))
    # Waiting: the game waits for the egg or dice, or for the players to accept a reading.
    panel.show_waiting(r.rules.chance(r.state) is not None or r.proposal is not None)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the live referee and its web page",
                       description="Referee a game at the table: the web page, and the camera, "
                       "egg-shaker and buttons where given. Settings come from the settings "
                       "file ('companion settings'); options here override them.")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the "
                   "home network, then changes need the printed pass-phrase)")
    p.add_argument("--port", type=int, help="port (default 8080; 0 picks a free one)")
    p.add_argument("--camera", metavar="SRC", help="webcam index, device, stream URL, video file "
                   "or folder of images")
    p.add_argument("--profile", metavar="FILE", help="colour profile from 'companion calibrate'")
    p.add_argument("--score-profile", metavar="FILE",
                   help="colour profile of your PeltaPeeps pieces, for the score-sheet page")
    p.add_argument("--score-catalog", metavar="FILE",
                   help="your PeltaPeeps set (catalog JSON), offered on the score-sheet page")
    p.add_argument("--egg", metavar="PORT", help="the egg-shaker's serial port, or 'auto'")
    p.add_argument("--buttons", action="store_true", help="use the Raspberry Pi buttons and LEDs")
    p.add_argument("--log", type=Path, metavar="FILE", help="the game log")
    p.add_argument("--settings", type=Path, metavar="FILE", help="settings file to use")
    add_game_args(p)
    p.add_argument("--new", action="store_true", help="start a new game even if one is "
                   "unfinished (without it, the latest unfinished game of this kind goes on, "
                   "and --players or game options other than its own are refused)")
    p.set_defaults(func=run)
