"""The calibration card photographed with one Petri piece of each player on it, and the
profile from it.

As a group would calibrate for Petri: on each player's bean spot of the printed
card (:mod:`vision.card_art`) lies one marble, or one peg on its side, from the
box of pieces they play with (:data:`vision.render3d.petri_board.PIECE_SETS`);
the peep spots stay empty. The card is photographed under near-white light with
the lights moved until none glints off the card (as a user is asked to), and the
path-traced photo goes through the real calibration
(:func:`calibration.colour.calibrate_card`), exactly as ``companion calibrate``
treats a real one. Each box has its own card photo, rendered once into the cache.
"""

from __future__ import annotations

import os
from functools import cache

import cv2
import numpy as np

from calibration.colour import CalibrationError, calibrate_card
from calibration.profile import Profile
from vision.card_art import card_layout
from vision.render3d.camera import framing_camera, table_to_world
from vision.render3d.colours import varied
from vision.render3d.lights import random_lights
from vision.render3d.meshes import posed, rotation
from vision.render3d.pelta_card import _no_glint
from vision.render3d.petri import trace
from vision.render3d.petri_board import PIECE_SETS, PLAYERS, catseye_vane, marble_bsdf, peg_mesh
from vision.render3d.pieces import gather
from vision.render3d.sensor import develop, random_sensor
from vision.render3d.textures import card_texture, table_top
from vision.render3d.tracer import VERTEX_COLOUR, SceneParts, bitmap, mesh, mitsuba

CARD_SIZE = (1600, 1200)
CARD_SPP = 8
CARD_Z = 0.3
RETAKES = 4  # photos a calibration may refuse before giving up


def render_card(seed: int, set_name: str, players: tuple[str, ...] = PLAYERS,
                size: tuple[int, int] = CARD_SIZE, spp: int = CARD_SPP) -> np.ndarray:
    """A BGR photo of the card with one piece of ``set_name`` per player on its bean spot."""
    pset = PIECE_SETS[set_name]
    rng = np.random.default_rng(seed)
    layout = card_layout(len(players))
    cw, ch = layout.width_mm, layout.height_mm

    def table_mm(x: float, y: float) -> tuple[float, float]:
        return x - cw / 2, y - ch / 2

    corners = np.array([table_mm(0, 0), table_mm(cw, 0), table_mm(cw, ch), table_mm(0, ch)])
    v = table_to_world(corners, CARD_Z)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    mi = mitsuba()
    shapes: dict = {"card": mesh("card", v, np.array([[0, 2, 1], [0, 3, 2]]), {
        "type": "diffuse", "reflectance": bitmap(card_texture(len(players)))}, uv=uv,
        smooth=False)}
    top = table_top(rng)
    shapes["table"] = {"type": "rectangle",
                       "to_world": mi.ScalarTransform4f().scale([2000, 2000, 1]),
                       "bsdf": {"type": "diffuse",
                                "reflectance": bitmap(top.image, 4000.0 / top.size_mm)}}
    coloured = []
    radius = float(rng.uniform(6.3, 8.0))
    shaft = float(rng.uniform(2.0, 2.8))
    head, length = shaft * float(rng.uniform(1.1, 1.5)), float(rng.uniform(16, 27))
    for i, (player, slot) in enumerate(zip(players, layout.slots, strict=True)):
        colour = varied(rng, pset.colours[player], 2.0, 0.04, 0.05)
        x, y = table_mm(*slot.bean_mm)
        x, y = x + rng.normal(0, 1.0), y + rng.normal(0, 1.0)
        if pset.kind == "marble":
            centre = table_to_world(np.array([[x, y]]), CARD_Z + radius)[0]
            shapes[f"marble{i}"] = {"type": "sphere", "center": centre.tolist(),
                                    "radius": radius, "bsdf": marble_bsdf(pset.look, colour, rng)}
            if pset.look == "catseye":
                pv, pf = catseye_vane(rng, centre, radius)
                coloured.append((pv, pf, np.tile(colour, (len(pv), 1))))
        else:  # a peg lies on its side across the spot
            pv, pf = peg_mesh(rng, np.zeros(3), length, shaft, head, 0.0, 0.0)
            pv, pf = posed((pv, pf), rotation(float(rng.uniform(0, 180)), 90.0), (0, 0, 0))
            pv = pv - [*(pv.min(0) + pv.max(0))[:2] / 2, pv[:, 2].min() - CARD_Z]
            pv = pv + [*table_to_world(np.array([[x, y]]))[0][:2], 0]
            coloured.append((pv, pf, np.tile(colour, (len(pv), 1))))
    if coloured:
        pv, pf, pc = gather(coloured)
        rough = 0.35 if pset.kind == "marble" else (0.12 if pset.look == "glossy" else 0.4)
        shapes["pieces"] = mesh("pieces", pv, pf, {"type": "principled",
                                                   "base_color": VERTEX_COLOUR,
                                                   "roughness": rough, "specular": 0.5},
                                colours=pc)
    cam = framing_camera(rng, table_to_world(corners), size, 20.0, (0.6, 0.85))
    lights, ambient, illuminant, _ = random_lights(rng, np.zeros(3), neutral=True)
    lights = [_no_glint(lt, np.asarray(cam.origin, float), corners) for lt in lights]
    ambient = ambient * 2.0  # the room, as in the frames (ROOM_LIGHT)
    linear, _, _ = trace(SceneParts(cam, shapes, lights, ambient), spp, seed, 8)
    sensor = random_sensor(rng, illuminant, 0.8)
    return develop(np.clip(linear, 0, None), sensor, cam.focal_px, rng)


def card_photo(seed: int, set_name: str) -> np.ndarray:
    """The card photo of ``seed`` and ``set_name``, rendered once into the cache."""
    from vision.render3d.petri_cache import GENERATOR_VERSION, cache_root

    folder = cache_root() / "cards"
    slug = set_name.replace(" ", "-").replace("'", "")
    path = folder / f"v{GENERATOR_VERSION}-{slug}-{seed}.png"
    photo = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.exists() else None
    if photo is None:
        photo = render_card(seed, set_name)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{path.name}.{os.getpid()}.png"
        cv2.imwrite(str(tmp), photo)
        tmp.replace(path)
    return photo


@cache
def set_profile(set_name: str, seed: int = 0) -> Profile:
    """Every player of the box ``set_name`` calibrated from one card photo, as the bench
    makes its 2D profiles (with the card's white). A photo the calibration refuses is taken
    again (the next seed), up to RETAKES times; then CalibrationError."""
    keys = list(PLAYERS)
    base = seed + 100 * list(PIECE_SETS).index(set_name)
    last: CalibrationError | None = None
    for again in range(RETAKES):
        photo = card_photo(base + 1000 * again, set_name)
        try:
            found = calibrate_card(photo, keys)
        except CalibrationError as e:
            last = e
            continue
        return Profile(keys, found.models, extra={"card_white": found.white.tolist()})
    raise CalibrationError(f"{RETAKES} card photos of the {set_name} refused; the last: {last}")


__all__ = ["card_photo", "render_card", "set_profile"]
