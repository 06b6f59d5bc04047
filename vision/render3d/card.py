"""The colour-calibration card photographed in 3D, and the profile a user would get from it.

The printed card (:mod:`vision.card_art`) lies on a table; on each player's slot
sit one bean and one peep from that player's bag, as the card asks. The photo
goes through the real calibration (:func:`calibration.colour.calibrate_colours`),
exactly as ``companion calibrate`` treats a real one. As a user is asked to, the card is
photographed under near-white light (a ceiling panel, perhaps a window, 4600-5800 K).
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from calibration.colour import CalibrationError, calibrate_colours
from calibration.profile import Profile
from vision.card_art import card_layout
from vision.render3d.cache import cache_root
from vision.render3d.camera import framing_camera, table_to_world
from vision.render3d.colours import FAMILIES, varied
from vision.render3d.content import Piece
from vision.render3d.game import _coloured
from vision.render3d.lights import random_lights
from vision.render3d.pieces import bean_mesh, gather, peep_mesh
from vision.render3d.sensor import develop, random_sensor
from vision.render3d.textures import card_texture, table_top
from vision.render3d.tracer import VERTEX_COLOUR, SceneParts, bitmap, mesh, mitsuba, render

CARD_SIZE = (1600, 1200)
CARD_SPP = 8
RETAKES = 4  # photos a calibration may refuse before giving up


def render_card(seed: int, players: list[str], size: tuple[int, int] = CARD_SIZE,
                spp: int = CARD_SPP) -> np.ndarray:
    """A BGR photo of the card loaded with one bean and one peep of each player, in order."""
    rng = np.random.default_rng(seed)
    layout = card_layout(len(players))
    cw, ch = layout.width_mm, layout.height_mm

    def table_mm(x: float, y: float) -> tuple[float, float]:  # card mm -> table mm
        return x - cw / 2, y - ch / 2

    corners = np.array([table_mm(0, 0), table_mm(cw, 0), table_mm(cw, ch), table_mm(0, ch)])
    v = table_to_world(corners, 0.3)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    faces = np.array([[0, 2, 1], [0, 3, 2]])
    shapes: dict = {"card": mesh("card", v, faces, {"type": "diffuse", "reflectance": bitmap(
        card_texture(len(players)))}, uv=uv, smooth=False)}
    top = table_top(rng)
    mi = mitsuba()
    shapes["table"] = {"type": "rectangle",
                       "to_world": mi.ScalarTransform4f().scale([2000, 2000, 1]),
                       "bsdf": {"type": "diffuse",
                                "reflectance": bitmap(top.image, 4000.0 / top.size_mm)}}
    beans, peeps = [], []
    for player, slot in zip(players, layout.slots, strict=True):
        bean_rgb, peep_rgb = FAMILIES[player]
        bx, by = table_mm(*slot.bean_mm)
        beans.append(bean_mesh(rng, Piece("bean", player, "", bx + rng.normal(0, 1.5),
                                          by + rng.normal(0, 1.5), float(rng.uniform(0, 360)),
                                          colour=varied(rng, bean_rgb),
                                          size=float(rng.uniform(0.92, 1.05)))))
        px, py = table_mm(*slot.peep_mm)
        peeps.append(peep_mesh(rng, Piece("peep", player, "", px + rng.normal(0, 1.5),
                                          py + rng.normal(0, 1.5), 90 + float(rng.normal(0, 6)),
                                          colour=varied(rng, peep_rgb))))
    shapes["beans"] = _coloured("beans", gather(beans), {
        "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.2, "specular": 0.5,
        "spec_trans": 0.1})
    shapes["peeps"] = _coloured("peeps", gather([b for b, _ in peeps]), {
        "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.85, "specular": 0.25,
        "sheen": 0.5})
    shapes["eyes"] = _coloured("eyes", gather([e for _, e in peeps]), {
        "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.3})
    cam = framing_camera(rng, table_to_world(corners), size, 25.0, (0.6, 0.85))
    lights, ambient, illuminant, _ = random_lights(rng, np.zeros(3), neutral=True)
    linear, _, _ = render(SceneParts(cam, shapes, lights, ambient), spp, seed)
    sensor = random_sensor(rng, illuminant, 0.8)
    return develop(linear, sensor, cam.focal_px, rng)


def card_photo(seed: int, players: list[str]) -> np.ndarray:
    """The card photo of ``seed``, rendered once into the cache."""
    folder = cache_root() / "cards"
    path = folder / f"v{_version()}-{seed}-{'-'.join(players)}.png"
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.exists() else None
    if frame is None:
        frame = render_card(seed, players)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.png")
        cv2.imwrite(str(tmp), frame)
        tmp.replace(path)
    return frame


def _version() -> int:
    from vision.render3d.cache import GENERATOR_VERSION

    return GENERATOR_VERSION


def card_profile(seed: int = 0, players: list[str] | None = None) -> Profile:
    """Every family calibrated from one card photo, as a six-player table would be.

    A photo the calibration refuses is taken again (the next seed), up to RETAKES times.
    """
    players = players or list(FAMILIES)
    last: CalibrationError | None = None
    for again in range(RETAKES):
        photo = card_photo(seed + 1000 * again, players)
        try:
            models, warnings = calibrate_colours(photo, players)
            return Profile(list(players), models, None, warnings)
        except CalibrationError as e:
            last = e
    raise CalibrationError(f"{RETAKES} card photos refused; the last: {last}")


def scene_profile(card: Profile, players: list[str]) -> Profile:
    """The profile of a game among ``players``, from the card's calibration."""
    return Profile(list(players), {p: card.colours[p] for p in players}, None, list(card.notes))


__all__ = ["card_profile", "card_photo", "render_card", "scene_profile"]
