"""The layers of a rendered frame, bottom to top: table, tiles, pieces, hands, light, sensor.

Every layer draws into a linear-light float32 BGR frame and, where it covers
something, into an ``owner`` map (tile index, or one of the codes below), which
is how the ground truth knows which markers a camera could really see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.geometry import apply_h, local_scale
from vision.peepwar.tile_art import tile_image, tile_image_size, tile_mask
from vision.render.layout import PlacedTile
from vision.render.light import soft_mask, to_linear

TABLE = -1
PIECE = -2
HAND = -3

_ART_LEVELS = (1.0, 2.0, 4.0, 8.0)  # px/mm of the cached tile art


@lru_cache(maxsize=256)
def _art(tile_id: int, level: float) -> np.ndarray:
    """Tile art (sRGB uint8) at ``level`` px/mm, drawn at twice that and area-averaged."""
    big = tile_image(tile_id, 2 * level)
    return cv2.resize(big, tile_image_size(level), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=8)
def _mask(level: float) -> np.ndarray:
    """The cut hexagon (0..1 float) of tile art at ``level`` px/mm, with soft edges."""
    mask = cv2.resize(tile_mask(2 * level), tile_image_size(level), interpolation=cv2.INTER_AREA)
    return mask.astype(np.float32) / 255.0


def table_texture(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A table surface: a random base colour with blotches and a fine wood-like grain."""
    w, h = size
    kind = rng.integers(4)
    bases = [(0.05, 0.12, 0.25), (0.08, 0.20, 0.06), (0.20, 0.20, 0.20), (0.02, 0.02, 0.025)]
    base = np.array(bases[kind], np.float32) * rng.uniform(0.6, 1.4)
    low = rng.normal(0, 1, (8, 12)).astype(np.float32)
    fine = rng.standard_normal((max(2, h // 8), max(2, w // 4)), dtype=np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.7, sigmaY=rng.uniform(1, 3))
    tex = 1.0 + 0.15 * cv2.resize(low, (w // 2, h // 2), interpolation=cv2.INTER_CUBIC)
    tex += 0.25 * cv2.resize(fine, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
    tex = cv2.resize(tex, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.merge([tex * float(c) for c in base])
    return np.clip(out, 0, 1).astype(np.float32)


def draw_tiles(
    frame: np.ndarray,
    owner: np.ndarray,
    tiles: list[PlacedTile],
    homography: np.ndarray,
    paper: tuple[float, float],
) -> None:
    """Warp each tile's art onto the frame, in placement order (later tiles lie on top).

    ``paper`` is (ink black, paper white) reflectance in linear light.
    """
    h_img, w_img = frame.shape[:2]
    black, white = paper
    for index, tile in enumerate(tiles):
        t = tile.pose.matrix()
        ppm = local_scale(homography, (tile.pose.x, tile.pose.y))
        level = next((lv for lv in _ART_LEVELS if lv >= ppm), _ART_LEVELS[-1])
        art, mask = _art(tile.tile_id, level), _mask(level)
        ah, aw = art.shape[:2]
        # art pixel (OpenCV coordinates) -> tile mm
        a_inv = np.array([[1 / level, 0, -(aw / 2 - 0.5) / level],
                          [0, 1 / level, -(ah / 2 - 0.5) / level], [0, 0, 1]])
        m = homography @ t @ a_inv
        corners = apply_h(m, np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], float))
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, w_img), min(y1, h_img)
        if x1 <= x0 or y1 <= y0:
            continue
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        mr = shift @ m
        dsize = (x1 - x0, y1 - y0)
        warped = to_linear(cv2.warpPerspective(art, mr, dsize, flags=cv2.INTER_LINEAR))
        alpha = cv2.warpPerspective(mask, mr, dsize, flags=cv2.INTER_LINEAR)[:, :, None]
        roi = frame[y0:y1, x0:x1]
        paper_img = black + (white - black) * warped
        roi[:] = roi * (1 - alpha) + paper_img * alpha
        owner[y0:y1, x0:x1][alpha[:, :, 0] > 0.5] = index


@dataclass(frozen=True)
class Blob:
    """A flat shape on or above the table, in table mm, with a colour in linear BGR."""

    outline_mm: np.ndarray
    colour: np.ndarray
    kind: int  # PIECE or HAND


def ellipse_mm(centre, axes, angle_deg: float, n: int = 40) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    a = math.radians(angle_deg)
    x = axes[0] * np.cos(t)
    y = axes[1] * np.sin(t)
    return np.stack([centre[0] + x * math.cos(a) - y * math.sin(a),
                     centre[1] + x * math.sin(a) + y * math.cos(a)], axis=1)


def capsule_mm(a, b, width: float, n: int = 12) -> np.ndarray:
    """A finger or an arm: a stadium from point a to point b."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    d = b - a
    ang = math.atan2(d[1], d[0])
    r = width / 2
    t1 = np.linspace(ang + math.pi / 2, ang + 3 * math.pi / 2, n)
    t2 = np.linspace(ang - math.pi / 2, ang + math.pi / 2, n)
    cap_a = a + r * np.stack([np.cos(t1), np.sin(t1)], axis=1)
    cap_b = b + r * np.stack([np.cos(t2), np.sin(t2)], axis=1)
    return np.vstack([cap_a, cap_b])


def random_colour(rng: np.random.Generator, skin: bool = False) -> np.ndarray:
    if skin:
        tones = [(0.35, 0.45, 0.75), (0.20, 0.30, 0.55), (0.08, 0.13, 0.25), (0.45, 0.55, 0.80)]
        return np.array(tones[rng.integers(len(tones))], np.float32) * rng.uniform(0.8, 1.1)
    hsv = np.array([[[rng.integers(0, 180), rng.integers(120, 256), rng.integers(90, 250)]]],
                   np.uint8)
    return to_linear(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR))[0, 0]


def random_pieces(
    rng: np.random.Generator, tiles: list[PlacedTile], n_beans: int, n_peeps: int
) -> list[Blob]:
    """Beans (20 x 13 mm) and peeps (60 x 35 mm) dropped anywhere on the tiles."""
    blobs = []
    for count, axes in ((n_beans, (10.0, 6.5)), (n_peeps, (30.0, 17.5))):
        for _ in range(count):
            tile = tiles[rng.integers(len(tiles))]
            r = 85 * math.sqrt(rng.uniform())
            a = rng.uniform(0, 2 * math.pi)
            c = (tile.pose.x + r * math.cos(a), tile.pose.y + r * math.sin(a))
            blobs.append(Blob(ellipse_mm(c, axes, rng.uniform(0, 180)), random_colour(rng), PIECE))
    return blobs


def random_hand(rng: np.random.Generator, centre: tuple[float, float]) -> list[Blob]:
    """A hand reaching in over ``centre`` (mm): arm, palm and fingers, one skin colour."""
    colour = random_colour(rng, skin=True)
    phi = rng.uniform(0, 2 * math.pi)  # the direction the fingers point
    c = np.asarray(centre, float)
    u = np.array([math.cos(phi), math.sin(phi)])
    parts = [capsule_mm(c - 40 * u, c - 900 * u, 75), ellipse_mm(c, (48, 42), math.degrees(phi))]
    for k, spread in enumerate((-24, -8, 8, 24)):
        a = phi + math.radians(spread + rng.uniform(-6, 6))
        base = c + 35 * np.array([math.cos(a), math.sin(a)])
        length = rng.uniform(45, 80) * (0.85 if k in (0, 3) else 1.0)
        tip = base + length * np.array([math.cos(a), math.sin(a)])
        parts.append(capsule_mm(base, tip, 18))
    a = phi + math.copysign(math.radians(75), rng.uniform(-1, 1))
    parts.append(capsule_mm(c + 30 * np.array([math.cos(a), math.sin(a)]),
                            c + 85 * np.array([math.cos(a), math.sin(a)]), 22))
    return [Blob(p, colour, HAND) for p in parts]


def draw_blobs(
    frame: np.ndarray,
    owner: np.ndarray,
    blobs: list[Blob],
    homography: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """Soft drop shadows first, then the shapes themselves with anti-aliased edges."""
    if not blobs:
        return
    h, w = frame.shape[:2]
    scale = local_scale(homography, tuple(np.mean([b.outline_mm.mean(axis=0) for b in blobs], 0)))
    shadow = np.zeros((h, w), np.uint8)
    offset = rng.normal(0, 1, 2)
    offset = offset / (np.linalg.norm(offset) + 1e-9)
    for b in blobs:
        lift = 25.0 if b.kind == HAND else 3.0
        pts = apply_h(homography, b.outline_mm + lift * offset)
        cv2.fillPoly(shadow, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    sm = soft_mask(shadow, max(1.0, 4.0 * scale))
    frame *= (1.0 - rng.uniform(0.3, 0.55) * sm)[:, :, None]
    for b in blobs:
        pts = apply_h(homography, b.outline_mm)
        x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(pts.max(axis=0)).astype(int) + 2, (w, h))
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round((pts - (x0, y0)) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        a = mask.astype(np.float32)[:, :, None] / 255.0
        # A little shading across the shape so it is not a flat sticker.
        ramp = np.linspace(0.8, 1.1, x1 - x0, dtype=np.float32)[None, :, None]
        roi = frame[y0:y1, x0:x1]
        roi[:] = roi * (1 - a) + (b.colour * ramp) * a
        owner[y0:y1, x0:x1][mask > 127] = b.kind
