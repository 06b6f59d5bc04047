"""Where the tile lattice lies on the table: one robust fit to every tile at once.

Players lay tiles by hand, each pushed against a neighbour that is itself a few
mm and degrees off, so no single tile (not even the Neutral one) says where the
lattice is. The lattice is a similarity: lattice position (q, r), ideally
centred at ``tile_centre_mm((q, r))``, lies at ``s R(turn) c + origin`` in the
frame the tiles' poses are in; ``s`` is the lattice's pitch over the printed
tiles' (the gaps between hand-laid tiles add up along a row).

The fit minimises, over every tile, the squared distance of its centre from its
lattice position plus its turn off the lattice's (in radians, times the tile's
circumradius: how far its corners move), each tile's share reweighted so that
one tile far off does not drag the lattice with it (iteratively reweighted least
squares, Gauss-Newton on four unknowns): a Huber loss first, which cannot lose
its way, then Tukey's biweight from there, under which a tile more than 60 mm
off has no say at all. Each tile's (q, r)
and sixth of a turn are solved again as the fit moves, so a tile that the
first guess put on the wrong position comes right. A weak pull keeps the scale
near 1, and it is bounded: with two or three tiles a gap cannot be told from a
tile lying off.

One tile, the anchor (the Neutral one in a table frame), names the lattice:
it is at (0, 0), print upright, and the lattice's turn is kept within 30
degrees of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.rules.peepwar.board import R_MM, Hex, tile_centre_mm
from vision.geometry import Pose2D, wrap_deg

# A tile whose residual is beyond this weighs less (15 mm and 10 degrees off: about 24 mm).
HUBER_MM = 20.0
TUKEY_MM = 60.0  # ... and beyond this, once the Huber rounds have settled, nothing
HUBER_ROUNDS = 4  # at most
SCALE_PULL_MM = 1000.0  # a 1% change of scale costs as much as a tile 10 mm off
SCALE_RANGE = (0.98, 1.04)  # pitch over print: tiles cannot overlap much, gaps stay small
ITERATIONS = 16


@dataclass(frozen=True)
class Lattice:
    """A similarity taking lattice mm (tile (q, r) centred at ``tile_centre_mm``) to a frame.

    >>> Lattice().snap(Pose2D(*tile_centre_mm((1, -2)), 65.0))
    ((1, -2), 1, 0.0, 5.0)
    """

    x: float = 0.0
    y: float = 0.0
    angle_deg: float = 0.0
    scale: float = 1.0

    def centre(self, hexes: Sequence[Hex]) -> np.ndarray:
        """(N, 2) centres of lattice positions in the frame."""
        c = np.array([tile_centre_mm(h) for h in hexes], float).reshape(-1, 2)
        return self.scale * c @ _rot(self.angle_deg).T + (self.x, self.y)

    def place(self, hx: Hex) -> Pose2D:
        """Pose of an upright print lying exactly at lattice position ``hx``."""
        cx, cy = self.centre([hx])[0]
        return Pose2D(float(cx), float(cy), self.angle_deg)

    def index(self, pts: np.ndarray) -> list[Hex]:
        """The lattice position nearest each point (N, 2) in the frame."""
        local = (np.asarray(pts, float).reshape(-1, 2) - (self.x, self.y)) @ _rot(self.angle_deg)
        return [(int(q), int(r)) for q, r in _hex_round(local / self.scale)]

    def snap(self, pose: Pose2D) -> tuple[Hex, int, float, float]:
        """Nearest lattice position, the print's turn in sixths, and the distance (mm)
        and angle (deg) the pose lies off it."""
        hx = self.index(np.array([[pose.x, pose.y]]))[0]
        rel = pose.angle_deg - self.angle_deg
        rotation = round(rel / 60.0) % 6
        off = self.centre([hx])[0] - (pose.x, pose.y)
        return hx, rotation, float(math.hypot(*off)), wrap_deg(rel - 60.0 * rotation)


def fit_lattice(poses: Sequence[Pose2D], anchor: int = 0) -> Lattice:
    """The lattice that all ``poses`` (tiles' poses in one frame) fit best, robustly;
    ``poses[anchor]`` is at (0, 0) with its print upright.

    >>> from companion.rules.peepwar.board import tile_centre_mm
    >>> p = fit_lattice([Pose2D(0, 0, 0.0), Pose2D(*tile_centre_mm((1, 0)), 120.0)])
    >>> round(p.x, 6) + 0.0, round(p.y, 6) + 0.0, round(p.angle_deg, 6) + 0.0, p.scale
    (0.0, 0.0, 0.0, 1.0)
    """
    if not poses:
        raise ValueError("no tiles to fit a lattice to")
    pts = np.array([(p.x, p.y) for p in poses], float)
    ang = np.array([p.angle_deg for p in poses], float)
    base = float(ang[anchor])
    # First turn: the tiles' mean turn modulo a sixth (angles times six, averaged as vectors).
    six = np.radians(6 * (ang - base))
    turn = base + math.degrees(math.atan2(float(np.sin(six).sum()), float(np.cos(six).sum()))) / 6
    x, y, scale = float(pts[anchor, 0]), float(pts[anchor, 1]), 1.0
    before, tukey = None, False
    for it in range(ITERATIONS):
        turn = base + (turn - base + 30.0) % 60.0 - 30.0  # a sixth of a turn: the same lattice
        rot = _rot(turn)
        axial = _hex_round((pts - (x, y)) @ rot / scale)
        centres = _centres(axial)
        if axial[anchor].any():  # name the anchor's position (0, 0)
            x, y = np.array([x, y]) + scale * rot @ centres[anchor]
            axial = axial - axial[anchor]
            centres = centres - centres[anchor]
        off_deg = (ang - turn + 30.0) % 60.0 - 30.0  # each print's turn off the nearest sixth
        step = _gauss_newton(x, y, turn, scale, pts, centres, off_deg, tukey)
        x, y = float(x + step[2]), float(y + step[3])
        turn += math.degrees(float(step[0]))
        scale = float(np.clip(scale + step[1], *SCALE_RANGE))
        moved = abs(step[0]) * 500 + abs(step[1]) * 500 + abs(step[2]) + abs(step[3])
        # 0.02 mm: far below the poses' own error
        settled = moved < 0.02 and np.array_equal(axial, before)
        if tukey and settled:
            break
        tukey = tukey or settled or it + 1 >= HUBER_ROUNDS
        before = axial
    return _anchored(Lattice(x, y, turn, scale), pts[anchor], base)


def _gauss_newton(x: float, y: float, turn: float, scale: float, pts: np.ndarray,
                  centres: np.ndarray, off_deg: np.ndarray, tukey: bool) -> np.ndarray:
    """One reweighted Gauss-Newton step in (turn rad, scale, x, y).

    Tile i's centre is predicted at scale t_i + (x, y), t_i its lattice centre turned;
    the Jacobian's columns are scale perp(t_i) (turn), t_i (scale) and the two axes,
    so the 4 x 4 normal equations are a few weighted sums.
    """
    rot = _rot(turn)
    t = centres @ rot.T
    tx, ty = t[:, 0], t[:, 1]
    rx = scale * tx + x - pts[:, 0]
    ry = scale * ty + y - pts[:, 1]
    # Every print's turn off the lattice, in mm its corners move (lattice turning up: less off).
    ra = -R_MM * np.radians(off_deg)
    e = np.sqrt(rx * rx + ry * ry + ra * ra)
    w = np.where(e > HUBER_MM, HUBER_MM / np.maximum(e, 1e-9), 1.0)
    if tukey:
        biweight = np.clip(1.0 - (e / TUKEY_MM) ** 2, 0.0, None) ** 2
        if biweight.sum() >= 1.0:  # else no tile lies near this lattice: stay with Huber
            w = biweight
    sw, t2, wtx, wty, g_turn, g_ang, g_scale, g_x, g_y = np.stack(
        [np.ones_like(tx), tx * tx + ty * ty, tx, ty, tx * ry - ty * rx, ra,
         tx * rx + ty * ry, rx, ry]) @ w
    normal = np.array([
        [scale * scale * t2 + R_MM * R_MM * sw, 0.0, -scale * wty, scale * wtx],
        [0.0, t2 + SCALE_PULL_MM**2, wtx, wty],
        [-scale * wty, wtx, sw, 0.0],
        [scale * wtx, wty, 0.0, sw],
    ])
    grad = np.array([scale * g_turn + R_MM * g_ang,
                     g_scale + SCALE_PULL_MM**2 * (scale - 1.0), g_x, g_y])
    return np.linalg.solve(normal, -grad)


def _anchored(lat: Lattice, at: np.ndarray, base_deg: float) -> Lattice:
    """The same lattice named so that the position nearest ``at`` is (0, 0) and its turn is
    within 30 degrees of ``base_deg`` (a sixth of a turn leaves a hex lattice as it was)."""
    turn = float(base_deg + (lat.angle_deg - base_deg + 30.0) % 60.0 - 30.0)
    lat = Lattice(lat.x, lat.y, turn, lat.scale)
    hx = lat.index(at[None])[0]
    if hx == (0, 0):
        return lat
    x, y = lat.centre([hx])[0]
    return Lattice(float(x), float(y), turn, lat.scale)


def _rot(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def _centres(axial: np.ndarray) -> np.ndarray:
    """Lattice mm of axial positions (N, 2), as ``board.tile_centre_mm`` puts them."""
    q, r = axial[:, 0], axial[:, 1]
    return np.stack([1.5 * R_MM * q, math.sqrt(3) * R_MM * (r + q / 2)], axis=1)


def _hex_round(local: np.ndarray) -> np.ndarray:
    """Axial (q, r) of the lattice position nearest each point in lattice mm (cube rounding)."""
    q = local[:, 0] * (2.0 / 3.0) / R_MM
    r = (-local[:, 0] / 3.0 + local[:, 1] / math.sqrt(3)) / R_MM
    s = -q - r
    rq, rr, rs = np.round(q), np.round(r), np.round(s)
    dq, dr, ds = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    rq = np.where(fix_q, -rr - rs, rq)
    rr = np.where(fix_r, -rq - rs, rr)
    return np.stack([rq, rr], axis=1)
