"""sRGB <-> linear light, by lookup tables (fast on whole frames).

Light adds and multiplies in linear units; cameras and files store sRGB. Both
the renderer and colour calibration convert here, so they agree exactly.
"""

from __future__ import annotations

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
