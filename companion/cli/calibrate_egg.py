"""``companion calibrate-egg``: the egg's colour references, one bean per player read at its mouth.

The egg's sensor sees beans nothing like the camera does, so it keeps its own
references (see ``companion/inputs/egg_colours.py``) under the ``egg`` key of
the colour profile. This command connects to the egg, asks for each player's
bean in turn, and writes that key, keeping everything else in the profile.
No keyboard is needed: the egg itself notices each bean, so the prompts can
be followed by a person at the table or by a script watching the output.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.cli.game_options import seconds
from companion.errors import PATH_ECHO, UserError, clipped, quoted

if TYPE_CHECKING:
    from companion.inputs.egg import EggLink

CONNECT_TIMEOUT = 10.0  # seconds to find the egg and hear its hello
MAX_SAMPLES = 10


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``calibrate-egg``."""
    parser = subparsers.add_parser(
        "calibrate-egg",
        help="the egg-shaker's colour references: one bean per player at its mouth",
        description="Connect to the egg-shaker and read one bean of each player, in the order "
        "of --players, with its colour sensor; the references go into the profile's egg key "
        "(the rest of the profile is kept). Refuses colours the sensor cannot tell apart.",
    )
    parser.add_argument("--port", default="auto", metavar="PORT",
                        help="the egg's serial port, or 'auto' to find it by USB id (default)")
    parser.add_argument("--players", metavar="KEY1,KEY2,...", help="player keys, e.g. red,blue")
    parser.add_argument("--profile", metavar="PROFILE.json",
                        help="colour profile to store the references in (made if missing)")
    parser.add_argument("--samples", type=int, default=1, metavar="N",
                        help=f"beans to read per player, 1-{MAX_SAMPLES} (default 1); their "
                        "average is the reference and their scatter is checked")
    parser.add_argument("--timeout", type=seconds, default=60.0, metavar="S",
                        help="seconds to wait for each bean (default 60)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.cli.calibrate import parse_keys
    from companion.inputs.egg import EggLink
    from companion.inputs.egg_colours import bean_readings, calibrate_egg, with_egg_colours

    if not args.players or not args.profile:
        raise UserError("calibrate-egg needs --players KEY1,KEY2,... and --profile PROFILE.json")
    keys = parse_keys(args.players)
    if not 1 <= args.samples <= MAX_SAMPLES:
        raise UserError(f"--samples must be 1 to {MAX_SAMPLES}, not {quoted(args.samples)}")
    path = Path(args.profile)
    profile = read_profile(path, keys)  # before the egg: a bad file should not waste the beans

    events: queue.Queue[Any] = queue.Queue()
    link = EggLink(args.port, port_option="--port PORT")
    link.start(events.put)
    try:
        connect(link, events)
        link.set_led("blink")  # "I am listening"
        _drain(events)  # a bean read before the first prompt is nobody's
        readings = bean_readings(events, _say_link_news)
        colours = calibrate_egg(keys, readings, say, samples=args.samples,
                                timeout=args.timeout)
        link.set_led("on")
    finally:
        link.stop()
    write_profile(path, with_egg_colours(profile, colours))
    print(f"egg colours of {', '.join(keys)} written to {path} (the rest of the profile kept)")
    return 0


def say(text: str) -> None:
    print(text, flush=True)


def read_profile(path: Path, players: list[str]) -> dict[str, Any]:
    """The profile as it is on disk, every key kept; a new one if there is none."""
    from calibration.profile import PROFILE_VERSION
    from companion.profile_file import read_profile_json

    if not path.exists():
        return {"version": PROFILE_VERSION, "players": players, "colours": {}}
    data = read_profile_json(path, "fix it, or give another --profile (a missing one is made)")
    if not isinstance(data, dict) or data.get("version") != PROFILE_VERSION:
        raise UserError(f"{path} is not a version {PROFILE_VERSION} colour profile: give the "
                        "one companion calibrate wrote, or a new file name")
    return data


def write_profile(path: Path, data: dict[str, Any]) -> None:
    """Write all of ``data`` at once: a crash midway leaves the old file, never half a file.

    It goes first to a file beside it with a short name of its own (the profile's name with
    more added could pass the system's limit of 255 bytes where the name itself does not),
    which is removed if it cannot be put in place."""
    text = json.dumps(data, indent=2) + "\n"
    tmp = path.with_name(f".companion-egg-profile-{os.getpid()}.part")
    try:
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
    except OSError as e:
        raise UserError(f"profile {clipped(str(path), PATH_ECHO)} cannot be written "
                        f"({e.strerror})") from None


def connect(link: EggLink, events: queue.Queue[Any], timeout: float | None = None) -> None:
    """Wait until the egg has said hello and has a colour sensor; UserError with why not."""
    from companion.inputs import events as ev

    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    end = time.monotonic() + timeout
    said = ""
    while (left := end - time.monotonic()) > 0:
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            break
        if event.kind == ev.DEVICE_STATUS:
            state, message = event.data["state"], event.data["message"]
            if state == "connected":
                break
            if state == "error":
                raise UserError(f"cannot use the egg: {message}")
            if link.open_failure is not None:  # no such device, a folder, a file: no use waiting
                raise UserError(f"{link.open_failure}; plug the egg in and check --port, or "
                                "give --port auto to find it by its USB id")
            if message != said:
                print(f"waiting for the egg: {message}", file=sys.stderr, flush=True)
                said = message
    status = link.status()
    if status.state != "connected":
        raise UserError(f"the egg did not answer within {timeout:g} s: {status.message}")
    caps = link.hello.get("capabilities", [])
    if "tcs34725" not in caps:
        raise UserError(f"the egg has no working colour sensor (it has {'+'.join(caps)}): check "
                        "the TCS34725's wiring (docs/hardware.md), then try again")
    say(status.message)


def _say_link_news(event: Any) -> None:
    """What the egg reports while a bean is awaited: its status and its errors."""
    from companion.inputs import events as ev

    if event.kind in (ev.DEVICE_STATUS, ev.DEVICE_ERROR):
        print(f"egg: {event.data['message']}", file=sys.stderr, flush=True)


def _drain(events: queue.Queue[Any]) -> None:
    while True:
        try:
            events.get_nowait()
        except queue.Empty:
            return
