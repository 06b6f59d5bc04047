"""The solid Petri boards and pieces of the path-traced Petri generator.

Hole positions are the printed sheet's (:func:`vision.petri.print_board.board_layout`,
the table standard's section 7), centred and scaled to each board's pitch; a
hole's name is the sheet's. In the table frame (mm, x right, y towards the
viewer) the centre hole is at (0, 0).

- **Wood**: a slab 10-20 mm thick, cut as a star, a hexagon or a disc, its top a
  height field with a dish turned into it at every hole (a spherical cap 0.30-0.38
  pitch across its rim, 2.5-4.5 mm deep), the dishes' end grain darker, the
  homes' triangles sometimes stained a colour; glass marbles rest in the dishes.
- **Plastic**: a hexagonal or star plate 6-20 mm above the table, glossy plastic,
  a small drilled hole (2.2-3 mm radius) at every hole; pegs stand in the holes,
  each leaning a few degrees.
- **Print**: the A3 sheet (:func:`vision.petri.print_board.board_image`) flat on the
  table, sometimes laminated; marbles lie on its rings, a little off centre.

Every piece set (``MARBLE_SETS``, ``PEG_SETS``) is one box of pieces: its six
colours and its material. A user calibrates with the set they play with, so each
set has its own calibration card (:mod:`vision.render3d.petri_card`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from vision.petri.print_board import PITCH_MM as SHEET_PITCH_MM
from vision.petri.print_board import board_image, board_layout
from vision.render3d import meshes
from vision.render3d.camera import table_to_world
from vision.render3d.colours import srgb_to_linear
from vision.render3d.textures import _fbm, _printed

RGB = tuple[int, int, int]
PLAYERS = ("red", "orange", "yellow", "green", "blue", "purple")
STYLES = ("wood", "plastic", "print")
PAPER_Z = 0.15  # the sheet's top above the table (mm)
SHEET_PX_PER_MM = 4.0  # the printed sheet's texture: 1680 x 1188


@dataclass(frozen=True)
class PieceSet:
    """One box of pieces: kind ("marble" or "peg"), look, and its players' shades (sRGB)."""

    name: str
    kind: str
    look: str  # marbles: clear, frosted, catseye, solid; pegs: glossy, satin
    colours: dict[str, RGB]


# Shades are this generator's own, after real sets: glass tinted rather than painted,
# the cat's eyes' vanes in strong enamel, pegs in moulded styrene.
MARBLE_SETS: dict[str, PieceSet] = {s.name: s for s in (
    PieceSet("clear glass", "marble", "clear", {
        "red": (205, 20, 30), "orange": (250, 140, 10), "yellow": (245, 225, 40),
        "green": (40, 170, 70), "blue": (30, 90, 215), "purple": (130, 50, 175)}),
    PieceSet("frosted glass", "marble", "frosted", {
        "red": (215, 45, 50), "orange": (250, 135, 40), "yellow": (250, 220, 70),
        "green": (60, 180, 90), "blue": (50, 110, 220), "purple": (145, 70, 190)}),
    PieceSet("cat's eyes", "marble", "catseye", {
        "red": (215, 20, 35), "orange": (255, 150, 0), "yellow": (250, 225, 20),
        "green": (25, 160, 55), "blue": (20, 70, 205), "purple": (120, 40, 170)}),
    PieceSet("solid glass", "marble", "solid", {
        "red": (190, 25, 35), "orange": (235, 110, 20), "yellow": (240, 200, 30),
        "green": (35, 145, 65), "blue": (25, 70, 180), "purple": (105, 40, 150)}),
)}
PEG_SETS: dict[str, PieceSet] = {s.name: s for s in (
    PieceSet("glossy pegs", "peg", "glossy", {
        "red": (210, 30, 40), "orange": (245, 115, 20), "yellow": (248, 210, 30),
        "green": (30, 160, 60), "blue": (25, 80, 200), "purple": (120, 45, 170)}),
    PieceSet("satin pegs", "peg", "satin", {
        "red": (195, 40, 45), "orange": (240, 125, 35), "yellow": (240, 205, 50),
        "green": (45, 150, 75), "blue": (40, 90, 190), "purple": (130, 60, 165)}),
)}
PIECE_SETS: dict[str, PieceSet] = {**MARBLE_SETS, **PEG_SETS}


@cache
def sheet_holes() -> dict[str, tuple[float, float]]:
    """Every hole of the printed sheet, mm from the centre hole, pitch 20 mm (table frame)."""
    lay = board_layout()
    cx, cy = lay.centre_mm
    return {n: (x - cx, y - cy) for n, (x, y) in lay.holes.items()}


