"""Motion blur (vision.deblur and its use in tile finding): a streak is measured on the
markers' edges, estimated from the frame's spectrum and undone, and tiles the blur hid are
found in the sharpened copy, their cells asked about (real OpenCV on rendered frames,
streaked here by a kernel built otherwise than the reader's)."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from companion.games import find as find_game
from companion.rules.peepwar.board import cells_of
from companion.rules.peepwar.observation import CellReading, PeepWarObservation, Pieces
from vision.deblur import Streak, edge_width, motion_streaks, sharpen, streak_kernel
from vision.markers import detect_markers, to_gray
from vision.peepwar import tiles
from vision.peepwar.learning import labelled_pixels
from vision.peepwar.table import BLURRED_CONFIDENCE, read_table
from vision.peepwar.tiles import BLURRED_EDGE_PX, MIN_STREAK_SCORE, find_tiles
from vision.render import SceneSpec, render_scene
from vision.render.game_scene import GameSpec, profile_for, render_game
from vision.render.shake import shake
from vision.srgb import to_linear, to_srgb

SPEC = SceneSpec(hands=(0, 0), beans=(0, 0), peeps=(0, 0), max_tilt_deg=20)


def _streaked(frame: np.ndarray, length: float, angle_deg: float, seed: int = 0) -> np.ndarray:
    return shake(frame, length, angle_deg, np.random.default_rng(seed))


@cache
def _scene(seed: int):
    return render_scene(seed, SPEC)


@pytest.mark.parametrize(("length", "angle"), [(3.0, 0.0), (5.5, 35.0), (7.0, 120.0)])
def test_a_streak_kernel_is_a_box_of_its_length_along_its_direction(length, angle):
    k = streak_kernel(length, angle).astype(np.float64)
    assert k.sum() == pytest.approx(1.0, abs=1e-5)
    yy, xx = np.mgrid[0:k.shape[0], 0:k.shape[1]] - k.shape[0] // 2
    th = np.radians(angle)
    along = xx * np.cos(th) + yy * np.sin(th)
    across = -xx * np.sin(th) + yy * np.cos(th)
    assert (k * along).sum() == pytest.approx(0.0, abs=1e-6)  # centred: no shift
    # A box of length L has variance L^2 / 12 along it (its points' ends a few percent more);
    # bilinear splats add at most 1/4 (a pixel's own spread) along it and across it.
    assert length**2 / 12 <= (k * along**2).sum() <= 1.05 * length**2 / 12 + 0.25
    assert (k * across**2).sum() < 0.3


@pytest.mark.parametrize(("seed", "length", "angle"), [(3, 6.0, 35.0), (0, 8.0, 120.0),
                                                       (2, 4.0, 170.0)])
def test_a_streak_is_estimated_from_the_frames_spectrum(seed, length, angle):
    frame = _streaked(_scene(seed).frame, length, angle, seed)
    best = motion_streaks(to_gray(frame), 1)[0]
    off = abs(best.angle_deg - angle) % 180
    assert min(off, 180 - off) <= 10, best
    assert best.length == pytest.approx(length, abs=1.0), best
    assert best.score >= MIN_STREAK_SCORE


def test_a_sharp_frame_matches_no_streak():
    for seed in (0, 3):
        best = motion_streaks(to_gray(_scene(seed).frame), 1)[0]
        assert best.score < MIN_STREAK_SCORE, best


def test_a_defocused_frame_matches_no_streak():
    """Round blur widens every edge as a streak widens some, but has no direction."""
    frame = to_srgb(cv2.GaussianBlur(to_linear(_scene(3).frame), (0, 0), 1.6))
    assert motion_streaks(to_gray(frame), 1)[0].score < MIN_STREAK_SCORE


def test_sharpening_undoes_a_streak_as_the_markers_show():
    """The sharpened copy's markers read again and their edges rise as steeply as a sharp
    camera's (its flat paper is noisier: Wiener's filter trades that for edges)."""
    frame = _streaked(_scene(3).frame, 6.0, 35.0)
    gray = to_gray(frame)
    restored = sharpen(gray, Streak(6.0, 35.0, 1.0))
    assert restored.shape == gray.shape and restored.dtype == np.uint8
    blurred_hits, sharp_hits = detect_markers(gray), detect_markers(restored)
    assert len(sharp_hits) >= len(blurred_hits) + 3
    assert edge_width(restored, sharp_hits.corners) < BLURRED_EDGE_PX


def test_the_markers_edges_measure_the_blur():
    frame = _scene(3).frame
    sharp = edge_width(to_gray(frame), detect_markers(frame).corners)
    streaked = _streaked(frame, 6.0, 35.0)
    wide = edge_width(to_gray(streaked), detect_markers(streaked).corners)
    assert sharp is not None and sharp < BLURRED_EDGE_PX < wide
    assert edge_width(to_gray(frame), np.zeros((0, 4, 2))) is None  # nothing to measure


def test_tiles_a_streak_hides_are_found_in_a_sharpened_copy_with_a_warning():
    scene = _scene(5)
    frame = _streaked(scene.frame, 8.0, 120.0, 5)
    truth = {t.tile_id: (t.q, t.r) for t in scene.truth.tiles}
    plain = find_tiles(frame, through_blur=False)
    assert len(plain.tiles) < len(truth)  # the blur does hide a tile from the plain reader
    view = find_tiles(frame)
    assert {t.tile_id: (t.q, t.r) for t in view.tiles} == truth
    assert view.streak_px == pytest.approx(8.0, abs=1.0)
    assert any("the frame is blurred" in w and "sharpened copy" in w for w in view.warnings)


def test_a_sharp_frame_is_not_even_looked_at_for_a_streak(monkeypatch):
    """Its markers' edges are sharp: no spectrum is taken (it would cost every frame)."""
    def no(*_a, **_k):
        raise AssertionError("a sharp frame was searched for a streak")
    monkeypatch.setattr(tiles, "motion_streaks", no)
    view = find_tiles(_scene(5).frame)
    assert view.streak_px is None and len(view.tiles) == len(_scene(5).truth.tiles)
    assert not any("blurred" in w for w in view.warnings)


