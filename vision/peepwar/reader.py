"""Peep War's camera reader, as the game's bundle names it: frame in, observation out.

With a colour profile it reads the tiles and the pieces in every cell
(:func:`vision.peepwar.table.read_table_view`). Without one (or one without
players' colours) the pieces cannot be read, so every cell is reported as
unknown (occluded) rather than empty: the camera then follows setup and the
hexes only, and the players report the rest on the page.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from companion.rules.peepwar.board import cells_of
from companion.rules.peepwar.observation import PeepWarObservation
from vision.peepwar.cells import cell_outlines
from vision.peepwar.observation import observation
from vision.peepwar.table import prepare_reader, read_table_view
from vision.peepwar.tiles import TableView, find_tiles


class PeepWarReader:
    """Reads frames of one table with one profile; remembers the last geometry for overlays."""

    def __init__(self, profile: Any) -> None:
        self.profile = profile
        self.intrinsics = profile.intrinsics if profile else None
        if profile is not None:
            prepare_reader(profile)  # a missing model fails here, at start, not at a frame
        self._view: TableView | None = None

    def read(self, frame: np.ndarray) -> dict[str, Any]:
        """The observation JSON (table standard, section 4), with confidence and timings."""
        if self.profile is not None:  # without players' colours it says so, cells unknown
            data, self._view = read_table_view(frame, self.profile)
            return data
        view = find_tiles(frame, self.intrinsics)
        self._view = view
        data = observation(view)
        data["cells"] = {c: {"occluded": True} for t in view.tiles for c in cells_of((t.q, t.r))}
        return data

    def detect(self, frame: np.ndarray) -> PeepWarObservation:
        return PeepWarObservation.from_dict(self.read(frame))

    def annotate(self, frame: np.ndarray, obs: object = None) -> np.ndarray:
        """The frame with the cells found drawn over it (for the page's camera view)."""
        view = self._view
        if view is None or not view.tiles:
            return frame
        out = frame.copy()
        for outline in cell_outlines(view).values():
            pts = np.round(outline).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], True, (0, 200, 255), 2, cv2.LINE_AA)
        return out


def make_reader(profile: Any) -> PeepWarReader:
    """The reader for ``profile`` (None: tiles only); raises VisionError if its model is
    missing."""
    return PeepWarReader(profile)
