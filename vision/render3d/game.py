"""A random Peep War table in 3D, deterministic from a seed: frame and truth.

``render_scene3d(seed)`` lays the tiles and pieces (:mod:`content`), adds hands,
a table top, lights and a camera, path-traces the picture (:mod:`tracer`),
measures from the first-hit pass which cells hands hide, and runs the picture
through the camera model (:mod:`sensor`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from companion.rules.peepwar.board import R_MM, cells_of, hexagon_mm
from vision.geometry import along_sides, shares_outside
from vision.kit_layout import tile_slots
from vision.render3d import meshes
from vision.render3d.camera import Camera3D, framing_camera, table_to_world
from vision.render3d.content import Layout, Tile, random_layout
from vision.render3d.cover import cover_shares
from vision.render3d.hands import random_hand
from vision.render3d.lights import random_lights
from vision.render3d.pieces import bean_mesh, egg_mesh, gather, peep_mesh
from vision.render3d.sensor import develop, distort_px, random_sensor
from vision.render3d.textures import TILE_PX_PER_MM, table_top, tile_texture
from vision.render3d.tracer import VERTEX_COLOUR, Light, SceneParts, bitmap, mesh, render
from vision.render3d.truth import Truth3D, TruthTile

TILE_THICKNESS_MM = 0.6


@dataclass(frozen=True)
class Spec3D:
    size: tuple[int, int] = (1280, 720)
    spp: int = 4  # path-traced samples a pixel (the camera's own noise is larger)
    tiles: tuple[int, int] = (2, 7)
    players: tuple[int, int] = (2, 6)
    max_tilt_deg: float = 45.0
    fill: tuple[float, float] = (0.72, 0.92)
    hand_scenes: float = 0.35  # share of scenes with hands
    hands: tuple[int, int] = (1, 2)
    # 0: every seed is a table of its own. N: seeds s with one s // N are frames of one game
    # night: the same table top, tiles' gloss, players and their pieces' materials, lights
    # and camera (its sensor and lens); the position, the hands and the framing change.
    night_frames: int = 0


# What a game night keeps, each drawn from its own stream, so that one frame's content
# (a frame without beans draws no bean material) never shifts another's.
_NIGHT_PARTS = ("players", "lights", "sensor", "table", "materials")
_NIGHT_SALT = 3731  # a night's streams never coincide with a frame's own


def _streams(seed: int, spec: Spec3D):
    """The frame's random stream, and for each of _NIGHT_PARTS the stream it is drawn
    from: the frame's own (in the frame's order) unless frames share a night."""
    rng = np.random.default_rng(seed)
    if not spec.night_frames:
        return rng, dict.fromkeys(_NIGHT_PARTS, rng)
    night = seed // spec.night_frames
    return rng, {part: np.random.default_rng([_NIGHT_SALT, night, k])
                 for k, part in enumerate(_NIGHT_PARTS)}


@dataclass
class Scene3D:
    frame: np.ndarray  # BGR uint8, as the camera delivers it
    truth: Truth3D
    # Freshly rendered scenes only (not cached): the camera, and per pixel of the ideal
    # (undistorted) picture the name of the shape seen first ("" for none).
    camera: Camera3D | None = None
    first_hit: np.ndarray | None = None


def tile_shape(tile: Tile, index: int, glossy: float | None):
    """A printed hexagon card, its top face textured with the tile's artwork at true scale."""
    thickness = TILE_THICKNESS_MM + 0.05 * index  # a tile pushed over another lies on it
    v, f = meshes.hexagon_prism(R_MM, thickness)
    img = tile_texture(tile.tile_id)
    h, w = img.shape[:2]
    uv = np.stack([(w / 2 + v[:, 0] * TILE_PX_PER_MM) / w,
                   (h / 2 + v[:, 1] * TILE_PX_PER_MM) / h], -1)
    xy = tile.pose.apply(v[:, :2])
    world = table_to_world(xy, v[:, 2])
    tex = bitmap(img)
    bsdf = {"type": "diffuse", "reflectance": tex} if glossy is None else \
        {"type": "roughplastic", "diffuse_reflectance": tex, "alpha": glossy,
         "nonlinear": True}
    # The y flip into the world frame mirrors the winding: turn it back so normals face up.
    return mesh(f"tile{index}", world, f[:, [0, 2, 1]], bsdf, uv=uv, smooth=False)


