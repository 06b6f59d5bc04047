"""Build the camera loop for ``companion serve``: source, profile, the game's reader, overlay.

The reader is the one the game's bundle names (:attr:`companion.games.Game.reader`),
imported here, on use, so that the rules commands never load OpenCV. A reader with a
``learn(frame, place, truth)`` method is sent every correction made on the page, with
the frame it corrects (through the camera loop, on its thread); one with an
``expect(table)`` method is told the game's state before each read.
"""

from __future__ import annotations

from typing import Any

from calibration.profile import ProfileError, load_profile
from companion import games
from companion.camera_loop import CameraLoop
from companion.errors import UserError
from companion.frames import FrameSource, open_source
from companion.referee import Referee
from companion.settings import Settings
from vision.errors import VisionError


def load_optional_profile(profile_path: str) -> Any:
    if not profile_path:
        return None
    try:
        return load_profile(profile_path)
    except ProfileError as e:
        raise UserError(str(e)) from e


def make_reader(game: games.Game, profile: Any) -> Any:
    """The game's camera reader for ``profile`` (None: what it can read without colours)."""
    if game.reader is None:
        raise UserError(f"{game.title} has no camera reader; play it without --camera")
    try:
        return games.load(game.reader)(profile)
    except VisionError as e:  # a missing model stops the service at start, not at a frame
        raise UserError(str(e)) from e


def camera_parts(spec: str, game: games.Game, profile_path: str) -> tuple[FrameSource, Any]:
    """The frame source ``spec`` names and ``game``'s reader: UserError for a bad --camera, a
    bad profile or a missing model. Nothing is opened yet, so it may come before the game."""
    reader = make_reader(game, load_optional_profile(profile_path))
    return open_source(spec), reader


def camera_loop(spec: str, referee: Referee, profile_path: str, settings: Settings
                ) -> CameraLoop:
    source, reader = camera_parts(spec, referee.bundle, profile_path)
    return loop_for(source, reader, referee, settings)


def loop_for(source: FrameSource, reader: Any, referee: Referee, settings: Settings
             ) -> CameraLoop:
    """The camera loop reading ``source`` with ``reader`` into ``referee``'s game."""
    loop = CameraLoop(source, reader.detect, referee, fps=settings.fps,
                      still_s=settings.stable_seconds, threshold=settings.motion_threshold,
                      annotate=reader.annotate)
    expect = getattr(reader, "expect", None)
    if callable(expect):  # a reader that compares each frame with the game's state
        loop.expect = expect
    learn = getattr(reader, "learn", None)
    if callable(learn):  # a reader that learns this table from the page's corrections
        loop.learn = learn
        referee.on_correction(loop.correction)
    return loop
