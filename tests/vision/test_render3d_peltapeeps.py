"""The path-traced PeltaPeeps generator: its truth is a legal, correctly scored layout in
view, its cut shapes fit as the engine says, and a tiny render shows the pieces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.rules.peltapeeps.catalog import default_catalog
from companion.rules.peltapeeps.layout import Placed, connected, contacts
from companion.rules.peltapeeps.rules import PeltaPeeps, PeltaState
from vision.render3d.pelta_cache import truth_from_json, truth_to_json
from vision.render3d.pelta_layout import intrudes, outline_on_table
from vision.render3d.pelta_shapes import CutGeometry
from vision.render3d.peltapeeps import PeltaSpec3D, render_pelta3d

pytest.importorskip("mitsuba")

CATALOG = default_catalog("full")
SEEDS = (60000, 60001, 60002)


@pytest.fixture(scope="module")
def scenes():
    return [render_pelta3d(s, picture=False) for s in SEEDS]


def _layout(truth) -> dict[str, Placed]:
    return {p.uid: Placed(p.uid, p.team, p.piece, p.x, p.y, p.rotation, p.face_up)
            for p in truth.pieces}


def test_the_sheet_is_the_engines_score_of_the_truth_layout(scenes) -> None:
    for scene in scenes:
        truth = scene.truth
        layout = _layout(truth)
        rules = PeltaPeeps(truth.seats)
        assert rules.score_sheet(PeltaState(tuple(truth.seats), layout)) == truth.sheet
        found = contacts(layout, rules.catalogs)
        assert not [c for c in found if c.kind == "clash"]
        assert connected(layout, rules.catalogs)
        assert sorted(tuple(sorted((c.a, c.b))) for c in found if c.kind == "join") == \
            sorted(tuple(j) for j in truth.joins)
        # A piece is played once; every seat's colour and only those are on the table.
        assert len({p.uid for p in truth.pieces}) == len(truth.pieces)
        assert {p.team for p in truth.pieces} <= {t for _, t in truth.seats}


def test_every_piece_is_inside_the_frame(scenes) -> None:
    w, h = PeltaSpec3D().size
    for scene in scenes:
        for p in scene.truth.pieces:
            x, y = p.centre_px
            r = p.radius_px
            assert r > 20
            assert r < x < w - r and r < y < h - r, (p.uid, p.centre_px)


def test_layouts_differ_by_seed_and_repeat_for_the_same_seed(scenes) -> None:
    again = render_pelta3d(SEEDS[0], picture=False)
    assert truth_to_json(again.truth) == truth_to_json(scenes[0].truth)
    assert truth_to_json(scenes[0].truth) != truth_to_json(scenes[1].truth)


def test_truth_survives_json(scenes) -> None:
    t = scenes[0].truth
    back = truth_from_json(truth_to_json(t))
    assert back.pieces == t.pieces and back.sheet == t.sheet and back.joins == t.joins
    assert back.seats == [tuple(s) for s in t.seats]
    assert np.allclose(back.homography, t.homography)


def test_a_tab_seats_in_a_notch_but_not_against_a_plain_rim() -> None:
    g = CutGeometry(25.0, 3.0, 7.0, 4.0, 0.5, 0.3, 10.0, 1.0)
    e1, e6 = CATALOG.piece("E1"), CATALOG.piece("E6")  # E1: tab at 0; E6: one notch at 0
    a = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)
    seated = Placed("blue:E6", "blue", "E6", 2.0, 0.0, 180.0, True)  # its notch faces the tab
    rim = Placed("blue:E6", "blue", "E6", 2.0, 0.0, 90.0, True)  # a plain rim faces the tab
    oa = outline_on_table(e1, a, g)
    assert not intrudes(oa, outline_on_table(e6, seated, g))
    assert intrudes(oa, outline_on_table(e6, rim, g))
    catalogs = {"red": CATALOG, "blue": CATALOG}
    assert contacts({a.uid: a, seated.uid: seated}, catalogs)[0].kind == "join"
    assert contacts({a.uid: a, rim.uid: rim}, catalogs)[0].kind == "clash"


@pytest.mark.slow
def test_a_tiny_render_shows_each_piece_in_its_colour() -> None:
    spec = PeltaSpec3D(size=(320, 240), render_scale=1.0, spp=2)
    scene = render_pelta3d(60001, spec)
    assert scene.frame.shape == (240, 320, 3)
    frame = scene.frame.astype(float)
    border = np.concatenate([frame[:8].reshape(-1, 3), frame[-8:].reshape(-1, 3)]).mean(0)
    differs = 0
    for p in scene.truth.pieces:
        x, y = (int(round(v)) for v in p.centre_px)
        r = max(1, int(p.radius_px * 0.4))
        patch = frame[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3).mean(0)
        differs += np.abs(patch - border).sum() > 40
    # Acrylic of strong colours on any table: nearly every disc stands out from the table.
    assert differs >= math.ceil(0.8 * len(scene.truth.pieces))
