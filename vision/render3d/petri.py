"""A second Petri board generator: real 3D, physically based (Mitsuba 3 path tracing).

Where :mod:`vision.render.petri` draws every piece flat on its hole and warps the
picture, this one builds the board as solids (:mod:`petri_board`): a wooden board
with a dish turned at every hole and glass marbles resting in them (clear, frosted,
cat's eyes with a coloured vane inside, or opaque), a plastic board with drilled
holes and glossy pegs standing in them, leaning a little and tall enough to hide
their neighbours from a tilted camera, or the printed A3 sheet
(:func:`vision.petri.print_board.board_image`) flat on the table with marbles on
its rings. A warm lamp and up to two more lights (a window, a ceiling panel) light
it with soft shadows; hands (:mod:`vision.render3d.hands`) reach over the board
in about a third of the frames; the camera is tilted 0-45 degrees and the camera
model of :mod:`vision.render3d.sensor` adds white balance, defocus, motion blur,
lens distortion, noise and JPEG.

The position: 2-6 players on homes the rules allow (the usual tips, half the time
turned round the board), each a connected group of 1-15 pieces grown from a hole
of its home, drawn from the rules' board (:mod:`companion.rules.petri.board`).

``render_petri3d(seed)`` gives the frame and its truth as a
:class:`vision.render.petri.PetriFrame` (what ``bench/petri_vision.py`` scores):
each hole's player, and which holes a hand covers, measured from the tracer's
first-hit pass (a hole whose piece-sized disc is more than half hand is
``occluded``, one the hand touches less is ``touched``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import cv2
import numpy as np

from companion.rules.petri.board import HOMES, NEIGHBOURS, coords, default_homes, hole_order
from vision.render.petri import PetriFrame
from vision.render3d.camera import Camera3D, framing_camera, table_to_world
from vision.render3d.colours import kelvin_rgb, varied
from vision.render3d.game import out_of_view
from vision.render3d.hands import random_hand
from vision.render3d.petri_board import (
    MARBLE_SETS,
    PEG_SETS,
    PIECE_SETS,
    PLAYERS,
    STYLES,
    Board,
    PieceSet,
    catseye_vane,
    make_board,
    marble_bsdf,
    peg_mesh,
)
from vision.render3d.pieces import gather
from vision.render3d.sensor import develop, distort_px, random_sensor
from vision.render3d.textures import table_top
from vision.render3d.tracer import (
    VERTEX_COLOUR,
    Light,
    SceneParts,
    _no_fireflies,
    bitmap,
    build,
    mesh,
    mitsuba,
    radiance_for,
)

STYLE_ODDS = (0.4, 0.3, 0.3)  # wood, plastic, print
ROOM_LIGHT = (0.08, 0.25)  # light from all round, a share of the lamps'
HOLE_DISC = 0.4  # a hole's disc for hand cover: this share of the pitch as radius


@dataclass(frozen=True)
class PetriSpec3D:
    size: tuple[int, int] = (1280, 720)
    spp: int = 4  # about 10 s of one core a 1280x720 frame
    max_depth: int = 8  # light through a marble: in, out, onto the board, to a light
    players: tuple[int, int] = (2, 6)
    pieces: tuple[int, int] = (1, 15)  # each player's group
    max_tilt_deg: float = 45.0
    fill: tuple[float, float] = (0.72, 0.94)
    hand_scenes: float = 1 / 3
    hands: tuple[int, int] = (1, 2)


@dataclass
class PetriScene3D:
    frame: np.ndarray  # BGR uint8, as the camera delivers it
    truth: PetriFrame  # its image is ``frame``
    piece_set: str  # which box of pieces (its own calibration card)
    params: dict


def _ring(hole: str) -> int:
    q, r = coords(hole)
    return max(abs(q), abs(r), abs(q + r))


def grow_groups(rng: np.random.Generator, homes: dict[str, int], counts: dict[str, int]
                ) -> dict[str, str]:
    """Each player's pieces as one connected group from a hole of its home, a new piece
    beside one already down (the placing rule), a little more often towards the centre."""
    board: dict[str, str] = {}
    for player, k in homes.items():
        free = sorted((h for h in HOMES[k] if h not in board), key=hole_order)
        group = [free[int(rng.integers(len(free)))]]
        board[group[0]] = player
        while len(group) < counts[player]:
            frontier = sorted({n for h in group for n in NEIGHBOURS[h] if n not in board},
                              key=hole_order)
            if not frontier:
                break
            w = np.array([1.0 / (1 + _ring(h)) for h in frontier])
            pick = frontier[int(rng.choice(len(frontier), p=w / w.sum()))]
            board[pick] = player
            group.append(pick)
    return board


def random_position(rng: np.random.Generator, spec: PetriSpec3D
                    ) -> tuple[dict[str, int], dict[str, str]]:
    """(player -> home, hole -> player)."""
    n = int(rng.integers(spec.players[0], spec.players[1] + 1))
    names = [PLAYERS[int(i)] for i in rng.permutation(len(PLAYERS))[:n]]
    turn = int(rng.integers(6)) if rng.uniform() < 0.5 else 0
    homes = {p: (k + turn) % 6 for p, k in zip(names, default_homes(n), strict=True)}
    counts = {p: int(rng.integers(spec.pieces[0], spec.pieces[1] + 1)) for p in names}
    return homes, grow_groups(rng, homes, counts)


def _lights(rng: np.random.Generator, cam: Camera3D, centre: np.ndarray
            ) -> tuple[list[Light], np.ndarray, np.ndarray, float]:
    """A warm lamp, and up to two more: a window's daylight, a ceiling panel. (lights,
    ambient, illuminant (G = 1), the lamp's kelvin)."""
    specs = []
    kelvin = float(rng.uniform(2600, 3500))
    a = rng.uniform(0, 2 * math.pi)
    r = rng.uniform(150, 700)
    specs.append(("lamp", centre + np.array([r * math.cos(a), r * math.sin(a),
                                             rng.uniform(350, 900)]),
                  float(rng.uniform(15, 50)), kelvin, float(rng.uniform(0.6, 1.4))))
    for kind in [str(k) for k in rng.choice(["window", "ceiling"], int(rng.integers(0, 3)),
                                            replace=False)]:
        if kind == "window":
            a = rng.uniform(0, 2 * math.pi)
            specs.append(("window", centre + np.array([1600 * math.cos(a), 1600 * math.sin(a),
                                                      rng.uniform(500, 1200)]),
                          float(rng.uniform(600, 1300)), float(rng.uniform(5200, 7500)),
                          float(rng.uniform(0.4, 1.3))))
        else:
            specs.append(("ceiling", centre + np.array([*rng.uniform(-400, 400, 2),
                                                       rng.uniform(1700, 2400)]),
                          float(rng.uniform(400, 900)), float(rng.uniform(3800, 5200)),
                          float(rng.uniform(0.4, 1.3))))
    lights, mix, total = [], np.zeros(3), 0.0
    for kind, p, size, k, share in specs:
        dist = float(np.linalg.norm(p - centre))
        cos = (p[2] - centre[2]) / dist
        tint = kelvin_rgb(k)
        light = Light(kind, tuple(float(v) for v in p), size,
                      tint * radiance_for(kind, size, dist, share / max(cos, 0.2)))
        lights.append(out_of_view(light, cam, centre))
        mix += share * tint
        total += share
    illuminant = mix / mix[1]
    # A room's walls and ceiling: clear glass shows mostly what it refracts and mirrors of
    # the room (the tracer's shadow rays do not pass through glass), so the room is not dark.
    ambient = illuminant * total * float(rng.uniform(*ROOM_LIGHT)) / math.pi
    return lights, ambient, illuminant, kelvin


