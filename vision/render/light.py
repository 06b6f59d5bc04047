"""Light for rendered scenes: sRGB <-> linear conversion, colour temperature, light fields.

Layers are composed in linear light (float32, BGR, 1.0 = white paper under the
reference light) so that gains and shadows multiply the way real light does.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

_LIN_STEPS = 4096


def _srgb_to_linear_lut() -> np.ndarray:
    c = np.arange(256, dtype=np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin.astype(np.float32)


def _linear_to_srgb_lut() -> np.ndarray:
    lin = np.arange(_LIN_STEPS, dtype=np.float64) / (_LIN_STEPS - 1)
    c = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    return np.clip(np.round(c * 255), 0, 255).astype(np.uint8)


SRGB_TO_LINEAR = _srgb_to_linear_lut()
LINEAR_TO_SRGB = _linear_to_srgb_lut()


def to_linear(img: np.ndarray) -> np.ndarray:
    """uint8 sRGB image -> float32 linear light."""
    return SRGB_TO_LINEAR[img]


def to_srgb(lin: np.ndarray) -> np.ndarray:
    """float32 linear light -> uint8 sRGB, clipping highlights like a sensor does."""
    idx = np.clip(lin * (_LIN_STEPS - 1) + 0.5, 0, _LIN_STEPS - 1).astype(np.int32)
    return LINEAR_TO_SRGB[idx]


def blackbody_bgr(kelvin: float) -> np.ndarray:
    """Approximate linear BGR of a black body at ``kelvin`` (Tanner Helland's fit), max 1."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    srgb = np.clip(np.array([b, g, r]), 1, 255).astype(np.uint8)
    lin = SRGB_TO_LINEAR[srgb].astype(np.float64)
    return lin / lin.max()


def temperature_gains(kelvin: float, reference: float = 6500.0) -> np.ndarray:
    """Per-channel (B, G, R) gains of a light at ``kelvin`` relative to ``reference``.

    Green is kept at 1 so a warm lamp mostly raises red and lowers blue, as a
    camera without auto white balance records it.
    """
    g = blackbody_bgr(kelvin) / blackbody_bgr(reference)
    return (g / g[1]).astype(np.float32)


def gradient_field(
    rng: np.random.Generator, size: tuple[int, int], strength: float
) -> np.ndarray:
    """A smooth brightness field: a linear ramp times a vignette, mean about 1.

    Computed on a coarse grid and enlarged: it is smooth, and 4K frames stay cheap.
    """
    w, h = size
    gw, gh = max(2, w // 16), max(2, h // 16)
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xs = (xs + 0.5) * (w / gw)
    ys = (ys + 0.5) * (h / gh)
    a = rng.uniform(0, 2 * math.pi)
    diag = math.hypot(w, h)
    ramp = ((xs - w / 2) * math.cos(a) + (ys - h / 2) * math.sin(a)) / diag
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / (diag / 2) ** 2
    vignette = 1.0 - rng.uniform(0.0, 0.35) * r2
    field = ((1.0 + 2 * strength * ramp) * vignette).astype(np.float32)
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


def soft_mask(mask: np.ndarray, sigma_px: float) -> np.ndarray:
    """A float mask 0..1 (from a 0/255 uint8 mask) blurred to soft edges (penumbra)."""
    m = mask.astype(np.float32) / 255.0
    if sigma_px > 0.3:
        m = cv2.GaussianBlur(m, (0, 0), sigma_px)
    return m
