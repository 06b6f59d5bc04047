"""The path-traced A Peloponnesian War generator: deterministic, truth consistent."""

from __future__ import annotations

import numpy as np

from vision.peloponnesian.art import HIDDEN, chit_types
from vision.peloponnesian.layout import SIDES, map_layout
from vision.render3d.pelo_cache import cached_pelo, scene_dir
from vision.render3d.pelo_pieces import SheetPose, random_sheet_pose
from vision.render3d.peloponnesian import (
    DEV_SEEDS,
    HELD_OUT_SEEDS,
    PeloSpec3D,
    random_game,
    render_pelo3d,
)

SMALL = PeloSpec3D(size=(192, 108), spp=1)


def test_seed_ranges_apart():
    assert range(4_000_000, 4_001_000) == DEV_SEEDS
    assert range(4_500_000, 4_501_000) == HELD_OUT_SEEDS
    assert not set(DEV_SEEDS) & set(HELD_OUT_SEEDS)


def test_games_follow_the_rules():
    lay = map_layout(None)
    kinds = set(chit_types())
    for seed in range(200):
        counters, chits = random_game(np.random.default_rng(seed), lay)
        for area, by in counters.items():
            assert area in lay.areas
            assert set(by) <= set(SIDES) and all(1 <= n <= 2 for n in by.values())
        per_area: dict[str, set[str]] = {}
        for c in chits:
            assert c["type"] in kinds and c["type"] != HIDDEN
            per_area.setdefault(c["area"], set()).add(c["player"])
        assert all(len(who) <= 2 for who in per_area.values())  # two cities' chits at most
        for p in SIDES:
            assert len([c for c in chits if c["player"] == p]) <= 3


def test_sheet_lies_on_the_table():
    lay = map_layout(None)
    for seed in range(50):
        pose: SheetPose = random_sheet_pose(np.random.default_rng(seed), lay)
        grid = np.stack(np.meshgrid(np.linspace(0, 420, 15), np.linspace(0, 297, 11)), -1)
        z = pose.height(grid.reshape(-1, 2))
        assert z.min() > 0 and z.max() < 40


def test_small_render_is_deterministic_and_truthful():
    a = render_pelo3d(4_000_017, SMALL)
    b = render_pelo3d(4_000_017, SMALL)
    assert a.frame.image.shape == (108, 192, 3)
    assert np.array_equal(a.frame.image, b.frame.image)
    assert a.frame.counters == b.frame.counters and a.frame.chits == b.frame.chits
    assert a.frame.covered == b.frame.covered
    lay = map_layout(None)
    assert set(a.frame.counters) <= set(lay.areas) and set(a.frame.chits) <= set(lay.areas)
    for placed in a.frame.chits.values():
        assert {c["player"] for c in placed} <= set(SIDES)
    # The map's corners project inside the frame (the whole sheet is in view).
    corners = np.array([[[0, 0], [420, 0], [420, 297], [0, 297]]], np.float32)
    import cv2

    px = cv2.perspectiveTransform(corners, a.frame.homography)[0]
    assert (px > -2).all() and (px[:, 0] < 194).all() and (px[:, 1] < 110).all()


def test_hand_cover_comes_from_the_first_hit_pass():
    """With a hand in the frame, the areas it covers are those the hand's pixels fall in;
    without one, nothing is covered."""
    seen_hand = seen_none = False
    for seed in range(4_000_000, 4_000_040):
        s = render_pelo3d(seed, PeloSpec3D(size=(192, 108), spp=1), picture=False)
        if s.params["hand"]:
            seen_hand = True
            assert all(0 < v <= 1 for v in s.frame.covered.values())
        else:
            seen_none = True
            assert s.frame.covered == {}
        if seen_hand and seen_none:
            break
    assert seen_hand and seen_none


def test_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = cached_pelo(4_000_003, SMALL)
    assert scene_dir(SMALL).is_relative_to(tmp_path)
    again = cached_pelo(4_000_003, SMALL, render=False)
    assert again is not None
    assert np.array_equal(first.frame.image, again.frame.image)
    assert again.frame.counters == first.frame.counters
    assert again.frame.chits == first.frame.chits
    assert again.frame.covered == first.frame.covered
    assert cached_pelo(4_000_004, SMALL, render=False) is None


def test_bench_scores_the_3d_truth(tmp_path, monkeypatch):
    """The benchmark's scoring takes the 3D truth as it takes the 2D one: a reading that
    says exactly the truth is exact everywhere; a missing cached frame is skipped."""
    import importlib.util
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "bench" / "peloponnesian_vision.py"
    spec = importlib.util.spec_from_file_location("pelo_bench", bench)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    lay = map_layout(None)
    for seed in (4_000_004, 4_000_011):
        frame = render_pelo3d(seed, SMALL, picture=False).frame
        data = {"areas": {a: {"counters": frame.counters.get(a, {}),
                              "chits": frame.chits.get(a, [])} for a in lay.areas}}
        c, wrong = mod.score(frame, data, list(lay.areas))
        assert not wrong
        assert c["counters_ok"] == c["chits_ok"] == c["judged"] == len(lay.areas) - c["touched"]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert mod.frames_3d(cached_only=True)(4_500_999) is None
