"""A second generator of A Peloponnesian War photos: real 3D, path-traced (Mitsuba 3).

Where :mod:`vision.render.peloponnesian` draws the map flat and pastes the
pieces on it, this one builds the table as solids and traces light through it:

- the A3 map is a sheet of paper, printed with the kit's own art, lying on one
  of several table tops; a third of the sheets lie flat, the rest are curled
  from being rolled, have a corner up, or both, and all may be a little wavy
  (:mod:`vision.render3d.pelo_pieces`);
- orientation counters are square tokens 1.5-4 mm thick with the printed
  counter on top and board or painted sides, put down upright (the letter
  towards the bottom edge, as the rules' players read them) on their area's
  counter row, a little off their spot and turned a few degrees;
- chits are folded card, face up or face down, on their player's side of the
  area; a player who plays two or three chits in one area stacks them a little
  untidily, so the lower ones are partly hidden;
- the table is a game in progress: counters on the areas the cities hold (each
  city's home mostly its own), and this turn's chits — each city plays one to
  three chits from the cup (the chit set's own mix, drawn without putting back),
  at most two cities' chits in an area; before the reveal they lie face down,
  during it some areas are turned up, after it all are;
- a warm desk lamp, perhaps a window or a ceiling panel (soft shadows: every
  source has a size), a hand and sometimes a sleeve over the map in a third of
  the frames (:mod:`vision.render3d.hands`);
- a camera tilted 0-45 degrees, and the camera model of
  :mod:`vision.render3d.sensor` (white balance left off by part of the
  light's tint, defocus, motion blur, lens distortion, noise, JPEG).

``render_pelo3d(seed)`` gives a :class:`vision.render.peloponnesian.PeloFrame`
(the frame and the truth the benchmark scores: counters and chits by area, and
the share of each area a hand hides, measured on the tracer's first-hit pass)
and the scene's parameters. The same seed and spec give the same frame.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import cv2
import numpy as np

from companion.rules.peloponnesian.chits import load_chits
from vision.peloponnesian.art import HIDDEN, chit_types
from vision.peloponnesian.layout import (
    CHIT_MM,
    COUNTER_MM,
    SIDES,
    MapLayout,
    map_layout,
)
from vision.render.peloponnesian import PeloFrame
from vision.render3d.colours import kelvin_rgb, srgb_to_linear
from vision.render3d.cover import cover_shares
from vision.render3d.game import out_of_view
from vision.render3d.hands import random_hand
from vision.render3d.pelo_pieces import (
    SheetPose,
    Token,
    chit_atlas,
    counter_atlas,
    random_sheet_pose,
    sheet_mesh,
    sheet_texture,
    token_meshes,
)
from vision.render3d.sensor import develop, distort_px, random_sensor
from vision.render3d.textures import _printed, table_top
from vision.render3d.tracer import (
    VERTEX_COLOUR,
    Light,
    SceneParts,
    bitmap,
    mesh,
    mitsuba,
    radiance_for,
    render,
)

DEV_SEEDS = range(4_000_000, 4_001_000)  # may be looked at, and anything chosen on them
HELD_OUT_SEEDS = range(4_500_000, 4_501_000)  # never used to choose anything in any reader
CHIT_CARD_MM = (0.35, 0.7)  # a folded chit: two layers of paper, perhaps glued to card


@dataclass(frozen=True)
class PeloSpec3D:
    size: tuple[int, int] = (1280, 720)
    spp: int = 6
    max_tilt_deg: float = 45.0
    fill: tuple[float, float] = (0.75, 0.95)
    hand_frames: float = 1 / 3


@dataclass
class PeloScene3D:
    frame: PeloFrame
    params: dict


# ----- what lies on the table -----------------------------------------------------------

def random_game(rng: np.random.Generator, lay: MapLayout) -> tuple[dict, list[dict]]:
    """(counters {area: {city: n}}, chits [{area, player, type, face_up, depth}]) of a game
    in progress: counters where the cities hold areas, and this turn's chits."""
    areas = list(lay.areas)
    progress = float(rng.uniform())  # how far the game has gone: more areas held
    counters: dict[str, dict[str, int]] = {}
    for a in areas:
        home = lay.areas[a].home
        if home and rng.uniform() < 0.85:
            counters[a] = {home: int(rng.integers(1, 3))}
            continue
        if rng.uniform() < 0.12 + 0.55 * progress:
            first = SIDES[int(rng.integers(3))]
            counters[a] = {first: int(rng.integers(1, 3))}
            if rng.uniform() < 0.15:  # two cities' counters in one area
                other = [p for p in SIDES if p != first][int(rng.integers(2))]
                counters[a][other] = int(rng.integers(1, 3))
    # This turn's chits: each city plays 1-3 from the cup, at most two cities in an area.
    chit_set = load_chits(None)
    cup = [k for k, n in chit_set.cup(SIDES) for _ in range(n)]
    cup = [cup[int(i)] for i in rng.permutation(len(cup))]
    phase = rng.choice(["placing", "revealing", "revealed"], p=[0.4, 0.2, 0.4])
    played: list[dict] = []
    in_area: dict[str, set[str]] = {}
    for _turn in range(int(rng.integers(1, 4))):
        for p in rng.permutation(SIDES):
            p = str(p)
            own = [a for a, who in in_area.items() if p in who]
            if own and rng.uniform() < 0.12:  # a second chit in an area it already plays in
                area = own[int(rng.integers(len(own)))]
            else:
                free = [a for a in areas if len(in_area.get(a, set()) | {p}) <= 2
                        and p not in in_area.get(a, set())]
                area = free[int(rng.integers(len(free)))]
            depth = sum(1 for c in played if c["area"] == area and c["player"] == p)
            in_area.setdefault(area, set()).add(p)
            played.append({"area": area, "player": p, "type": cup.pop(), "depth": depth})
    up_areas = {a for a in in_area if phase == "revealed"
                or (phase == "revealing" and rng.uniform() < 0.5)}
    for c in played:
        c["face_up"] = c["area"] in up_areas
    return counters, played


