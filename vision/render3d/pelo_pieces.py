"""Solids of A Peloponnesian War's table for the path tracer: the printed map as a sheet of
paper that need not lie flat, orientation counters as thick square tokens and chits as thin
folded card, their tops printed with the kit's own art (:mod:`vision.peloponnesian.art`).

Positions are the sheet's millimetres (x right, y down from the top-left corner, table
standard section 8); :class:`SheetPose` places the sheet on the table and gives the
paper's height anywhere on it, so a piece lying on a curled sheet follows the paper.
Every builder returns ``(vertices (N, 3) world mm, faces (M, 3), uv or colours)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from vision.mm_canvas import MmCanvas, blank
from vision.peloponnesian.art import chit_types, draw_chit, draw_counter, map_image
from vision.peloponnesian.layout import CHIT_MM, CODE_MM, COUNTER_MM, SIDES, MapLayout
from vision.render3d.camera import table_to_world
from vision.render3d.textures import _printed

SHEET_PX_PER_MM = 5.0  # the map's texture: a chit's 3 mm code module gets 15 texels
PIECE_PX_PER_MM = 12.0
ATLAS_PAD_MM = 1.0  # blank round each print in an atlas, so neighbours never bleed in
# A chit's code sits this far below the middle of its paper (the name band is above it).
CODE_BELOW_CENTRE_MM = (CHIT_MM - CODE_MM - 1.0) / 2


@dataclass(frozen=True)
class SheetPose:
    """Where the map lies: its centre on the table (table frame mm), its turn, and how it
    rises off the table (a rolled sheet's curl, a lifted corner, small waves)."""

    width_mm: float
    height_mm: float
    centre: tuple[float, float]
    angle_deg: float
    roll_mm: float  # rise of the two curled edges
    roll_axis: int  # 0: the left and right edges rise; 1: the top and bottom edges
    roll_power: float
    corner: int  # 0-3: which corner is lifted (TL, TR, BR, BL)
    corner_mm: float
    corner_reach_mm: float
    waves: tuple[tuple[float, float, float, float], ...]  # (amplitude, kx, ky, phase)

    def height(self, xy_sheet: np.ndarray) -> np.ndarray:
        """The paper's underside above the table at sheet points (N, 2), mm."""
        p = np.asarray(xy_sheet, float).reshape(-1, 2)
        u = np.clip(p[:, 0] / self.width_mm, 0, 1)
        v = np.clip(p[:, 1] / self.height_mm, 0, 1)
        t = np.abs(2 * (u if self.roll_axis == 0 else v) - 1)
        z = self.roll_mm * t ** self.roll_power
        cx, cy = [(0, 0), (1, 0), (1, 1), (0, 1)][self.corner]
        d = np.hypot((u - cx) * self.width_mm, (v - cy) * self.height_mm)
        z = z + self.corner_mm * np.clip(1 - d / self.corner_reach_mm, 0, 1) ** 2
        for amp, kx, ky, ph in self.waves:
            z = z + amp * (1 + np.sin(kx * p[:, 0] + ky * p[:, 1] + ph)) / 2
        return z + 0.08

    def to_table(self, xy_sheet: np.ndarray) -> np.ndarray:
        p = np.asarray(xy_sheet, float).reshape(-1, 2) - [self.width_mm / 2, self.height_mm / 2]
        a = math.radians(self.angle_deg)
        r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return p @ r.T + np.asarray(self.centre, float)

    def to_world(self, xy_sheet: np.ndarray, lift: float | np.ndarray = 0.0) -> np.ndarray:
        """Sheet points (N, 2) on the paper's top (plus ``lift``) as world points (N, 3)."""
        p = np.asarray(xy_sheet, float).reshape(-1, 2)
        return table_to_world(self.to_table(p), self.height(p) + 0.1 + lift)


def random_sheet_pose(rng: np.random.Generator, lay: MapLayout) -> SheetPose:
    """A sheet that lies flat a third of the time, else curled from its roll, with a corner
    up, or both; always a little wavy."""
    kind = rng.uniform()
    roll = float(rng.uniform(2, 12)) if kind > 0.33 else 0.0
    corner = float(rng.uniform(3, 14)) if kind > 0.7 or 0.2 < kind < 0.33 else 0.0
    waves = tuple((float(rng.uniform(0, 1.2)), float(rng.normal(0, 0.03)),
                   float(rng.normal(0, 0.03)), float(rng.uniform(0, 2 * math.pi)))
                  for _ in range(int(rng.integers(0, 3))))
    return SheetPose(lay.width_mm, lay.height_mm, (float(rng.normal(0, 15)),
                                                   float(rng.normal(0, 10))),
                     float(rng.normal(0, 3)), roll, int(rng.uniform() < 0.25),
                     float(rng.uniform(2.5, 5)), int(rng.integers(4)), corner,
                     float(rng.uniform(50, 120)), waves)


def up_faces(v: np.ndarray, f: np.ndarray, sign: float = 1.0) -> np.ndarray:
    """Faces wound so their normals point up (``sign`` -1: down)."""
    n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    flip = n[:, 2] * sign < 0
    f = f.copy()
    f[flip] = f[flip][:, [0, 2, 1]]
    return f


def sheet_mesh(pose: SheetPose, nx: int = 72, ny: int = 52):
    """The map's paper: a grid following :meth:`SheetPose.height`, UVs over the print."""
    gx, gy = np.meshgrid(np.linspace(0, pose.width_mm, nx), np.linspace(0, pose.height_mm, ny))
    p = np.stack([gx.ravel(), gy.ravel()], -1)
    v = pose.to_world(p)
    uv = np.stack([p[:, 0] / pose.width_mm, p[:, 1] / pose.height_mm], -1)
    i = np.arange(nx * ny).reshape(ny, nx)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel()
    f = np.concatenate([np.stack([a, c, b], -1), np.stack([b, c, d], -1)])
    return v, up_faces(v, f), uv


_SHEETS: dict[int, tuple[MapLayout, np.ndarray]] = {}


def sheet_texture(lay: MapLayout, paper: float, ink: float) -> np.ndarray:
    """The printed map (linear RGB) on paper of whiteness ``paper`` with ink of ``ink``."""
    if id(lay) not in _SHEETS:  # layouts are not hashable; keep each one drawn once
        _SHEETS[id(lay)] = (lay, map_image(lay, SHEET_PX_PER_MM))
    return _printed(_SHEETS[id(lay)][1], paper, ink)


def _atlas(n: int, side_mm: float) -> tuple[MmCanvas, float]:
    cell = side_mm + 2 * ATLAS_PAD_MM
    w = round(n * cell * PIECE_PX_PER_MM)
    h = round(cell * PIECE_PX_PER_MM)
    return MmCanvas(blank(w, h), PIECE_PX_PER_MM, (0.0, 0.0)), cell


@cache
def counter_atlas() -> np.ndarray:
    """The three cities' counter tops side by side (sRGB BGR), in SIDES order."""
    canvas, cell = _atlas(len(SIDES), COUNTER_MM)
    for k, player in enumerate(SIDES):
        draw_counter(canvas, (k * cell + cell / 2, cell / 2), player)
    return canvas.image


@cache
def chit_atlas() -> np.ndarray:
    """Every chit's printed side (and the back all share), in chit_types() order."""
    kinds = chit_types()
    canvas, cell = _atlas(len(kinds), CHIT_MM)
    for k, kind in enumerate(kinds):
        draw_chit(canvas, (k * cell + cell / 2, cell / 2 + CODE_BELOW_CENTRE_MM), kind)
    return canvas.image


@dataclass(frozen=True)
class Token:
    """A square piece lying on the map: sheet mm centre, turn, side, thickness, its
    print's index in its atlas, how far above the paper its underside lies."""

    x: float
    y: float
    angle_deg: float
    side_mm: float
    thickness_mm: float
    print_index: int
    base_mm: float = 0.0

    def corners(self, grow: float = 0.0) -> np.ndarray:
        a = math.radians(self.angle_deg)
        r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        s = self.side_mm / 2 + grow
        return np.array([[-s, -s], [s, -s], [s, s], [-s, s]]) @ r.T + [self.x, self.y]


def token_meshes(tokens: list[Token], pose: SheetPose, atlas_n: int, bevel: float = 0.0):
    """(top (v, f, uv), sides (v, f)) of square tokens lying on the paper. The print spans
    the top; ``bevel`` (mm) rounds the top's edge a little (a cut card's edge is not sharp)."""
    tv, tf, tuv, sv, sf = [], [], [], [], []
    cell = tokens[0].side_mm + 2 * ATLAS_PAD_MM if tokens else 1.0
    for t in tokens:
        top = t.corners()
        # The paper under a piece is not flat: each corner rests on the paper there.
        under = pose.height(top)
        seat = float(np.max(under))  # a stiff piece rests on its highest corner ...
        base = np.maximum(under, seat - 0.35 * (seat - under.min()))  # ... and tips a little
        zt = base + t.base_mm + t.thickness_mm + 0.1
        zb = base + t.base_mm + 0.1
        inner = t.corners(-bevel)
        wt = table_to_world(pose.to_table(inner), zt)
        wo = table_to_world(pose.to_table(top), zt - bevel)
        wb = table_to_world(pose.to_table(top), zb)
        local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)
        half = t.side_mm / 2
        uv_in = ((t.print_index * cell + ATLAS_PAD_MM + half + local * (half - bevel))
                 / (atlas_n * cell))
        uv_in[:, 1] = (ATLAS_PAD_MM + half + local[:, 1] * (half - bevel)) / cell
        base_i = sum(len(x) for x in tv)
        tv.append(wt)
        tuv.append(uv_in)
        tf.append(np.array([[0, 1, 2], [0, 2, 3]]) + base_i)
        # Sides (and the bevel) as one band of quads, from the top's edge down to the paper.
        ring = np.vstack([wt, wo, wb])
        b0 = sum(len(x) for x in sv)
        faces = []
        for j in range(4):
            k = (j + 1) % 4
            for lo, hi in ((0, 4), (4, 8)):
                faces += [(lo + j, hi + j, lo + k), (lo + k, hi + j, hi + k)]
        sv.append(ring)
        sf.append(np.array(faces) + b0)
    if not tv:
        return None, None
    v, f = np.vstack(tv), np.vstack(tf)
    s_v, s_f = np.vstack(sv), np.vstack(sf)
    return (v, up_faces(v, f), np.vstack(tuv)), (s_v, _outward(s_v, s_f, tokens))


def _outward(v: np.ndarray, f: np.ndarray, tokens: list[Token]) -> np.ndarray:
    """Side faces wound to face away from their token's centre."""
    f = f.copy()
    per = 12  # vertices per token's ring
    centres = np.repeat(np.arange(len(tokens)), 16)  # 16 faces per token
    mid = np.array([v[i * per:(i + 1) * per].mean(0) for i in range(len(tokens))])
    n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    out = v[f].mean(1) - mid[centres]
    flip = (n * out).sum(1) < 0
    f[flip] = f[flip][:, [0, 2, 1]]
    return f


__all__ = ["SheetPose", "random_sheet_pose", "sheet_mesh", "sheet_texture", "counter_atlas",
           "chit_atlas", "Token", "token_meshes", "up_faces", "CODE_BELOW_CENTRE_MM"]