def hole_positions(pitch: float) -> dict[str, np.ndarray]:
    """Hole name -> table-frame mm of a board of ``pitch``, centre hole at (0, 0)."""
    s = pitch / SHEET_PITCH_MM
    return {n: np.array([x * s, y * s]) for n, (x, y) in sheet_holes().items()}


@dataclass
class Board:
    style: str
    pitch: float
    top_z: float  # the height of the board's top face (the paper's for the sheet)
    holes: dict[str, np.ndarray]  # name -> table-frame mm
    outline: np.ndarray  # (N, 2) table-frame mm: what the camera must see
    shapes: dict  # Mitsuba shapes (name -> shape)
    params: dict


# ----------------------------------------------------------------------------- height fields


def _outline_mask(kind: str, xs: np.ndarray, ys: np.ndarray, pts: np.ndarray, pitch: float,
                  margin: float) -> np.ndarray:
    """Inside-the-board mask on the grid (table frame), for a star, hexagon or disc."""
    gx, gy = np.meshgrid(xs, ys)
    tip = float(np.hypot(*pts.T).max())
    if kind == "disc":
        return np.hypot(gx, gy) <= tip + margin
    if kind == "hexagon":
        # A hexagon with its corners at the star's tips (the tips' directions).
        r = tip + margin
        angles = [math.atan2(y, x) for x, y in pts[np.hypot(*pts.T) > tip - 1e-6]]
        inside = np.ones_like(gx, bool)
        for a in angles:  # each side's normal lies half-way between two corners
            n = (math.cos(a + math.pi / 6), math.sin(a + math.pi / 6))
            inside &= gx * n[0] + gy * n[1] <= r * math.cos(math.pi / 6)
        return inside
    # A star: within ``margin`` of a hole, the notches between points filled a little.
    step = float(xs[1] - xs[0])
    img = np.zeros(gx.shape, np.uint8)
    ij = np.round((pts - [xs[0], ys[0]]) / step).astype(int)
    img[ij[:, 1], ij[:, 0]] = 1
    dist = cv2.distanceTransform(1 - img, cv2.DIST_L2, 5) * step
    mask = (dist <= margin).astype(np.float32)
    k = max(3, int(round(0.6 * pitch / step)) | 1)
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    return mask > 0.5


def _grid(pts: np.ndarray, pitch: float, step: float) -> tuple[np.ndarray, np.ndarray]:
    half = float(np.hypot(*pts.T).max()) + 1.6 * pitch
    n = int(math.ceil(2 * half / step)) + 1
    axis = -half + step * np.arange(n)
    return axis, axis.copy()