def _tokens(rng: np.random.Generator, lay: MapLayout, counters: dict, chits: list[dict]
            ) -> tuple[list[Token], list[Token], list[str], float]:
    """The counters and chits as tokens on the sheet (sheet mm), the counters' player
    per token, and the chits' thickness."""
    thick = float(rng.uniform(1.5, 4.0))
    counter_tokens, owners = [], []
    tidy = rng.uniform(0.3, 1.0)  # how carefully this table's players put pieces down
    for a, by in sorted(counters.items()):
        spots = lay.counter_spots(a)
        order = list(range(len(spots)))
        if rng.uniform() < 0.3:
            order = [int(i) for i in rng.permutation(len(spots))]
        k = 0
        for p in sorted(by, key=SIDES.index):  # Sparta leftmost, then Thebes, then Athens
            for _ in range(by[p]):
                x, y = spots[order[k]]
                k += 1
                off = rng.normal(0, 0.7 / tidy, 2).clip(-2.2, 2.2)
                counter_tokens.append(Token(x + off[0], y + off[1],
                                            float(rng.normal(0, 4 / tidy)), COUNTER_MM, thick,
                                            SIDES.index(p)))
                owners.append(p)
    card = float(rng.uniform(*CHIT_CARD_MM))
    kinds = chit_types()
    chit_tokens = []
    for c in sorted(chits, key=lambda c: c["depth"]):
        x, y = lay.chit_spot(c["area"], c["player"])
        off = rng.normal(0, 0.9 / tidy, 2).clip(-2.5, 2.5)
        if c["depth"]:  # on top of the one before, pushed a few mm off it
            off = off + rng.uniform(1.5, 4.5, 2) * rng.choice([-1, 1], 2)
        ang = float(np.clip(rng.normal(0, 6 / tidy), -25, 25))
        chit_tokens.append(Token(x + off[0], y + off[1], ang, CHIT_MM, card,
                                 kinds.index(c["type"] if c["face_up"] else HIDDEN),
                                 c["depth"] * (card + 0.05)))
    return counter_tokens, chit_tokens, owners, card


# ----- light, table, camera -------------------------------------------------------------

def _lights(rng: np.random.Generator, centre: np.ndarray
            ) -> tuple[list[Light], np.ndarray, np.ndarray, float]:
    """A warm lamp always; perhaps a window and/or a ceiling panel."""
    specs = []
    a = rng.uniform(0, 2 * math.pi)
    r = rng.uniform(150, 650)
    specs.append(("lamp", centre + [r * math.cos(a), r * math.sin(a), rng.uniform(380, 900)],
                  float(rng.uniform(15, 50)), float(rng.uniform(2600, 3500)), 1.0))
    for kind in ("window", "ceiling"):
        if rng.uniform() < 0.4:
            a = rng.uniform(0, 2 * math.pi)
            if kind == "window":
                pos = centre + [1600 * math.cos(a), 1600 * math.sin(a), rng.uniform(500, 1100)]
                size, k = float(rng.uniform(600, 1200)), float(rng.uniform(5200, 7500))
            else:
                pos = centre + [*rng.uniform(-300, 300, 2), rng.uniform(1800, 2400)]
                size, k = float(rng.uniform(400, 900)), float(rng.uniform(3800, 5200))
            specs.append((kind, pos, size, k, float(rng.uniform(0.3, 1.2))))
    lights, mix = [], np.zeros(3)
    for kind, p, size, k, share in specs:
        p = np.asarray(p, float)
        dist = float(np.linalg.norm(p - centre))
        cos = (p[2] - centre[2]) / dist
        tint = kelvin_rgb(k)
        lights.append(Light(kind, tuple(float(v) for v in p), size,
                            tint * radiance_for(kind, size, dist, share / max(cos, 0.2))))
        mix += share * tint
    illuminant = mix / mix[1]
    ambient = illuminant * float(rng.uniform(0.03, 0.1)) / math.pi
    return lights, ambient, illuminant, specs[0][3]


