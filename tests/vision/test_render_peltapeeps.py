"""The PeltaPeeps renderer: legal layouts, a ground truth that agrees with the engine."""

from __future__ import annotations

import numpy as np

from companion.rules.peltapeeps.layout import contacts
from vision.geometry import apply_h
from vision.peltapeeps.geometry import MM_PER_UNIT
from vision.render.peltapeeps import PeltaSpec, render_layout

SMALL = PeltaSpec(size=(800, 600))


def test_same_seed_same_photo_and_truth() -> None:
    a, b = render_layout(3, SMALL), render_layout(3, SMALL)
    assert np.array_equal(a.frame, b.frame)
    assert [p.uid for p in a.truth.pieces] == [p.uid for p in b.truth.pieces]
    assert a.truth.joins == b.truth.joins
    assert not np.array_equal(a.frame, render_layout(4, SMALL).frame)


def test_truth_agrees_with_the_engine() -> None:
    scene = render_layout(12, SMALL)
    truth, rules, state = scene.truth, scene.rules, scene.state
    assert scene.frame.shape == (600, 800, 3) and scene.frame.dtype == np.uint8
    assert sorted(p.uid for p in truth.pieces) == sorted(state.layout)
    joins = sorted(tuple(sorted((c.a, c.b))) for c in contacts(state.layout, rules.catalogs)
                   if c.kind == "join")
    assert truth.joins == joins and joins
    assert truth.sheet == rules.score_sheet(state)
    assert truth.seats == list(rules.seats)
    for p in truth.pieces:
        # The homography puts every piece (centre and rim) inside the photo.
        c = apply_h(truth.homography, np.array([[p.x, p.y]]) * MM_PER_UNIT)[0]
        assert np.allclose(c, p.centre_px, atol=0.05 * p.radius_px)
        assert p.radius_px < p.centre_px[0] < 800 - p.radius_px
        assert p.radius_px < p.centre_px[1] < 600 - p.radius_px


def test_pieces_are_drawn_where_the_truth_says() -> None:
    scene = render_layout(21, SMALL)
    img = scene.frame.astype(np.float32)
    for p in scene.truth.pieces:
        x, y = (int(round(v)) for v in p.centre_px)
        r = int(p.radius_px)
        inside = img[y - r // 3:y + r // 3, x - r // 3:x + r // 3].reshape(-1, 3)
        # Team acrylic is strongly coloured: its channels spread far apart.
        spread = np.median(inside.max(axis=1) - inside.min(axis=1))
        assert spread > 40, p.uid


def test_three_colours_are_never_drawn() -> None:
    # Three colours seat no one legally (3 players play two each): such draws become four.
    spec = PeltaSpec(size=(640, 480), teams=(3, 3), rounds=(2, 3))
    for seed in range(3):
        scene = render_layout(seed, spec)
        assert len(scene.truth.seats) == 4
