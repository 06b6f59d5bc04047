"""``companion serve``: the live referee with the table page, camera, egg and buttons."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.cli.game_options import add_game_args
from companion.cli.games import rules_from_args
from companion.errors import UserError


def run(args: argparse.Namespace) -> int:
    # The service brings the web server, OpenCV and Flask: loaded only to serve.
    from companion.service import Service, ServiceOptions, banner, run_until_interrupted
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
        auto_accept=settings.auto_accept,
        score_profile=args.score_profile or settings.score_profile,
        score_catalog=args.score_catalog or settings.score_catalog,
    )
    camera = args.camera if args.camera is not None else settings.camera
    profile = args.profile or settings.profile
    if camera and profile:
        from calibration.profile import ProfileError, load_profile

        try:  # before the game log is opened: a bad profile changes nothing
            load_profile(profile)
        except ProfileError as e:
            raise UserError(str(e)) from None
    service = Service(opts)
    notes = []
    if camera:
        from companion.camera_setup import camera_loop

        service.set_camera(camera_loop(camera, service.referee, profile, settings))
        notes.append(f"camera: {camera}")
    egg = args.egg if args.egg is not None else settings.egg
    if egg:
        from companion.inputs.egg import EggLink
        from companion.inputs.egg_colours import egg_colours_from_profile

        profile_path = args.profile or settings.profile
        colours = None
        if profile_path:
            try:
                colours = egg_colours_from_profile(json.loads(Path(profile_path).read_text()))
            except (OSError, ValueError, KeyError) as e:
                raise UserError(f"cannot read the egg colours from {profile_path}: {e}") from e
        link = EggLink(None if egg == "auto" else egg, colours=colours)
        link.source_name = "egg"
        service.add_source(link)
        notes.append(f"egg: {egg}")
    if args.buttons or settings.buttons_enabled:
        from companion.inputs.buttons import ButtonPanel, ButtonPins

        panel = ButtonPanel.open(ButtonPins.from_mapping(settings.buttons))
        panel.source_name = "buttons"
        service.add_source(panel)
        service.referee.on_change(lambda _reason: _leds(panel, service))
        notes.append(f"buttons: {panel.status().message}")
    url = service.start()
    print(banner(service, "; ".join(notes)), flush=True)
    del url
    run_until_interrupted(service.stop)
    return 0


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
    p.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    p.set_defaults(func=run)
