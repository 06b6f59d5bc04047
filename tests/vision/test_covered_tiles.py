"""A tile whose every marker is touched or half covered is found where the lattice puts
it (vision.peepwar.covered_tiles), and no tile is invented where there is none (real OpenCV on
rendered frames)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.peepwar.board import NEUTRAL, hexagon_mm, tile_centre_mm
from vision.geometry import Pose2D, apply_h
from vision.kit_layout import marker_bits, tile_slots
from vision.markers import detect_markers
from vision.peepwar.covered_tiles import _printed, covered_tile_hits
from vision.peepwar.tiles import find_tiles
from vision.render import SceneSpec, render_scene
from vision.render.game_scene import GameSpec, flavour_cutouts, render_game
from vision.render.layout import PlacedTile
from vision.render.scene import Scene

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos" / "jellybeans"
SPEC = SceneSpec(hands=(0, 0), beans=(0, 0), peeps=(0, 0), max_tilt_deg=20)


def _layout() -> list[PlacedTile]:
    """The Neutral tile, one beside it, and tile 9 turned two sixths, a little off."""
    c = np.array(tile_centre_mm((0, 1)))
    return [PlacedTile(0, NEUTRAL, Pose2D(0, 0, 0), 0),
            PlacedTile(4, (1, 0), Pose2D(*tile_centre_mm((1, 0)), 1.0), 0),
            PlacedTile(9, (0, 1), Pose2D(c[0] + 2.5, c[1] - 2.0, 122.0), 2)]


def _fill_mm(frame, hom, pose, outline_mm, bgr) -> None:
    pts = apply_h(hom, pose.apply(outline_mm))
    cv2.fillPoly(frame, [np.round(pts).astype(np.int32)], bgr)


def _bean_at(point: np.ndarray, away: np.ndarray) -> np.ndarray:
    """A 20 x 13 mm bean outline lying along ``away`` over ``point`` by 2 mm."""
    out = away / np.linalg.norm(away)
    turn = np.array([[out[0], -out[1]], [out[1], out[0]]])
    t = np.linspace(0, 2 * np.pi, 40)
    return point + 8.0 * out + np.c_[10 * np.cos(t), 6.5 * np.sin(t)] @ turn.T


def _touch_every_marker(scene, target) -> np.ndarray:
    """The frame with dark purple beans against two corners of each of ``target``'s
    vertex markers and its central ones under a pink peep."""
    frame = scene.frame.copy()
    hom = scene.truth.camera.homography
    for s in tile_slots():
        if s.slot >= 6:
            _fill_mm(frame, hom, target.pose, (s.corners_mm - s.centre_mm) * 1.5 + s.centre_mm,
                     (150, 170, 240))
            continue
        for corner in s.corners_mm[[s.slot % 4, (s.slot + 2) % 4]]:
            _fill_mm(frame, hom, target.pose, _bean_at(corner, corner - s.centre_mm),
                     (70, 30, 80))
    return frame


def _ours(hits, tile_id: int) -> list[int]:
    return [int(i) for i in hits.ids if int(i) // 12 == tile_id]


def test_a_tile_whose_every_marker_a_bean_touches_is_found_on_its_lattice_position():
    """The detector finds none of tile 9's markers, even with colours made pale; read
    where the lattice puts them, the tile is placed as the renderer placed it, with a
    warning that says why it is less sure."""
    scene = render_scene(3, SPEC, _layout())
    target = scene.truth.tiles[2]
    frame = _touch_every_marker(scene, target)
    assert _ours(detect_markers(frame), 9) == []
    assert _ours(detect_markers(frame, pale_colours=True), 9) == []
    assert 9 not in {t.tile_id for t in find_tiles(frame, covered=False).tiles}

    view = find_tiles(frame)
    got = {t.tile_id: t for t in view.tiles}
    assert {k: (t.q, t.r, t.rotation) for k, t in got.items()} == {
        t.tile_id: (t.q, t.r, t.rotation) for t in scene.truth.tiles}
    assert abs(got[9].pose.x - target.pose.x) < 1.0
    assert abs(got[9].pose.y - target.pose.y) < 1.0
    assert abs(got[9].pose.angle_deg - target.pose.angle_deg) < 0.5
    assert set(got[9].markers_seen) <= set(range(6)) and len(got[9].markers_seen) >= 4
    assert any("tile 9 at 0,1" in w and "partly cover" in w for w in view.warnings)


def test_a_chain_of_tiles_with_every_marker_touched_is_followed_out():
    """Tile 9 lies beside tile 4 only, and both have every marker touched: tile 4 is found
    beside the Neutral tile, then tile 9 beside tile 4 (one round of looking reached only
    the neighbours of the tiles the detector found)."""
    layout = [PlacedTile(0, NEUTRAL, Pose2D(0, 0, 0), 0),
              PlacedTile(4, (1, 0), Pose2D(*tile_centre_mm((1, 0)), 1.0), 0),
              PlacedTile(9, (2, -1), Pose2D(*tile_centre_mm((2, -1)), 121.0), 2)]
    scene = render_scene(3, SPEC, layout)
    frame = _touch_every_marker(scene, scene.truth.tiles[1])
    frame = _touch_every_marker(Scene(frame, scene.truth), scene.truth.tiles[2])
    assert _ours(detect_markers(frame), 4) == [] and _ours(detect_markers(frame), 9) == []

    once = find_tiles(frame, _rounds=1)
    assert {t.tile_id for t in once.tiles} == {0, 4}
    view = find_tiles(frame)
    assert {t.tile_id: (t.q, t.r, t.rotation) for t in view.tiles} == {
        t.tile_id: (t.q, t.r, t.rotation) for t in scene.truth.tiles}
    assert any("tile 9 at 2,-1" in w and "partly cover" in w for w in view.warnings)


def test_the_neutral_tile_with_every_marker_touched_still_places_the_board():
    """Without the Neutral tile nothing can be placed; the other tiles lie on the lattice
    round each other, so the Neutral tile's half-covered markers are read beside them."""
    scene = render_scene(3, SPEC, _layout())
    frame = _touch_every_marker(scene, scene.truth.tiles[0])
    assert _ours(detect_markers(frame), 0) == []
    assert _ours(detect_markers(frame, pale_colours=True), 0) == []
    blind = find_tiles(frame, covered=False)
    assert blind.tiles == [] and any("not in view" in w for w in blind.warnings)

    view = find_tiles(frame)
    assert {t.tile_id: (t.q, t.r, t.rotation) for t in view.tiles} == {
        t.tile_id: (t.q, t.r, t.rotation) for t in scene.truth.tiles}
    assert any("tile 0 at 0,0" in w for w in view.warnings)
    assert not any("not in view" in w for w in view.warnings)
    for t in view.tiles:  # the table frame is the Neutral tile's, as when it shows
        truth = next(tt for tt in scene.truth.tiles if tt.tile_id == t.tile_id)
        assert np.hypot(t.pose.x - truth.pose.x, t.pose.y - truth.pose.y) < 1.0


