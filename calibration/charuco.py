"""The ChArUco board for camera calibration: its definition and its printable image.

A separate dictionary (4x4) from the tiles' (5x5), so a board lying on the table
is never mistaken for tiles, and tiles never for the board.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

SQUARES = (6, 8)  # columns, rows: 150 x 200 mm, fits A4 and US Letter
SQUARE_MM = 25.0
MARKER_MM = 18.0


@cache
def board() -> cv2.aruco.CharucoBoard:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)
    return cv2.aruco.CharucoBoard(SQUARES, SQUARE_MM, MARKER_MM, d)


def board_size_mm() -> tuple[float, float]:
    return SQUARES[0] * SQUARE_MM, SQUARES[1] * SQUARE_MM


def board_image(px_per_mm: float) -> np.ndarray:
    """The board as a BGR image that is exactly the board, edge to edge."""
    w_mm, h_mm = board_size_mm()
    size = (round(w_mm * px_per_mm), round(h_mm * px_per_mm))
    gray = board().generateImage(size, marginSize=0, borderBits=1)
    return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
