"""The path-traced Petri generator: one truth per seed, a legal position on the board,
hand cover only where a hand is, a cache that says what it cannot read, and the bench's
3D path."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from companion.rules.petri.board import HOLES, HOMES, NEIGHBOURS, homes_problem
from vision.render3d.petri import PetriSpec3D, hole_pixels, render_petri3d

pytest.importorskip("mitsuba")

TINY = PetriSpec3D(size=(160, 90), spp=1)
SMALL = PetriSpec3D(size=(320, 180), spp=1)
SEEDS = (3_000_000, 3_000_001, 3_000_003)  # wood, print, plastic
PRINT_WITH_HAND = 3_000_006  # the printed sheet (cheap to build), one hand over it


def _groups(pieces: dict[str, str], player: str) -> list[set[str]]:
    left = {h for h, p in pieces.items() if p == player}
    groups = []
    while left:
        todo = [left.pop()]
        group = set(todo)
        while todo:
            for n in NEIGHBOURS[todo.pop()]:
                if n in left:
                    left.discard(n)
                    group.add(n)
                    todo.append(n)
        groups.append(group)
    return groups


def test_the_same_seed_gives_the_same_frame_and_truth() -> None:
    a = render_petri3d(SEEDS[1], TINY)
    b = render_petri3d(SEEDS[1], TINY)
    assert np.array_equal(a.frame, b.frame)
    assert a.truth.pieces == b.truth.pieces and a.truth.homes == b.truth.homes
    assert a.truth.occluded == b.truth.occluded and a.truth.touched == b.truth.touched
    assert np.allclose(a.truth.homography, b.truth.homography)
    other = render_petri3d(3_000_023, TINY, picture=False)  # the printed sheet too
    assert other.truth.pieces != a.truth.pieces


@pytest.mark.parametrize("seed", [
    pytest.param(SEEDS[0], marks=pytest.mark.slow),  # a wooden board's mesh takes a second
    SEEDS[1],
    pytest.param(SEEDS[2], marks=pytest.mark.slow),
])
def test_the_truth_is_a_petri_position_in_view(seed: int) -> None:
    scene = render_petri3d(seed, TINY, picture=False)
    t = scene.truth
    assert t.style == {SEEDS[0]: "wood", SEEDS[1]: "print", SEEDS[2]: "plastic"}[seed]
    assert 2 <= len(t.homes) <= 6 and homes_problem(list(t.homes.values())) is None
    assert set(t.pieces) <= set(HOLES)
    assert set(t.pieces.values()) <= set(t.homes)
    for player, k in t.homes.items():
        groups = _groups(t.pieces, player)
        assert len(groups) == 1, (seed, player)  # one connected group ...
        assert groups[0] & HOMES[k]  # ... grown from its home
        assert 1 <= len(groups[0]) <= 15
    # Every hole lies inside the frame (the camera frames the whole board).
    w, h = TINY.size
    px = np.array(list(hole_pixels(scene).values()))
    assert ((px > 0) & (px < [w, h])).all(), seed
    assert 0 <= t.tilt_deg <= 45


def test_hands_cover_holes_only_where_a_hand_is() -> None:
    bare = render_petri3d(SEEDS[1], TINY, picture=False)
    assert bare.params["hands"] == 0
    assert not bare.truth.occluded and not bare.truth.touched
    assert bare.params["hand_cover"] == {}
    scene = render_petri3d(PRINT_WITH_HAND, SMALL, picture=False)
    assert scene.params["hands"] > 0
    cover = scene.params["hand_cover"]
    assert scene.truth.occluded  # the hand over the star hides some holes
    assert scene.truth.occluded == {n for n, c in cover.items() if c > 0.5}
    assert scene.truth.touched == {n for n, c in cover.items() if 0 < c <= 0.5}
    assert set(cover) <= set(HOLES)


def test_a_tiny_render_shows_the_board_quickly() -> None:
    from vision.render3d.tracer import mitsuba

    mitsuba()  # loading Mitsuba itself takes a few seconds once a process
    t0 = time.perf_counter()
    scene = render_petri3d(SEEDS[1], TINY)  # the printed sheet: paper is bright
    assert time.perf_counter() - t0 < 5
    assert scene.frame.shape == (90, 160, 3)
    assert scene.frame.std() > 5  # a picture, not a flat field
    x, y = hole_pixels(scene)["0,0"]
    assert scene.frame[round(y) - 2:round(y) + 3, round(x) - 2:round(x) + 3].mean() > 20


def test_the_cache_keeps_frames_and_names_what_it_cannot_read(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from vision.render3d import petri_cache

    seed = SEEDS[1]
    assert petri_cache.cached_petri(seed, TINY, render=False) is None
    first = petri_cache.cached_petri(seed, TINY)
    folder = petri_cache.scene_dir(TINY)
    assert str(folder).startswith(str(tmp_path)) and (folder / f"{seed}.png").exists()
    again = petri_cache.cached_petri(seed, TINY, render=False)
    assert again.truth.pieces == first.truth.pieces and again.truth.homes == first.truth.homes
    assert again.truth.occluded == first.truth.occluded and again.piece_set == first.piece_set
    assert np.array_equal(again.frame, first.frame)  # PNG: lossless
    data = json.loads((folder / f"{seed}.json").read_text())
    del data["homes"]
    (folder / f"{seed}.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=f"{seed}.json"):
        petri_cache.cached_petri(seed, TINY, render=False)
    (folder / f"{seed}.json").write_text("{not json")
    with pytest.raises(ValueError, match="delete it"):
        petri_cache.cached_petri(seed, TINY)
    assert petri_cache.DEV_SEEDS.start == 3_000_000
    assert petri_cache.HELD_OUT_SEEDS.start == 3_500_000
    assert not set(petri_cache.DEV_SEEDS) & set(petri_cache.HELD_OUT_SEEDS)


@pytest.mark.slow
def test_the_bench_reads_and_scores_cached_3d_frames(tmp_path, monkeypatch) -> None:
    """The bench's 3D path on one small frame, with a 2D card's profile (a path-traced card
    costs half a minute): frames counted, holes judged, a missing frame skipped."""
    import importlib.util
    from pathlib import Path

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from vision.render3d import petri_cache, petri_card
    from vision.render3d.cache import write_pair

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("petri_bench", root / "bench/petri_vision.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    profile = bench.card_profile(4500.0, True)
    monkeypatch.setattr(petri_card, "set_profile", lambda name: profile)
    seed = SEEDS[1]
    scene = render_petri3d(seed, PetriSpec3D(size=(640, 360), spp=2))
    write_pair(petri_cache.scene_dir(PetriSpec3D()), seed, scene.frame,
               petri_cache.truth_to_json(scene))
    res = bench.run_3d(range(seed, seed + 2), True, False)
    t = res["totals"]
    assert t["frames"] == 1 and t["missing"] == 1
    assert t["judged"] == 121 - len(scene.truth.occluded | scene.truth.touched)
    assert 0 <= t["right"] <= t["judged"]
    assert 0 <= t["unsure"] <= t["right"]