def out_of_view(light: Light, cam: Camera3D, centre: np.ndarray) -> Light:
    """The light moved outwards until the camera does not see it (a bulb in the picture
    would be a lamp without its shade)."""
    pos = np.asarray(light.position, float)
    w, h = cam.size
    away = pos[:2] - centre[:2]
    away = away / max(float(np.linalg.norm(away)), 1e-6) if np.linalg.norm(away) > 1 else \
        np.array([1.0, 0.0])
    for _ in range(100):
        px = cam.project(pos[None])[0]
        margin = 0.15 * w + light.size * cam.focal_px / max(
            float(np.linalg.norm(pos - np.asarray(cam.origin))), 1.0)
        if not np.isfinite(px).all() or px[0] < -margin or px[0] > w + margin \
                or px[1] < -margin or px[1] > h + margin:
            break
        pos[:2] += away * 100.0
    return replace(light, position=tuple(pos))


def _coloured(name: str, part, bsdf: dict, smooth: bool = True):
    v, f, c = part
    return mesh(name, v, f, bsdf, colours=c, smooth=smooth)


def _shapes(rng: np.random.Generator, layout: Layout, hands: list,
            night: dict[str, np.random.Generator] | None = None) -> dict:
    """The scene's shapes; ``night``: the game night's streams of :func:`_streams` (the table and
    the pieces' materials), else all from ``rng``."""
    table = night["table"] if night else rng
    stuff = night["materials"] if night else rng
    shapes: dict = {}
    top = table_top(table)
    tex = bitmap(top.image, 4000.0 / top.size_mm)
    bsdf = {"type": "roughplastic", "diffuse_reflectance": tex, "alpha": top.roughness,
            "nonlinear": True} if top.glossy else {"type": "diffuse", "reflectance": tex}
    from vision.render3d.tracer import mitsuba

    mi = mitsuba()
    shapes["table"] = {"type": "rectangle", "bsdf": bsdf,
                       "to_world": mi.ScalarTransform4f().scale([2000, 2000, 1])}
    glossy = float(table.uniform(0.12, 0.35)) if table.uniform() < 0.3 else None
    for i, t in enumerate(layout.tiles):
        shapes[f"tile{i}"] = tile_shape(t, i, glossy)
    beans = gather([bean_mesh(rng, p) for p in layout.pieces if p.kind == "bean"])
    peeps = [peep_mesh(rng, p) for p in layout.pieces if p.kind == "peep"]
    eggs = gather([egg_mesh(rng, p) for p in layout.pieces if p.kind == "egg"])
    if beans:
        shapes["beans"] = _coloured("beans", beans, {
            "type": "principled", "base_color": VERTEX_COLOUR,
            "roughness": float(stuff.uniform(0.12, 0.3)), "specular": 0.5,
            "spec_trans": float(stuff.uniform(0.0, 0.2)),
            "clearcoat": float(stuff.uniform(0, 0.5))})
    if peeps:
        shapes["peeps"] = _coloured("peeps", gather([b for b, _ in peeps]), {
            "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.85,
            "specular": 0.25, "sheen": float(stuff.uniform(0.3, 0.8))})
        shapes["eyes"] = _coloured("eyes", gather([e for _, e in peeps]), {
            "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.3})
    if eggs:
        shapes["eggs"] = _coloured("eggs", eggs, {
            "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.25,
            "specular": 0.5})
    if hands:
        shapes["hands"] = _coloured("hands", gather([s for s, _ in hands]), {
            "type": "principled", "base_color": VERTEX_COLOUR, "roughness": 0.55,
            "specular": 0.35})
        sleeves = [s for _, s in hands if s is not None]
        if sleeves:
            shapes["sleeves"] = _coloured("sleeves", gather(sleeves), {
                "type": "diffuse", "reflectance": VERTEX_COLOUR})
    return shapes


def _masks(index: np.ndarray, names: list[str]) -> dict[str, np.ndarray]:
    """Per shape name, the pixels that see it first (shape index 0 is the empty sky)."""
    return {name: index == i + 1 for i, name in enumerate(names)}


def _hand_cover(layout: Layout, cam: Camera3D, hand_px: np.ndarray) -> dict[str, float]:
    return cover_shares({name: cam.project(table_to_world(t.cell_outline(name),
                                                          TILE_THICKNESS_MM))
                         for t in layout.tiles for name in cells_of(t.hex)}, hand_px)


def _out_of_frame(layout: Layout, cam: Camera3D, k1: float, k2: float) -> dict[str, float]:
    """The share of each cell's picture beyond the delivered frame, its sides bent by the
    lens (> 0 only)."""
    pictures = {}
    for t in layout.tiles:
        for name in cells_of(t.hex):
            px = cam.project(table_to_world(along_sides(t.cell_outline(name)),
                                            TILE_THICKNESS_MM))
            pictures[name] = distort_px(px, cam.size, k1, k2, cam.focal_px)
    return shares_outside(pictures, cam.size)


def _visible_slots(i: int, tile: Tile, cam: Camera3D, masks: dict) -> tuple[int, ...]:
    own = masks.get(f"tile{i}")
    w, h = cam.size
    seen = []
    for s in tile_slots():
        pts = np.vstack([s.corners_mm, s.centre_mm[None]])
        px = cam.project(table_to_world(tile.pose.apply(pts), TILE_THICKNESS_MM))
        ix = np.round(px).astype(int)
        if not np.isfinite(px).all() or (ix < 1).any() or (ix[:, 0] > w - 2).any() \
                or (ix[:, 1] > h - 2).any():
            continue
        if own is not None and own[ix[:, 1], ix[:, 0]].all():
            seen.append(s.slot)
    return tuple(seen)


def render_scene3d(seed: int, spec: Spec3D | None = None, picture: bool = True) -> Scene3D:
    """The table of ``seed``: the same seed and spec always give the same frame and truth.

    ``picture=False`` skips path tracing: the truth alone, with an empty frame.
    """
    spec = spec or Spec3D()
    t0 = time.perf_counter()
    rng, night = _streams(seed, spec)
    n_tiles = int(rng.integers(spec.tiles[0], spec.tiles[1] + 1))
    n_players = int(night["players"].integers(spec.players[0], spec.players[1] + 1))
    layout = random_layout(rng, n_tiles, n_players,
                           night["players"] if spec.night_frames else None)
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in layout.tiles])
    outline_w = table_to_world(outline)
    cam = framing_camera(rng, outline_w, spec.size, spec.max_tilt_deg, spec.fill)
    hands = []
    if rng.uniform() < spec.hand_scenes:
        for _ in range(int(rng.integers(spec.hands[0], spec.hands[1] + 1))):
            t = layout.tiles[int(rng.integers(len(layout.tiles)))]
            hands.append(random_hand(rng, (t.pose.x + rng.normal(0, 45),
                                           t.pose.y + rng.normal(0, 45))))
    centre = outline_w.mean(0)
    lights, ambient, illuminant, kelvin = random_lights(night["lights"], centre)
    lights = [out_of_view(light, cam, centre) for light in lights]
    parts = SceneParts(cam, _shapes(rng, layout, hands, night if spec.night_frames else None),
                       lights, ambient)
    linear, index, names = render(parts, spec.spp, seed % (2 ** 31), picture)
    masks = _masks(index, names)
    hand_px = masks.get("hands", np.zeros(index.shape, bool))
    if "sleeves" in masks:
        hand_px = hand_px | masks["sleeves"]
    cover = _hand_cover(layout, cam, hand_px)
    sensor = random_sensor(night["sensor"], illuminant)
    out_of_frame = _out_of_frame(layout, cam, sensor.k1, sensor.k2)
    frame = develop(linear, sensor, cam.focal_px, rng) if linear is not None else \
        np.zeros((spec.size[1], spec.size[0], 3), np.uint8)
    tiles = [TruthTile(t.tile_id, t.hex[0], t.hex[1], t.pose, t.rotation,
                       _visible_slots(i, t, cam, masks)) for i, t in enumerate(layout.tiles)]
    pieces = [{"kind": p.kind, "player": p.player, "cell": p.cell,
               "centre_mm": [round(p.x, 2), round(p.y, 2)], "z_mm": round(p.z, 2)}
              for p in layout.pieces]
    params = {"tilt_deg": round(cam.tilt_deg, 2), "fov_deg": round(cam.fov_deg, 2),
              "lights": [lt.kind for lt in lights], "hands": len(hands),
              "sensor": sensor.to_json(), "spp": spec.spp,
              "render_s": round(time.perf_counter() - t0, 2) if picture else None}
    truth = Truth3D(tiles, layout.cells, cover, layout.players, params, pieces, kelvin,
                    out_of_frame)
    lookup = np.array([""] + names, dtype=object)
    return Scene3D(frame, truth, cam, lookup[np.clip(index, 0, len(names))])


__all__ = ["Scene3D", "Spec3D", "render_scene3d"]