def heightfield_mesh(xs: np.ndarray, ys: np.ndarray, z: np.ndarray, inside: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(world vertices, faces, uv) of a height field; cells with no corner inside are left
    out, and corners outside sink below the table so the board's edge is a steep wall."""
    h, w = z.shape
    zz = np.where(inside, z, -1.0)
    gx, gy = np.meshgrid(xs, ys)
    v = table_to_world(np.stack([gx.ravel(), gy.ravel()], -1), zz.ravel())
    uv = np.stack([(np.arange(w)[None, :] * np.ones((h, 1))).ravel() / (w - 1),
                   (np.arange(h)[:, None] * np.ones((1, w))).ravel() / (h - 1)], -1)
    idx = np.arange(h * w).reshape(h, w)
    a, b, c, d = idx[:-1, :-1], idx[:-1, 1:], idx[1:, :-1], idx[1:, 1:]
    keep = (inside[:-1, :-1] | inside[:-1, 1:] | inside[1:, :-1] | inside[1:, 1:]).ravel()
    # The y flip into the world frame turns the winding: (a, c, b) faces up in the world.
    f = np.concatenate([np.stack([a.ravel(), c.ravel(), b.ravel()], -1)[keep],
                        np.stack([b.ravel(), c.ravel(), d.ravel()], -1)[keep]])
    used = np.unique(f)
    remap = np.full(h * w, -1, np.int64)
    remap[used] = np.arange(len(used))
    return v[used], remap[f], uv[used]


def _dishes(xs: np.ndarray, ys: np.ndarray, pts: np.ndarray, radius: float, depth: float,
            steep: bool) -> tuple[np.ndarray, np.ndarray]:
    """(depth below the top, 0..1 'inside a hole') on the grid: spherical caps (``steep``:
    a drilled hole, walls nearly vertical, a rounded bottom)."""
    step = float(xs[1] - xs[0])
    h, w = len(ys), len(xs)
    sink = np.zeros((h, w), np.float32)
    inner = np.zeros((h, w), np.float32)
    rc = (radius ** 2 + depth ** 2) / (2 * depth)  # the cap's sphere
    n = int(math.ceil(radius / step)) + 2
    for x, y in pts:
        i0, j0 = int(round((y - ys[0]) / step)), int(round((x - xs[0]) / step))
        i1, j1 = max(i0 - n, 0), max(j0 - n, 0)
        i2, j2 = min(i0 + n + 1, h), min(j0 + n + 1, w)
        gy, gx = np.meshgrid(ys[i1:i2] - y, xs[j1:j2] - x, indexing="ij")
        r = np.hypot(gx, gy)
        if steep:
            t = np.clip(r / radius, 0, 1)
            d = depth * np.clip((1 - t ** 6), 0, 1) ** 0.5
        else:
            d = np.where(r < radius, np.sqrt(np.maximum(rc ** 2 - r ** 2, 0)) - (rc - depth), 0)
        sink[i1:i2, j1:j2] = np.maximum(sink[i1:i2, j1:j2], d)
        inner[i1:i2, j1:j2] = np.maximum(inner[i1:i2, j1:j2],
                                         np.clip((radius + 0.4 - r) / 0.8, 0, 1))
    return sink, inner


def _grain(rng: np.random.Generator, h: int, w: int, base: np.ndarray) -> np.ndarray:
    """Wood grain (linear RGB), stripes along x with slow wobble."""
    n = max(h, w)
    warp = _fbm(rng, 256)
    warp = cv2.resize(warp, (n, n))[:h, :w] * rng.uniform(10, 40)
    yy = np.arange(h, dtype=np.float32)[:, None] * np.ones((1, w), np.float32)
    rings = 0.5 + 0.5 * np.sin((yy + warp) / n * 2 * np.pi * rng.uniform(12, 35))
    fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 4, sigmaY=0.7)
    tone = 0.75 + 0.22 * rings ** 3 + 0.06 * fine
    return np.clip(base[None, None, :] * tone[..., None], 0, 1).astype(np.float32)


def _home_triangles(pts: dict[str, np.ndarray], homes: list[frozenset[str]]) -> list[np.ndarray]:
    """Each home's triangle (the convex hull of its ten holes, widened by half a pitch)."""
    out = []
    for home in homes:
        p = np.array([pts[h] for h in home], np.float32)
        hull = cv2.convexHull(p).reshape(-1, 2)
        c = hull.mean(0)
        out.append(c + (hull - c) * 1.35)
    return out


def wood_board(rng: np.random.Generator) -> Board:
    from companion.rules.petri.board import HOMES

    pitch = float(rng.uniform(22, 26))
    holes = hole_positions(pitch)
    pts = np.array(list(holes.values()))
    step = 0.8
    xs, ys = _grid(pts, pitch, step)
    shape = str(rng.choice(["star", "hexagon", "disc"], p=[0.5, 0.25, 0.25]))
    inside = _outline_mask(shape, xs, ys, pts, pitch, float(rng.uniform(0.8, 1.3)) * pitch)
    thick = float(rng.uniform(10, 20))
    radius = float(rng.uniform(0.30, 0.38)) * pitch
    depth = float(rng.uniform(2.5, 4.5))
    sink, inner = _dishes(xs, ys, pts, radius, depth, False)
    z = thick - sink
    v, f, uv = heightfield_mesh(xs, ys, z, inside)
    base = np.array(rng.choice([[0.42, 0.24, 0.11], [0.55, 0.36, 0.18], [0.28, 0.14, 0.06],
                                [0.62, 0.47, 0.30]]), np.float32) * rng.uniform(0.85, 1.15)
    tex_step = 0.5  # mm a texel
    th = tw = int(len(xs) * step / tex_step)
    img = _grain(rng, th, tw, base)
    stained = rng.uniform() < 0.35
    if stained:  # the homes' triangles stained, a muted colour each
        tri = _home_triangles(holes, list(HOMES))
        for poly in tri:
            mask = np.zeros((th, tw), np.uint8)
            px = (poly - [xs[0], ys[0]]) / tex_step
            cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 1, cv2.LINE_AA, 4)
            tint = rng.uniform(0.4, 1.0, 3).astype(np.float32)
            a = mask.astype(np.float32)[..., None] * float(rng.uniform(0.3, 0.6))
            img = img * (1 - a) + img * tint[None, None] * a
    dark = cv2.resize(inner, (tw, th), interpolation=cv2.INTER_LINEAR)[..., None]
    img = img * (1 - float(rng.uniform(0.3, 0.6)) * dark)  # end grain in the dishes
    from vision.render3d.tracer import bitmap, mesh

    varnish = float(rng.uniform(0.15, 0.45))
    bsdf = {"type": "roughplastic", "diffuse_reflectance": bitmap(img.astype(np.float32)),
            "alpha": varnish, "nonlinear": True}
    shapes = {"board": mesh("board", v, f, bsdf, uv=uv, smooth=True)}
    outline = _outline_points(inside, xs, ys)
    return Board("wood", pitch, thick, holes, outline, shapes,
                 {"shape": shape, "thickness_mm": round(thick, 2), "dish_r_mm": round(radius, 2),
                  "dish_depth_mm": round(depth, 2), "stained_homes": bool(stained),
                  "varnish": round(varnish, 3)})


