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
from vision.render3d.pelta_layout import clearance, intrudes, outline_on_table, seat_distance
from vision.render3d.pelta_shapes import CutGeometry, random_geometry
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
    g = CutGeometry(25.0, 3.0, 7.0, 4.0, 7.5, 4.3, 18.0, 6.0, 1.0)
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


def test_cut_sizes_come_from_the_catalog_and_vary_within_its_ranges() -> None:
    sizes = CATALOG.sizes
    drawn = [random_geometry(np.random.default_rng(s), CATALOG) for s in range(200)]
    for g in drawn:
        assert sizes.disc_diameter.low <= 2 * g.radius <= sizes.disc_diameter.high
        for name, size in (("tab_width", sizes.tab_width), ("tab_length", sizes.tab_depth),
                           ("notch_width", sizes.notch_width), ("notch_depth", sizes.notch_depth),
                           ("curve_width", sizes.curve_width), ("curve_depth", sizes.curve_depth)):
            assert size.low - 1e-9 <= getattr(g, name) <= size.high + 1e-9, name
        assert g.notch_width > g.tab_width and g.notch_depth >= g.tab_length  # it takes the tab
    widths = [g.curve_width for g in drawn]
    assert max(widths) - min(widths) > 0.8 * (sizes.curve_width.high - sizes.curve_width.low)
    # A catalog that states one size (a measured set) gets exactly that size.
    measured = type(CATALOG.sizes).from_json({"disc": {"diameter": 48.0}})
    cat = type(CATALOG)(CATALOG.name, CATALOG.pieces, measured)
    assert random_geometry(np.random.default_rng(1), cat).radius == 24.0


def test_a_piece_pushed_in_stops_where_the_cut_outlines_meet() -> None:
    g = CutGeometry(25.0, 3.0, 8.0, 6.0, 8.6, 6.3, 18.3, 6.0, 1.0)
    e1, s2, e6 = CATALOG.piece("E1"), CATALOG.piece("S2"), CATALOG.piece("E6")
    origin = Placed("red:E1", "red", "E1", 0.0, 0.0, 0.0, True)  # tab towards +x
    fixed = outline_on_table(e1, origin, g)
    notch = outline_on_table(e6, Placed("b:E6", "b", "E6", 0.0, 0.0, 180.0, True), g)
    d = seat_distance(fixed, notch, 0.0, 53.0, 40.0)
    # The tab is 0.3 mm shorter than the notch is deep: the rims beside it stop first.
    assert 49.6 < d < 50.0 and abs(clearance(fixed, notch + [d, 0])) < 0.05
    # A curve against a plain rim: its lips rest on the rim, the centres 2 R cos(b) apart.
    curve = outline_on_table(s2, Placed("b:S2", "b", "S2", 0.0, 0.0, 90.0, True), g)
    d = seat_distance(fixed, curve, 270.0, 53.0, 40.0)
    half = math.asin(g.curve_width / 2 / g.radius)
    assert abs(d - 2 * g.radius * math.cos(half)) < 0.3
    # A tab against a plain rim overlaps from the start: no seat.
    rim = outline_on_table(e6, Placed("b:E6", "b", "E6", 0.0, 0.0, 90.0, True), g)
    assert seat_distance(fixed, rim, 0.0, 50.5, 40.0) is None


def test_the_photo_touches_where_the_engine_does(scenes) -> None:
    """Pieces the engine has in contact touch in the picture, and no others come near;
    the engine's layout is the photo's with each piece two radii from its neighbours."""
    from vision.render3d.pelta_layout import APART_MM, OVERLAP_MM, TOUCH_MM

    for seed, scene in zip(SEEDS, scenes, strict=True):
        g = CutGeometry(**scene.params["geometry"])
        assert scene.params["geometry"] == random_geometry(
            np.random.default_rng(seed), CATALOG).to_json()
        truth = scene.truth
        engine = {tuple(sorted((c.a, c.b))) for c in contacts(_layout(truth), PeltaPeeps(
            truth.seats).catalogs)}
        seen = {}
        for p in truth.pieces:
            x, y, rot = scene.params["physical"][p.uid]
            seen[p.uid] = Placed(p.uid, p.team, p.piece, x, y, rot, p.face_up)
        shapes = {u: outline_on_table(CATALOG.piece(p.piece), p, g) for u, p in seen.items()}
        pairs = 0
        for a in sorted(shapes):
            for b in sorted(shapes):
                if a < b:
                    c = clearance(shapes[a], shapes[b], APART_MM)
                    assert c > -OVERLAP_MM - 0.05, (a, b, c)
                    assert (c < TOUCH_MM) == ((a, b) in engine), (seed, a, b, c)
                    pairs += (a, b) in engine
        assert pairs >= len(truth.joins)


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
