"""The calibration profile: players' colour models and, optionally, camera intrinsics.

A JSON file with ``"version": 1``. A profile of another version is refused with
one clear message rather than misread; a later version will say how to migrate.
Keys this module does not read (the egg's colour references, written by
``companion calibrate-egg``) are kept as they are through a load and a save.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.colour import ColourModel, PlayerColours
from companion.errors import PATH_ECHO, clipped, json_kind, quoted
from companion.profile_file import ProfileFileError, read_profile_json
from vision.lens import Intrinsics

PROFILE_VERSION = 1
_OWN_KEYS = ("version", "players", "colours", "camera", "notes")


class ProfileError(ValueError):
    """A profile that cannot be used; the message says what to do."""


@dataclass
class Profile:
    players: list[str] = field(default_factory=list)
    colours: dict[str, PlayerColours] = field(default_factory=dict)
    intrinsics: Intrinsics | None = None
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # other programs' keys, kept as read
    # The file it was read from (not written into it): where its learned examples are kept.
    source: Path | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict:
        data: dict = {
            **{k: v for k, v in self.extra.items() if k not in _OWN_KEYS},
            "version": PROFILE_VERSION,
            "players": list(self.players),
            "colours": {
                key: {"bean": c.bean.to_json(),
                      **({"peep": c.peep.to_json()} if c.peep is not None else {})}
                for key, c in self.colours.items()
            },
        }
        if self.intrinsics is not None:
            data["camera"] = self.intrinsics.to_json()
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    @staticmethod
    def from_json(data: object, source: str = "the profile", check_homes: bool = True) -> Profile:
        if not isinstance(data, dict):
            raise ProfileError(f"{source} is not a calibration profile (expected a JSON object)")
        version = data.get("version")
        if type(version) is not int:  # not "1", not true: JSON's number, as written
            raise ProfileError(
                f"{source} has \"version\": {clipped(json.dumps(version))}, not the number "
                f"{PROFILE_VERSION}: run companion calibrate again to make a new one"
            )
        if version != PROFILE_VERSION:
            raise ProfileError(
                f"{source} is a version {quoted(version)} profile; this program reads version "
                f"{PROFILE_VERSION}: run companion calibrate again to make a new one"
            )
        try:
            players = [str(p) for p in data.get("players", [])]
            colours = {
                key: PlayerColours(
                    ColourModel.from_json(c["bean"]),
                    ColourModel.from_json(c["peep"]) if "peep" in c else None,
                )
                for key, c in data.get("colours", {}).items()
            }
            camera = data.get("camera")
            intrinsics = Intrinsics.from_json(camera) if camera else None
            notes = [str(n) for n in data.get("notes", [])]
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ProfileError(
                f"{source} is damaged ({clipped(str(e), 120)}): run companion calibrate again to "
                "make a new one"
            ) from e
        lacking = [p for p in players if p not in colours]
        if lacking:
            raise ProfileError(
                f"{source} names the player {quoted(lacking[0])} but has no colours for them: run "
                "companion calibrate again with every player's beans on the card"
            )
        extra = {k: v for k, v in data.items() if k not in _OWN_KEYS}
        if check_homes and "homes" in extra:
            _check_homes(extra["homes"], players or list(colours), source)
        return Profile(players, colours, intrinsics, notes, extra)


PETRI_TIPS = 6  # a Petri board's homes are its tips 0-5


def _check_homes(homes: object, players: list[str], source: str) -> None:
    """Refuse a ``homes`` key that ``--home PLAYER=K`` could not have written: a Petri reader
    would turn the board by it, or fail mid-read, so it is caught once, where it is read."""
    def bad(why: str) -> ProfileError:
        return ProfileError(
            f"{source}: its \"homes\" {why}; homes map each player to a tip 0-5 of the board, "
            "one each: run companion calibrate again with --home PLAYER=K")

    if not isinstance(homes, dict):
        raise bad(f"is {json_kind(homes)}, not an object like {{\"red\": 0, \"blue\": 3}}")
    for player, tip in homes.items():
        if player not in players:
            raise bad(f"names {quoted(player)}, who is not one of the players "
                      f"({clipped(', '.join(players))})")
        # JSON's whole number, as calibrate writes it: not "3", not 3.0, not true.
        if type(tip) is not int or not 0 <= tip < PETRI_TIPS:
            raise bad(f"gives {player} the home {clipped(json.dumps(tip))}")
    if len(set(homes.values())) != len(homes):
        raise bad("gives two players the same home")


def load_profile(path: str | Path, check_homes: bool = True) -> Profile:
    """The profile in ``path``; ``check_homes=False`` reads one whose Petri homes are damaged,
    for a command that replaces them (calibrate), so the rest of it is kept."""
    p = Path(path)
    try:
        data = read_profile_json(p, "run companion calibrate again to make a new one")
    except ProfileFileError as e:
        # The camera's commands name what to make or give instead; the rest is said as read.
        shown = clipped(str(p), PATH_ECHO)  # the path as given, which may be any text
        if e.fault == "missing":
            message = (f"profile {shown} not found: make one with companion calibrate "
                       "(or calibrate-camera)")
        elif e.fault == "not text":
            message = (f"profile {shown} is not a profile (not text: a photo given as the "
                       "profile?); a profile is the JSON file companion calibrate writes")
        else:
            message = str(e)
        raise ProfileError(message) from None
    profile = Profile.from_json(data, f"profile {p}", check_homes)
    profile.source = p
    return profile


def save_profile(profile: Profile, path: str | Path) -> None:
    p = Path(path)
    try:
        p.write_text(json.dumps(profile.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError as e:
        raise ProfileError(f"profile {p} cannot be written ({e.strerror})") from None
