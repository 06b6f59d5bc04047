"""Cells the frame does not wholly show: both generators' truth says how much of each lies
beyond the frame, and the pieces benchmark lets such a cell be read occluded (the reader
reads no cell it cannot see whole)."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.geometry import along_sides, apply_h, share_outside
from vision.lens import distort_points
from vision.render.game_scene import GameSpec, flavour_cutouts, render_game

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = ROOT / ".." / "shared" / "photos" / "jellybeans"
sys.path.insert(0, str(ROOT / "bench"))

from vision_pieces import cell_ok  # noqa: E402


def _raster_outside(px: np.ndarray, size: tuple[int, int]) -> float:
    """The share of polygon ``px`` beyond a frame of ``size``, counted in pixels on a
    canvas that holds the whole polygon (an estimate made another way)."""
    pad = 1500
    w, h = size
    canvas = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.fillPoly(canvas, [np.round((px + pad) * 8).astype(np.int32)], 1, cv2.LINE_8, 3)
    return 1.0 - int(canvas[pad:pad + h, pad:pad + w].sum()) / int(canvas.sum())


def test_a_polygon_half_beyond_the_frame_is_half_outside():
    square = np.array([[-50.5, 10.0], [49.5, 10.0], [49.5, 60.0], [-50.5, 60.0]])
    assert share_outside(square, (640, 480)) == pytest.approx(0.5)
    assert share_outside(square + (200, 0), (640, 480)) == 0.0
    assert share_outside(square - (500, 0), (640, 480)) == 1.0


def test_the_2d_truth_lists_each_cell_the_frame_cuts_and_how_much():
    cut = flavour_cutouts(str(PHOTOS.resolve()))
    cut_cells = 0
    for seed in (43, 82, 341):
        scene = render_game(seed, GameSpec(), cut)
        cam = scene.truth.camera
        for name, poly in scene.truth.cell_corners_mm.items():
            px = distort_points(apply_h(cam.homography, along_sides(poly, 32)),
                                cam.camera_matrix, cam.dist_coeffs)
            want = _raster_outside(px, cam.size)
            got = scene.truth.out_of_frame.get(name, 0.0)
            assert got == pytest.approx(want, abs=0.02), (seed, name)
            cut_cells += got > 0.05
    assert cut_cells >= 3


def test_a_cell_the_frame_cuts_may_be_read_occluded_and_no_other():
    red = (False, (("red", 2, False),))
    assert cell_ok(red, ("occluded",), 0.0, 0.2)
    assert cell_ok(red, red, 0.0, 0.2)
    assert not cell_ok(red, None, 0.0, 0.2)  # read, it must be read right
    assert not cell_ok(red, ("occluded",), 0.0, 0.0)  # wholly shown, no hand: read it


def test_the_3d_truth_measures_cells_beyond_the_frame_through_the_lens():
    """The path-traced generator frames the whole layout, so its cells are rarely cut; a
    camera aimed at one tile's edge cuts the layout in two, and each cell's share beyond
    the delivered frame (its sides bent by the lens) agrees with a count of pixels."""
    pytest.importorskip("mitsuba")
    from companion.rules.peepwar.board import cells_of
    from vision.render3d.camera import aim, table_to_world
    from vision.render3d.content import random_layout
    from vision.render3d.game import TILE_THICKNESS_MM, _out_of_frame
    from vision.render3d.sensor import distort_px

    layout = random_layout(np.random.default_rng(3), 4, 3)
    edge = np.array([layout.tiles[0].pose.x + 90.0, layout.tiles[0].pose.y, 0.0])
    size = (640, 360)
    cam = aim(edge, 20.0, 0.0, 0.0, 700.0, 60.0, size)
    for k1 in (-0.2, 0.0, 0.04):
        out = _out_of_frame(layout, cam, k1, 0.0)
        assert any(0.05 < v < 0.95 for v in out.values())
        for t in layout.tiles:
            for name in cells_of(t.hex):
                dense = along_sides(t.cell_outline(name), 32)
                px = distort_px(cam.project(table_to_world(dense, TILE_THICKNESS_MM)), size,
                                k1, 0.0, cam.focal_px)
                want = _raster_outside(px, size)
                assert out.get(name, 0.0) == pytest.approx(want, abs=0.03), (k1, name)
