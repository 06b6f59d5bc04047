"""Rendered photos of the printed map of A Peloponnesian War, with their ground truth.

The A3 map of ``companion print peloponnesian-map`` lies on a table; orientation
counters stand in areas (0-2 of a player, one or two players in an area) and
chits lie in the chit row on their player's side (Sparta left, Thebes middle,
Athens right), face up or face down, as a person lays them: a little off their
spot and a little turned. A third of the frames have a hand over the map. The
scene is drawn top-down in mm, the camera is a random pinhole tilted 0-45
degrees, then light (colour temperature, a brightness gradient, the pieces' and
the hand's shadows), blur, noise and JPEG are applied. Everything is drawn from
one seed, so a frame is the same every run.

:class:`DemoScene` is what ``companion demo --game peloponnesian`` photographs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from vision.geometry import apply_h
from vision.mm_canvas import MmCanvas
from vision.peloponnesian.art import HIDDEN, chit_types, draw_chit, draw_counter, map_image
from vision.peloponnesian.layout import (
    CHIT_MM,
    CHIT_ROW_Y,
    CHIT_XS,
    CODE_MM,
    COUNTER_MM,
    SIDES,
    MapLayout,
    map_layout,
)
from vision.render.camera import random_camera
from vision.render.layers import random_hand, table_texture
from vision.render.light import develop_frame, to_linear
from vision.render.petri import _blur_small
from vision.render.sprites import light_direction

DRAW_PPM = 4.0  # px per mm the sheet and pieces are drawn at
MARGIN_MM = 40.0  # table round the sheet in the world picture


@dataclass
class PeloFrame:
    """A rendered frame and what is really on it."""

    image: np.ndarray  # BGR uint8
    counters: dict[str, dict[str, int]]  # area -> player -> count
    chits: dict[str, list[dict[str, str]]]  # area -> [{"type", "player"}]
    covered: dict[str, float] = field(default_factory=dict)  # area -> share under a hand
    tilt_deg: float = 0.0
    homography: np.ndarray | None = None  # sheet mm -> image px

    @property
    def touched(self) -> set[str]:
        """Areas a hand covers any of: either reading (occluded or right) is right."""
        return {a for a, share in self.covered.items() if share > 0}


def random_table(rng: np.random.Generator, lay: MapLayout,
                 players: tuple[str, ...] = SIDES) -> dict[str, Any]:
    """A random table: most areas held by one player (1-2 counters), some by two, many
    empty; chits of at most two players in an area, face up or all face down."""
    counters: dict[str, dict[str, int]] = {}
    chits: dict[str, list[dict[str, str]]] = {}
    ids = list(lay.areas)
    face_up = bool(rng.uniform() < 0.6)
    kinds = chit_types()[:-1]
    for a in ids:
        u = rng.uniform()
        if u < 0.55:
            holders = [players[int(rng.integers(len(players)))]]
            if rng.uniform() < 0.15:
                others = [p for p in players if p != holders[0]]
                holders.append(others[int(rng.integers(len(others)))])
            counters[a] = {p: int(rng.integers(1, 3)) for p in holders}
        if rng.uniform() < 0.35:
            sides = list(rng.choice(players, size=min(2, len(players)), replace=False))
            sides = sides[:int(rng.integers(1, 3))]
            chits[a] = [{"player": str(p),
                         "type": str(kinds[int(rng.integers(len(kinds)))]) if face_up
                         else HIDDEN} for p in sides]
    return {"counters": counters, "chits": chits}


@lru_cache(maxsize=2)
def _sheet(key: str) -> np.ndarray:
    lay = map_layout(None) if not key else _layouts[key]
    return map_image(lay, DRAW_PPM)


_layouts: dict[str, MapLayout] = {}


def _shadowed_pieces(canvas: MmCanvas, shadow: MmCanvas, counters, chits, lay: MapLayout,
                     rng: np.random.Generator, off_mm: np.ndarray) -> None:
    for area, by_player in counters.items():
        spots = lay.counter_spots(area)
        order = rng.permutation(len(spots))
        k = 0
        for player, n in sorted(by_player.items()):
            for _ in range(n):
                x, y = spots[int(order[k])]
                k += 1
                c = (x + rng.uniform(-0.9, 0.9), y + rng.uniform(-0.9, 0.9))
                ang = float(rng.uniform(-8, 8))
                square = _square(c, COUNTER_MM, ang)
                shadow.fill_polygon(square + off_mm, (255, 255, 255))
                draw_counter(canvas, c, player, ang)
    for area, placed in chits.items():
        x0, y0, _, _ = lay.areas[area].box
        per_side: dict[str, int] = {}
        for chit in placed:
            side = chit["player"]
            k = per_side.get(side, 0)
            per_side[side] = k + 1
            # A second chit of one side lies over the first, fanned: only the top one reads.
            x = x0 + CHIT_XS[side] + rng.uniform(-1.2, 1.2) + k * 2.5
            y = y0 + CHIT_ROW_Y + rng.uniform(-0.6, 0.6) + k * 2.5
            code_c = (x, y + (CHIT_MM - CODE_MM) / 2 - 0.25)
            ang = float(rng.uniform(-15, 15))
            shadow.fill_polygon(_square((x, y), CHIT_MM, ang) + off_mm * 0.5, (255, 255, 255))
            draw_chit(canvas, code_c, chit["type"], ang)


def _square(c, side: float, ang: float) -> np.ndarray:
    a = math.radians(ang)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    pts = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * side
    return pts @ r.T + np.asarray(c, float)


def render_table(table: Mapping[str, Any], seed: int, lay: MapLayout | None = None,
                 size: tuple[int, int] = (1280, 720), max_tilt_deg: float = 45.0,
                 hand: bool | None = None, kelvin: float | None = None,
                 fill: tuple[float, float] = (0.75, 0.98),
                 shift: tuple[float, float] = (0.0, 0.0), world_ppm: float = 2.5) -> PeloFrame:
    """One frame of ``table`` (``{"counters": {area: {player: n}}, "chits": {area: [{"player",
    "type"}]}}``); unset choices are drawn from the seed. ``shift`` moves the map by that
    share of the frame (a map half out of view)."""
    rng = np.random.default_rng(seed)
    lay = lay or map_layout(None)
    key = "" if lay is map_layout(None) else str(id(lay))
    if key:
        _layouts[key] = lay
    hand = bool(rng.uniform() < 1 / 3) if hand is None else hand
    kelvin = kelvin or float(rng.uniform(3000, 6500))
    counters = {a: dict(v) for a, v in table.get("counters", {}).items()}
    chits = {a: [dict(c) for c in v] for a, v in table.get("chits", {}).items()}

    # The sheet and pieces, drawn at DRAW_PPM in sRGB, with the pieces' shadows.
    sheet = _sheet(key).copy()
    canvas = MmCanvas(sheet, DRAW_PPM, (0.0, 0.0))
    shadow = MmCanvas(np.zeros(sheet.shape[:2], np.uint8), DRAW_PPM, (0.0, 0.0))
    light = light_direction(rng)
    off = -light[:2] / light[2] * 1.2
    _shadowed_pieces(canvas, shadow, counters, chits, lay, rng, off)
    ppm = world_ppm
    w_px, h_px = round((lay.width_mm + 2 * MARGIN_MM) * ppm), round(
        (lay.height_mm + 2 * MARGIN_MM) * ppm)
    small = cv2.resize(sheet, (round(lay.width_mm * ppm), round(lay.height_mm * ppm)),
                       interpolation=cv2.INTER_AREA)
    sh = cv2.resize(shadow.image, (small.shape[1], small.shape[0]),
                    interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    sh = cv2.GaussianBlur(sh, (0, 0), 0.8 * ppm)
    paper = to_linear(small) * rng.uniform(0.8, 0.9) + 0.02
    paper *= (1 - 0.35 * sh)[:, :, None]
    world = table_texture(rng, (w_px, h_px))
    m = round(MARGIN_MM * ppm)
    world[m:m + paper.shape[0], m:m + paper.shape[1]] = paper

    # A hand reaching in over the map, with its shadow.
    covered: dict[str, float] = {}
    if hand:
        area = lay.areas[list(lay.areas)[int(rng.integers(len(lay.areas)))]]
        target = np.array(area.centre) + rng.uniform(-25, 25, 2)
        blobs = random_hand(rng, tuple(target))
        mask = np.zeros((h_px, w_px), np.uint8)
        shade = np.zeros_like(mask)
        lift = -light[:2] / light[2] * 30
        for b in blobs:
            pts = (b.outline_mm + MARGIN_MM) * ppm
            cv2.fillPoly(mask, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
            cv2.fillPoly(shade, [np.round((pts + lift * ppm) * 16).astype(np.int32)], 255,
                         cv2.LINE_AA, 4)
        s = _blur_small(shade.astype(np.float32) / 255, 8 * ppm)
        world *= (1 - 0.4 * s)[:, :, None]
        a = (mask.astype(np.float32) / 255)[:, :, None]
        low = rng.standard_normal((h_px // 40 + 2, w_px // 40 + 2)).astype(np.float32)
        tone = cv2.resize(low, (w_px, h_px), interpolation=cv2.INTER_CUBIC)[:, :, None] * 0.12 + 1
        world[:] = world * (1 - a) + blobs[0].colour * np.clip(tone, 0.6, 1.3) * a
        for aid, box in lay.areas.items():
            x0, y0, x1, y1 = (np.array(box.box) + MARGIN_MM) * ppm
            share = float((mask[round(y0):round(y1), round(x0):round(x1)] > 0).mean())
            if share > 0:
                covered[aid] = share

    # The camera sees the whole sheet (table mm: the sheet's centre at 0, 0).
    half = np.array([lay.width_mm, lay.height_mm]) / 2
    extent = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * half
    cam = random_camera(rng, extent, size, max_tilt_deg, fill=fill)
    hom = cam.homography
    if shift != (0.0, 0.0):
        hom = np.array([[1, 0, shift[0] * size[0]], [0, 1, shift[1] * size[1]], [0, 0, 1]]) @ hom
    to_table = np.array([[1 / ppm, 0, -MARGIN_MM - half[0]], [0, 1 / ppm, -MARGIN_MM - half[1]],
                         [0, 0, 1]])
    # World pixel centres are at (i + 0.5) / ppm mm: shift by half a pixel.
    to_table = to_table @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    frame = cv2.warpPerspective(world, hom @ to_table, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    image = develop_frame(frame, rng, kelvin)
    sheet_to_table = np.array([[1, 0, -half[0]], [0, 1, -half[1]], [0, 0, 1]])
    return PeloFrame(image, {a: v for a, v in counters.items() if any(v.values())},
                     {a: v for a, v in chits.items() if v}, covered, cam.tilt_deg,
                     hom @ sheet_to_table)


def render_random(seed: int, **kw: Any) -> PeloFrame:
    """A frame of a random table (the bench's frames)."""
    rng = np.random.default_rng(seed + 7_777_777)
    lay = kw.get("lay") or map_layout(None)
    return render_table(random_table(rng, lay), seed, **kw)


def project_areas(frame: PeloFrame, lay: MapLayout | None = None) -> dict[str, np.ndarray]:
    """Each area's box corners in the image (ground truth, for tests)."""
    lay = lay or map_layout(None)
    return {a: apply_h(frame.homography, np.array(b.polygon, float))
            for a, b in lay.areas.items()}


def table_of(state: Mapping[str, Any]) -> dict[str, Any]:
    """What lies on the table in a game state (the rules' whole-state picture): counters,
    and chits face up once revealed, face down before."""
    face_up = state.get("phase") == "reveal"
    chits = {a: [{"player": c["player"], "type": c["type"] if face_up else HIDDEN}
                 for c in placed] for a, placed in state.get("chits", {}).items()}
    return {"counters": state.get("counters", {}), "chits": chits}


class DemoScene:
    """The demo's table: photos of the game's state on the printed map. The reader needs
    no colour profile (the counters' colours are printed), so ``profile`` is None."""

    def __init__(self, players: list[str], seed: int = 0,
                 size: tuple[int, int] = (1280, 720)) -> None:
        self.players = list(players)
        self.profile = None
        self.size = size
        self.seed = seed

    def render(self, state: Mapping[str, Any], frame_no: int) -> np.ndarray:
        return render_table(table_of(state), self.seed * 100003 + frame_no, None, self.size,
                            max_tilt_deg=30.0, hand=False).image


def demo_scene(players: list[str], seed: int = 0) -> DemoScene:
    """What ``companion demo`` photographs A Peloponnesian War with (the bundle names it)."""
    return DemoScene(players, seed)


__all__ = ["PeloFrame", "render_table", "render_random", "random_table", "project_areas",
           "table_of", "demo_scene", "DemoScene"]
