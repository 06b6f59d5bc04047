"""Pieces stand above the table: a tilted camera sees them beyond their feet.

The compositing renderer draws each piece where its height puts it under its own camera,
and frames the layout by aiming the camera (its principal point stays at the frame's
centre, as a webcam's does). The reader finds the camera's place from the tiles
(:mod:`vision.viewpoint`) and counts a bean in the cell under its foot, not under its
middle.
"""

from __future__ import annotations

import math
from functools import cache
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.rules.peepwar.board import cells_of
from vision.geometry import apply_h
from vision.peepwar.passes import peeps
from vision.peepwar.passes.assembly import CellRead
from vision.peepwar.passes.state import FrameState
from vision.peepwar.table import read_table
from vision.render.camera import Camera, look_at_homography, random_camera
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from vision.render.piece_layer import seen_middle_mm
from vision.viewpoint import CameraAbove

PLAYERS = ["red", "blue", "yellow"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"},
         {"q": 0, "r": 1, "owner": None}]
SIZE = (1280, 720)
K = np.array([[1000.0, 0, SIZE[0] / 2 - 0.5], [0, 1000.0, SIZE[1] / 2 - 0.5], [0, 0, 1]])
TILT_DEG = 35.0


@cache
def _profile():
    return profile_for_colours(families_colours(PLAYERS), seed=3)


def test_an_aimed_camera_keeps_its_principal_point_and_frames_the_layout():
    outline = np.array([[-200.0, -150], [250, -150], [250, 180], [-200, 180]])
    for seed in range(8):
        cropped = random_camera(np.random.default_rng(seed), outline, SIZE, 30.0, (0.8, 0.95))
        aimed = random_camera(np.random.default_rng(seed), outline, SIZE, 30.0, (0.8, 0.95),
                              aim=True)
        assert aimed.camera_matrix[:2, 2].tolist() == [SIZE[0] / 2 - 0.5, SIZE[1] / 2 - 0.5]
        img = apply_h(aimed.homography, outline)
        assert img.min() >= 0 and (img <= np.array(SIZE) - 1).all()
        # The same camera, turned rather than cropped: it stands in the same place.
        assert np.allclose(aimed.centre_mm(), cropped.centre_mm(), atol=1e-6)
    # A crop moves the principal point far off centre (what the reader cannot know).
    assert abs(cropped.camera_matrix[0, 2] - SIZE[0] / 2) > 5


def _scene(seed: int):
    """A random position of beans (no peeps) on three tiles, seen 35 degrees from straight
    down from a random side."""
    rng = np.random.default_rng(seed)
    cells = {}
    for t in TILES:
        for name in cells_of((t["q"], t["r"])):
            if rng.uniform() < 0.5:
                player = PLAYERS[rng.integers(3)]
                cells[name] = {"pieces": {player: {"troops": int(rng.integers(1, 5)),
                                                   "peep": False}}}
    h = look_at_homography(K, np.array([40.0, 60.0]), 480.0, math.radians(TILT_DEG),
                           math.radians(rng.uniform(0, 360)), 0.0)
    cam = Camera(h, K, np.zeros(5), SIZE, TILT_DEG, 0.0)
    return cells, render_state({"tiles": TILES, "cells": cells}, families_colours(PLAYERS),
                               seed, camera=cam, token_share=0.0)


def _inside(outline: np.ndarray, pt) -> bool:
    return cv2.pointPolygonTest(np.asarray(outline, np.float32).reshape(-1, 1, 2),
                                (float(pt[0]), float(pt[1])), False) > 0


