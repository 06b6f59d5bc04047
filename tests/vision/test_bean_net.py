"""The shipped bean net, run by ONNX Runtime on rendered tables: where it puts the beans.

The reader's counts are tested cell by cell in test_pieces.py; here the net's own
answer is checked against the renderer's truth: every bean's centre found, within
a few millimetres (a bean belongs to the cell under its centre, and beans lie at
least 3 mm inside their cells), and nothing else.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games
from companion.camera_setup import make_reader
from companion.errors import UserError
from vision.peepwar import bean_net, pieces
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.passes import beans
from vision.peepwar.pieces import bean_planes
from vision.peepwar.tiles import find_tiles
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from vision.render.piece_layer import seen_middle_mm

PLAYERS = ["red", "blue", "yellow"]
CELLS = {
    "0,0/c": {"pieces": {"red": {"troops": 4, "peep": True}}},
    "0,0/2": {"pieces": {"blue": {"troops": 5, "peep": False}}},
    "1,0/4": {"pieces": {"yellow": {"troops": 2, "peep": False},
                         "red": {"troops": 3, "peep": False}}},
    "1,0/1": {"supply_center": False, "pieces": {"blue": {"troops": 1, "peep": True}}},
}


def _whole_mosaic_input(seed: int) -> np.ndarray:
    """The net's input over the whole mosaic of a rendered table (CELLS), padded to
    multiples of bean_net.BATCH_STEP."""
    state = {"tiles": [{"q": 0, "r": 0}, {"q": 1, "r": 0}], "cells": CELLS}
    scene = render_state(state, families_colours(PLAYERS), seed)
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    mosaic = build_mosaic(scene.frame, find_tiles(scene.frame, profile.intrinsics))
    h, w = mosaic.cell_map.shape
    return bean_net.net_input(bean_planes(mosaic, profile), (0, 0, w, h), bean_net.BATCH_STEP)


def test_the_second_look_answers_a_mirrored_table_with_the_mirrored_answer():
    """The mean over a box and its mirror images does not depend on which way the table
    lies: mirroring the input mirrors the answer, each offset turned with it (an offset
    left unturned would move every bean of a mirrored look the wrong way)."""
    x = _whole_mosaic_input(1)[None]
    once = bean_net.run_mirrored(x)
    for axes, offset in (((3,), 1), ((2,), 2)):
        mirrored = bean_net.run_mirrored(np.ascontiguousarray(np.flip(x, axes)))
        back = np.flip(mirrored, axes).copy()
        back[:, offset] *= -1.0
        np.testing.assert_allclose(back, once, atol=1e-4)
    assert not np.allclose(once, bean_net.run(x), atol=1e-3)  # four looks are not one


def test_the_second_look_finds_the_beans_the_first_found_where_they_lie():
    """Where the net is sure of a bean, its mean over four looks puts it within a
    millimetre of where one look did, as sure."""
    x = _whole_mosaic_input(2)[None]
    first = [p for p in bean_net.peaks(bean_net.run(x)[0]) if p.heat >= 0.9]
    mean = bean_net.peaks(bean_net.run_mirrored(x)[0])
    assert len(first) >= 12
    for p in first:
        q = min(mean, key=lambda q: math.hypot(q.x - p.x, q.y - p.y))
        assert math.hypot(q.x - p.x, q.y - p.y) < 1.0 * bean_net.NET_PX_PER_MM
        assert q.heat >= 0.8


def test_a_frame_whose_beans_run_cool_counts_from_its_own_threshold():
    """Each player's least heat: the frame's own where its peaks part lower than the
    net's threshold, never above it, and what the table's corrections taught first."""
    state = {"tiles": [{"q": 0, "r": 0}, {"q": 1, "r": 0}], "cells": CELLS}
    scene = render_state(state, families_colours(PLAYERS), 1)
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    mosaic = build_mosaic(scene.frame, find_tiles(scene.frame, profile.intrinsics))
    st = pieces.frame_state(mosaic, profile)
    sig = lambda z: float(1 / (1 + np.exp(-z)))  # noqa: E731
    rng = np.random.default_rng(0)
    cool = [sig(z) for z in rng.normal(-2.0, 0.5, 30)] + [sig(z) for z in rng.normal(0.7, 0.3, 20)]
    hot = [sig(z) for z in rng.normal(-2.0, 0.5, 30)] + [sig(z) for z in rng.normal(3.0, 0.3, 20)]
    lowered = beans.thresholds_for(st, bean_net.frame_threshold(cool))
    assert all(bean_net.DOUBT_LOW <= t < bean_net.THRESHOLD for t in lowered)
    hot_t = bean_net.frame_threshold(hot)
    assert beans.thresholds_for(st, hot_t) == [bean_net.THRESHOLD] * len(PLAYERS)
    taught = dataclasses.replace(profile, extra={beans.LEARNED_THRESHOLD: 0.6})
    st.profile = taught
    assert beans.thresholds_for(st, bean_net.frame_threshold(cool)) == [0.6] * len(PLAYERS)


def test_a_box_whose_size_the_net_cannot_mirror_is_refused():
    with pytest.raises(ValueError, match="multiple of 4"):
        bean_net.run_mirrored(np.zeros((1, bean_net.CHANNELS, 10, 16), np.float32))


@pytest.mark.parametrize("seed", [1, 2])
def test_every_bean_is_found_where_it_lies_and_nothing_else(seed):
    state = {"tiles": [{"q": 0, "r": 0}, {"q": 1, "r": 0}], "cells": CELLS}
    scene = render_state(state, families_colours(PLAYERS), seed)
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    view = find_tiles(scene.frame, profile.intrinsics)
    mosaic = build_mosaic(scene.frame, view)
    h, w = mosaic.cell_map.shape
    x = bean_net.net_input(bean_planes(mosaic, profile), (0, 0, w, h))
    found = [p for p in bean_net.peaks(bean_net.run(x[None])[0])
             if p.heat >= bean_net.THRESHOLD]
    # In table millimetres, as the truth has them; the net marks a bean where the camera
    # sees its middle (beyond its foot, under a tilted camera).
    got = [mosaic.to_mm((p.x, p.y)) for p in found]
    eye = scene.truth.camera.centre_mm()
    truth = [seen_middle_mm(p, eye) for p in scene.truth.pieces if p["kind"] == "bean"]
    assert len(truth) == 15
    assert len(got) == len(truth)
    # One find for each bean, nearest first.
    left = list(got)
    for c in sorted(truth, key=lambda c: min(math.dist(c, g) for g in got)):
        i = min(range(len(left)), key=lambda i: math.dist(c, left[i]))
        assert math.dist(c, left.pop(i)) < 3.0, c


def test_the_net_answers_every_stride_pixels_for_any_size():
    out = bean_net.run(np.zeros((2, bean_net.CHANNELS, 48, 80), np.float32))
    assert out.shape == (2, 3, 48 // bean_net.STRIDE, 80 // bean_net.STRIDE)
    # Bare paper holds no bean.
    assert not bean_net.peaks(out[0])


@pytest.mark.parametrize("content", [None, b"not a net"])
def test_a_missing_or_broken_model_says_what_to_do(monkeypatch, tmp_path, content):
    model = tmp_path / "bean_net.onnx"
    if content is not None:
        model.write_bytes(content)
    monkeypatch.setattr(bean_net, "MODEL", model)
    bean_net.load.cache_clear()
    try:
        with pytest.raises(bean_net.ModelError, match="reinstall the package"):
            bean_net.run(np.zeros((1, bean_net.CHANNELS, 16, 16), np.float32))
        # The live service finds out when it starts, not on its first frame.
        profile = profile_for_colours(families_colours(PLAYERS), seed=3)
        with pytest.raises(UserError, match=str(model)):
            make_reader(games.find("peepwar"), profile)
    finally:
        monkeypatch.undo()
        bean_net.load.cache_clear()


def test_the_net_uses_no_more_threads_than_opencv_may():
    # A one-core benchmark (cv2.setNumThreads(1)) must not time a net on two cores.
    before = cv2.getNumThreads()
    bean_net.load.cache_clear()
    try:
        for threads in (1, 2):
            cv2.setNumThreads(threads)
            bean_net.load.cache_clear()
            options = bean_net.load().get_session_options()
            assert options.intra_op_num_threads == threads
    finally:
        cv2.setNumThreads(before)
        bean_net.load.cache_clear()


@pytest.mark.parametrize("heat, counted, warning", [
    (0.95, 1, None),
    (0.6, 1, "a doubtful red bean (60% sure)"),
    (0.3, 0, "perhaps one more red bean (30% sure)"),
])
def test_how_sure_the_net_is_sets_the_count_confidence_and_warning(heat, counted, warning):
    """A peak at a red bean's centre: sure, it counts; lukewarm, it counts but the cell is
    doubtful; cool, it does not count but the cell is doubtful all the same."""
    state = {"tiles": [{"q": 0, "r": 0}, {"q": 1, "r": 0}],
             "cells": {"1,0/3": {"pieces": {"red": {"troops": 1, "peep": False}}}}}
    scene = render_state(state, families_colours(PLAYERS), 4)
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    mosaic = build_mosaic(scene.frame, find_tiles(scene.frame, profile.intrinsics))
    state = pieces._prepared(mosaic, profile)
    bean = next(p["centre_mm"] for p in scene.truth.pieces if p["kind"] == "bean")
    beans.net_bean(state, tuple(mosaic.to_px(bean)), heat)
    cell = state.cells["1,0/3"]
    assert cell.troops.get("red", 0) == counted
    if warning is None:
        assert cell.confidence == 1.0 and not state.warnings
    else:
        assert cell.confidence <= 0.7
        assert state.warnings == [f"cell 1,0/3: {warning}"]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_peaks_of_a_batch_are_each_maps_own(n, h, w, seed):
    """Found together, each map's peaks are what it gives alone: no map's edge sees the
    next map's (they are stacked into one image), in the same order."""
    rng = np.random.default_rng(seed)
    outs = rng.normal(0.0, 2.0, (n, 3, h, w)).astype(np.float32)
    outs[:, 0] = np.round(outs[:, 0])  # coarse logits: plateaus of equal neighbours
    outs[:, 1:] = 0.0  # no offsets: a peak sits in the middle of its output pixel
    together = bean_net.peaks_of_batch(outs)
    assert together == [bean_net.peaks(one) for one in outs]
    for one, found in zip(outs, together, strict=True):
        at = [(int(p.y) // bean_net.STRIDE, int(p.x) // bean_net.STRIDE) for p in found]
        assert len(set(at)) == len(at)
        for y, x in at:
            around = one[0, max(y - 1, 0):y + 2, max(x - 1, 0):x + 2]
            assert one[0, y, x] == around.max()
            assert 1.0 / (1.0 + np.exp(-one[0, y, x])) > bean_net.DOUBT_LOW
            # Of equal neighbours, only the first in row order.
            assert not any((y + dy, x + dx) in at for dy, dx in ((0, 1), (1, -1), (1, 0), (1, 1))
                           if 0 <= y + dy < h and 0 <= x + dx < w
                           and one[0, y + dy, x + dx] == one[0, y, x])
