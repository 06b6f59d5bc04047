"""What a cheap camera does to the light the tracer computed.

Auto exposure, an imperfect automatic white balance (often wrong under a warm
lamp), defocus, motion blur, lens distortion, vignetting, shot and read noise,
sRGB encoding and JPEG compression — in that order, as in a real camera's
pipeline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class SensorParams:
    exposure: float  # times the auto exposure
    wb_gains: tuple[float, float, float]  # the white balance's gains (R, G, B; G = 1)
    tint_left: tuple[float, float, float]  # the light's tint the gains leave (R, G, B; G = 1)
    defocus_px: float  # disc radius
    motion_px: float  # streak length
    motion_deg: float
    k1: float  # radial distortion
    k2: float
    vignette: float
    read_noise: float  # in 8-bit steps
    shot_noise: float
    jpeg_quality: int

    def to_json(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def random_sensor(rng: np.random.Generator, illuminant: np.ndarray,
                  least_corrected: float = 0.5) -> SensorParams:
    """Random camera settings; white balance corrects ``illuminant`` only partly (from
    ``least_corrected`` to all of its tint)."""
    corrected = float(rng.uniform(least_corrected, 1.0))
    wb = (1.0 / illuminant) ** corrected * np.exp(rng.normal(0, 0.05, 3))
    wb = wb / wb[1]
    left = illuminant * wb
    defocus = rng.uniform(0, 2.2) if rng.uniform() < 0.5 else 0.0
    motion = rng.uniform(0, 6) if rng.uniform() < 0.25 else 0.0
    return SensorParams(float(rng.uniform(0.8, 1.15)), tuple(float(v) for v in wb),
                        tuple(float(v) for v in left / left[1]),
                        float(defocus), float(motion), float(rng.uniform(0, 180)),
                        float(rng.uniform(-0.22, 0.04)), float(rng.uniform(-0.03, 0.05)),
                        float(rng.uniform(0.0, 0.35)), float(rng.uniform(0.5, 3.0)),
                        float(rng.uniform(0.2, 1.2)), int(rng.integers(60, 96)))


def _disc(radius: float) -> np.ndarray:
    n = int(math.ceil(radius)) * 2 + 1
    yy, xx = np.mgrid[0:n, 0:n] - n // 2
    k = np.clip(radius + 0.5 - np.hypot(xx, yy), 0, 1).astype(np.float32)
    return k / k.sum()


def _streak(length: float, angle_deg: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1,
             cv2.LINE_AA)
    return k / max(k.sum(), 1e-6)


def distortion_maps(size: tuple[int, int], k1: float, k2: float, focal_px: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables giving, for each output pixel, where the ideal (pinhole) image is sampled.

    The lens maps an ideal point at radius r to r (1 + k1 r^2 + k2 r^4) (OpenCV's radial
    model; k1 < 0 is barrel distortion); each output pixel takes the ideal point that
    lands there, to first order.
    """
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    x = (xx - (w - 1) / 2) / focal_px
    y = (yy - (h - 1) / 2) / focal_px
    r2 = x * x + y * y
    scale = 1 / (1 + k1 * r2 + k2 * r2 * r2)
    return (x * scale * focal_px + (w - 1) / 2).astype(np.float32), \
        (y * scale * focal_px + (h - 1) / 2).astype(np.float32)


def develop(linear_rgb: np.ndarray, p: SensorParams, focal_px: float,
            rng: np.random.Generator) -> np.ndarray:
    """The BGR 8-bit frame the camera delivers from the scene's linear RGB light."""
    img = linear_rgb.astype(np.float32)
    img = img * np.asarray(p.wb_gains, np.float32)[None, None, :]
    lum = img.mean(axis=2)
    img *= p.exposure * 0.82 / max(float(np.percentile(lum, 98.5)), 1e-6)
    if p.defocus_px > 0.4:
        img = cv2.filter2D(img, -1, _disc(p.defocus_px))
    if p.motion_px > 1.0:
        img = cv2.filter2D(img, -1, _streak(p.motion_px, p.motion_deg))
    h, w = img.shape[:2]
    mx, my = distortion_maps((w, h), p.k1, p.k2, focal_px)
    img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (1 - p.vignette * r2)[:, :, None]
    img = np.clip(img, 0, None)
    shot = rng.standard_normal(img.shape).astype(np.float32) * np.sqrt(img) * p.shot_noise / 255
    img = np.clip(img + shot, 0, 1)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    out = srgb * 255 + rng.standard_normal(img.shape).astype(np.float32) * p.read_noise
    bgr = np.clip(np.round(out), 0, 255).astype(np.uint8)[:, :, ::-1]
    ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(bgr),
                           [cv2.IMWRITE_JPEG_QUALITY, p.jpeg_quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else bgr


def distort_px(pts: np.ndarray, size: tuple[int, int], k1: float, k2: float,
               focal_px: float) -> np.ndarray:
    """Where ideal (pinhole) pixel positions land in the delivered frame (see
    :func:`distortion_maps`)."""
    w, h = size
    p = np.asarray(pts, float).reshape(-1, 2)
    x = (p[:, 0] - (w - 1) / 2) / focal_px
    y = (p[:, 1] - (h - 1) / 2) / focal_px
    r2 = x * x + y * y
    s = 1 + k1 * r2 + k2 * r2 * r2
    return np.stack([x * s * focal_px + (w - 1) / 2, y * s * focal_px + (h - 1) / 2], -1)