def plastic_board(rng: np.random.Generator) -> Board:
    from companion.rules.petri.board import HOMES

    pitch = float(rng.uniform(19, 24))
    holes = hole_positions(pitch)
    pts = np.array(list(holes.values()))
    step = 0.6
    xs, ys = _grid(pts, pitch, step)
    shape = str(rng.choice(["hexagon", "star"], p=[0.6, 0.4]))
    inside = _outline_mask(shape, xs, ys, pts, pitch, float(rng.uniform(0.8, 1.2)) * pitch)
    top = float(rng.uniform(6, 20))
    radius = float(rng.uniform(2.2, 3.0))
    sink, inner = _dishes(xs, ys, pts, radius, 6.0, True)
    z = top - sink
    v, f, uv = heightfield_mesh(xs, ys, z, inside)
    tones = [(0.75, 0.75, 0.72), (0.05, 0.05, 0.05), (0.55, 0.62, 0.66), (0.40, 0.30, 0.15),
             (0.20, 0.30, 0.55)]
    tone = np.array(tones[int(rng.integers(len(tones)))], np.float32) * rng.uniform(0.85, 1.1)
    tex_step = 0.5
    th = tw = int(len(xs) * step / tex_step)
    img = np.ones((th, tw, 3), np.float32) * tone
    coloured = rng.uniform() < 0.5
    if coloured:  # the homes' points moulded or printed in colours
        for poly in _home_triangles(holes, list(HOMES)):
            mask = np.zeros((th, tw), np.uint8)
            px = (poly - [xs[0], ys[0]]) / tex_step
            cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 1, cv2.LINE_AA, 4)
            col = srgb_to_linear(rng.integers(30, 240, 3)).astype(np.float32)
            a = mask.astype(np.float32)[..., None] * 0.85
            img = img * (1 - a) + col[None, None] * a
    dark = cv2.resize(inner, (tw, th), interpolation=cv2.INTER_LINEAR)[..., None]
    img = img * (1 - 0.7 * dark)
    from vision.render3d.tracer import bitmap, mesh

    gloss = float(rng.uniform(0.05, 0.25))
    bsdf = {"type": "roughplastic", "diffuse_reflectance": bitmap(img.astype(np.float32)),
            "alpha": gloss, "nonlinear": True}
    shapes = {"board": mesh("board", v, f, bsdf, uv=uv, smooth=True)}
    return Board("plastic", pitch, top, holes, _outline_points(inside, xs, ys), shapes,
                 {"shape": shape, "top_mm": round(top, 2), "hole_r_mm": round(radius, 2),
                  "coloured_homes": bool(coloured), "gloss": round(gloss, 3)})


@cache
def sheet_texture(paper: float, ink: float) -> np.ndarray:
    return _printed(board_image(SHEET_PX_PER_MM), paper, ink)


def print_board(rng: np.random.Generator) -> Board:
    from vision.render3d.tracer import bitmap, mesh

    lay = board_layout()
    w, h = lay.width_mm, lay.height_mm
    cx, cy = lay.centre_mm
    corners = np.array([[-cx, -cy], [w - cx, -cy], [w - cx, h - cy], [-cx, h - cy]])
    v = table_to_world(corners, PAPER_Z)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    paper = round(float(rng.uniform(0.78, 0.9)), 2)
    img = sheet_texture(paper, 0.025)
    laminated = rng.uniform() < 0.3
    tex = bitmap(img)
    bsdf = {"type": "roughplastic", "diffuse_reflectance": tex,
            "alpha": float(rng.uniform(0.08, 0.2)), "nonlinear": True} if laminated else \
        {"type": "diffuse", "reflectance": tex}
    shapes = {"board": mesh("board", v, np.array([[0, 2, 1], [0, 3, 2]]), bsdf, uv=uv,
                            smooth=False)}
    return Board("print", SHEET_PITCH_MM, PAPER_Z, hole_positions(SHEET_PITCH_MM), corners,
                 shapes, {"laminated": bool(laminated), "paper": paper})


