"""An arm reaching in aslant is followed past the board's edge
(:mod:`vision.peepwar.occlusion`, ``reaching_in``).

Fingers a player's colour lying over a tile are thinner than a hand's palm and as
saturated as pieces; what says they are a hand is that they go on, in their own colour,
over the table to an arm. An arm crossing the board's edge along it (not straight out from
the tile's centre) is followed wherever it goes, not looked for straight out.
"""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM
from vision.geometry import apply_h
from vision.peepwar.table import prepare_reader, read_table
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from vision.render.layers import capsule_mm, ellipse_mm

PLAYERS = ["red", "orange", "blue"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}]
CELLS = {"1,0/1": {"pieces": {"blue": {"troops": 2, "peep": False}}},
         "0,0/3": {"pieces": {"red": {"troops": 1, "peep": False}}}}
SKIN_BGR = (40, 110, 200)  # an orange-brown hand: the orange player's colour class


@cache
def _scene():
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    prepare_reader(profile)
    return render_state({"tiles": TILES, "cells": CELLS}, families_colours(PLAYERS), 1), profile


def _edge_frame(scene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A point on tile 1,0's outer edge (mm), the way out of the tile there and along it."""
    t = next(x for x in scene.truth.tiles if (x.q, x.r) == (1, 0))
    out = np.array([1.0, 0.0])
    edge = np.array([t.pose.x, t.pose.y]) + out * R_MM * 0.87
    return edge, out, np.array([-out[1], out[0]])


def _draw(scene, shapes_mm: list[np.ndarray]) -> np.ndarray:
    frame = scene.frame.copy()
    for p in shapes_mm:
        pts = apply_h(scene.truth.camera.homography, p)
        cv2.fillPoly(frame, [np.round(pts * 16).astype(np.int32)], SKIN_BGR, cv2.LINE_AA, 4)
    return frame


def _arm_aslant(scene) -> list[np.ndarray]:
    """An arm over the table with its palm off the tile and three fingers over it, crossing
    the edge 30 degrees from along it."""
    edge, out, along = _edge_frame(scene)
    a = math.radians(60)
    inward = -(out * math.cos(a)) + along * math.sin(a)
    palm = edge - inward * 55
    shapes = [capsule_mm(palm - inward * 40, palm - inward * 900, 75),
              ellipse_mm(palm, (48, 42), math.degrees(math.atan2(inward[1], inward[0])))]
    for spread in (-14, 0, 14):
        base = palm + inward * 30 + along * spread * 1.3
        shapes.append(capsule_mm(base, base + inward * 80, 18))
    return shapes


def test_fingers_of_an_arm_reaching_in_aslant_occlude_their_cells() -> None:
    scene, profile = _scene()
    obs = read_table(_draw(scene, _arm_aslant(scene)), profile)
    occluded = {n for n, v in obs["cells"].items() if v.get("occluded")}
    # The fingers lie over cell 1,0/0 (and its neighbour 1,0/5): never read as pieces.
    assert "1,0/0" in occluded
    assert not any(v.get("pieces", {}).get("orange") for v in obs["cells"].values())
    # The rest of the table is read as it is.
    assert obs["cells"]["1,0/1"]["pieces"] == {"blue": {"troops": 2, "peep": False}}
    assert obs["cells"]["0,0/3"]["pieces"] == {"red": {"troops": 1, "peep": False}}
    assert not any(n.startswith("0,0/") for n in occluded)


def test_a_piece_hanging_over_the_edge_is_no_arm() -> None:
    """Something of the fingers' colour crossing the edge that ends on the table (a peep
    lying half off the tile) is not followed into an arm."""
    scene, profile = _scene()
    edge, out, along = _edge_frame(scene)
    peep = ellipse_mm(edge - along * 20, (30, 11), 20.0)
    obs = read_table(_draw(scene, [peep]), profile)
    assert not any(v.get("occluded") for v in obs["cells"].values())
