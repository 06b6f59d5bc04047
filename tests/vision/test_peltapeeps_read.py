"""Reading PeltaPeeps layouts from rendered photos: real OpenCV, fixed seeds, exact truth.

Each layout is grown by the rules engine and rendered (2000x1500, random lamp,
table and a camera tilted up to 20 degrees); the reading must give back every
piece, its team, face and catalog piece, every join, and the engine's score.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.peltapeeps.catalog import default_catalog
from companion.rules.peltapeeps.rules import PeltaPeeps, Place
from vision.errors import PhotoError
from vision.peltapeeps import discs, identify, rims
from vision.peltapeeps.geometry import DISC_RADIUS_MM, piece_sdf
from vision.peltapeeps.read import read_layout
from vision.peltapeeps.reading import LayoutReading, score_reading
from vision.render.layers import table_texture
from vision.render.light import to_srgb
from vision.render.peltapeeps import (
    TEAM_COLOURS,
    PeltaSpec,
    profile_for_teams,
    render_layout,
    render_state,
)

SPEC = PeltaSpec(size=(2000, 1500))
FULL = default_catalog("full")
_PROFILES: dict[tuple[str, ...], object] = {}


def _profile(teams: list[str]):
    key = tuple(teams)
    if key not in _PROFILES:
        _PROFILES[key] = profile_for_teams({t: TEAM_COLOURS[t] for t in teams})
    return _PROFILES[key]


def _assert_matches_truth(reading: LayoutReading, truth) -> None:
    seen = {p.uid: p for p in reading.pieces}
    assert sorted(seen) == sorted(p.uid for p in truth.pieces)
    for tp in truth.pieces:
        p = seen[tp.uid]
        assert p.team == tp.team
        assert p.face_up == tp.face_up, tp.uid
        assert np.hypot(p.centre_px[0] - tp.centre_px[0],
                        p.centre_px[1] - tp.centre_px[1]) < 0.2 * tp.radius_px
        assert abs(p.radius_px / tp.radius_px - 1) < 0.08
    joins = sorted(tuple(sorted((j.a, j.b))) for j in reading.joins if j.kind == "join")
    assert joins == sorted(tuple(j) for j in truth.joins)
    assert score_reading(reading, FULL, seats=truth.seats) == truth.sheet


@pytest.mark.parametrize(("seed", "teams"), [
    (2, ["red", "blue"]),
    (8, ["red", "blue"]),
    (1, ["red", "orange", "yellow", "green", "blue", "purple"]),
    (6, ["red", "orange", "yellow", "green", "blue", "purple"]),
])
def test_layout_read_exactly(seed: int, teams: list[str]) -> None:
    scene = render_layout(seed, SPEC, teams=teams)
    assert any(not p.face_up for p in scene.truth.pieces)
    reading = read_layout(scene.frame, _profile(teams), FULL)
    _assert_matches_truth(reading, scene.truth)
    assert not [w for w in reading.warnings if "no team's colour" in w]
    assert reading.image_size == (2000, 1500)
    # The reading survives its JSON form (what the score-sheet page stores).
    again = LayoutReading.from_json(reading.to_json())
    assert score_reading(again, FULL, seats=scene.truth.seats) == scene.truth.sheet


def test_face_down_piece_is_named_by_its_mirrored_pattern() -> None:
    # E3 (a notch, and a tab 60 degrees clockwise of it) is not its own mirror image:
    # face down it shows the tab 60 degrees the other way, like no face-up piece of the set.
    e3 = FULL.piece("E3")
    assert e3.pattern(True) != e3.pattern(False)
    assert all(p.pattern(True) != e3.pattern(False) for p in FULL.pieces)
    rules = PeltaPeeps(seats=[("ann", "green"), ("bob", "purple")], set_size="full")
    state = rules.new_state()
    state, _ = rules.apply(state, Place("ann", "green", "E3", 0.0, 0.0, 30.0, False))
    scene = render_state(rules, state, {"green": TEAM_COLOURS["green"],
                                        "purple": TEAM_COLOURS["purple"]}, 11, SPEC)
    reading = read_layout(scene.frame, _profile(["green", "purple"]), FULL)
    assert [(p.uid, p.face_up) for p in reading.pieces] == [("green:E3", False)]
    assert reading.joins == []


def test_empty_table_gives_an_empty_reading_with_a_warning() -> None:
    rng = np.random.default_rng(5)
    table = to_srgb(table_texture(rng, (1600, 1200)))
    reading = read_layout(np.ascontiguousarray(table), _profile(["red", "blue"]), FULL)
    assert reading.pieces == [] and reading.joins == []
    assert any("no pieces" in w for w in reading.warnings)


@pytest.mark.parametrize("bad", [
    np.zeros((480, 640), np.uint8),  # grey, not colour
    np.zeros((480, 640, 3), np.float32),  # not 8-bit
    np.zeros((20, 30, 3), np.uint8),  # far too small to hold a piece
    "photo.jpg",
])
def test_unreadable_input_raises_a_clear_error(bad) -> None:
    with pytest.raises(PhotoError, match="photo"):
        read_layout(bad, _profile(["red", "blue"]), FULL)


def test_discs_misjudged_in_size_are_looked_for_again(monkeypatch) -> None:
    # A tight cluster can fool the first size estimate (from the piece mask); the rims
    # then show acrylic going on past the discs found, and other sizes are tried.
    scene = render_layout(2, SPEC, teams=["red", "blue"])
    real = discs.estimate_radius
    monkeypatch.setattr(discs, "estimate_radius", lambda mask: 0.6 * real(mask))
    reading = read_layout(scene.frame, _profile(["red", "blue"]), FULL)
    _assert_matches_truth(reading, scene.truth)


@pytest.mark.parametrize("kind", ["notch", "curve"])
@pytest.mark.parametrize("edge_mm", [0.0, 1.0, 2.0])
@pytest.mark.parametrize("off_deg", [0.0, 4.0])
def test_notch_and_curve_told_apart_by_their_depth_profile(kind, edge_mm, off_deg) -> None:
    # The disc's colour labels around its rim, as the reader samples them: the cut at
    # 90 degrees (off a little), its dark edge widening it as a photo does.
    th = np.radians(np.arange(rims.ANGLES) * 360.0 / rims.ANGLES)
    xs = np.cos(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    ys = np.sin(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    rim = 1.0 - edge_mm / DISC_RADIUS_MM  # the rim is fitted where the colour stops
    inside = piece_sdf(xs * rim, ys * rim, [(90.0 + off_deg, kind)]) > edge_mm
    disc = rims.Disc(0.0, 0.0, 20.0, team=0)
    disc.labels = np.where(inside, 0, rims.TABLE).astype(np.int16)
    rims.connectors([disc], np.zeros((8, 8), np.uint8), 1.0, pairs=[])
    assert [(t, round(a / 10)) for a, t, *_ in disc.free_connectors] == [(kind, 9)]


@pytest.mark.parametrize("kind", ["notch", "curve"])
@pytest.mark.parametrize("paint_to", [0.66, 0.69])
def test_marks_painted_out_towards_the_rim_are_not_taken_for_the_cut(kind, paint_to) -> None:
    # A set whose marks reach past the usual 0.62 R (a path-traced set's wave marks do):
    # the acrylic starts again beyond them, so the cut's depth is counted from there.
    th = np.radians(np.arange(rims.ANGLES) * 360.0 / rims.ANGLES)
    xs = np.cos(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    ys = np.sin(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    rim = 1.0 - 1.0 / DISC_RADIUS_MM
    inside = piece_sdf(xs * rim, ys * rim, [(90.0, kind)]) > 1.0
    radii = rims.RADII
    paint = (radii >= 0.56) & (radii < paint_to + 0.005)
    disc = rims.Disc(0.0, 0.0, 20.0, team=0)
    disc.labels = np.where(inside & ~paint[None, :], 0, rims.TABLE).astype(np.int16)
    rims.connectors([disc], np.zeros((8, 8), np.uint8), 1.0, pairs=[])
    assert [(t, round(a / 10)) for a, t, *_ in disc.free_connectors] == [(kind, 9)]
    assert min(c[3] for c in disc.free_connectors) > 0.9  # and sure of the shape


def test_a_piece_of_a_colour_no_team_has_is_pointed_out() -> None:
    scene = render_layout(3, SPEC, teams=["red", "blue", "green", "yellow"])
    others = [p for p in scene.truth.pieces if p.team in ("green", "yellow")]
    assert others
    reading = read_layout(scene.frame, _profile(["red", "blue"]), FULL)
    assert {p.team for p in reading.pieces} <= {"red", "blue"}
    strangers = [w for w in reading.warnings if "no team's colour" in w]
    assert strangers and all("companion calibrate" in w for w in strangers)
    # Each warning names where a green or yellow piece lies.
    for w in strangers:
        x, y = (float(v) for v in w.split("(")[1].split(")")[0].split(","))
        assert min(np.hypot(x - p.centre_px[0], y - p.centre_px[1]) for p in others) \
            < 0.5 * others[0].radius_px


@pytest.mark.parametrize(("theta", "kind"), [(90.0, "join"), (180.0, "clash")])
def test_a_curve_on_a_plain_rim_joins_and_one_over_a_notch_is_named(theta, kind) -> None:
    # Blue S2's curve against red E1's rim: a plain stretch (E1's tab and notch are at 0
    # and 180 on its face; here turned by 20), or over E1's notch, which the rules forbid.
    from dataclasses import replace

    from companion.rules.peltapeeps.layout import Placed, place_against

    rules = PeltaPeeps(seats=[("ann", "red"), ("bob", "blue")])
    e1 = Placed("red:E1", "red", "E1", 0.0, 0.0, 20.0, True)
    s2 = place_against(e1, theta + 20, FULL.piece("S2"), 0.0, "blue", True)
    state = replace(rules.new_state(), layout={e1.uid: e1, s2.uid: s2})
    scene = render_state(rules, state, {t: TEAM_COLOURS[t] for t in ("red", "blue")}, 1, SPEC)
    reading = read_layout(scene.frame, _profile(["red", "blue"]), FULL)
    assert sorted(p.uid for p in reading.pieces) == ["blue:S2", "red:E1"]
    assert [(j.a, j.b, j.kind) for j in reading.joins] == [("blue:S2", "red:E1", kind)]
    clash = [w for w in reading.warnings if "cannot lie so" in w]
    if kind == "join":
        assert clash == [] and score_reading(reading, FULL)["blue"]["joins"] == 1
    else:
        assert len(clash) == 1 and clash[0].startswith("red:E1 and blue:S2 near (")
        assert clash[0].endswith("cannot lie so: the curve of blue:S2 would block a notch of "
                                 "red:E1: a curve may not cover an opening")


def test_the_lamps_reflection_over_pieces_is_named_and_a_clean_photo_has_none() -> None:
    # A reflection blows the camera out to white where it falls: the pieces under it
    # lose their colour, so the reader names the place rather than keep quiet.
    scene = render_layout(2, SPEC, teams=["red", "blue"])
    clean = read_layout(scene.frame, _profile(["red", "blue"]), FULL)
    assert not [w for w in clean.warnings if "reflection" in w]
    by_uid = {p.uid: p for p in scene.truth.pieces}
    a, b = (by_uid[u] for u in scene.truth.joins[0])  # two pieces that join
    x, y = (a.centre_px[0] + b.centre_px[0]) / 2, (a.centre_px[1] + b.centre_px[1]) / 2
    frame = scene.frame.copy()
    yy, xx = np.mgrid[: frame.shape[0], : frame.shape[1]]
    frame[np.hypot(xx - x, yy - y) < 0.8 * a.radius_px] = (250, 252, 253)
    glared = read_layout(frame, _profile(["red", "blue"]), FULL)
    named = [w for w in glared.warnings if "reflection" in w]
    assert len(named) == 1 and "take the photo again" in named[0]
    wx, wy = (float(v) for v in named[0].split("near (")[1].split(")")[0].split(","))
    assert np.hypot(wx - x, wy - y) < 0.2 * a.radius_px


ACRYLIC, TABLE_LOOK = np.log([0.95, 0.41, 0.79]), np.log([0.12, 0.14, 0.11])  # pink on dark wood


def _cut_disc(kind: str, in_cut: np.ndarray, body: np.ndarray = ACRYLIC) -> rims.Disc:
    """A disc (team 0) with a ``kind`` cut at 90 degrees by its labels, and the colours
    it was sampled at (log linear BGR): ``body`` inside the rim on the rays through the
    cut, pink acrylic elsewhere, dark table beyond the rim, and ``in_cut`` where the
    labels say the cut is."""
    th = np.radians(np.arange(rims.ANGLES) * 360.0 / rims.ANGLES)
    xs = np.cos(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    ys = np.sin(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    inside = piece_sdf(xs, ys, [(90.0, kind)]) > 0
    through = (np.abs(np.degrees(th) - 90) < 30)[:, None, None]
    beyond = (rims.RADII >= 1.0)[None, :, None]
    disc = rims.Disc(0.0, 0.0, 20.0, team=0)
    disc.labels = np.where(inside, 0, rims.TABLE).astype(np.int16)
    disc.looks = np.where(inside[..., None], np.where(through, body, ACRYLIC),
                          np.where(beyond, TABLE_LOOK, in_cut))
    return disc


@pytest.mark.parametrize("kind", ["notch", "curve"])
def test_a_cut_is_sure_when_it_shows_the_table_beyond_the_rim(kind) -> None:
    disc = _cut_disc(kind, TABLE_LOOK)
    rims.connectors([disc], np.zeros((8, 8), np.uint8), 1.0, pairs=[])
    [(_, seen, sure, _)] = disc.free_connectors
    assert (seen, sure) == (kind, 1.0)


@pytest.mark.parametrize("kind", ["notch", "curve"])
@pytest.mark.parametrize("light", ["sheen", "glare"])
def test_a_rim_whitened_by_the_lamp_is_a_doubtful_cut(kind, light) -> None:
    # The lamp's sheen whitens the acrylic at the rim, or its glare washes the disc out
    # there altogether: labelled "not acrylic" as a cut is, but looking like the disc it
    # is rather than like the table beyond.
    if light == "sheen":
        disc = _cut_disc(kind, np.log([0.95, 0.80, 0.94]))
    else:
        disc = _cut_disc(kind, np.log([0.99, 0.99, 0.99]), body=np.log([0.99, 0.99, 0.99]))
    rims.connectors([disc], np.zeros((8, 8), np.uint8), 1.0, pairs=[])
    [(_, _, sure, _)] = disc.free_connectors
    assert sure < 0.3
    # A piece without that cut pays only as much as the cut is sure.
    assert identify._cost_at(disc.free_connectors, [], 0.0)[0] == pytest.approx(
        identify.MISSING * sure)


def _tab_disc(beside: np.ndarray, in_tab: np.ndarray) -> rims.Disc:
    """A disc (team 0) with a tab at 90 degrees by its labels: pink acrylic inside the
    rim, ``in_tab`` where the labels say the tab is, ``beside`` elsewhere outside."""
    th = np.radians(np.arange(rims.ANGLES) * 360.0 / rims.ANGLES)
    xs = np.cos(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    ys = np.sin(th)[:, None] * rims.RADII[None, :] * DISC_RADIUS_MM
    inside = piece_sdf(xs, ys, [(90.0, "tab")]) > 0
    disc = rims.Disc(0.0, 0.0, 20.0, team=0)
    disc.labels = np.where(inside, 0, rims.TABLE).astype(np.int16)
    beyond = (rims.RADII >= 1.0)[None, :, None]
    disc.looks = np.where(inside[..., None] & beyond, in_tab, np.where(beyond, beside, ACRYLIC))
    return disc


def test_a_tab_is_sure_when_it_looks_like_the_acrylic_and_doubtful_when_like_the_table() -> None:
    # A tab of the disc's acrylic, and the pink shadow a translucent disc casts on a
    # pale table, which the labels also take for the disc's colour.
    pale = np.log([0.60, 0.62, 0.58])
    for in_tab, expected in ((ACRYLIC, 1.0), (np.log([0.62, 0.55, 0.60]), None)):
        disc = _tab_disc(pale, in_tab)
        rims.connectors([disc], np.zeros((8, 8), np.uint8), 1.0, pairs=[])
        [(ang, seen, sure, _)] = disc.free_connectors
        assert (round(ang), seen) == (90, "tab")
        assert (sure == 1.0) if expected else (sure < 0.3)


def test_a_reading_that_sets_doubted_connectors_aside_is_itself_in_doubt() -> None:
    # E6 has one notch. A disc showing that notch and, elsewhere, two cuts the colours
    # doubt (the lamp's light?) is read E6, but only by setting those aside.
    from vision.peltapeeps.read import _rests_on_doubt

    e6 = FULL.piece("E6")

    def disc(free, at_contacts=()):
        d = rims.Disc(0.0, 0.0, 20.0, team=0)
        d.free_connectors = sorted(free)
        d.connectors = sorted([*free, *at_contacts])
        return d, identify.best_match(d.connectors, e6, True)

    notch = (90.0, "notch", 1.0, 1.0)
    d, m = disc([notch, (200.0, "curve", 0.2, 1.0), (300.0, "curve", 0.3, 1.0)])
    assert m.cost <= 0.6 and _rests_on_doubt(d, e6, m)
    # Sure of them, it fits only roughly anyway (and says so); with none, it is plain.
    d, m = disc([notch, (200.0, "curve", 1.0, 1.0), (300.0, "curve", 1.0, 1.0)])
    assert not _rests_on_doubt(d, e6, m)
    d, m = disc([notch])
    assert not _rests_on_doubt(d, e6, m)
    # A doubted cut the piece has is no doubt about the piece.
    d, m = disc([(90.0, "notch", 0.3, 1.0)])
    assert not _rests_on_doubt(d, e6, m)
    # A reading chosen at a contact keeps its own sureness (0.7): no colour doubted it.
    # E1 (a tab, a notch opposite) with its notch read as a curve at a contact.
    e1 = FULL.piece("E1")
    d = rims.Disc(0.0, 0.0, 20.0, team=0)
    d.free_connectors = [(90.0, "tab", 1.0, 1.0)]
    d.connectors = [(90.0, "tab", 1.0, 1.0), (270.0, "curve", 0.7, 1.0)]
    m = identify.best_match(d.connectors, e1, True)
    assert m.cost <= 0.6 and not _rests_on_doubt(d, e1, m)


def test_the_colour_check_keeps_off_rims_a_neighbour_touches() -> None:
    # Near a touching neighbour its acrylic may fill a cut or lie beside a tab: the
    # colours say nothing there, and the connectors stay as sure as the labels say.
    sheen = np.log([0.95, 0.80, 0.94])
    whitened = _cut_disc("curve", sheen)
    assert rims._opens_out(whitened, 90.0, touching=[]) < 0.3
    assert rims._opens_out(whitened, 90.0, touching=[100.0]) == 1.0
    shadow = _tab_disc(np.log([0.60, 0.62, 0.58]), np.log([0.62, 0.55, 0.60]))
    assert rims._sticks_out(shadow, 90.0, touching=[]) < 0.3
    assert rims._sticks_out(shadow, 90.0, touching=[70.0]) == 1.0
    # A blue neighbour clear of the tab (31.5 degrees off) but over the table beside it
    # on one side: that side is left out, and the other side still tells the shadow.
    th = np.arange(rims.ANGLES) * 360.0 / rims.ANGLES
    blue = (np.abs(th - 121.5) < 20)[:, None] & (rims.RADII >= 1.0)[None, :]
    shadow.looks[blue] = np.log([0.40, 0.10, 0.03])
    assert rims._sticks_out(shadow, 90.0, touching=[121.5]) < 0.3


def test_a_disc_read_from_a_photo_keeps_the_colours_it_was_sampled_at(monkeypatch) -> None:
    # refine labels each disc from polar samples; the colours checked against the labels
    # are the logarithms of those same samples.
    from vision.peltapeeps import read as reader

    got = {}
    keep = reader._identify

    def spy(found, *args):
        got["found"] = found
        return keep(found, *args)

    monkeypatch.setattr(reader, "_identify", spy)
    scene = render_layout(2, SPEC, teams=["red", "blue"])
    profile = _profile(["red", "blue"])
    read_layout(scene.frame, profile, FULL)
    found = got["found"]
    assert found and all(d.looks is not None and d.looks.shape == (*d.labels.shape, 3)
                         for d in found)
    # A red disc's body looks red: far more red light than blue (BGR, natural log).
    red = list(profile.players or profile.colours).index("red")
    body = np.median([np.median(d.looks[:, rims.BODY_COLUMNS].reshape(-1, 3), axis=0)
                      for d in found if d.team == red], axis=0)
    assert body[2] - body[0] > 1.0
