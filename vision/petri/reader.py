"""Petri's camera reader, as the game's bundle names it: frame in, observation out.

``make_reader(profile)`` gives an object with ``read(frame)`` (the observation
JSON of table standard section 7, with confidences, warnings and timings),
``detect(frame)`` (the game's observation model) and ``annotate(frame, obs)``
(the holes found, drawn over the frame). The profile comes from ``companion
calibrate`` with one peg or marble of each player on the colour card; its
``homes`` (from ``--home PLAYER=K``) say which home of the board is whose. A reader
told the game's state before each read (``expect``, as the camera loop does) also
knows which way round a commercial board lies from the game's own pieces, and keeps
the turn it last told for frames that cannot tell it (:mod:`vision.petri.turn`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from vision.errors import VisionError
from vision.geometry import apply_h
from vision.petri.colours import piece_colours
from vision.petri.holes import HOLE_QR
from vision.petri.read import BoardView, prepare_table, read_board
from vision.petri.turn import tip_direction


class PetriReader:
    """Reads frames of one board with one profile; remembers the last board for overlays."""

    def __init__(self, profile: Any, homes: dict[str, int] | None = None) -> None:
        self.profile = profile
        extra = getattr(profile, "extra", {}) or {}
        white = extra.get("card_white")
        try:
            self.card_white = np.asarray(white, float).reshape(3) if white is not None else None
        except ValueError:
            raise VisionError("the profile's card_white is damaged: run companion calibrate "
                              "again") from None
        self.homes = dict(homes if homes is not None else extra.get("homes", {}) or {})
        if profile is None or not profile.colours:
            raise VisionError("Petri needs a profile with the players' colours: run companion "
                              "calibrate with a peg or marble of each player on the card")
        self.print_colours = piece_colours(profile, paper_white=True)
        self.plain_colours = piece_colours(profile, paper_white=False)
        self.table = prepare_table(self.plain_colours, self.card_white)
        self._view: BoardView | None = None
        self._states: dict[str, str] = {}
        self._game_board: dict[str, str] | None = None
        self._game_homes: dict[str, int] = {}
        self._carried: np.ndarray | None = None  # home 0's tip on screen, last told

    def expect(self, table: Mapping[str, Any] | None) -> None:
        """The game's state before the next read (``Petri.state_to_dict``: its ``board``
        and ``homes``), which tells which way round a commercial board lies; None forgets it.
        """
        board = (table or {}).get("board")
        homes = (table or {}).get("homes")
        self._game_board = dict(board) if isinstance(board, Mapping) else None
        self._game_homes = dict(homes) if isinstance(homes, Mapping) else {}

    def read(self, frame: np.ndarray) -> dict[str, Any]:
        """The observation JSON for one frame."""
        reading = read_board(frame, self.print_colours, self.card_white,
                             self._game_homes or self.homes, self.table, self.plain_colours,
                             self._game_board, self._carried)
        self._view = reading.view
        self._states = reading.states
        if reading.view is not None and reading.view.turn_from in ("game", "homes", "carried"):
            # The turn told from the pieces is kept for frames that cannot tell it.
            self._carried = tip_direction(reading.view.homography, 0)
        return reading.data

    def detect(self, frame: np.ndarray) -> Any:
        from companion import games

        return games.find("petri").parse_observation(self.read(frame))

    def annotate(self, frame: np.ndarray, obs: object = None) -> np.ndarray:
        """The frame with every hole found circled: green empty, white a piece, red hidden."""
        if self._view is None:
            return frame
        out = frame.copy()
        centres = apply_h(self._view.homography, HOLE_QR)
        step = np.linalg.norm(apply_h(self._view.homography, HOLE_QR + [1, 0]) - centres, axis=1)
        for (q, r), c, s in zip(HOLE_QR, centres, step, strict=True):
            state = self._states.get(f"{int(q)},{int(r)}", "?")
            colour = ((0, 200, 0) if state == "" else (0, 0, 230) if state == "?"
                      else (255, 255, 255))
            cv2.circle(out, (round(c[0] * 16), round(c[1] * 16)), round(0.4 * s * 16), colour, 2,
                       cv2.LINE_AA, 4)
        return out


def make_reader(profile: Any) -> PetriReader:
    """The reader for ``profile``; raises VisionError when it has no players' colours."""
    return PetriReader(profile)


__all__ = ["PetriReader", "make_reader"]
