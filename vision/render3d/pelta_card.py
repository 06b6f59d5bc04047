"""The calibration card photographed with PeltaPeeps acrylic on it, and the profile from it.

As a group would calibrate for PeltaPeeps: on each colour's slot of the printed
card (:mod:`vision.card_art`) lies a plain disc of that colour's acrylic on the
large spot and a small offcut of the same sheet on the small spot, under
near-white light, the card held where no light glints off the acrylic (a
user is asked to). The path-traced photo goes through the real calibration
(:func:`calibration.colour.calibrate_colours`), exactly as ``companion
calibrate`` treats a real one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from functools import cache

import cv2
import numpy as np

from calibration.colour import CalibrationError, calibrate_colours
from calibration.profile import Profile
from vision.card_art import card_layout
from vision.render3d.camera import framing_camera, table_to_world
from vision.render3d.colours import srgb_to_linear
from vision.render3d.lights import random_lights
from vision.render3d.pelta_acrylic import ACRYLIC, ACRYLIC_ROUGHNESS
from vision.render3d.pelta_cache import GENERATOR_VERSION, cache_root
from vision.render3d.pelta_shapes import extrude
from vision.render3d.sensor import develop, random_sensor
from vision.render3d.textures import card_texture, table_top
from vision.render3d.tracer import (
    VERTEX_COLOUR,
    Light,
    SceneParts,
    bitmap,
    mesh,
    mitsuba,
    render,
)

CARD_SIZE = (1600, 1200)
GLINT_MARGIN_MM = 40.0  # a light's reflection this far off the card still spreads onto it
CARD_SPP = 8
RETAKES = 4


def _disc(cx: float, cy: float, radius: float, thickness: float, colour: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.radians(np.arange(0, 360, 4.0))
    pts = np.stack([cx + radius * np.cos(a), -(cy + radius * np.sin(a))], -1)  # world x, y
    s = extrude(pts, thickness)
    v = np.vstack([s.faces_v, s.edge_v])
    f = np.vstack([s.faces_f, s.edge_f + len(s.faces_v)])
    v[:, 2] += 0.3  # on the card
    return v, f, np.broadcast_to(colour, (len(v), 3))


def glint(light: Light, eye: np.ndarray) -> tuple[np.ndarray, float]:
    """Where on the table (world x, y) ``light`` shows mirrored to a camera at ``eye``, and
    how far round that point its reflection reaches (mm)."""
    lx, ly, lz = light.position
    ez = float(eye[2])
    t = ez / (ez + lz)  # the mirror point divides eye -> mirrored light at the table
    point = eye[:2] + t * (np.array([lx, ly]) - eye[:2])
    return point, light.size / 2 * t + GLINT_MARGIN_MM


def _no_glint(light: Light, eye: np.ndarray, corners: np.ndarray) -> Light:
    """``light`` moved away from the card's centre (along the table) until its reflection in
    the glossy acrylic misses the card, as a user is asked to hold the card."""
    world = table_to_world(corners, 0.0)[:, :2]
    lo, hi = world.min(0), world.max(0)
    pos = np.array(light.position, float)
    for _ in range(40):
        point, reach = glint(replace(light, position=tuple(pos)), eye)
        if ((point < lo - reach) | (point > hi + reach)).any():
            break
        away = pos[:2] if np.hypot(*pos[:2]) > 1 else np.array([1.0, 0.0])
        pos[:2] = pos[:2] + 150.0 * away / np.hypot(*away)
    return replace(light, position=tuple(float(v) for v in pos))


def render_card(seed: int, colours: Mapping[str, tuple[int, int, int]],
                size: tuple[int, int] = CARD_SIZE, spp: int = CARD_SPP) -> np.ndarray:
    """A BGR photo of the card with a disc and an offcut of each colour, in order."""
    rng = np.random.default_rng(seed)
    keys = list(colours)
    layout = card_layout(len(keys))
    cw, ch = layout.width_mm, layout.height_mm

    def table_mm(x: float, y: float) -> tuple[float, float]:
        return x - cw / 2, y - ch / 2

    corners = np.array([table_mm(0, 0), table_mm(cw, 0), table_mm(cw, ch), table_mm(0, ch)])
    v = table_to_world(corners, 0.3)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    mi = mitsuba()
    shapes: dict = {"card": mesh("card", v, np.array([[0, 2, 1], [0, 3, 2]]), {
        "type": "diffuse", "reflectance": bitmap(card_texture(len(keys)))}, uv=uv, smooth=False)}
    top = table_top(rng)
    shapes["table"] = {"type": "rectangle",
                       "to_world": mi.ScalarTransform4f().scale([2000, 2000, 1]),
                       "bsdf": {"type": "diffuse",
                                "reflectance": bitmap(top.image, 4000.0 / top.size_mm)}}
    parts = []
    thickness = float(rng.uniform(2.5, 4.0))
    for key, slot in zip(keys, layout.slots, strict=True):
        colour = srgb_to_linear(colours[key])
        for (x, y), radius in ((slot.peep_mm, 25.0), (slot.bean_mm, 10.0)):
            tx, ty = table_mm(x, y)
            parts.append(_disc(tx + rng.normal(0, 1.0), ty + rng.normal(0, 1.0), radius,
                               thickness, colour))
    vs, fs, cs, off = [], [], [], 0
    for pv, pf, pc in parts:
        vs.append(pv)
        fs.append(pf + off)
        cs.append(pc)
        off += len(pv)
    shapes["acrylic"] = mesh("acrylic", np.vstack(vs), np.vstack(fs), {
        # The same glossy sheet the pieces are cut from (vision.render3d.peltapeeps._acrylic):
        # a card of hazier plastic would calibrate paler colours than the pieces show.
        "type": "principled", "base_color": VERTEX_COLOUR,
        "roughness": float(rng.uniform(*ACRYLIC_ROUGHNESS)), "specular": 0.5},
        colours=np.vstack(cs), smooth=False)
    cam = framing_camera(rng, table_to_world(corners), size, 20.0, (0.6, 0.85))
    lights, ambient, illuminant, _ = random_lights(rng, np.zeros(3), neutral=True)
    lights = [_no_glint(lt, np.asarray(cam.origin, float), corners) for lt in lights]
    linear, _, _ = render(SceneParts(cam, shapes, lights, ambient), spp, seed)
    sensor = random_sensor(rng, illuminant, 0.8)
    return develop(linear, sensor, cam.focal_px, rng)


@cache
def card_profile(seed: int = 0) -> Profile:
    """Every acrylic colour calibrated from one card photo (rendered once into the cache).
    A photo the calibration refuses is taken again (the next seed), up to RETAKES times."""
    keys = list(ACRYLIC)
    where = cache_root() / "cards"
    last: CalibrationError | None = None
    for again in range(RETAKES):
        s = seed + 1000 * again
        path = where / f"v{GENERATOR_VERSION}-{s}.png"
        photo = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.exists() else None
        if photo is None:
            photo = render_card(s, ACRYLIC)
            where.mkdir(parents=True, exist_ok=True)
            tmp = where / f".{path.name}.{os.getpid()}.png"
            cv2.imwrite(str(tmp), photo)
            tmp.replace(path)
        try:
            models, warnings = calibrate_colours(photo, keys)
            return Profile(keys, models, None, warnings)
        except CalibrationError as e:
            last = e
    raise CalibrationError(f"{RETAKES} card photos refused; the last: {last}")


def pelta_profile(colours: Mapping[str, tuple[int, int, int]] | list[str], seed: int = 0
                  ) -> Profile:
    """The profile of the colours in play, taken from the card's calibration."""
    card = card_profile(seed)
    keys = list(colours)
    return Profile(keys, {k: card.colours[k] for k in keys}, None, list(card.notes))


__all__ = ["card_profile", "pelta_profile", "render_card"]
