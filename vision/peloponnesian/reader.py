"""A Peloponnesian War's camera reader, as the game's bundle names it: frame in, observation out.

``make_reader(profile)`` gives an object with ``read(frame)`` (the observation
JSON of table standard section 8, with warnings and timings), ``detect(frame)``
(the game's observation model) and ``annotate(frame, obs)`` (each area's box
drawn over the frame: green read, red occluded). The counters' colours and the
chits' codes are printed, so no colour profile is needed; a profile's ``map``
(from ``companion detect --map FILE``) names a group's own map.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.errors import VisionError
from vision.peloponnesian.layout import LayoutError, map_layout
from vision.peloponnesian.read import MapView, read_map


class PeloReader:
    """Reads frames of one printed map; remembers the last reading for overlays."""

    def __init__(self, profile: Any = None, map_source: Any = None) -> None:
        extra = getattr(profile, "extra", {}) or {}
        source = map_source if map_source is not None else extra.get("map") or None
        try:
            self.layout = map_layout(source)
        except (LayoutError, ValueError) as e:
            raise VisionError(str(e)) from None
        self._view: MapView | None = None
        self._states: dict[str, str] = {}

    def read(self, frame: np.ndarray) -> dict[str, Any]:
        """The observation JSON for one frame."""
        reading = read_map(frame, self.layout)
        self._view = reading.view
        self._states = reading.states
        return reading.data

    def detect(self, frame: np.ndarray) -> Any:
        from companion import games

        return games.find("peloponnesian").parse_observation(self.read(frame))

    def annotate(self, frame: np.ndarray, obs: object = None) -> np.ndarray:
        """The frame with every area's box outlined: green read, red occluded."""
        if self._view is None:
            return frame
        out = frame.copy()
        for aid, box in self.layout.areas.items():
            pts = cv2.perspectiveTransform(np.array([box.polygon], np.float64),
                                           self._view.homography)[0]
            colour = (0, 0, 230) if self._states.get(aid) == "occluded" else (0, 200, 0)
            cv2.polylines(out, [np.round(pts * 16).astype(np.int32)], True, colour, 2,
                          cv2.LINE_AA, 4)
        return out


def make_reader(profile: Any) -> PeloReader:
    """The reader for ``profile`` (None is fine: the pieces' colours are printed)."""
    return PeloReader(profile)


__all__ = ["PeloReader", "make_reader"]
