"""The path-traced scene generator: its truth agrees with the picture Mitsuba renders."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

from vision.srgb import SRGB_TO_LINEAR

pytest.importorskip("mitsuba")

from companion.rules.peepwar.board import cells_of  # noqa: E402
from vision.render3d.camera import table_to_world  # noqa: E402
from vision.render3d.colours import FAMILIES  # noqa: E402
from vision.render3d.content import Tile, random_layout  # noqa: E402
from vision.render3d.game import Spec3D, render_scene3d  # noqa: E402
from vision.render3d.sensor import distort_px  # noqa: E402
from vision.render3d.truth import Truth3D  # noqa: E402

SPEC = Spec3D(size=(480, 270), spp=2, hand_scenes=1.0)
PIECES = {"beans", "peeps", "eyes", "eggs", "hands", "sleeves"}


@pytest.fixture(scope="module")
def scene():
    return render_scene3d(40007, SPEC)


def _hue(rgb) -> float:
    return colorsys.rgb_to_hsv(*(np.asarray(rgb, float) / 255))[0] * 360


def test_layout_is_the_same_for_the_same_seed() -> None:
    a = random_layout(np.random.default_rng(5), 5, 4)
    b = random_layout(np.random.default_rng(5), 5, 4)
    assert a.cells == b.cells
    assert [(p.x, p.y, p.kind) for p in a.pieces] == [(p.x, p.y, p.kind) for p in b.pieces]


@pytest.mark.slow  # path-traces a scene: 6-12 s on a shared core
def test_every_truth_cell_lies_on_a_rendered_tile(scene) -> None:
    truth, cam, hit = scene.truth, scene.camera, scene.first_hit
    lattice = {name: t for t in truth.tiles for name in cells_of((t.q, t.r))}
    assert truth.cells and set(truth.cells) <= set(lattice)
    for name in truth.cells:
        t = lattice[name]
        assert any(p["cell"] == name for p in truth.pieces), name  # something was laid there
        centre = Tile(t.tile_id, (t.q, t.r), t.pose, t.rotation).cell_outline(name).mean(axis=0)
        x, y = cam.project(table_to_world(centre[None], 0.7))[0]
        seen = hit[int(round(y)), int(round(x))]
        assert seen.startswith("tile") or seen in PIECES, (name, seen)
    for p in truth.pieces:  # every piece stands on the tiles: no table seen at its foot
        x, y = cam.project(table_to_world(np.array([p["centre_mm"]]), 0.7))[0]
        seen = hit[int(round(y)), int(round(x))]
        assert seen.startswith("tile") or seen in PIECES, (p, seen)


@pytest.mark.slow  # path-traces a scene: 6-12 s on a shared core
def test_beans_show_their_players_colour(scene) -> None:
    truth, cam, hit, frame = scene.truth, scene.camera, scene.first_hit, scene.frame
    checked = matched = 0
    for p in truth.pieces:
        if p["kind"] != "bean" or p["z_mm"] > 0 or truth.hand_cover.get(p["cell"], 0) > 0:
            continue
        ideal = cam.project(table_to_world(np.array([p["centre_mm"]]), 9.0))
        x, y = ideal[0]
        if hit[int(round(y)), int(round(x))] != "beans":
            continue  # a peep or another bean leans over it
        checked += 1
        lens = truth.params["sensor"]
        dx, dy = distort_px(ideal, cam.size, lens["k1"], lens["k2"], cam.focal_px)[0]
        ix, iy = int(round(dx)), int(round(dy))
        patch = frame[max(iy - 1, 0):iy + 2, max(ix - 1, 0):ix + 2].reshape(-1, 3)
        # Undo what is left of the light's tint after the camera's white balance.
        rgb = SRGB_TO_LINEAR[np.median(patch, axis=0)[::-1].astype(np.uint8)]
        rgb = rgb / np.asarray(lens["tint_left"])
        r, g, b = 255 * rgb / rgb.max()
        want = _hue(FAMILIES[p["player"]][0])
        got = _hue((r, g, b))
        diff = min(abs(want - got), 360 - abs(want - got))
        matched += diff < 40 or (p["player"] == "purple" and diff < 60)
    assert checked >= 5
    assert matched >= 0.7 * checked, (matched, checked)


@pytest.mark.slow  # path-traces a scene: 6-12 s on a shared core
def test_hands_hide_cells_and_truth_round_trips(scene) -> None:
    truth = scene.truth
    assert truth.params["hands"] >= 1
    assert any(v > 0 for v in truth.hand_cover.values())
    again = Truth3D.from_json(truth.to_json())
    assert again.cells == truth.cells and again.hand_cover == truth.hand_cover
    assert again.out_of_frame == truth.out_of_frame
    assert [(t.tile_id, t.q, t.r) for t in again.tiles] == [(t.tile_id, t.q, t.r)
                                                          for t in truth.tiles]


def _night(seed: int, night_frames: int) -> Truth3D:
    spec = Spec3D(size=(320, 180), spp=1, night_frames=night_frames)
    return render_scene3d(seed, spec, picture=False).truth


def test_frames_of_one_game_night_share_the_table_and_not_the_position() -> None:
    a, b, other = _night(10, 5), _night(13, 5), _night(15, 5)
    kept = ("players", "kelvin")
    for key in kept:
        assert getattr(a, key) == getattr(b, key), key
    assert a.params["lights"] == b.params["lights"]
    assert a.params["sensor"] == b.params["sensor"]  # one camera all night
    assert a.cells != b.cells  # the game goes on
    # The next night is another table, another light, another camera.
    assert (a.kelvin, a.params["sensor"]) != (other.kelvin, other.params["sensor"])


def test_without_nights_every_seed_is_a_table_of_its_own() -> None:
    a, b = _night(10, 0), _night(13, 0)
    assert a.params["sensor"] != b.params["sensor"]
    assert a.cells != b.cells