def _camera(rng: np.random.Generator, pose: SheetPose, spec: PeloSpec3D):
    from vision.render3d.camera import framing_camera

    edge = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float) * [pose.width_mm, pose.height_mm]
    return framing_camera(rng, pose.to_world(edge), spec.size, spec.max_tilt_deg, spec.fill)


def _side_colours(rng: np.random.Generator, owners: list[str]) -> tuple[np.ndarray, str]:
    """Counters' sides: grey board under the print, or painted in the city's colour
    (per vertex of the sides' mesh), and which."""
    from vision.peloponnesian.art import PLAYER_BGR

    if rng.uniform() < 0.5:
        board = srgb_to_linear(np.array([rng.uniform(150, 215)] * 3) * [1.0, 0.97, 0.9])
        cols, kind = [board] * len(owners), "board"
    else:
        cols = [srgb_to_linear(np.array(PLAYER_BGR[p][::-1]) * rng.uniform(0.7, 0.95))
                for p in owners]
        kind = "painted"
    return np.repeat(np.array(cols, float).reshape(-1, 3), 12, axis=0), kind  # 12 a ring


# ----- truth --------------------------------------------------------------------------

def _area_px(lay: MapLayout, pose: SheetPose, cam) -> dict[str, np.ndarray]:
    """Each area's box as seen by the ideal camera (its sides sampled on the paper)."""
    out = {}
    t = np.linspace(0, 1, 12, endpoint=False)
    for a, box in lay.areas.items():
        x0, y0, x1, y1 = box.box
        pts = np.vstack([np.stack([x0 + (x1 - x0) * t, np.full_like(t, y0)], -1),
                         np.stack([np.full_like(t, x1), y0 + (y1 - y0) * t], -1),
                         np.stack([x1 - (x1 - x0) * t, np.full_like(t, y1)], -1),
                         np.stack([np.full_like(t, x0), y1 - (y1 - y0) * t], -1)])
        out[a] = cam.project(pose.to_world(pts))
    return out


def _homography(pose: SheetPose, cam, sensor) -> np.ndarray:
    """Sheet mm -> frame px, fitted to the distorted projection of the (curled) paper."""
    gx, gy = np.meshgrid(np.linspace(0, pose.width_mm, 9), np.linspace(0, pose.height_mm, 7))
    mm = np.stack([gx.ravel(), gy.ravel()], -1)
    px = distort_px(cam.project(pose.to_world(mm)), cam.size, sensor.k1, sensor.k2,
                    cam.focal_px)
    h, _ = cv2.findHomography(mm.astype(np.float32), px.astype(np.float32))
    return h


# ----- the frame ---------------------------------------------------------------------

