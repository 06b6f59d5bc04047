"""The demo's camera: the scripted table rendered as a photo and read back by the vision pipeline.

Each time the scripted players change the table, the renderer draws it (tiles,
beans, peeps, Supply Centers, a slightly tilted camera), the same detector that
reads a real webcam reads the picture, and the referee rules on what it read.
If the reading does not fit the game, the demo does what players at the table
would do after seeing the problem on the page: it puts the true reading in, so
the game goes on, and counts the misreading.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np

from companion.camera_setup import make_detector
from companion.inputs.source import SourceStatus
from companion.referee import Referee
from companion.rules.peepwar import PeepWarState
from companion.rules.peepwar.inference import expected_observation
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from web.app import Camera

FAMILY_NAMES = ("red", "orange", "yellow", "green", "blue", "purple")


class RenderedCamera(Camera):
    """Renders the scripted table, reads it like a webcam frame, and serves the view."""

    def __init__(self, referee: Referee, players: list[str], seed: int = 0,
                 size: tuple[int, int] = (1280, 720)) -> None:
        unknown = [p for p in players if p not in FAMILY_NAMES]
        if unknown:
            raise ValueError(f"the demo renders players named {', '.join(FAMILY_NAMES)}")
        self.referee = referee
        self.colours = families_colours(list(players))
        self.detect, self.annotate = make_detector(profile_for_colours(self.colours, seed))
        self.seed = seed
        self.size = size
        self.frames = 0
        self.misreads = 0
        self._jpeg: bytes | None = None
        self._lock = threading.Lock()
        referee.set_camera(SourceStatus("on", "demo camera: the scripted table, rendered"))

    def latest_jpeg(self) -> bytes | None:
        return self._jpeg

    def show(self, table: PeepWarState) -> None:
        """The table now holds ``table``: photograph it and let the referee read it."""
        rules = self.referee.rules
        with self._lock:
            self.frames += 1
            scene = render_state(rules.state_to_dict(table), self.colours,
                                 seed=self.seed * 100003 + self.frames, size=self.size)
            obs = self.detect(scene.frame)
            view = self.annotate(scene.frame, obs)
            ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(view),
                                   [cv2.IMWRITE_JPEG_QUALITY, 75])
            if ok:
                self._jpeg = buf.tobytes()
        result = self.referee.observe(obs)
        if result.verdict == "problem":
            self.misreads += 1
            self.referee.observe(expected_observation(table))
