"""Real jellybeans: counting every photo, and flavours told apart on a rendered table.

The photos are ../shared/photos/jellybeans; the counts in data/jellybean_counts.json
were made by eye (see its note), not by the program.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.peepwar.board import R_MM, hexagon_mm
from vision.peepwar.photo_beans import count_beans
from vision.peepwar.table import read_table
from vision.render.camera import viewer_camera
from vision.render.game_scene import (
    Game,
    GameSpec,
    PlayerLook,
    compose,
    flavour_cutouts,
    profile_for,
    state_tiles,
)
from vision.render.palette import FAMILIES, linear_bgr

HERE = Path(__file__).resolve().parent
PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos" / "jellybeans"
COUNTS = json.loads((HERE / "data" / "jellybean_counts.json").read_text())["counts"]
needs_photos = pytest.mark.skipif(not PHOTOS.is_dir(),
                                  reason=f"jellybean photos not found at {PHOTOS}")


@needs_photos
def test_labels_cover_every_photo():
    assert sorted(p.name for p in PHOTOS.glob("*.jpg")) == sorted(COUNTS)


@needs_photos
@pytest.mark.parametrize("name", sorted(COUNTS))
def test_every_photo_is_counted_exactly(name):
    photo = cv2.imread(str(PHOTOS / name))
    got = count_beans(photo)
    assert got.count == COUNTS[name], f"{name}: counted {got.count}, labelled {COUNTS[name]}"
    assert len(got.centres) == got.count


@needs_photos
def test_flavours_are_told_apart_on_one_table():
    """Three players whose beans are real photographed beans of three flavours.

    (Wild blackberry is left out: its near-black glossy beans are only partly
    found on the paper, a known limit written in docs/vision.md.)
    """
    cut = flavour_cutouts(str(PHOTOS.resolve()))
    by_flavour = {f.flavour: f for f in FAMILIES if f.flavour}
    flavours = ["sunkist_tangerine", "sunkist_lemon", "margarita"]
    looks = {by_flavour[f].name: PlayerLook(linear_bgr(by_flavour[f].bean),
                                            linear_bgr(by_flavour[f].peep), cut[f])
             for f in flavours}
    cells = {
        "0,0/0": {"supply_center": False, "pieces": {"orange": {"troops": 3, "peep": False}}},
        "0,0/2": {"supply_center": False, "pieces": {"yellow": {"troops": 2, "peep": False}}},
        "1,0/3": {"supply_center": False, "pieces": {"green": {"troops": 4, "peep": False}}},
        "1,0/1": {"supply_center": False, "pieces": {"green": {"troops": 2, "peep": False}}},
        "0,0/4": {"supply_center": False, "pieces": {"orange": {"troops": 1, "peep": False},
                                                     "yellow": {"troops": 2, "peep": False}}},
    }
    rng = np.random.default_rng(17)
    tiles = state_tiles(rng, {"tiles": [{"q": 0, "r": 0}, {"q": 1, "r": 0}]})
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in tiles])
    cam = viewer_camera(outline, (1280, 720), 10.0)
    spec = GameSpec(kelvin=(5000, 5000), shadows=(0, 0), gradient=(0, 0.05))
    scene = compose(rng, tiles, Game(looks, json.loads(json.dumps(cells))), cam, spec, 0)
    assert scene.truth.cells == cells  # every bean found room
    obs = read_table(scene.frame, profile_for(looks, seed=2))
    got = {c: {p: v["troops"] for p, v in r["pieces"].items()} for c, r in obs["cells"].items()}
    want = {c: {p: v["troops"] for p, v in r["pieces"].items()} for c, r in cells.items()}
    assert got == want, obs["warnings"]