def test_a_sharpened_copy_is_kept_only_when_it_places_more_tiles(monkeypatch):
    """Forced to look, and given a copy that hides some of the tiles (but not all), the
    reader keeps the frame's own view."""
    frame = _scene(3).frame
    plain = find_tiles(frame, through_blur=False)

    def worse_copy(gray, _streak):
        out = gray.copy()
        out[:, gray.shape[1] // 2:] = 255  # the right half's tiles are gone
        return out

    monkeypatch.setattr(tiles, "BLURRED_EDGE_PX", 0.0)
    monkeypatch.setattr(tiles, "MIN_STREAK_SCORE", -1.0)
    monkeypatch.setattr(tiles, "sharpen", worse_copy)
    copy_view = find_tiles(worse_copy(to_gray(frame), None), through_blur=False)
    assert 0 < len(copy_view.tiles) < len(plain.tiles)  # the copy does place some tiles
    view = find_tiles(frame)
    assert view.streak_px is None
    assert [(t.tile_id, t.q, t.r, t.rotation) for t in view.tiles] == \
        [(t.tile_id, t.q, t.r, t.rotation) for t in plain.tiles]


def test_cells_of_a_frame_read_through_a_sharpened_copy_are_asked_about():
    """Its pieces are read from the smeared frame: every cell is listed, the empty ones
    with no pieces, and every one is doubtful."""
    scene = render_game(4, GameSpec())
    profile = profile_for(scene.truth.looks, seed=0)
    obs = read_table(_streaked(scene.frame, 9.0, 60.0, 4), profile)
    if not any("the frame is blurred" in w for w in obs["warnings"]):
        pytest.fail(f"the streak did not need sharpening: {obs['warnings']}")
    cells = obs["cells"]
    assert set(cells) == {c for t in obs["tiles"] for c in cells_of((t["q"], t["r"]))}
    assert all(c["confidence"] <= BLURRED_CONFIDENCE for c in cells.values())
    assert any(c.get("pieces") == {} and not c["supply_center"] for c in cells.values())
    seen = PeepWarObservation.from_dict(obs)  # the referee's reading of it
    below = find_game("peepwar").doubtful_below
    assert set(seen.doubtful(below)) == {n for n, c in cells.items() if not c.get("occluded")}


def test_a_blurred_frame_teaches_the_reader_nothing():
    """A correction made on a frame read through a sharpened copy stands, but its smeared
    colours and bean heats are not learnt as this table's."""
    scene = render_game(4, GameSpec())
    profile = profile_for(scene.truth.looks, seed=0)
    frame = _streaked(scene.frame, 9.0, 60.0, 4)
    name, cell = next((n, c) for n, c in scene.truth.cells.items() if c and c.get("pieces"))
    truth = CellReading(pieces={p: Pieces(v["troops"], v["peep"])
                                for p, v in cell["pieces"].items()})
    blurred = labelled_pixels(frame, profile, name, truth)
    assert blurred.samples == [] and "blurred" in blurred.note
    sharp = labelled_pixels(scene.frame, profile, name, truth)
    assert "blurred" not in sharp.note