@dataclass
class _Pieces:
    shapes: dict
    height: float  # a piece's top above the board's top (mm)
    params: dict


def _marbles(rng: np.random.Generator, board: Board, pset: PieceSet, pieces: dict[str, str]
             ) -> _Pieces:
    radius = float(rng.uniform(6.5, 8.2)) if board.style == "wood" else \
        float(rng.uniform(6.0, 7.8))
    shapes: dict = {}
    vanes = []
    dish = board.params.get("dish_r_mm"), board.params.get("dish_depth_mm")
    for i, (hole, player) in enumerate(sorted(pieces.items(), key=lambda hp: hole_order(hp[0]))):
        r = radius * float(rng.uniform(0.97, 1.03))
        xy = board.holes[hole].copy()
        if board.style == "wood":
            xy += rng.normal(0, 0.3, 2)
            rd, d = dish
            rc = (rd ** 2 + d ** 2) / (2 * d)
            z = board.top_z - d + r if r <= rc else board.top_z + math.sqrt(r * r - rd * rd)
        else:  # on flat paper a marble stops a little off its ring's centre
            xy += np.clip(rng.normal(0, 1.2, 2), -3, 3)
            z = board.top_z + r
        centre = table_to_world(xy[None], z)[0]
        colour = varied(rng, pset.colours[player], 3.0, 0.05, 0.06)
        shapes[f"marble{i}"] = {"type": "sphere", "center": centre.tolist(), "radius": r,
                                "bsdf": marble_bsdf(pset.look, colour, rng)}
        if pset.look == "catseye":
            v, f = catseye_vane(rng, centre, r)
            vanes.append((v, f, np.tile(colour, (len(v), 1))))
    if vanes:
        v, f, c = gather(vanes)
        shapes["vanes"] = mesh("vanes", v, f, {"type": "principled", "base_color": VERTEX_COLOUR,
                                               "roughness": 0.35}, colours=c)
    return _Pieces(shapes, 2 * radius, {"radius_mm": round(radius, 2)})


