"""A camera shaken while its shutter is open: one straight streak over the whole frame.

Drawn as such a camera draws it, points along a line each rounded to its pixel, in linear
light (where the sensor adds light up), with sensor noise after; not the reader's own
bilinear box (:func:`vision.deblur.streak_kernel`), so that the reader is measured on a
streak it was not built from.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.srgb import to_linear, to_srgb


def streak(length: float, angle_deg: float) -> np.ndarray:
    """The streak's kernel: ``length`` px along ``angle_deg``, summing to 1."""
    n = int(length) + 3 | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx = np.cos(np.radians(angle_deg)) * length / 2
    dy = np.sin(np.radians(angle_deg)) * length / 2
    for t in np.linspace(-1, 1, 64):
        k[int(round(c + t * dy)), int(round(c + t * dx))] += 1
    return k / k.sum()


def shake(frame: np.ndarray, length: float, angle_deg: float,
          rng: np.random.Generator) -> np.ndarray:
    """``frame`` (8-bit BGR) smeared by the streak, with noise of 2 grey levels from ``rng``."""
    smeared = to_srgb(cv2.filter2D(to_linear(frame), -1, streak(length, angle_deg)))
    noisy = smeared + rng.normal(0, 2.0, smeared.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)
