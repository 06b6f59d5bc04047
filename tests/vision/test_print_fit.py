"""Fitting a tile to its print, where its markers fix it poorly (vision.peepwar.print_fit)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM, hexagon_mm
from vision.geometry import Pose2D
from vision.peepwar.mosaic import _art_grey, _art_to_tile, build_mosaic
from vision.peepwar.print_fit import fit_to_print
from vision.peepwar.tiles import find_tiles
from vision.render.game_scene import GameSpec, flavour_cutouts, profile_for, render_game
from vision.render.scene import SceneSpec, render_scene

PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos" / "jellybeans"


def _vertex_error(a: Pose2D, b: Pose2D) -> float:
    """Farthest a tile's outer vertex lies between two poses of it, mm."""
    hexagon = np.asarray(hexagon_mm((0, 0), R_MM))
    return float(np.linalg.norm(a.apply(hexagon) - b.apply(hexagon), axis=1).max())


def test_a_tile_placed_from_one_marker_is_fitted_to_its_print():
    """Tile scene 281: tile 61 shows one marker, which leaves it 5.5 mm off at its far
    side (where its print would be read as a hand hiding it). Fitted to its whole print, it
    lies within 1.5 mm of where it really is."""
    scene = render_scene(281, SceneSpec())
    view = find_tiles(scene.frame, None)
    found = next(t for t in view.tiles if t.tile_id == 61)
    truth = next(t for t in scene.truth.tiles if t.tile_id == 61).pose
    assert len(found.markers_seen) == 1
    assert _vertex_error(found.pose, truth) > 5.0

    mosaic = build_mosaic(scene.frame, view)
    fitted = mosaic.tile_centres_px[found.hex] / mosaic.px_per_mm + mosaic.origin_mm
    assert math.dist((found.pose.x, found.pose.y), (truth.x, truth.y)) > 2.0
    assert math.dist(fitted, (truth.x, truth.y)) < 1.5
    s = mosaic.px_per_mm
    to_mm = np.array([[1 / s, 0, mosaic.origin_mm[0]], [0, 1 / s, mosaic.origin_mm[1]],
                      [0, 0, 1]])
    pose = fit_to_print(mosaic.image, mosaic.in_frame, to_mm, _art_grey(61), _art_to_tile(),
                        found.pose)
    assert pose is not None
    assert _vertex_error(pose, truth) < 1.5


def test_a_well_placed_tile_is_left_where_its_markers_put_it():
    """The Neutral tile of scene 275 shows several markers: the mosaic keeps its pose
    exactly."""
    scene = render_game(275, GameSpec(), flavour_cutouts(str(PHOTOS.resolve())))
    view = find_tiles(scene.frame, profile_for(scene.truth.looks, seed=0).intrinsics)
    mosaic = build_mosaic(scene.frame, view)
    neutral = mosaic.tile_centres_px[(0, 0)] / mosaic.px_per_mm + mosaic.origin_mm
    assert np.allclose(neutral, (0.0, 0.0))


def test_nothing_to_fit_keeps_the_pose():
    """Bare paper (a tile whose print the camera cannot make out) gives no fit."""
    image = np.full((220, 240, 3), 200, np.uint8)
    image += np.random.default_rng(1).integers(0, 3, image.shape, dtype=np.uint8)
    to_mm = np.array([[1.0, 0, -120], [0, 1.0, -110], [0, 0, 1]])
    seen = np.ones((220, 240), bool)
    assert fit_to_print(image, seen, to_mm, _art_grey(5), _art_to_tile(),
                        Pose2D(2.0, 1.0, 1.0)) is None


def test_a_fit_that_would_move_the_tile_far_is_refused():
    """The print drawn 16 mm from the pose (the correlation would follow it there): more than
    a tile's markers leave it off, so the fit has locked onto something else."""
    art = _art_grey(5)
    to_mm = np.array([[1.0, 0, -150], [0, 1.0, -130], [0, 0, 1]])
    seen = np.ones((260, 300), bool)

    def drawn_at(x: float) -> np.ndarray:
        m = np.linalg.inv(to_mm) @ Pose2D(x, 0.0, 0.0).matrix() @ _art_to_tile()
        grey = cv2.warpAffine(art, m[:2], (300, 260), flags=cv2.INTER_AREA, borderValue=255)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)

    near = fit_to_print(drawn_at(6.0), seen, to_mm, art, _art_to_tile(), Pose2D(0.0, 0.0, 0.0))
    assert near is not None and abs(near.x - 6.0) < 0.1
    assert fit_to_print(drawn_at(16.0), seen, to_mm, art, _art_to_tile(),
                        Pose2D(0.0, 0.0, 0.0)) is None