def _pegs(rng: np.random.Generator, board: Board, pset: PieceSet, pieces: dict[str, str]
          ) -> _Pieces:
    shaft = board.params["hole_r_mm"] * 0.92
    head = shaft * float(rng.uniform(1.1, 1.5))
    height = float(rng.uniform(12, 21))
    parts = []
    for hole, player in sorted(pieces.items(), key=lambda hp: hole_order(hp[0])):
        foot = table_to_world(board.holes[hole][None], board.top_z)[0]
        v, f = peg_mesh(rng, foot, height * float(rng.uniform(0.98, 1.02)), shaft, head,
                        float(rng.uniform(0, 7)), float(rng.uniform(0, 360)))
        colour = varied(rng, pset.colours[player], 2.0, 0.04, 0.05)
        parts.append((v, f, np.tile(colour, (len(v), 1))))
    rough = (0.06, 0.2) if pset.look == "glossy" else (0.3, 0.5)
    shapes = {}
    if parts:
        v, f, c = gather(parts)
        shapes["pegs"] = mesh("pegs", v, f, {
            "type": "principled", "base_color": VERTEX_COLOUR,
            "roughness": float(rng.uniform(*rough)), "specular": 0.5}, colours=c)
    return _Pieces(shapes, height, {"height_mm": round(height, 2), "shaft_r_mm": round(shaft, 2),
                                    "head_r_mm": round(head, 2)})


def _table(rng: np.random.Generator, centre: np.ndarray) -> dict:
    mi = mitsuba()
    top = table_top(rng)
    tex = bitmap(top.image, 4000.0 / top.size_mm)
    bsdf = {"type": "roughplastic", "diffuse_reflectance": tex, "alpha": top.roughness,
            "nonlinear": True} if top.glossy else {"type": "diffuse", "reflectance": tex}
    return {"type": "rectangle", "bsdf": bsdf, "to_world": mi.ScalarTransform4f().translate(
        [float(centre[0]), float(centre[1]), 0]).scale([2000, 2000, 1])}, top.kind


