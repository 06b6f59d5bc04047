"""Photometric randomisation of a camera frame, for the bean net's training samples.

A net trained on one renderer's pictures learns that renderer's look: its
exact white balance, its soft painted shading, its clean edges. The frames are
changed here *before* the reader runs on them, so every plane the net reads
(white-balanced brightness, pixels near a player's colour, peeps found) comes
from the changed picture, as it would from a camera that saw the table so:

- white balance left off by up to about a fifth per channel (a lamp's frames stay orange);
- gloss: small soft specular highlights on coloured pieces, as lacquered beans show;
- defocus or motion blur; sensor noise; JPEG at quality 45-95.

Every change is drawn from the generator given, so a seed names a picture.
"""

from __future__ import annotations

import cv2
import numpy as np


def white_balance(frame: np.ndarray, rng: np.random.Generator, spread: float = 0.12
                  ) -> np.ndarray:
    """``frame`` with each channel's gain off by a random factor (about ``spread`` sd, in
    log terms), overall brightness kept."""
    gains = np.exp(rng.normal(0.0, spread, 3))
    gains /= np.exp(np.log(gains).mean())
    return np.clip(frame.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def highlights(frame: np.ndarray, rng: np.random.Generator, count: int = 40) -> np.ndarray:
    """Up to ``count`` small soft white highlights on saturated pixels (pieces, not paper).

    >>> f = np.full((60, 60, 3), 200, np.uint8); f[20:40, 20:40] = (40, 40, 220)
    >>> g = highlights(f, np.random.default_rng(0), 5)
    >>> bool((g[:15] == f[:15]).all()), bool((g[20:40, 20:40] > f[20:40, 20:40]).any())
    (True, True)
    """
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    ys, xs = np.nonzero((hsv[..., 1] > 110) & (hsv[..., 2] > 60))
    if not len(ys):
        return frame
    glow = np.zeros(frame.shape[:2], np.float32)
    for k in rng.choice(len(ys), size=min(count, len(ys)), replace=False):
        axes = (int(rng.integers(1, 5)), int(rng.integers(1, 3)))
        cv2.ellipse(glow, (int(xs[k]), int(ys[k])), axes, float(rng.uniform(0, 180)), 0, 360,
                    float(rng.uniform(0.4, 1.0)), -1)
    glow = cv2.GaussianBlur(glow, (0, 0), 1.2)[..., None]
    out = frame.astype(np.float32) * (1 - glow) + 255.0 * glow
    return np.clip(out, 0, 255).astype(np.uint8)


def blur(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Defocus (a disc up to 2.5 px) or motion blur (a line up to 6 px), one of the two."""
    if rng.uniform() < 0.5:
        r = float(rng.uniform(0.6, 2.5))
        n = int(np.ceil(r)) * 2 + 1
        k = np.zeros((n, n), np.float32)
        cv2.circle(k, (n // 2, n // 2), int(round(r)), 1.0, -1)
    else:
        length = float(rng.uniform(2.0, 6.0))
        n = int(np.ceil(length)) | 1
        k = np.zeros((n, n), np.float32)
        a = rng.uniform(0, np.pi)
        d = np.array([np.cos(a), np.sin(a)]) * (n // 2)
        cv2.line(k, tuple(int(v) for v in n // 2 - d), tuple(int(v) for v in n // 2 + d), 1.0)
    k /= max(float(k.sum()), 1e-6)
    return cv2.filter2D(frame, -1, k)


def noise(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shot-like noise (stronger in bright pixels) and read noise."""
    f = frame.astype(np.float32)
    sd = rng.uniform(0.5, 4.0) + rng.uniform(0.0, 0.25) * np.sqrt(f)
    return np.clip(f + rng.standard_normal(f.shape).astype(np.float32) * sd, 0, 255
                   ).astype(np.uint8)


def jpeg(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    q = int(rng.integers(45, 96))
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else frame


def randomise(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``frame`` as another camera and light might have given it: each change above with
    its own chance (white balance always).

    >>> f = np.full((40, 40, 3), 180, np.uint8); f[10:30, 10:30] = (30, 60, 200)
    >>> g = randomise(f, np.random.default_rng(1))
    >>> g.shape == f.shape and g.dtype == np.uint8 and bool((g != f).any())
    True
    """
    out = white_balance(frame, rng)
    if rng.uniform() < 0.5:
        out = highlights(out, rng, int(rng.integers(10, 80)))
    if rng.uniform() < 0.5:
        out = blur(out, rng)
    if rng.uniform() < 0.6:
        out = noise(out, rng)
    if rng.uniform() < 0.7:
        out = jpeg(out, rng)
    return out