def _paper_colour(frame, hom) -> list[float]:
    """The tiles' paper as this frame shows it (the Neutral tile's brighter pixels)."""
    mask = np.zeros(frame.shape[:2], np.uint8)
    _fill_mm(mask, hom, Pose2D(0, 0, 0), np.array(hexagon_mm((0, 0), 90.0)), 255)
    inside = frame[mask > 0]
    gray = inside @ np.array([0.114, 0.587, 0.299])
    return np.median(inside[gray >= np.percentile(gray, 70)], axis=0).tolist()


def _paint_squares(frame, hom, where: Pose2D, codes: list[np.ndarray]) -> None:
    """Paper, then black modules, on the six vertex squares at ``where``; codes are 7 x 7
    (1 = white), square i taking ``codes[i]``."""
    paper = _paper_colour(frame, hom)
    for s, bits in zip(tile_slots()[:6], codes, strict=True):
        _fill_mm(frame, hom, where, (s.corners_mm - s.centre_mm) * 1.25 + s.centre_mm, paper)
        side = s.corners_mm[1] - s.corners_mm[0]
        down = s.corners_mm[3] - s.corners_mm[0]
        for (row, col), white in np.ndenumerate(bits):
            if not white:
                cell = s.corners_mm[0] + np.array([[col, row], [col + 1, row], [col + 1, row + 1],
                                                   [col, row + 1]]) @ np.array([side, down]) / 7
                _fill_mm(frame, hom, where, cell, (25, 25, 25))


def _foreign(rng) -> np.ndarray:
    bits = marker_bits(0).copy()
    bits[1:-1, 1:-1] = rng.integers(0, 2, (5, 5))
    return bits


