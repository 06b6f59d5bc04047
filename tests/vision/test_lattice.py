"""The lattice fitted to every tile at once: exact poses, then rendered tables (real OpenCV)
where the Neutral tile is the crooked one, or every tile drifts along its chain."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.rules.peepwar.board import NEUTRAL, tile_centre_mm
from vision.geometry import Pose2D
from vision.peepwar.lattice import Lattice, fit_lattice
from vision.peepwar.tiles import MAX_ANGLE_OFF_DEG, MAX_OFFSET_MM, find_tiles, snap
from vision.render import SceneSpec, render_scene
from vision.render.layout import Misplacement, random_layout

HEXES = [(0, 0), (1, 0), (0, 1), (-1, 1), (2, -1), (1, -2), (3, -1)]
CALM = {"hands": (0, 0), "beans": (0, 0), "peeps": (0, 0), "max_tilt_deg": 20}


def _on(lattice: Lattice, hexes, turns) -> list[Pose2D]:
    return [Pose2D(*lattice.centre([h])[0], lattice.angle_deg + 60 * t)
            for h, t in zip(hexes, turns, strict=True)]


def _off_neutral_lattice(tiles) -> int:
    """Tiles (truth) that a lattice fixed by the Neutral tile alone would refuse or misplace."""
    inv = np.linalg.inv(tiles[0].pose.matrix())
    bad = 0
    for t in tiles[1:]:
        hx, rot, off, angle = snap(Pose2D.from_matrix(inv @ t.pose.matrix()))
        bad += (hx, rot) != ((t.q, t.r), t.rotation) or off > MAX_OFFSET_MM or abs(
            angle) > MAX_ANGLE_OFF_DEG
    return bad


def test_tiles_exactly_on_a_turned_lattice_give_it_back():
    truth = Lattice(-7.0, 4.0, -11.0)
    turns = [0, 3, 1, 5, 2, 4, 0]
    fit = fit_lattice(_on(truth, HEXES, turns))
    assert (fit.x, fit.y, fit.angle_deg, fit.scale) == pytest.approx(
        (truth.x, truth.y, truth.angle_deg, truth.scale), abs=1e-6)
    for pose, hx, turn in zip(_on(truth, HEXES, turns), HEXES, turns, strict=True):
        got = fit.snap(pose)
        assert got[:2] == (hx, turn) and got[2] < 1e-6 and abs(got[3]) < 1e-6


def test_gaps_between_tiles_widen_the_lattice_a_little():
    """Gaps of 2 mm between ten tiles: the scale follows about half the way (a pull keeps
    it near 1, so that two or three tiles cannot bend it), which halves the offsets."""
    truth = Lattice(0.0, 0.0, 0.0, 182.0 / 180.0)
    hexes = HEXES + [(4, -2), (-2, 2), (-1, 3)]
    poses = _on(truth, hexes, [0] * len(hexes))
    fit = fit_lattice(poses)
    assert 1.0 + 0.4 * (truth.scale - 1) < fit.scale < truth.scale
    unscaled = max(Lattice().snap(p)[2] for p in poses)
    assert unscaled > 6.5 and max(fit.snap(p)[2] for p in poses) < 0.5 * unscaled


def test_the_anchor_names_the_lattice():
    """Whichever tile anchors the fit is at (0, 0), upright; the others are named from it."""
    poses = _on(Lattice(0.0, 0.0, 3.0), HEXES, [0] * len(HEXES))
    fit = fit_lattice(poses, anchor=4)  # the tile at (2, -1)
    assert fit.snap(poses[4])[:2] == ((0, 0), 0)
    assert fit.snap(poses[0])[:2] == ((-2, 1), 0)


def test_one_tile_far_off_does_not_drag_the_lattice():
    poses = _on(Lattice(), HEXES, [0] * len(HEXES))
    x, y, a = poses[3].x, poses[3].y, poses[3].angle_deg
    poses[3] = Pose2D(x + 45.0, y - 20.0, a + 12.0)
    fit = fit_lattice(poses)
    offsets = [fit.snap(p)[2] for p in poses]
    assert offsets[3] > 40.0
    assert max(offsets[:3] + offsets[4:]) < 3.0


def test_a_crooked_anchor_is_outvoted_and_far_tiles_are_renamed():
    """The anchor lies 10 mm and 8 degrees off a lattice that six tiles sit on exactly: in
    its own frame the tile three steps away is 70 mm off, past the next position's
    border once farther; the fit names every tile right and leaves only the anchor off."""
    hexes = HEXES + [(4, -2), (5, -2)]
    poses = _on(Lattice(), hexes, [0, 1, 2, 3, 4, 5, 0, 1, 2])
    poses[0] = Pose2D(6.0, 8.0, 8.0)
    inv = np.linalg.inv(poses[0].matrix())
    in_anchor = [Pose2D.from_matrix(inv @ p.matrix()) for p in poses]
    assert snap(in_anchor[-1])[0] != (5, -2)  # the anchor's own lattice misnames it
    fit = fit_lattice(in_anchor)
    for pose, hx, turn in zip(in_anchor, hexes, [0, 1, 2, 3, 4, 5, 0, 1, 2], strict=True):
        got_hex, got_turn, off, angle = fit.snap(pose)
        assert (got_hex, got_turn) == (hx, turn)
        if hx != NEUTRAL:
            assert off < 3.0 and abs(angle) < 1.5
    assert fit.snap(in_anchor[0])[2] > 7.0


def test_the_layout_places_the_neutral_tile_and_chains_as_asked():
    rng = np.random.default_rng(3)
    tiles = random_layout(rng, 7, 0.0, 0.0, misplaced=Misplacement(neutral_mm=10, neutral_deg=8))
    assert math.hypot(tiles[0].pose.x, tiles[0].pose.y) == pytest.approx(10.0)
    assert abs(tiles[0].pose.angle_deg) == pytest.approx(8.0)
    for t in tiles[1:]:
        assert (t.pose.x, t.pose.y) == pytest.approx(tile_centre_mm(t.hex))
    tiles = random_layout(np.random.default_rng(3), 7, 0.0, 0.0,
                          misplaced=Misplacement(drift_mm=3, drift_deg=1.5))
    assert (tiles[0].pose.x, tiles[0].pose.y, tiles[0].pose.angle_deg) == (0.0, 0.0, 0.0)
    for t in tiles[1:]:
        steps = max(abs(t.hex[0]), abs(t.hex[1]), abs(t.hex[0] + t.hex[1]))
        turn = (t.pose.angle_deg - 60 * t.rotation + 180) % 360 - 180
        # each step adds 1.5 degrees, one way; chains are at least as long as the distance
        assert abs(turn) >= 1.5 * steps - 1e-9 and abs(turn) % 1.5 == pytest.approx(0, abs=1e-9)


def _all_found(scene, view) -> None:
    assert all(t.visible_slots for t in scene.truth.tiles)
    got = {t.tile_id: (t.q, t.r, t.rotation) for t in view.tiles}
    assert got == {t.tile_id: (t.q, t.r, t.rotation) for t in scene.truth.tiles}, view.warnings
    assert not any("off the lattice" in w for w in view.warnings)


@pytest.mark.parametrize("seed", [0, 7])
def test_a_crooked_neutral_tile_does_not_push_the_others_off(seed):
    """The Neutral tile lies 10 mm and 8 degrees off, every other tile right on the lattice:
    in the Neutral tile's frame the far ones are 50 mm and more off; all are placed."""
    spec = SceneSpec(tiles=(7, 7), jitter_mm=0.0, jitter_deg=0.0,
                     misplaced=Misplacement(neutral_mm=10.0, neutral_deg=8.0), **CALM)
    scene = render_scene(seed, spec)
    assert _off_neutral_lattice(render_scene(seed, spec).truth.tiles) >= 3
    view = find_tiles(scene.frame)
    _all_found(scene, view)
    neutral = next(t for t in view.tiles if t.tile_id == 0)
    assert neutral.offset_mm > 5 and abs(neutral.angle_off_deg) > 5
    others = [t for t in view.tiles if t.tile_id != 0]
    assert max(t.offset_mm for t in others) < 6 and max(abs(t.angle_off_deg) for t in others) < 3


@pytest.mark.parametrize("seed", [4, 13])
def test_tiles_drifting_along_their_chains_are_all_placed(seed):
    """Each tile lies 3 mm and 1.5 degrees off the neighbour it was pushed against, the same
    way all over the table: the error grows to more than the Neutral tile's lattice
    allows at the chains' ends; all are placed."""
    spec = SceneSpec(tiles=(7, 7), jitter_mm=0.0, jitter_deg=0.0,
                     misplaced=Misplacement(drift_mm=3.0, drift_deg=1.5), **CALM)
    scene = render_scene(seed, spec)
    assert _off_neutral_lattice(scene.truth.tiles) >= 1
    _all_found(scene, find_tiles(scene.frame))
