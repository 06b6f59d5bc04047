"""Thick counters under a tilted camera: their tops are seen beyond their spots, away from
the camera, and the reader fits how thick the frame's counters are (real NumPy and OpenCV
on a box's picture, no rendering)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.peloponnesian.layout import COUNTER_MM, COUNTER_ROW_Y, COUNTER_XS, map_layout
from vision.peloponnesian.read import (
    RECT_PPM,
    AreaPixels,
    PrintInk,
    counter_height,
    counter_lift,
    read_area,
)
from vision.viewpoint import CameraAbove

LAY = map_layout(None)
AREA = "attica"
# A camera 300 mm up, its nadir 300 mm below the area: tilted well away from straight down.
CAMERA = CameraAbove((LAY.areas[AREA].box[0] + 31.0, LAY.areas[AREA].box[1] + 300.0), 300.0)


def _box_shape() -> tuple[int, int]:
    x0, y0, x1, y1 = (round(c * RECT_PPM) for c in LAY.areas[AREA].box)
    return y1 - y0, x1 - x0


def _pixels(spots: list[int], height_mm: float) -> AreaPixels:
    """A box whose Athens counters sit on ``spots``, ``height_mm`` thick, seen by CAMERA:
    each a square of Athens' colour where its top face shows."""
    h, w = _box_shape()
    mask = np.zeros((h, w), np.uint8)
    lift = counter_lift(CAMERA, LAY.areas[AREA].box, height_mm)
    half = COUNTER_MM / 2 * RECT_PPM
    for k in spots:
        cx = COUNTER_XS[k] * RECT_PPM - 0.5 + lift[k][0]
        cy = COUNTER_ROW_Y * RECT_PPM - 0.5 + lift[k][1]
        mask[max(round(cy - half), 0):round(cy + half), round(cx - half):round(cx + half)] = 1
    v = np.ones((h, w), np.float32)
    sat = np.zeros((h, w), np.float32)
    return AreaPixels(v, sat, mask.astype(bool), {"athens": mask})


def _ink() -> PrintInk:
    x0, y0, x1, y1 = (round(c * RECT_PPM) for c in LAY.areas[AREA].box)
    blank = np.zeros((y1 + 10, x1 + 10), np.uint8)
    return PrintInk(blank, blank, blank.astype(np.float32))


@pytest.mark.parametrize("height", [0.0, 2.0, 5.0])
def test_the_frame_is_fitted_to_its_counters_thickness(height: float) -> None:
    # Within a millimetre: a ring lies 0.8 mm inside its counter's edge, so lifts that near
    # fit the colour alike (and the thinner is taken).
    assert abs(counter_height(CAMERA, LAY, {AREA: _pixels([0, 1], height)}) - height) <= 1.0


def test_rings_lifted_out_of_the_box_count_nothing() -> None:
    # A camera low and far off (a steep view): the thicker fits' rings leave the box
    # altogether. They hold no colour; the counters on their spots still fit.
    far = CameraAbove((LAY.areas[AREA].box[0] + 31.0, LAY.areas[AREA].box[1] + 2000.0), 60.0)
    assert counter_lift(far, LAY.areas[AREA].box, 5.0)[0][1] < -2 * _box_shape()[0]
    assert counter_height(far, LAY, {AREA: _pixels([0, 1], 0.0)}) == 0.0


def test_no_camera_pose_or_no_counter_fits_no_thickness() -> None:
    assert counter_height(None, LAY, {AREA: _pixels([0, 1], 4.0)}) == 0.0
    h, w = _box_shape()
    empty = AreaPixels(np.ones((h, w), np.float32), np.zeros((h, w), np.float32),
                       np.zeros((h, w), bool), {})
    assert counter_height(CAMERA, LAY, {AREA: empty}) == 0.0


def test_thick_counters_are_counted_on_their_spots_once_lifted() -> None:
    # 5 mm thick, seen from this camera: tops about 5 mm beyond the spots, partly off the
    # rings and into the off-spot area, which is counted by area and doubted.
    pixels = _pixels([0, 1], 5.0)
    box = tuple(round(c * RECT_PPM) for c in LAY.areas[AREA].box)
    white = np.ones(3, np.float32)
    flat = read_area(np.zeros((1, 1, 3), np.uint8), _ink(), box, LAY, AREA, white,
                     pixels=pixels)
    assert flat.get("counters") != {"athens": 2} or flat.get("confidence", 1.0) < 0.5
    lifted = read_area(np.zeros((1, 1, 3), np.uint8), _ink(), box, LAY, AREA, white,
                       lift=counter_lift(CAMERA, LAY.areas[AREA].box, 5.0), pixels=pixels)
    assert lifted == {"counters": {"athens": 2}}