def _outline_points(inside: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The board's outline (table-frame mm), from its mask."""
    found, _ = cv2.findContours(inside.astype(np.uint8), cv2.RETR_EXTERNAL,
                                cv2.CHAIN_APPROX_SIMPLE)
    c = max(found, key=cv2.contourArea).reshape(-1, 2).astype(float)
    step = float(xs[1] - xs[0])
    return np.stack([xs[0] + c[:, 0] * step, ys[0] + c[:, 1] * step], -1)


def make_board(rng: np.random.Generator, style: str) -> Board:
    return {"wood": wood_board, "plastic": plastic_board, "print": print_board}[style](rng)


# ----------------------------------------------------------------------------- pieces


def marble_bsdf(look: str, colour: np.ndarray, rng: np.random.Generator) -> dict:
    """The glass of one marble, tinted: light seen through a marble lying on a board
    crosses its surface four times (in, out onto the board, in, out), each taking the
    tint's fourth root, so it comes back about ``colour`` times the board's own."""
    tint = np.power(np.clip(colour, 0.002, 1), 0.25).tolist()
    if look == "clear":
        return {"type": "dielectric", "int_ior": 1.52, "specular_transmittance":
                {"type": "rgb", "value": tint}}
    if look == "frosted":
        return {"type": "roughdielectric", "int_ior": 1.52, "alpha": float(rng.uniform(0.12, 0.3)),
                "specular_transmittance": {"type": "rgb", "value": tint}}
    if look == "catseye":
        return {"type": "dielectric", "int_ior": 1.52, "specular_transmittance":
                {"type": "rgb", "value": [0.97, 0.98, 0.97]}}
    # solid: opaque coloured glass, a glossy coat over a coloured body
    return {"type": "plastic", "int_ior": 1.52, "diffuse_reflectance":
            {"type": "rgb", "value": np.clip(colour, 0, 1).tolist()}}


def catseye_vane(rng: np.random.Generator, centre: np.ndarray, radius: float
                 ) -> meshes.Mesh:
    """The coloured vane inside a cat's-eye marble: three thin blades crossed at the centre."""
    parts = []
    yaw = rng.uniform(0, 180)
    tilt = rng.uniform(-40, 40)
    for k in range(3):
        blade = meshes.ellipsoid((0.86 * radius, 0.2 * radius, 0.72 * radius), 6, 10)
        rot = meshes.rotation(yaw + 60 * k, tilt, rng.uniform(-20, 20))
        parts.append(meshes.posed(blade, rot, tuple(centre)))
    return meshes.merge(parts)


def peg_mesh(rng: np.random.Generator, foot: np.ndarray, height: float, radius: float,
             head: float, lean_deg: float, lean_dir: float) -> meshes.Mesh:
    """A peg standing in its hole at world ``foot`` (z of the board's top): a shaft from
    6 mm down in the hole to ``height`` above the board, a rounded head, leaning."""
    below = 6.0
    shaft = meshes.cylinder(height + below - head * 0.6, radius, 20)
    v, f = shaft
    v = v[:, [1, 2, 0]].copy()  # along x -> along z (a rotation: the winding stays)
    v[:, 2] -= below
    hv, hf = meshes.ellipsoid((head, head, head * 0.9), 10, 18)
    hv = hv + [0, 0, height - head * 0.9]
    collar_v, collar_f = meshes.ellipsoid((radius * 1.25, radius * 1.25, 0.9), 6, 18)
    collar_v = collar_v + [0, 0, 0.8]  # a small lip where the peg rests on the board
    v, f = meshes.merge([(v, f), (hv, hf), (collar_v, collar_f)])
    rot = meshes.rotation(lean_dir, lean_deg, 0.0)
    return meshes.posed((v, f), rot, tuple(foot))


__all__ = ["Board", "MARBLE_SETS", "PEG_SETS", "PIECE_SETS", "PLAYERS", "PieceSet", "STYLES",
           "catseye_vane", "hole_positions", "make_board", "marble_bsdf", "peg_mesh"]