@pytest.mark.parametrize("yaw", [0, 120, 240])
def test_the_renderer_draws_a_bean_beyond_its_foot(yaw):
    """Where a lone bean's colour shows is its middle, lifted, not its foot."""
    h = look_at_homography(K, np.array([0.0, 0.0]), 400.0, math.radians(45), math.radians(yaw),
                           0.0)
    cam = Camera(h, K, np.zeros(5), SIZE, 45.0, 0.0)
    state = {"tiles": TILES[:1], "cells": {"0,0/3": {"pieces": {"red": {"troops": 1}}}}}
    scene = render_state(state, families_colours(PLAYERS), 1, camera=cam)
    (bean,) = scene.truth.pieces
    foot = apply_h(h, np.array([bean["centre_mm"]]))[0]
    up = apply_h(h, np.array([seen_middle_mm(bean, cam.centre_mm())]))[0]
    assert np.linalg.norm(up - foot) > 4.0  # pixels: the lift is worth testing
    # The bean is the one thing of a player's colour, far from the paper's grey.
    x, y = np.round(foot).astype(int)
    box = scene.frame[y - 40:y + 41, x - 40:x + 41].astype(np.int16)
    ys, xs = np.nonzero(box.max(axis=2) - box.min(axis=2) > 60)
    at = np.array([xs.mean() + x - 40, ys.mean() + y - 40])
    assert np.linalg.norm(at - up) < 1.5 < np.linalg.norm(at - foot) - 2.0


# Scenes (chosen by the renderer's geometry alone) holding a bean whose middle is seen
# over a cell line from its foot.
CROSSING = [2, 6, 11, 12, 13, 20, 24, 36]


@pytest.mark.parametrize("seed", CROSSING)
def test_a_bean_seen_across_a_cell_line_is_counted_in_its_feet_cell(seed):
    cells, scene = _scene(seed)
    eye = scene.truth.camera.centre_mm()
    outlines = scene.truth.cell_corners_mm
    crossing = set()
    for p in scene.truth.pieces:
        seen = seen_middle_mm(p, eye)
        over = [name for name, outline in outlines.items() if _inside(outline, seen)]
        if over and over[0] != p["cell"]:
            crossing |= {p["cell"], over[0]}
    assert crossing, "the scene no longer holds a bean seen across a cell line"
    got = read_table(scene.frame, _profile())["cells"]
    for name in crossing:
        want = {player: {"troops": v["troops"], "peep": False}
                for player, v in cells.get(name, {}).get("pieces", {}).items()}
        assert got.get(name, {}).get("pieces", {}) == want, name


def test_a_foot_is_the_point_itself_when_the_camera_is_not_known():
    mosaic = SimpleNamespace(px_per_mm=2.0, camera=None, cell_map=np.zeros((4, 4), np.int16),
                             cell_names=[])
    st = FrameState.__new__(FrameState)
    st.m, st.s = mosaic, 2.0
    assert st.foot((10.0, 20.0), 6.5) == (10.0, 20.0)
    # Known: drawn toward the nadir by z / height of the way (heights in mosaic pixels).
    mosaic.camera = CameraAbove((0.0, 0.0), 1000.0)
    assert st.foot((100.0, 0.0), 6.5) == pytest.approx((100.0 * (1 - 13.0 / 1000.0), 0.0))


def test_a_peep_stands_in_its_feet_cell_and_is_remembered_where_it_is_seen():
    """The peep's cell is the one under its foot; the rules that look for beans and eggs
    round a peep work in the picture, so it is remembered where it is seen."""
    cell_map = np.zeros((100, 200), np.int16)
    cell_map[:, 100:] = 1
    mosaic = SimpleNamespace(px_per_mm=1.0, cell_map=cell_map, cell_names=["0,0/1", "0,0/2"],
                             camera=CameraAbove((0.0, 50.0), 500.0))
    st = FrameState.__new__(FrameState)
    st.m, st.s, st.warnings, st.warned_of, st.peeps_at = mosaic, 1.0, [], {}, []
    st.cells = {name: CellRead() for name in mosaic.cell_names}
    # Seen 2 px over the line, 102 px from the nadir; its middle 14 mm up puts its foot
    # 102 * 14 / 500 = 2.9 px back toward the nadir: in the first cell, on its border.
    assert peeps._peep(st, "red", (102.0, 50.0), 1.0) == "0,0/1"
    assert st.cells["0,0/1"].peeps == {"red": 1} and not st.cells["0,0/2"].peeps
    assert st.peeps_at[0][:4] == ("0,0/1", "red", 102.0, 50.0)
    assert any("border with 0,0/2" in w for w in st.warnings)
