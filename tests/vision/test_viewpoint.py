"""Where the camera stands over the table, from the table's homography alone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.geometry import apply_h
from vision.lens import Intrinsics
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.tiles import find_tiles
from vision.render.camera import Camera, look_at_homography
from vision.render.game_scene import families_colours, render_state
from vision.viewpoint import DEFAULT_FOV_DEG, CameraAbove, camera_above, draw_dome

SIZE = (1280, 720)


def _k(focal: float, centre: tuple[float, float] | None = None) -> np.ndarray:
    cx, cy = centre or (SIZE[0] / 2 - 0.5, SIZE[1] / 2 - 0.5)
    return np.array([[focal, 0.0, cx], [0.0, focal, cy], [0.0, 0.0, 1.0]])


def _truth(target: tuple[float, float], distance: float, tilt_deg: float, yaw_deg: float
           ) -> tuple[np.ndarray, float]:
    """The nadir and height of look_at_homography's camera (its own geometry)."""
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    # The camera's axis leans by the tilt towards the yaw: it stands back along it.
    axis = np.array([math.sin(y) * math.sin(t), -math.cos(y) * math.sin(t), math.cos(t)])
    centre = np.append(np.asarray(target, float), 0.0) - distance * axis
    return centre[:2], abs(centre[2])


@pytest.mark.parametrize("tilt, yaw, roll, fov", [
    (20, 0, 0, 55), (30, 70, 10, 62), (45, 200, -30, 70), (38, 310, 90, 50)])
def test_the_camera_is_found_from_the_homography_alone(tilt, yaw, roll, fov):
    focal = SIZE[0] / 2 / math.tan(math.radians(fov) / 2)
    target, distance = (40.0, -25.0), 700.0
    h = look_at_homography(_k(focal), np.array(target), distance, math.radians(tilt),
                           math.radians(yaw), math.radians(roll))
    nadir, height = _truth(target, distance, tilt, yaw)
    cam = camera_above(h, SIZE)
    assert np.allclose(cam.nadir, nadir, atol=0.5), (cam, nadir)
    assert cam.height == pytest.approx(height, rel=1e-3)
    assert cam.height == pytest.approx(distance * math.cos(math.radians(tilt)), rel=1e-3)


def test_a_calibrated_camera_is_used_as_it_is():
    """A principal point off the frame's centre is no trouble when the camera is known."""
    k = _k(1000.0, (600.0, 380.0))
    h = look_at_homography(k, np.array([0.0, 0.0]), 600.0, math.radians(8), 0.3, 0.2)
    nadir, height = _truth((0.0, 0.0), 600.0, 8, math.degrees(0.3))
    cam = camera_above(h, SIZE, k)
    assert np.allclose(cam.nadir, nadir, atol=0.5) and cam.height == pytest.approx(height, 1e-3)


def test_seen_from_nearly_straight_above_a_typical_field_of_view_is_assumed():
    """At 5 degrees the homography cannot tell the focal length: the default one is taken.
    The nadir is still close (it barely depends on it) and the height scales with it."""
    focal = 1300.0
    h = look_at_homography(_k(focal), np.array([0.0, 0.0]), 800.0, math.radians(5), 1.0, 0.0)
    nadir, height = _truth((0.0, 0.0), 800.0, 5, math.degrees(1.0))
    cam = camera_above(h, SIZE)
    default = SIZE[0] / 2 / math.tan(math.radians(DEFAULT_FOV_DEG) / 2)
    assert cam.height == pytest.approx(height * default / focal, rel=0.02)
    assert np.hypot(*(np.asarray(cam.nadir) - nadir)) < 0.1 * height


@pytest.mark.parametrize("h", [
    np.zeros((3, 3)), np.full((3, 3), np.nan), np.outer([1.0, 2.0, 3.0], [1.0, 0.5, 2.0]),
    np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])])
def test_a_degenerate_homography_gives_no_camera(h):
    assert camera_above(h, SIZE) is None
    assert camera_above(h, SIZE, _k(1000.0)) is None


def test_a_singular_camera_matrix_or_an_edge_on_view_gives_no_camera():
    h = look_at_homography(_k(1100.0), np.array([0.0, 0.0]), 700.0, math.radians(30), 0.0, 0.0)
    assert camera_above(h, SIZE, np.zeros((3, 3))) is None
    edge_on = look_at_homography(_k(1100.0), np.array([0.0, 0.0]), 700.0, math.radians(85),
                                 0.0, 0.0)
    assert camera_above(edge_on, SIZE, _k(1100.0)) is None


def _far_edge(foot: tuple[float, float], radius: float, cam: CameraAbove, x: float) -> float:
    """The largest y the dome covers along column ``x``, from 2,000 slices."""
    best = -np.inf
    for z in np.linspace(0.0, radius, 2000, endpoint=False):
        k = cam.height / (cam.height - z)
        cx = cam.nadir[0] + (foot[0] - cam.nadir[0]) * k
        cy = cam.nadir[1] + (foot[1] - cam.nadir[1]) * k
        r = math.sqrt(radius * radius - z * z) * k
        if abs(x - cx) <= r:
            best = max(best, cy + math.sqrt(r * r - (x - cx) ** 2))
    return best


