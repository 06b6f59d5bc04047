"""Light for rendered scenes: colour temperature and light fields (sRGB conversion from
``vision.srgb``, re-exported here for the layers).

Layers are composed in linear light (float32, BGR, 1.0 = white paper under the
reference light) so that gains and shadows multiply the way real light does.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.srgb import SRGB_TO_LINEAR, to_linear, to_srgb

__all__ = ["SRGB_TO_LINEAR", "to_linear", "to_srgb", "temperature_gains", "gradient_field",
           "soft_mask", "blackbody_bgr", "develop_frame"]

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


def develop_frame(frame: np.ndarray, rng: np.random.Generator, kelvin: float,
                  noise_rng: np.random.Generator | None = None) -> np.ndarray:
    """A linear-light frame as a cheap camera gives it: a brightness gradient, the lamp's
    colour and exposure, sRGB, some defocus, sensor noise (drawn from ``noise_rng`` when
    given) and JPEG. ``frame`` (float) is scaled in place."""
    size = (frame.shape[1], frame.shape[0])
    field_ = gradient_field(rng, size, rng.uniform(0.0, 0.2))
    gains = temperature_gains(kelvin)
    frame *= field_[:, :, None] * (gains / gains.max())[None, None, :] * rng.uniform(0.8, 1.1)
    image = to_srgb(frame)
    sigma = rng.uniform(0.0, 1.0)
    if sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    noise = (noise_rng or rng).standard_normal(image.shape, dtype=np.float32) * rng.uniform(
        0.5, 3.0)
    image = cv2.add(image, noise, dtype=cv2.CV_8U)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image
