"""Players' colours for the 3D scenes, and how light sources are tinted.

Each family has a bag of beans and a box of peeps. A bag's beans differ a little
(hue, saturation, lightness), as real candy does; the colour-calibration card is
loaded from the same bags, so profiles learn the same spread a user's would.
Colours here are this generator's own, chosen from candy, not from the 2D
renderer's palette.
"""

from __future__ import annotations

import colorsys
import math

import numpy as np

from vision.srgb import SRGB_TO_LINEAR

FAMILIES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    # name: (bean sRGB, peep sRGB)
    "red": ((186, 22, 30), (228, 66, 84)),
    "orange": ((242, 104, 18), (252, 150, 52)),
    "yellow": ((244, 200, 26), (250, 222, 70)),
    "green": ((76, 168, 38), (120, 200, 86)),
    "blue": ((28, 78, 186), (82, 146, 232)),
    "purple": ((92, 34, 118), (156, 98, 206)),
}
EGG_COLOURS = ((248, 140, 186), (112, 196, 240), (250, 228, 100), (150, 226, 130),
               (196, 150, 238), (250, 176, 90), (232, 58, 58), (56, 112, 216), (240, 240, 236))
SKIN_TONES = ((246, 214, 192), (234, 190, 160), (214, 160, 120), (180, 124, 88),
              (140, 92, 62), (100, 64, 42), (66, 42, 30))  # pale to very dark


def srgb_to_linear(rgb) -> np.ndarray:
    return SRGB_TO_LINEAR[np.clip(np.round(np.asarray(rgb)), 0, 255).astype(np.uint8)].astype(
        np.float64)


def varied(rng: np.random.Generator, rgb, hue_deg: float = 4.0, sat: float = 0.06,
           val: float = 0.08) -> np.ndarray:
    """One piece from a bag: ``rgb`` with a little hue, saturation and lightness spread (linear)."""
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    h = (h + rng.normal(0, hue_deg / 360)) % 1.0
    s = float(np.clip(s * (1 + rng.normal(0, sat)), 0, 1))
    v = float(np.clip(v * (1 + rng.normal(0, val)), 0, 1))
    return srgb_to_linear(np.array(colorsys.hsv_to_rgb(h, s, v)) * 255)


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black body at ``kelvin``, green channel 1 (Tanner Helland's fit)."""
    t = kelvin / 100
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else \
        288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10)
                               - 305.0447927307)
    lin = srgb_to_linear(np.clip([r, g, b], 0, 255))
    return lin / max(lin[1], 1e-6)