def test_printed_squares_that_are_no_tiles_codes_place_no_tile():
    """Black squares on paper where a tile's markers would lie, but with bits no kit tile
    has (a board game box, a newspaper): looked at, and refused."""
    scene = render_scene(5, SPEC, _layout()[:2])
    frame = scene.frame.copy()
    rng = np.random.default_rng(1)
    _paint_squares(frame, scene.truth.camera.homography, Pose2D(*tile_centre_mm((0, 1)), 0.0),
                   [_foreign(rng) for _ in range(6)])
    view = find_tiles(frame)
    placed = [t.hex for t in view.tiles]
    assert _printed(frame, view.to_image, placed, [(0, 1)]) == [(0, 1)]  # looked at ...
    assert covered_tile_hits(frame, view.to_image, placed, {0, 4}).ids.size == 0
    assert {t.tile_id for t in view.tiles} == {0, 4}  # ... and refused
    assert not any("partly cover" in w for w in view.warnings)


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="needs ../shared/photos/jellybeans")
def test_a_crowded_game_tile_with_every_marker_touched_is_placed():
    """A rendered game (seed 14) where beans and peeps touch every marker of tile 35: it
    is placed where it lies, and the game's other tiles are unchanged."""
    scene = render_game(14, GameSpec(size=(1280, 720)), flavour_cutouts(str(PHOTOS)))
    before = find_tiles(scene.frame, covered=False)
    after = find_tiles(scene.frame)
    truth = {t.tile_id: (t.q, t.r, t.rotation) for t in scene.truth.tiles}
    assert 35 in truth and 35 not in {t.tile_id for t in before.tiles}
    assert {t.tile_id: (t.q, t.r, t.rotation) for t in after.tiles} == truth
    old = {t.tile_id: t.pose for t in before.tiles}
    for t in after.tiles:
        if t.tile_id in old:
            assert np.hypot(t.pose.x - old[t.tile_id].x, t.pose.y - old[t.tile_id].y) < 0.5


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="needs ../shared/photos/jellybeans")
def test_a_hand_resting_on_the_neutral_tile_of_a_game_leaves_the_board_placed():
    """A rendered game (seed 660): a hand over the Neutral tile covers part of every one
    of its markers, so no tile could be placed; two of its squares still show their
    codes whole, and the board is placed."""
    scene = render_game(660, GameSpec(size=(1280, 720)), flavour_cutouts(str(PHOTOS)))
    blind = find_tiles(scene.frame, covered=False)
    assert blind.tiles == [] and any("not in view" in w for w in blind.warnings)
    view = find_tiles(scene.frame)
    assert {t.tile_id: (t.q, t.r, t.rotation) for t in view.tiles} == {
        t.tile_id: (t.q, t.r, t.rotation) for t in scene.truth.tiles}


def test_two_true_squares_do_not_outvote_four_that_contradict_them():
    """Tile 7's own codes on two squares and foreign codes, wholly shown, on the other
    four: two squares matching outright would do for a tile under a hand, but these four
    refute it, so no tile is placed."""
    scene = render_scene(5, SPEC, _layout()[:2])
    frame = scene.frame.copy()
    rng = np.random.default_rng(1)
    codes = [marker_bits(7 * 12 + i) if i < 2 else _foreign(rng) for i in range(6)]
    _paint_squares(frame, scene.truth.camera.homography, Pose2D(*tile_centre_mm((0, 1)), 0.0),
                   codes)
    view = find_tiles(frame)
    assert {t.tile_id for t in view.tiles} == {0, 4}

    hand = frame.copy()  # the same two squares, the rest under a dark hand: placed
    for s in tile_slots()[2:6]:
        _fill_mm(hand, scene.truth.camera.homography, Pose2D(*tile_centre_mm((0, 1)), 0.0),
                 (s.corners_mm - s.centre_mm) * 1.4 + s.centre_mm, (50, 60, 80))
    assert {t.tile_id: t.hex for t in find_tiles(hand).tiles} == {0: (0, 0), 4: (1, 0), 7: (0, 1)}


def test_the_lattice_is_placed_by_every_tile_not_the_reference_alone():
    """The tile the fit starts from lies 10 degrees off the lattice and the Neutral
    tile's every marker is touched: looking for tile 0 where that one tile's frame puts
    it would miss by 30 mm; the lattice fitted to all the tiles finds it."""
    c4, c9 = tile_centre_mm((1, 0)), tile_centre_mm((0, 1))
    layout = [PlacedTile(0, NEUTRAL, Pose2D(0, 0, 0), 0),
              PlacedTile(4, (1, 0), Pose2D(*c4, 10.0), 0),
              PlacedTile(9, (0, 1), Pose2D(*c9, 120.0), 2)]
    scene = render_scene(3, SPEC, layout)
    frame = _touch_every_marker(scene, scene.truth.tiles[0])
    view = find_tiles(frame)
    assert {t.tile_id: (t.q, t.r) for t in view.tiles} == {0: (0, 0), 4: (1, 0), 9: (0, 1)}


def test_a_square_cut_by_the_frames_edge_is_not_read_as_black_bits():
    """The frame ends across tile 9, whose every marker is touched: the squares still
    whole place it, and no marker cut by the edge is handed to the fit."""
    scene = render_scene(3, SPEC, _layout())
    frame = _touch_every_marker(scene, scene.truth.tiles[2])
    whole = find_tiles(frame)
    y = int(whole.to_image(np.array([tile_centre_mm((0, 1))]))[0, 1]) + 60
    cut = np.ascontiguousarray(frame[:y])
    placed = [t.hex for t in find_tiles(cut, covered=False).tiles]
    view = find_tiles(cut, covered=False)
    hits = covered_tile_hits(cut, view.to_image, placed, {0, 4})
    assert len(hits) and (hits.corners[..., 1] <= y - 1).all()
    got = {t.tile_id: t for t in find_tiles(cut).tiles}[9]
    ref = {t.tile_id: t for t in whole.tiles}[9]
    assert np.hypot(got.pose.x - ref.pose.x, got.pose.y - ref.pose.y) < 0.3
