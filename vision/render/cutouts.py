"""Real bean pixels cut from photos, to paste into rendered scenes.

The photos show beans on a light, nearly neutral background. The background is
estimated by a large median filter (beans are small), beans are the pixels that
differ from it clearly, and each bean keeps a soft alpha edge. Colours are
expressed relative to the photo's background, so a pasted bean keeps its true
reflectance whatever the photo's exposure was. Pale beans (coconut, cream soda)
on the pale background come out partial; coloured ones come out whole, with a
thin rim of shadow at most.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.light import to_linear


@dataclass(frozen=True)
class Cutout:
    """A piece's pixels: linear BGR relative to white, and alpha 0..1, same size."""

    colour: np.ndarray  # float32 (h, w, 3)
    alpha: np.ndarray  # float32 (h, w)

    @property
    def length_px(self) -> float:
        ys, xs = np.nonzero(self.alpha > 0.5)
        pts = np.stack([xs, ys], axis=1).astype(np.float32)
        (_, _), (w, h), _ = cv2.minAreaRect(pts)
        return float(max(w, h))


def _background(photo: np.ndarray) -> np.ndarray:
    h, w = photo.shape[:2]
    small = cv2.resize(photo, (w // 8, h // 8), interpolation=cv2.INTER_AREA)
    bg = cv2.medianBlur(small, 15)
    return cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)


def cut_beans(photo: np.ndarray, limit: int = 12) -> list[Cutout]:
    """Up to ``limit`` whole beans from a photo of beans on a light background."""
    bg = _background(photo)
    lab = cv2.cvtColor(photo, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab_bg = cv2.cvtColor(bg, cv2.COLOR_BGR2LAB).astype(np.float32)
    diff = lab - lab_bg
    # Chroma differences count double: shadows change lightness, beans change colour.
    score = np.sqrt((diff[:, :, 0] * 0.3) ** 2 + diff[:, :, 1] ** 2 + diff[:, :, 2] ** 2)
    # Dark beans differ mostly in lightness; soft shadows only a little.
    mask = ((score > 8) | (diff[:, :, 0] < -60)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    # Fill highlights and pale centres that match the background: a bean has no holes.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = np.zeros_like(mask)
    cv2.drawContours(mask, contours, -1, 1, cv2.FILLED)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    lin = to_linear(photo)
    lin_bg = np.maximum(to_linear(bg), 1e-3)
    out = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if not 1500 <= area <= 20000 or x < 3 or y < 3 or x + bw > w - 3 or y + bh > h - 3:
            continue
        if max(bw, bh) > 2.6 * min(bw, bh) or area < 0.55 * bw * bh:
            continue
        pad = 3
        sl = (slice(y - pad, y + bh + pad), slice(x - pad, x + bw + pad))
        m = (labels[sl] == i).astype(np.float32)
        alpha = cv2.GaussianBlur(m, (0, 0), 0.8)
        # Relative to the background's brightness, with the background taken as 90% white.
        colour = np.clip(lin[sl] / lin_bg[sl].mean(axis=2, keepdims=True) * 0.9, 0, 1)
        out.append(Cutout(colour.astype(np.float32), alpha))
        if len(out) >= limit:
            break
    return out


def scaled(cutout: Cutout, factor: float, angle_deg: float) -> Cutout:
    """The cutout resized by ``factor`` and turned by ``angle_deg`` (canvas grows to fit)."""
    h, w = cutout.alpha.shape
    size = int(np.ceil(np.hypot(h, w) * factor)) + 4
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, factor)
    m[:, 2] += (size / 2 - w / 2, size / 2 - h / 2)
    colour = cv2.warpAffine(cutout.colour, m, (size, size), flags=cv2.INTER_AREA)
    alpha = cv2.warpAffine(cutout.alpha, m, (size, size), flags=cv2.INTER_AREA)
    return Cutout(colour, alpha)