def render_pelo3d(seed: int, spec: PeloSpec3D | None = None, picture: bool = True,
                  lay: MapLayout | None = None) -> PeloScene3D:
    """The photo of ``seed``; ``picture=False`` traces only the first-hit pass (truth)."""
    spec = spec or PeloSpec3D()
    lay = lay or map_layout(None)
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    counters, chits = random_game(rng, lay)
    counter_tokens, chit_tokens, owners, card = _tokens(rng, lay, counters, chits)
    pose = random_sheet_pose(rng, lay)
    cam = _camera(rng, pose, spec)
    centre = pose.to_world(np.array([[lay.width_mm / 2, lay.height_mm / 2]]))[0]
    centre[2] = 0.0
    lights, ambient, illuminant, kelvin = _lights(rng, centre)
    lights = [out_of_view(lt, cam, centre) for lt in lights]
    hand = None
    if rng.uniform() < spec.hand_frames:
        ids = list(lay.areas)
        target = np.array(lay.areas[ids[int(rng.integers(len(ids)))]].centre)
        target = target + rng.normal(0, 15, 2)
        hand = random_hand(rng, tuple(pose.to_table(target)[0]))
    top = table_top(rng)
    paper, ink = float(rng.uniform(0.78, 0.9)), float(rng.uniform(0.018, 0.035))
    glossy_paper = float(rng.uniform(0.15, 0.4)) if rng.uniform() < 0.3 else None
    glossy_counters = float(rng.uniform(0.1, 0.35)) if rng.uniform() < 0.4 else None
    side_cols, sides = _side_colours(rng, owners)
    sensor = random_sensor(rng, illuminant)
    render_seed = int(rng.integers(2 ** 31))

    mi = mitsuba()
    shapes: dict = {}
    tex = bitmap(top.image, 4000.0 / top.size_mm)
    shapes["table"] = {"type": "rectangle", "to_world": mi.ScalarTransform4f().translate(
        [float(centre[0]), float(centre[1]), 0]).scale([2000, 2000, 1]),
        "bsdf": {"type": "roughplastic", "diffuse_reflectance": tex, "alpha": top.roughness,
                 "nonlinear": True} if top.glossy else {"type": "diffuse", "reflectance": tex}}

    def printed(img, gloss):
        t = bitmap(img)
        inner = {"type": "diffuse", "reflectance": t} if gloss is None else \
            {"type": "roughplastic", "diffuse_reflectance": t, "alpha": gloss,
             "nonlinear": True}
        return {"type": "twosided", "bsdf": inner}

    v, f, uv = sheet_mesh(pose)
    shapes["sheet"] = mesh("sheet", v, f, printed(sheet_texture(lay, paper, ink), glossy_paper),
                           uv=uv, smooth=True)
    if counter_tokens:
        (tv, tf, tuv), (sv, sf) = token_meshes(counter_tokens, pose, len(SIDES), bevel=0.25)
        shapes["counters"] = mesh("counters", tv, tf, printed(
            _printed(counter_atlas(), paper, ink), glossy_counters), uv=tuv, smooth=False)
        shapes["counter_sides"] = mesh("counter_sides", sv, sf, {
            "type": "diffuse", "reflectance": VERTEX_COLOUR}, colours=side_cols, smooth=False)
    if chit_tokens:
        (tv, tf, tuv), (sv, sf) = token_meshes(chit_tokens, pose, len(chit_types()))
        shapes["chits"] = mesh("chits", tv, tf, printed(_printed(chit_atlas(), paper, ink),
                                                        None), uv=tuv, smooth=False)
        shapes["chit_edges"] = mesh("chit_edges", sv, sf, {
            "type": "diffuse", "reflectance": {"type": "rgb", "value": [paper * 0.9] * 3}},
            smooth=False)
    if hand is not None:
        skin, sleeve = hand
        shapes["hands"] = mesh("hands", skin[0], skin[1], {
            "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.55,
            "specular": 0.35}, colours=skin[2])
        if sleeve is not None:
            shapes["sleeves"] = mesh("sleeves", sleeve[0], sleeve[1], {
                "type": "diffuse", "reflectance": VERTEX_COLOUR}, colours=sleeve[2])

    linear, index, names = render(SceneParts(cam, shapes, lights, ambient), spec.spp,
                                  render_seed, picture)
    hand_px = np.zeros(index.shape, bool)
    for i, name in enumerate(names):
        if name in ("hands", "sleeves"):
            hand_px |= index == i + 1
    cover = cover_shares(_area_px(lay, pose, cam), hand_px)
    frame = develop(linear, sensor, cam.focal_px, rng) if linear is not None else \
        np.zeros((spec.size[1], spec.size[0], 3), np.uint8)

    truth_chits: dict[str, list[dict[str, str]]] = {}
    for c in chits:
        truth_chits.setdefault(c["area"], []).append(
            {"type": c["type"] if c["face_up"] else HIDDEN, "player": c["player"]})
    stacked = sorted({c["area"] for c in chits if c["depth"]})
    params = {"tilt_deg": round(cam.tilt_deg, 2), "fov_deg": round(cam.fov_deg, 2),
              "table": top.kind, "lights": [lt.kind for lt in lights], "kelvin": round(kelvin),
              "hand": hand is not None, "sleeve": bool(hand and hand[1] is not None),
              "sheet": {"roll_mm": round(pose.roll_mm, 2), "corner_mm": round(pose.corner_mm, 2),
                        "angle_deg": round(pose.angle_deg, 2)},
              "counter_mm": round(counter_tokens[0].thickness_mm, 2) if counter_tokens else None,
              "counter_sides": sides, "glossy_counters": glossy_counters,
              "chit_mm": round(card, 2), "stacked": stacked,
              "glossy_paper": glossy_paper, "sensor": sensor.to_json(), "spp": spec.spp,
              "render_s": round(time.perf_counter() - t0, 2) if picture else None}
    out = PeloFrame(frame, {a: v for a, v in counters.items() if any(v.values())}, truth_chits,
                    cover, round(cam.tilt_deg, 2), _homography(pose, cam, sensor))
    return PeloScene3D(out, params)


__all__ = ["PeloSpec3D", "PeloScene3D", "render_pelo3d", "random_game", "DEV_SEEDS",
           "HELD_OUT_SEEDS"]
