"""The PeltaPeeps reader takes its geometry from the catalog's sizes (sizes_mm).

Rim labels are drawn from a piece shape as the reader samples them (its polar
grid, in shares of the radius), so each test says exactly which shape the photo
shows; one test renders and reads a whole layout of pieces with small connectors.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.peltapeeps.catalog import Catalog, Sizes, default_catalog
from vision.peltapeeps import rims
from vision.peltapeeps.geometry import DEFAULT_GEOMETRY, PieceGeometry, scallop_radius
from vision.peltapeeps.zones import zones

# A set with small connectors: a 4 mm tab, notch and curve depth, a 6 mm tab and notch.
SMALL = {"tab": {"width": 6, "depth": 4}, "notch": {"width": 6, "depth": 4},
         "curve": {"width": 14, "depth": 4}}
SMALL_GEOMETRY = PieceGeometry.from_sizes(Sizes.from_json(SMALL))


def test_the_shipped_shape_is_the_one_always_drawn() -> None:
    g = DEFAULT_GEOMETRY
    assert (g.radius_mm, g.tab_width_mm, g.tab_out_mm) == (25.0, 8.0, 6.0)
    assert (g.notch_width_mm, g.notch_depth_mm, g.curve_depth_mm) == (8.0, 6.0, 6.0)
    assert abs(g.curve_radius_mm - 12.0) < 0.05
    assert len(g.ends) == 2 and g.ends[0].tab_width_mm == 7.0 and g.ends[1].tab_width_mm == 9.0
    # The scallop's circle gives back the width asked for at the rim.
    rho = scallop_radius(25.0, 14.0, 4.0)
    c = 25.0 - 4.0 + rho
    x = (25.0**2 + c**2 - rho**2) / (2 * c)
    assert abs(2 * np.sqrt(25.0**2 - x**2) - 14.0) < 1e-6
    measured = PieceGeometry.from_sizes(Sizes.from_json({
        key: {f: 8 if f == "width" else 6 for f in ("width", "depth")}
        for key in ("tab", "notch")} | {"disc": {"diameter": 50}}))
    assert measured.ends[0].curve_width_mm < measured.ends[1].curve_width_mm  # its range kept


def test_smaller_connectors_move_the_zones_towards_the_rim() -> None:
    big, small = zones(DEFAULT_GEOMETRY), zones(SMALL_GEOMETRY)
    assert small.cut[0] > big.cut[0] and small.tab[1] < big.tab[1]
    assert small.tab_run_deg[1] < big.tab_run_deg[1]
    assert small.shape_half_deg < big.shape_half_deg
    assert small.notch_depth == pytest.approx(4 / 25)


def _disc_showing(g: PieceGeometry, connectors: list[tuple[float, str]], edge_mm: float = 0.0
                  ) -> rims.Disc:
    """A disc of team 0 whose labels show pieces of shape ``g`` with ``connectors``."""
    th = np.radians(np.arange(rims.ANGLES) * 360.0 / rims.ANGLES)
    r = g.radius_mm
    xs = np.cos(th)[:, None] * rims.RADII[None, :] * r
    ys = np.sin(th)[:, None] * rims.RADII[None, :] * r
    rim = 1.0 - edge_mm / r  # the rim is fitted where the colour stops
    inside = g.sdf(xs * rim, ys * rim, connectors) > edge_mm
    disc = rims.Disc(0.0, 0.0, 20.0, team=0, geometry=g)
    disc.labels = np.where(inside, 0, rims.TABLE).astype(np.int16)
    return disc


@pytest.mark.parametrize("kind", ["notch", "curve"])
@pytest.mark.parametrize("edge_mm", [0.0, 1.0])
def test_small_connectors_are_read_with_their_own_catalog(kind: str, edge_mm: float) -> None:
    cons = [(90.0, kind), (210.0, "tab"), (320.0, "notch")]
    disc = _disc_showing(SMALL_GEOMETRY, cons, edge_mm)
    rims.connectors([disc], np.zeros((8, 8), np.uint8), 1.0, pairs=[])
    seen = [(t, round(a / 10)) for a, t, *_ in disc.free_connectors]
    assert seen == [(kind, 9), ("tab", 21), ("notch", 32)]
    assert all(c[3] > rims.SURE_SHAPE for c in disc.free_connectors)


def test_a_profile_between_a_notch_and_a_curve_is_in_doubt() -> None:
    rows, kinds = rims._cut_templates(DEFAULT_GEOMETRY)
    middle = 6 * len(rims.SHAPE_EDGES_MM) + 1  # unshifted, a thin dark edge
    notch = rows[kinds.index("notch") + middle]
    curve = rows[kinds.index("curve") + middle]
    assert rims.shape_fit(notch) == ("notch", pytest.approx(1.0, abs=1e-3))
    assert rims.shape_fit(curve) == ("curve", pytest.approx(1.0, abs=1e-3))
    # Moving from one shape to the other, the sureness falls to nothing where they meet.
    mixes = np.linspace(0.0, 1.0, 41)
    fits = [rims.shape_fit((1 - w) * notch + w * curve) for w in mixes]
    flip = next(k for k, (kind, _) in enumerate(fits) if kind == "curve")
    assert 0 < flip < len(fits) - 1
    assert min(sure for _, sure in fits[flip - 1:flip + 1]) < rims.SURE_SHAPE
    # A profile neither shape made (the cut hidden) tells them apart only weakly.
    ragged = np.where(np.arange(len(notch)) % 2 == 0, notch, curve)
    assert rims.shape_fit(ragged)[1] < 0.99


@pytest.mark.parametrize("kind", ["notch", "curve"])
def test_a_cut_with_a_tab_of_its_colour_in_it_is_fitted_with_the_tab(kind: str) -> None:
    # Two discs of one colour: the right one's tab sits in the left one's cut.
    g = DEFAULT_GEOMETRY
    left = _disc_showing(g, [(0.0, kind)])
    th = np.radians(np.arange(rims.ANGLES) * 360.0 / rims.ANGLES)
    xs = np.cos(th)[:, None] * rims.RADII[None, :] * g.radius_mm
    ys = np.sin(th)[:, None] * rims.RADII[None, :] * g.radius_mm
    tab = g.sdf(xs - 2 * g.radius_mm, ys, [(180.0, "tab")]) > 0
    left.labels = np.where(tab, 0, left.labels).astype(np.int16)
    assert rims._cut_kind(left, 0.0, {0}, filled=True)[0] == kind


def test_a_catalog_of_small_pieces_is_what_the_reader_uses() -> None:
    cat = Catalog.from_json({**default_catalog().to_json(), "sizes_mm": SMALL})
    from vision.peltapeeps.read import _geometry

    assert _geometry(cat) == SMALL_GEOMETRY
    assert _geometry(default_catalog()) == DEFAULT_GEOMETRY


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 8])
def test_a_layout_of_small_pieces_is_read_exactly_with_their_catalog(monkeypatch, seed) -> None:
    # The renderer draws the pieces with small connectors; the reader is told so by the
    # catalog and reads the layout as exactly as one of the shipped shape.
    import vision.render.peltapeeps as render
    from vision.peltapeeps.read import read_layout
    from vision.peltapeeps.reading import score_reading

    monkeypatch.setattr(render, "piece_sdf", lambda x, y, c: SMALL_GEOMETRY.sdf(x, y, c))
    small = Catalog.from_json({**default_catalog().to_json(), "sizes_mm": SMALL})
    scene = render.render_layout(seed, render.PeltaSpec(size=(2000, 1500)),
                                 teams=["red", "blue"])
    profile = render.profile_for_teams({t: render.TEAM_COLOURS[t] for t in ("red", "blue")})
    reading = read_layout(scene.frame, profile, small)
    seen = {p.uid: p for p in reading.pieces}
    assert sorted(seen) == sorted(p.uid for p in scene.truth.pieces)
    assert all(seen[t.uid].face_up == t.face_up for t in scene.truth.pieces)
    joins = sorted(tuple(sorted((j.a, j.b))) for j in reading.joins if j.kind == "join")
    assert joins == sorted(tuple(j) for j in scene.truth.joins)
    assert score_reading(reading, small, seats=scene.truth.seats) == scene.truth.sheet
