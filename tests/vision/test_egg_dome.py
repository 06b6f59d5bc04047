"""An egg half seen from a steep camera: its dome lands on the table beyond its foot.

The compositing renderer draws pieces flat, so the dome's silhouette is painted into its
frame here: every frame pixel whose table point a hemisphere of the egg's size covers as
the renderer's own camera sees it, in the colour of a player's peep (an egg half of a
near colour). Read without the dome's model, that spill beyond the egg's disc is a peep.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from vision.geometry import apply_h
from vision.peepwar.passes import peeps as peeps_pass
from vision.peepwar.table import read_table
from vision.render.camera import Camera, look_at_homography
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from vision.viewpoint import CameraAbove, camera_above, draw_dome

PLAYERS = ["red", "blue", "yellow"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}]
SIZE = (1280, 720)
EGG_MM = 25.0  # the painted dome's radius: over the renderer's egg half


@cache
def _profile():
    return profile_for_colours(families_colours(PLAYERS), seed=3)


def _steep_frame(seed: int, tilt_deg: float, yaw_deg: float, leaning_peep: bool
                 ) -> tuple[np.ndarray, object]:
    """A Supply Center at 0,0/c (and, if ``leaning_peep``, red's peep beside it) and red's
    peep at 1,0/2, seen ``tilt_deg`` from straight down; the egg's dome painted in the
    colour red's peep shows in this frame."""
    k = np.array([[1100.0, 0, SIZE[0] / 2 - 0.5], [0, 1100.0, SIZE[1] / 2 - 0.5], [0, 0, 1]])
    h = look_at_homography(k, np.array([60.0, 0.0]), 450.0, math.radians(tilt_deg),
                           math.radians(yaw_deg), 0.0)
    centre = {"supply_center": True}
    if leaning_peep:
        centre["pieces"] = {"red": {"troops": 0, "peep": True}}
    state = {"tiles": TILES, "cells": {
        "0,0/c": centre, "1,0/2": {"pieces": {"red": {"troops": 0, "peep": True}}}}}
    scene = render_state(state, families_colours(PLAYERS), seed, token_share=0.0,
                         camera=Camera(h, k, np.zeros(5), SIZE, tilt_deg, yaw_deg))
    frame = scene.frame.copy()
    egg = np.array(next(p for p in scene.truth.pieces if p["kind"] == "egg")["centre_mm"])
    peep = next(p for p in scene.truth.pieces if p["kind"] == "peep" and p["cell"] == "1,0/2")
    x, y = np.round(apply_h(h, np.array([peep["centre_mm"]]))[0]).astype(int)
    colour = np.median(frame[y - 4:y + 5, x - 4:x + 5].reshape(-1, 3), axis=0)
    # The dome on a 4 px/mm plane round the egg, then every frame pixel looked up in it.
    ppm, half = 4.0, 80.0
    corner = egg - half
    above = camera_above(h, SIZE, k)
    dome = np.zeros((int(2 * half * ppm), int(2 * half * ppm)), np.uint8)
    draw_dome(dome, tuple((egg - corner) * ppm), EGG_MM * ppm,
              CameraAbove(tuple((np.asarray(above.nadir) - corner) * ppm), above.height * ppm))
    ys, xs = np.mgrid[:SIZE[1], :SIZE[0]]
    at = np.round((apply_h(np.linalg.inv(h), np.stack([xs.ravel(), ys.ravel()], 1)) - corner)
                  * ppm).astype(int)
    inside = (at >= 0).all(axis=1) & (at[:, 0] < dome.shape[1]) & (at[:, 1] < dome.shape[0])
    hit = np.zeros(len(at), bool)
    hit[inside] = dome[at[inside, 1], at[inside, 0]] > 0
    noise = np.random.default_rng(seed).normal(0.0, 3.0, (int(hit.sum()), 3))
    frame.reshape(-1, 3)[hit] = np.clip(colour + noise, 0, 255).astype(np.uint8)
    return frame, scene


def _centre(frame: np.ndarray) -> dict:
    got = read_table(frame, _profile())["cells"]["0,0/c"]
    return {p: (v["troops"], v["peep"]) for p, v in got.get("pieces", {}).items()} | {
        "supply_center": got["supply_center"]}


@pytest.mark.parametrize("tilt, yaw", [(55, 0), (55, 180), (60, 90)])
def test_an_egg_halfs_dome_seen_beyond_its_disc_is_no_peep(tilt, yaw, monkeypatch):
    frame, _ = _steep_frame(5, tilt, yaw, leaning_peep=False)
    assert _centre(frame) == {"supply_center": True}
    # The hard case: without the dome's model the spill is read as red's peep.
    monkeypatch.setattr(peeps_pass, "DOME_SHARE", 2.0)
    assert _centre(frame) == {"supply_center": True, "red": (0, True)}


@pytest.mark.parametrize("seed", [1, 2, 3, 5])
def test_a_peep_leaning_on_the_dome_is_still_a_peep(seed):
    """Red's peep leaning on the egg, its near part under the painted dome: most of what
    shows of it lies outside the dome, and it is read."""
    frame, scene = _steep_frame(seed, 55, 0, leaning_peep=True)
    assert any(p["kind"] == "peep" and p["cell"] == "0,0/c" for p in scene.truth.pieces)
    assert _centre(frame) == {"supply_center": True, "red": (0, True)}