def trace(parts: SceneParts, spp: int, seed: int, max_depth: int, picture: bool = True
          ) -> tuple[np.ndarray | None, np.ndarray, list[str]]:
    """As :func:`vision.render3d.tracer.render`, with deeper light paths (glass)."""
    mi = mitsuba()
    scene = build(parts, spp, max_depth)
    sensors = {s.id(): s for s in scene.sensors()}
    aov = mi.load_dict({"type": "aov", "aovs": "si:shape_index"})
    index = np.array(mi.render(scene, sensor=sensors["sensor_first_hit"], integrator=aov,
                               seed=seed, spp=1))[:, :, 0]
    names = [s.id() for s in scene.shapes()]
    index = np.round(index).astype(np.int32)
    if not picture:
        return None, index, names
    image = np.array(mi.render(scene, sensor=sensors["sensor"], seed=seed, spp=spp), np.float32)
    root = np.sqrt(np.clip(_no_fireflies(image), 0, None))
    return np.square(cv2.bilateralFilter(root, 5, 0.06, 2.0)), index, names


def hand_cover(board: Board, cam: Camera3D, hand_px: np.ndarray, piece_height: float
               ) -> dict[str, float]:
    """Each hole's share of its piece-sized disc (at half a piece's height) that the first-hit
    pass sees as hand or sleeve (> 0 only)."""
    if not hand_px.any():
        return {}
    h, w = hand_px.shape
    a = np.radians(np.arange(0, 360, 15))
    ring = HOLE_DISC * board.pitch * np.stack([np.cos(a), np.sin(a)], -1)
    cover = {}
    for name, xy in board.holes.items():
        px = cam.project(table_to_world(xy + ring, board.top_z + piece_height / 2))
        if not np.isfinite(px).all():
            continue
        lo, hi = np.floor(px.min(0)).astype(int) - 1, np.ceil(px.max(0)).astype(int) + 2
        lo, hi = np.maximum(lo, 0), np.minimum(hi, [w, h])
        if (hi <= lo).any():
            continue
        poly = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
        cv2.fillPoly(poly, [np.round((px - lo) * 4).astype(np.int32)], 1, cv2.LINE_8, 2)
        inside = poly.astype(bool)
        if inside.any():
            share = float(hand_px[lo[1]:hi[1], lo[0]:hi[0]][inside].mean())
            if share > 0:
                cover[name] = round(share, 4)
    return cover


