"""The hand net (:mod:`vision.peepwar.hand_net`) judges which cells a hand covers, on a
rendered table read by the real reader up to its hands."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from vision.geometry import apply_h
from vision.peepwar import hand_net
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.passes import occlusion
from vision.peepwar.pieces import frame_state, read_pieces
from vision.peepwar.table import prepare_reader
from vision.peepwar.tiles import find_tiles
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from vision.render.layers import capsule_mm, ellipse_mm

PLAYERS = ["red", "blue"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"},
         {"q": -1, "r": 0, "owner": None}]
CELLS = {"1,0/1": {"pieces": {"blue": {"troops": 2, "peep": False}}},
         "-1,0/3": {"pieces": {"red": {"troops": 3, "peep": True}}},
         "0,0/3": {"pieces": {"red": {"troops": 1, "peep": False}}}}
SKIN_BGR = (120, 150, 205)  # a light skin tone, no player's colour


@cache
def _scene():
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    prepare_reader(profile)
    return render_state({"tiles": TILES, "cells": CELLS}, families_colours(PLAYERS), 1), profile


def _with_hand(scene) -> np.ndarray:
    """A palm over tile 1,0's middle with three fingers across it, drawn into the frame."""
    t = next(x for x in scene.truth.tiles if (x.q, x.r) == (1, 0))
    centre = np.array([t.pose.x, t.pose.y])
    shapes = [ellipse_mm(centre, (45, 40), 20.0)]
    for spread in (-15, 0, 15):
        base = centre + np.array([20.0, spread])
        shapes.append(capsule_mm(base, base + np.array([55.0, spread * 0.3]), 17))
    frame = scene.frame.copy()
    for p in shapes:
        pts = apply_h(scene.truth.camera.homography, p)
        cv2.fillPoly(frame, [np.round(pts * 16).astype(np.int32)], SKIN_BGR, cv2.LINE_AA, 4)
    return frame


def _state(frame, profile):
    view = find_tiles(frame, profile.intrinsics)
    return frame_state(build_mosaic(frame, view), profile)


@pytest.mark.skipif(not hand_net.available(), reason="the hand net is not shipped")
def test_a_hand_over_a_tile_is_a_hand_and_the_far_cells_are_clear() -> None:
    scene, profile = _scene()
    st = _state(_with_hand(scene), profile)
    assert st.hand_p is not None
    assert st.hand_p["1,0/c"] >= occlusion.HAND_ABOVE  # the palm lies over it
    far = [c for c in st.hand_p if c.startswith("-1,0/")]
    assert far and all(st.hand_p[c] < occlusion.CLEAR_BELOW for c in far)
    # The same table without the hand: no cell is a hand's.
    bare = _state(scene.frame, profile)
    assert max(bare.hand_p.values()) < occlusion.CLEAR_BELOW


def test_each_cell_gets_a_window_centred_on_it() -> None:
    scene, profile = _scene()
    st = _state(scene.frame, profile)
    names, x = hand_net.cell_inputs(st)
    assert sorted(names) == sorted(st.m.cell_names)
    assert x.shape == (len(names), hand_net.CHANNELS, hand_net.SIZE, hand_net.SIZE)
    mid = hand_net.SIZE // 2
    cell = x[:, 8]  # the cell judged, at the window's middle, and not at its corners
    assert (cell[:, mid, mid] > 0.5).all() and (cell[:, 0, 0] < 0.5).all()
    assert float(x[:, 7].max()) == 1.0  # past the board: off the tiles
    assert float(x[:, :3].min()) >= -1.0 and float(x[:, :3].max()) <= 0.6


@pytest.mark.skipif(not hand_net.available(), reason="the hand net is not shipped")
def test_a_flat_pale_hand_the_rules_miss_is_occluded(monkeypatch) -> None:
    """A hand of one flat light skin tone over a tile: no player's colour, yet not
    thick, dark or hiding print the way the rules look for; the net sees a hand."""
    scene, profile = _scene()
    view = find_tiles(_with_hand(scene), profile.intrinsics)
    mosaic = build_mosaic(_with_hand(scene), view)

    def occluded() -> set[str]:
        return {n for n, c in read_pieces(mosaic, profile).cells.items() if c.occluded}

    assert {"1,0/c", "1,0/0"} <= occluded()
    assert not any(n.startswith("-1,0/") for n in occluded())
    monkeypatch.setattr(hand_net, "available", lambda: False)
    assert "1,0/c" not in occluded()  # the rules alone read the cell as if bare


def test_a_missing_net_file_is_one_clear_error(monkeypatch, tmp_path) -> None:
    from vision.errors import ModelError

    monkeypatch.setattr(hand_net, "MODEL", tmp_path / "absent.onnx")
    hand_net._session.cache_clear()
    try:
        assert not hand_net.available()
        with pytest.raises(ModelError, match="hand net"):
            hand_net._session()
    finally:
        hand_net._session.cache_clear()


def test_training_samples_hold_every_cell_with_its_truth() -> None:
    from vision.peepwar.training.hand_samples import dequantise, frame_cells

    scene, profile = _scene()
    cover = {"1,0/c": 0.8, "1,0/0": 0.02}
    cells = frame_cells(scene.frame, profile, cover)
    assert cells is not None
    names = list(cells["names"])
    assert sorted(names) == sorted(c for t in TILES for c in _cells((t["q"], t["r"])))
    assert cells["cover"][names.index("1,0/c")] == pytest.approx(0.8)
    assert cells["cover"][names.index("0,0/3")] == 0.0
    assert cells["inputs"].dtype == np.uint8
    x = dequantise(cells["inputs"])
    assert x.shape[1:] == (hand_net.CHANNELS, hand_net.SIZE, hand_net.SIZE)
    assert (cells["rules"] == 0).all()  # no hand in the frame: the rules found none


def _cells(q_r):
    from companion.rules.peepwar.board import cells_of

    return cells_of(q_r)


@pytest.mark.parametrize("argv", [["--seeds", "50000-50001"],
                                  ["--seeds", "90000-90001", "--night-frames", "25"],
                                  ["--seeds", "80000-80001"]])
def test_training_samples_refuse_frames_outside_the_development_seeds(argv, tmp_path) -> None:
    # Held-out frames (single tables or game nights) are never trained on; nor is a night
    # seed read as a table of its own (its cache is another).
    from vision.peepwar.training.hand_samples import main

    with pytest.raises(SystemExit, match="not a development seed"):
        main(["--generator", "3d", *argv, "--out", str(tmp_path)])
    assert not any(tmp_path.iterdir())