def test_a_dome_seen_from_a_tilted_camera_covers_table_beyond_its_foot_only():
    cam = CameraAbove((0.0, -300.0), 400.0)  # the camera stands on the -y side
    seen = np.zeros((200, 200), np.uint8)
    draw_dome(seen, (100.0, 100.0), 20.0, cam)
    rows = np.nonzero(seen[:, 100])[0]
    assert rows.min() == pytest.approx(80, abs=1)  # the near side: the foot's own rim
    # The far side: where the dome's outline lands, as finely sliced (its top alone is
    # lifted (100, 400) * 20 / 380 = 21 mm beyond the foot's middle).
    assert rows.max() == pytest.approx(_far_edge((100.0, 100.0), 20.0, cam, 100.0), abs=1.0)
    assert rows.max() > 125
    assert not seen[100, 75] and not seen[100, 125]  # ... and it is no wider than the foot
    straight = np.zeros_like(seen)
    draw_dome(straight, (100.0, 100.0), 20.0, CameraAbove((100.0, 100.0), 400.0))
    assert np.nonzero(straight[:, 100])[0].max() == pytest.approx(120, abs=1)
    untouched = np.zeros_like(seen)
    draw_dome(untouched, (100.0, 100.0), float("nan"), cam)
    draw_dome(untouched, (100.0, 100.0), 500.0, cam)  # taller than the camera stands
    assert not untouched.any()


@pytest.mark.parametrize("tilt, yaw", [(30, 0), (42, 120)])
def test_the_mosaic_knows_where_the_camera_stands(tilt, yaw):
    """Through the reader: the tiles found in a rendered frame, the mosaic built over
    them, and the camera it places (mosaic pixels) against the renderer's own."""
    k = _k(1150.0)
    target, distance = (60.0, 0.0), 650.0
    h = look_at_homography(k, np.array(target), distance, math.radians(tilt), math.radians(yaw),
                           0.0)
    state = {"tiles": [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}],
             "cells": {}}
    scene = render_state(state, families_colours(["red", "blue"]), 3,
                         camera=Camera(h, k, np.zeros(5), SIZE, tilt, yaw))
    mosaic = build_mosaic(scene.frame, find_tiles(scene.frame))
    nadir, height = _truth(target, distance, tilt, yaw)
    assert mosaic.camera is not None
    found = mosaic.to_mm(np.asarray(mosaic.camera.nadir))
    assert np.hypot(*(found - nadir)) < 0.03 * distance, (found, nadir)
    assert mosaic.camera.height / mosaic.px_per_mm == pytest.approx(height, rel=0.03)
    # (The table frame is the renderer's: a point on it lands where the homography says.)
    assert np.allclose(mosaic.to_frame(mosaic.to_px(np.array([[0.0, 0.0]]))),
                       apply_h(h, np.array([[0.0, 0.0]])), atol=3.0)


def test_a_calibrated_camera_places_itself_through_the_reader():
    """A camera calibrated at 1280x720, with barrel distortion, streaming 1920x1080 and
    tilted 12 degrees (too little for the homography to tell its focal length): the
    calibration's matrix, scaled to the frame, gives its height."""
    big = (1920, 1080)
    k = np.array([[1250.0, 0.0, 959.5], [0.0, 1250.0, 539.5], [0.0, 0.0, 1.0]])
    dist = np.array([-0.12, 0.0, 0.0, 0.0, 0.0])
    target, distance, tilt, yaw = (60.0, 0.0), 520.0, 12, 23.0
    h = look_at_homography(k, np.array(target), distance, math.radians(tilt),
                           math.radians(yaw), 0.0)
    state = {"tiles": [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}],
             "cells": {}}
    scene = render_state(state, families_colours(["red", "blue"]), 4, size=big,
                         camera=Camera(h, k, dist, big, tilt, yaw))
    # The same lens calibrated at 1280x720 (pixel centres scale about the corner's half).
    small = k.copy()
    small[:2] *= 2 / 3
    small[:2, 2] = (k[:2, 2] + 0.5) * 2 / 3 - 0.5
    calibrated = Intrinsics(small, dist, SIZE)
    assert np.allclose(calibrated.for_size(big).camera_matrix, k)
    mosaic = build_mosaic(scene.frame, find_tiles(scene.frame, calibrated))
    nadir, height = _truth(target, distance, tilt, yaw)
    assert mosaic.camera.height / mosaic.px_per_mm == pytest.approx(height, rel=0.02)
    found = mosaic.to_mm(np.asarray(mosaic.camera.nadir))
    assert np.hypot(*(found - nadir)) < 0.02 * distance, (found, nadir)
    # Without the calibration the default field of view is taken, and the height is off.
    guessed = build_mosaic(scene.frame, find_tiles(scene.frame)).camera
    assert abs(guessed.height / mosaic.px_per_mm - height) > 0.05 * height
