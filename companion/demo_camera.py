"""The demo's camera: the scripted table rendered as a photo and read back by the game's reader.

Each time the scripted players change the table, the game's demo renderer
(its bundle's ``demo_camera``) draws it, the same reader that reads a real
webcam reads the picture, and the referee rules on what it read, as it would
live: a misreading is flagged on the page for the players to fix, and counted
in the camera's status (the scripted players then fix it as players would, by
putting the true reading in).
"""

from __future__ import annotations

import threading
from typing import Any

import cv2
import numpy as np

from companion import games
from companion.camera_setup import make_reader
from companion.inputs.source import SourceStatus
from companion.referee import Referee

MISREAD_SHOWN_S = 1.5  # how long the page shows a misreading before the players fix it


class RenderedCamera:
    """Renders the scripted table, reads it like a webcam frame, and serves the view."""

    def __init__(self, referee: Referee, players: list[str], seed: int = 0,
                 fix_after_s: float = MISREAD_SHOWN_S) -> None:
        bundle = referee.bundle
        if bundle.demo_camera is None:
            raise ValueError(f"{bundle.title} has no demo camera")
        self.referee = referee
        self.scene = games.load(bundle.demo_camera)(list(players), seed)
        self.reader = make_reader(bundle, self.scene.profile)
        expect = getattr(self.reader, "expect", None)
        self._expect = expect if callable(expect) else None  # as the live camera loop does
        self.fix_after_s = fix_after_s
        self.frames = 0
        self._jpeg: bytes | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        referee.set_camera(SourceStatus("on", "demo camera: the scripted table, rendered"))

    def latest_jpeg(self) -> bytes | None:
        return self._jpeg

    def debug_files(self) -> dict[str, bytes]:
        return {}

    def stop(self) -> None:
        self._stop.set()

    def show(self, table: Any) -> None:
        """The table now holds ``table``: photograph it and let the referee read it."""
        ref = self.referee
        with self._lock:
            self.frames += 1
            frame = self.scene.render(ref.rules.state_to_dict(table), self.frames)
            if self._expect is not None:
                self._expect(ref.table())  # the game before this move, as the referee has it
            obs = self.reader.detect(frame)
            view = self.reader.annotate(frame, obs)
            ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(view),
                                   [cv2.IMWRITE_JPEG_QUALITY, 75])
            if ok:
                self._jpeg = buf.tobytes()
        result = ref.observe(obs)
        if result.verdict == "problem" or ref.problems:
            # The page shows the misreading; then the players put the truth in, as they would.
            if self._stop.wait(self.fix_after_s):
                return
            truth = ref.bundle.expected_observation(ref.rules, table)
            if truth is not None:
                ref.observe(truth)
