"""An egg half seen from a steep camera: its dome lands on the table beyond its foot.

The compositing renderer draws pieces as pictures from above, lifted as a tilted camera
sees them (an egg half as slices up its dome), so the egg's outline is painted over its
frame here from the camera itself: every frame pixel whose ray from the renderer's
camera meets a plastic egg half (1.3 radii tall: taller than the hemisphere the reader
assumes), in the colour of a player's peep (an egg half of a near colour). Read without
the dome's model, the part beyond the egg's disc is a peep.
"""

from __future__ import annotations

import math
from functools import cache
from types import SimpleNamespace

import numpy as np
import pytest

from vision.geometry import apply_h
from vision.peepwar.passes import peeps as peeps_pass
from vision.peepwar.table import read_table
from vision.render.camera import Camera, look_at_homography
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from vision.render.piece_layer import seen_middle_mm

PLAYERS = ["red", "blue", "yellow"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}]
SIZE = (1280, 720)
EGG_MM = 25.0  # the painted egg's radius: over the renderer's egg half ...
EGG_TALL = 1.3  # ... and its height in radii (a plastic egg's half; the reader assumes 1)
TARGET, DISTANCE = np.array([60.0, 0.0]), 450.0  # where the camera looks, from how far


@cache
def _profile():
    return profile_for_colours(families_colours(PLAYERS), seed=3)


def _steep_frame(seed: int, tilt_deg: float, yaw_deg: float, leaning_peep: bool
                 ) -> tuple[np.ndarray, object]:
    """A Supply Center at 0,0/c (and, if ``leaning_peep``, red's peep beside it) and red's
    peep at 1,0/2, seen ``tilt_deg`` from straight down; the egg's dome painted in the
    colour red's peep shows in this frame."""
    k = np.array([[1100.0, 0, SIZE[0] / 2 - 0.5], [0, 1100.0, SIZE[1] / 2 - 0.5], [0, 0, 1]])
    h = look_at_homography(k, TARGET, DISTANCE, math.radians(tilt_deg), math.radians(yaw_deg),
                           0.0)
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
    # (Sampled where the renderer drew the peep: lifted to its middle, as the camera sees it.)
    seen = seen_middle_mm(peep, scene.truth.camera.centre_mm())
    x, y = np.round(apply_h(h, np.array([seen]))[0]).astype(int)
    colour = np.median(frame[y - 4:y + 5, x - 4:x + 5].reshape(-1, 3), axis=0)
    hit = _egg_seen(k, tilt_deg, yaw_deg, egg)
    noise = np.random.default_rng(seed).normal(0.0, 3.0, (int(hit.sum()), 3))
    frame.reshape(-1, 3)[hit.ravel()] = np.clip(colour + noise, 0, 255).astype(np.uint8)
    return frame, scene


def _egg_seen(k: np.ndarray, tilt_deg: float, yaw_deg: float, foot: np.ndarray) -> np.ndarray:
    """Which frame pixels see the egg half: each pixel's ray from the renderer's camera
    (as ``look_at_homography`` places it: the table is z = 0, z pointing into it) meets a
    half-ellipsoid EGG_MM round and EGG_TALL * EGG_MM tall standing at ``foot``. Made
    here from the camera itself, not from the reader's model of a dome."""
    c, s = math.cos(math.radians(tilt_deg)), math.sin(math.radians(tilt_deg))
    cy, sy = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    axes = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1.0]]) @ np.array(
        [[1, 0, 0], [0, c, -s], [0, s, c]])  # the camera's axes in table coordinates
    centre = np.append(TARGET, 0.0) - DISTANCE * axes[:, 2]
    us, vs = np.meshgrid(np.arange(SIZE[0], dtype=float), np.arange(SIZE[1], dtype=float))
    rays = np.stack([us, vs, np.ones_like(us)], -1) @ np.linalg.inv(k).T @ axes.T
    # The ellipsoid scaled to a unit sphere: |(o + t d - foot) / axes|^2 = 1.
    scale = np.array([EGG_MM, EGG_MM, EGG_TALL * EGG_MM])
    o = (centre - np.append(foot, 0.0)) / scale
    d = rays / scale
    a, b, cc = (d * d).sum(-1), 2 * (d @ o), float(o @ o) - 1.0
    disc = b * b - 4 * a * cc
    t = (-b - np.sqrt(np.maximum(disc, 0.0))) / (2 * a)
    z = centre[2] + t * rays[..., 2]  # where the ray first meets it: above the table?
    return (disc >= 0) & (t > 0) & (z <= 0)


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


def test_a_peep_leaning_on_the_dome_is_still_a_peep():
    """Red's peep leaning on the egg, its near part under the painted dome: where its
    middle shows outside the dome (most of what shows of it lies outside), it is read. (A
    peep behind the egg, its middle hidden by the dome, the camera does not see.)"""
    shown = 0
    for seed in range(1, 13):
        frame, scene = _steep_frame(seed, 55, 0, leaning_peep=True)
        peep = next(p for p in scene.truth.pieces if p["kind"] == "peep" and p["cell"] == "0,0/c")
        seen = seen_middle_mm(peep, scene.truth.camera.centre_mm())
        x, y = np.round(apply_h(scene.truth.camera.homography, np.array([seen]))[0]).astype(int)
        egg = np.array(next(p for p in scene.truth.pieces if p["kind"] == "egg")["centre_mm"])
        if _egg_seen(scene.truth.camera.camera_matrix, 55, 0, egg)[y, x]:
            continue
        shown += 1
        assert _centre(frame) == {"supply_center": True, "red": (0, True)}, seed
    assert shown >= 4


def _stub(dome: np.ndarray, egg: np.ndarray | None = None) -> SimpleNamespace:
    return SimpleNamespace(egg_dome=dome.astype(np.uint8),
                           egg=np.zeros_like(dome, np.uint8) if egg is None else egg)


def test_only_a_body_mostly_in_the_dome_and_centred_there_is_the_dome():
    """_dome_seen's two conditions, each on its own: the body's middle in the dome, and at
    least DOME_SHARE of its pixels in the dome or the egg's disc."""
    dome = np.zeros((40, 40), bool)
    dome[:, :20] = True
    sl = (slice(0, 40), slice(0, 40))
    body = np.zeros((40, 40), bool)
    body[10:20, 5:25] = True  # middle at x 14.5, three quarters in the dome
    assert peeps_pass._dome_seen(_stub(dome), body, sl)
    # Its middle in the dome, but less than half of it: not the dome.
    split = np.zeros((40, 40), bool)
    split[:, 0:2] = True  # 80 pixels in the dome ...
    split[10:20, 20:29] = True  # ... 90 beyond it
    ys, xs = np.nonzero(split)
    assert dome[int(round(ys.mean())), int(round(xs.mean()))] and dome[split].mean() < 0.5
    assert not peeps_pass._dome_seen(_stub(dome), split, sl)
    # The same with the egg's disc under the part beyond: the egg's own pixels count.
    egg = np.zeros((40, 40), np.uint8)
    egg[:, 20:30] = 1
    assert peeps_pass._dome_seen(_stub(dome, egg), split, sl)
    # Most of it in the dome, its middle not: not the dome.
    edge = np.zeros((40, 40), bool)
    edge[:, 16:20] = True  # 160 pixels along the dome's edge ...
    edge[10:20, 30:40] = True  # ... 100 beyond it: the middle at x 24
    ys, xs = np.nonzero(edge)
    assert dome[edge].mean() >= 0.5 and not dome[int(round(ys.mean())), int(round(xs.mean()))]
    assert not peeps_pass._dome_seen(_stub(dome), edge, sl)
