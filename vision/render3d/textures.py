"""Images the path tracer paints on surfaces: the printed tiles, the card, table tops.

All are returned as linear RGB float32 (Mitsuba's order), ready for a bitmap
texture with ``raw`` set. The printed art comes from the kit's own printing code
(:mod:`vision.peepwar.tile_art`, :mod:`vision.card_art`) at true millimetre scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from vision.card_art import card_image
from vision.peepwar.tile_art import tile_image
from vision.srgb import SRGB_TO_LINEAR

TILE_PX_PER_MM = 5.0  # markers' 15 mm central squares get 75 texels: finer than any frame
CARD_PX_PER_MM = 5.0
TABLE_KINDS = ("wood", "cloth", "glass", "pattern", "plain")


def linear_rgb(bgr: np.ndarray) -> np.ndarray:
    """An 8-bit sRGB BGR image as linear RGB float32."""
    return SRGB_TO_LINEAR[bgr[:, :, ::-1]].astype(np.float32)


def _printed(bgr: np.ndarray, paper: float, ink: float) -> np.ndarray:
    """Printer's paper is not pure white and its black is not pure black."""
    lin = linear_rgb(bgr)
    return (ink + (paper - ink) * lin).astype(np.float32)


@cache
def tile_texture(tile_id: int) -> np.ndarray:
    """The printed tile ``tile_id`` (white margin round the hexagon), centre at the image centre."""
    return _printed(tile_image(tile_id, TILE_PX_PER_MM), 0.86, 0.025)


@cache
def card_texture(players: int) -> np.ndarray:
    return _printed(card_image(players, CARD_PX_PER_MM), 0.86, 0.025)


@dataclass(frozen=True)
class TableTop:
    kind: str
    image: np.ndarray  # linear RGB
    size_mm: float  # the image spans size_mm x size_mm, repeated
    roughness: float  # of the varnish or glass; cloth is matte
    glossy: bool


def _fbm(rng: np.random.Generator, n: int, octaves: int = 5) -> np.ndarray:
    """Smooth random noise in 0..1 (sum of upsampled random grids)."""
    out = np.zeros((n, n), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        g = max(2, 4 * 2 ** o)
        grid = rng.uniform(0, 1, (g, g)).astype(np.float32)
        out += amp * cv2.resize(grid, (n, n), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.55
    out /= total
    return np.clip((out - out.min()) / max(np.ptp(out), 1e-6), 0, 1)


def table_top(rng: np.random.Generator) -> TableTop:
    """A random table surface: varnished wood, woven cloth, dark glass, a print, or plain."""
    kind = TABLE_KINDS[int(rng.choice(len(TABLE_KINDS), p=[0.35, 0.2, 0.15, 0.15, 0.15]))]
    n = 512
    if kind == "wood":
        base = np.array(rng.choice([[0.30, 0.16, 0.07], [0.45, 0.28, 0.14], [0.18, 0.09, 0.05],
                                    [0.55, 0.40, 0.25]]), np.float32) * rng.uniform(0.8, 1.2)
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        warp = _fbm(rng, n) * rng.uniform(8, 25)
        rings = 0.5 + 0.5 * np.sin((yy + warp * 6) / n * 2 * np.pi * rng.uniform(10, 30))
        streak = _fbm(rng, n, 7)
        tone = 0.7 + 0.25 * rings ** 3 + 0.15 * (streak - 0.5)
        img = base[None, None, :] * tone[:, :, None]
        return TableTop(kind, img.astype(np.float32), float(rng.uniform(400, 900)),
                        float(rng.uniform(0.05, 0.3)), True)
    if kind == "cloth":
        base = np.array(rng.uniform(0.03, 0.5, 3), np.float32)
        yy, xx = np.mgrid[0:n, 0:n]
        weave = np.where((xx // 2 + yy // 2) % 2 == 0, 1.0, 0.82).astype(np.float32)
        if rng.uniform() < 0.4:  # a checked tablecloth
            k = int(rng.integers(16, 48))
            check = ((xx // k + yy // k) % 2).astype(np.float32)
            base2 = np.array(rng.uniform(0.4, 0.8, 3), np.float32)
            img = base[None, None] * (1 - check[..., None]) + base2[None, None] * check[..., None]
        else:
            img = np.broadcast_to(base, (n, n, 3)).copy()
        img = img * weave[..., None] * (0.9 + 0.2 * _fbm(rng, n)[..., None])
        return TableTop(kind, img.astype(np.float32), float(rng.uniform(150, 400)), 1.0, False)
    if kind == "glass":
        base = np.array(rng.choice([[0.01, 0.015, 0.012], [0.04, 0.06, 0.05], [0.02, 0.02, 0.02]]),
                        np.float32)
        img = base[None, None] * (0.8 + 0.4 * _fbm(rng, n)[..., None])
        return TableTop(kind, img.astype(np.float32), 600.0, float(rng.uniform(0.01, 0.06)), True)
    if kind == "pattern":
        cols = rng.uniform(0.05, 0.7, (3, 3)).astype(np.float32)
        img = np.broadcast_to(cols[0], (n, n, 3)).copy()
        for _ in range(int(rng.integers(20, 60))):
            c = tuple(int(v) for v in rng.integers(0, n, 2))
            r = int(rng.integers(8, 40))
            colour = cols[1 + int(rng.integers(2))]
            if rng.uniform() < 0.5:
                cv2.circle(img, c, r, colour.tolist(), -1, cv2.LINE_AA)
            else:
                cv2.rectangle(img, c, (c[0] + r, c[1] + 2 * r), colour.tolist(), -1, cv2.LINE_AA)
        return TableTop(kind, img, float(rng.uniform(300, 700)), float(rng.uniform(0.2, 0.6)),
                        bool(rng.uniform() < 0.5))
    base = np.array(rng.uniform(0.05, 0.7, 3), np.float32)
    img = base[None, None] * (0.95 + 0.1 * _fbm(rng, n)[..., None])
    return TableTop(kind, img.astype(np.float32), 500.0, float(rng.uniform(0.1, 0.5)),
                    bool(rng.uniform() < 0.5))


def sugar(rng: np.random.Generator, n: int = 256) -> np.ndarray:
    """A grey grain map (mean about 1) for the sugar crust of marshmallow peeps."""
    grain = rng.uniform(0.78, 1.12, (n, n)).astype(np.float32)
    grain = cv2.GaussianBlur(grain, (0, 0), 0.7)
    return np.repeat(grain[:, :, None], 3, axis=2)