def render_petri3d(seed: int, spec: PetriSpec3D | None = None, picture: bool = True
                   ) -> PetriScene3D:
    """The board of ``seed``: the same seed and spec always give the same frame and truth.
    ``picture=False`` skips the path tracing (truth from the first-hit pass, an empty frame)."""
    spec = spec or PetriSpec3D()
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    style = STYLES[int(rng.choice(len(STYLES), p=STYLE_ODDS))]
    sets = PEG_SETS if style == "plastic" else MARBLE_SETS
    pset = PIECE_SETS[list(sets)[int(rng.integers(len(sets)))]]
    homes, pieces = random_position(rng, spec)
    board = make_board(rng, style)
    outline_w = table_to_world(board.outline, board.top_z)
    cam = framing_camera(rng, outline_w, spec.size, spec.max_tilt_deg, spec.fill)
    centre = outline_w.mean(0)
    centre[2] = 0.0
    stuff = (_marbles if pset.kind == "marble" else _pegs)(rng, board, pset, pieces)
    hands = []
    if rng.uniform() < spec.hand_scenes:
        names = sorted(board.holes, key=hole_order)
        for _ in range(int(rng.integers(spec.hands[0], spec.hands[1] + 1))):
            target = board.holes[names[int(rng.integers(len(names)))]] + \
                rng.normal(0, board.pitch, 2)
            skin, sleeve = random_hand(rng, (float(target[0]), float(target[1])))
            lift = np.array([0.0, 0.0, board.top_z + stuff.height])
            hands.append(((skin[0] + lift, skin[1], skin[2]),
                          None if sleeve is None else (sleeve[0] + lift, sleeve[1], sleeve[2])))
    lights, ambient, illuminant, kelvin = _lights(rng, cam, centre)
    table, table_kind = _table(rng, centre)
    shapes = {"table": table, **board.shapes, **stuff.shapes}
    if hands:
        v, f, c = gather([s for s, _ in hands])
        shapes["hands"] = mesh("hands", v, f, {
            "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.55,
            "specular": 0.35}, colours=c)
        sleeves = gather([s for _, s in hands if s is not None])
        if sleeves is not None:
            v, f, c = sleeves
            shapes["sleeves"] = mesh("sleeves", v, f,
                                     {"type": "diffuse", "reflectance": VERTEX_COLOUR}, colours=c)
    sensor = random_sensor(rng, illuminant)
    render_seed = int(rng.integers(2 ** 31))
    linear, index, names = trace(SceneParts(cam, shapes, lights, ambient), spec.spp, render_seed,
                                 spec.max_depth, picture)
    hand_px = np.zeros(index.shape, bool)
    for i, name in enumerate(names):
        if name in ("hands", "sleeves"):
            hand_px |= index == i + 1
    cover = hand_cover(board, cam, hand_px, stuff.height)
    frame = develop(np.clip(linear, 0, None), sensor, cam.focal_px, rng) if linear is not None \
        else np.zeros((spec.size[1], spec.size[0], 3), np.uint8)
    occluded = {n for n, c in cover.items() if c > 0.5}
    touched = {n for n, c in cover.items() if c <= 0.5}
    truth = PetriFrame(frame, style, board.pitch, homes, dict(pieces), occluded, touched,
                       round(cam.tilt_deg, 2), homography(board, cam, sensor))
    params = {"style": style, "piece_set": pset.name, "board": board.params,
              "pieces": stuff.params, "table": table_kind,
              "lights": [lt.kind for lt in lights], "lamp_kelvin": round(kelvin),
              "hands": len(hands), "hand_cover": cover, "tilt_deg": round(cam.tilt_deg, 2),
              "fov_deg": round(cam.fov_deg, 2), "sensor": sensor.to_json(), "spp": spec.spp,
              "render_s": round(time.perf_counter() - t0, 2) if picture else None}
    return PetriScene3D(frame, truth, pset.name, params)


def homography(board: Board, cam: Camera3D, sensor) -> np.ndarray:
    """Board mm (table frame, centre hole at 0, 0) -> frame pixels, fitted to the
    lens-distorted projection of the holes at the board's top."""
    mm = np.array(list(board.holes.values()))
    px = distort_px(cam.project(table_to_world(mm, board.top_z)), cam.size, sensor.k1,
                    sensor.k2, cam.focal_px)
    h, _ = cv2.findHomography(mm.astype(np.float32), px.astype(np.float32))
    return h


def hole_pixels(scene: PetriScene3D) -> dict[str, tuple[float, float]]:
    """Where each hole's centre lies in the frame (through the truth's homography)."""
    from vision.render3d.petri_board import hole_positions

    holes = hole_positions(scene.truth.pitch_mm)
    mm = np.array(list(holes.values()), np.float64).reshape(-1, 1, 2)
    px = cv2.perspectiveTransform(mm, np.asarray(scene.truth.homography, np.float64))
    return {n: (float(x), float(y)) for n, (x, y) in zip(holes, px.reshape(-1, 2), strict=True)}


__all__ = ["PetriScene3D", "PetriSpec3D", "grow_groups", "hole_pixels", "render_petri3d"]
