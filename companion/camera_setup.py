"""Build the camera loop for ``companion serve``: source, profile, detection, overlay.

The vision pipeline reads the tiles and, with a colour profile, the pieces in
every cell (:func:`vision.peepwar.table.read_table`). Without a profile (or one without
players' colours) the pieces cannot be read, so every cell is reported as
unknown (occluded) rather than empty: the camera then follows setup and the
hexes only, and the players report the rest on the page.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import ProfileError, load_profile
from companion.camera_loop import Annotate, CameraLoop, Detect
from companion.errors import UserError
from companion.frames import open_source
from companion.observation import Observation
from companion.referee import Referee
from companion.rules.peepwar.board import cells_of
from companion.settings import Settings
from vision.errors import VisionError
from vision.peepwar.cells import cell_outlines
from vision.peepwar.observation import observation
from vision.peepwar.table import prepare_reader, read_table_view
from vision.peepwar.tiles import TableView, find_tiles


def load_optional_profile(profile_path: str):
    if not profile_path:
        return None
    try:
        return load_profile(profile_path)
    except ProfileError as e:
        raise UserError(str(e)) from e


def make_detector(profile) -> tuple[Detect, Annotate]:
    """The frame-to-observation function for a profile (or none), and its overlay."""
    intrinsics = profile.intrinsics if profile else None
    if profile is not None:
        try:
            prepare_reader(profile)  # a missing model stops the service at start, not at a frame
        except VisionError as e:
            raise UserError(str(e)) from e
    last: dict[str, TableView] = {}

    def detect(frame: np.ndarray) -> Observation:
        if profile is not None and profile.colours:
            data, last["view"] = read_table_view(frame, profile)
            return Observation.from_dict(data)
        view = find_tiles(frame, intrinsics)
        last["view"] = view
        data = observation(view)
        data["cells"] = {c: {"occluded": True} for t in view.tiles for c in cells_of((t.q, t.r))}
        return Observation.from_dict(data)

    def annotate(frame: np.ndarray, obs: Observation | None) -> np.ndarray:
        view = last.get("view")
        if view is None or not view.tiles:
            return frame
        out = frame.copy()
        for outline in cell_outlines(view).values():
            pts = np.round(outline).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], True, (0, 200, 255), 2, cv2.LINE_AA)
        return out

    return detect, annotate


def camera_loop(spec: str, referee: Referee, profile_path: str, settings: Settings
                ) -> CameraLoop:
    source = open_source(spec)
    detect, annotate = make_detector(load_optional_profile(profile_path))
    return CameraLoop(source, detect, referee, fps=settings.fps, still_s=settings.stable_seconds,
                      threshold=settings.motion_threshold, annotate=annotate)
