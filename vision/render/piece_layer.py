"""Drawing placed pieces into a frame: each sprite carried through the table homography.

A sprite is mapped sprite pixel -> table mm (its pose) -> frame pixel, after an
area-averaging resize to about twice the frame's scale so fine texture does not
alias. Each piece first casts a soft shadow away from the lamp, its length set
by the piece's height, then is alpha-blended in linear light.

A sprite is the piece seen from above; a camera that is not straight over it sees it
beyond its foot, away from the camera, by as much as its height lifts it. Given the
camera's place, each sprite is drawn lifted to the height of its middle, or, for an egg
half, as slices up its dome (:func:`vision.render.sprites.seen_slices`), each where the
ray from the camera through that height meets the table.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import apply_h, local_scale
from vision.render.crowd import Placement
from vision.render.layers import PIECE
from vision.render.sprites import lift_mm, middle_seen_mm, seen_slices, shadow_height_mm


def _sprite_to_table(p: Placement, ppm: float, shape: tuple[int, int],
                     shift_mm=(0.0, 0.0)) -> np.ndarray:
    """3x3 matrix: sprite pixel (OpenCV coordinates) -> table mm (``ppm``: the sprite's
    pixels to a mm)."""
    h, w = shape
    a = math.radians(p.angle_deg)
    c, s = math.cos(a), math.sin(a)
    centre = np.array([[1, 0, -(w / 2 - 0.5)], [0, 1, -(h / 2 - 0.5)], [0, 0, 1]], float)
    scale = np.diag([1 / ppm, 1 / ppm, 1.0])
    rot = np.array([[c, -s, p.centre_mm[0] + shift_mm[0]],
                    [s, c, p.centre_mm[1] + shift_mm[1]], [0, 0, 1]])
    return rot @ scale @ centre


def _warp_into(frame: np.ndarray, m: np.ndarray, src: np.ndarray
               ) -> tuple[np.ndarray, tuple[slice, slice]] | None:
    """``src`` warped by ``m`` (src pixel -> frame pixel), cropped to its bounding box."""
    h, w = src.shape[:2]
    corners = apply_h(m, np.array([[-1, -1], [w, -1], [w, h], [-1, h]], float))
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 1,
                        (frame.shape[1], frame.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return None
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    out = cv2.warpPerspective(src, shift @ m, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR)
    return out, (slice(y0, y1), slice(x0, x1))


def seen_middle_mm(piece: dict, eye_mm) -> tuple[float, float]:
    """Where the camera at ``eye_mm`` sees the middle of ``piece`` (a truth entry: its
    ``kind`` and ``centre_mm``, its foot) on the table plane, as the renderer draws it; for
    a piece drawn as one lifted picture (not an egg half's slices).

    >>> seen_middle_mm({"kind": "bean", "centre_mm": [100.0, 0.0]}, (0.0, 0.0, 555.5))
    (101.0, 0.0)
    """
    return middle_seen_mm(piece["kind"], piece["centre_mm"], eye_mm)


def draw_pieces(frame: np.ndarray, owner: np.ndarray, pieces: list[Placement],
                homography: np.ndarray, light: np.ndarray, shadow_strength: float,
                eye_mm: np.ndarray | None = None) -> None:
    """Draw ``pieces`` in order (later ones on top), each over its own soft shadow;
    seen from ``eye_mm`` (the camera's x, y and height), when given, else flat."""
    if not pieces:
        return
    away = -np.asarray(light[:2], float) / float(light[2])  # shadow direction per mm of height
    for p in pieces:
        scale = local_scale(homography, p.centre_mm)
        ppm = p.sprite_ppm
        colour, alpha = p.sprite.colour, p.sprite.alpha
        target = min(ppm, max(2.0 * scale, 1.0))
        if target < ppm * 0.95:  # area-average first: warpPerspective would alias
            f = target / ppm
            size = (max(1, round(alpha.shape[1] * f)), max(1, round(alpha.shape[0] * f)))
            colour = cv2.resize(colour, size, interpolation=cv2.INTER_AREA)
            alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
            ppm = ppm * size[0] / p.sprite.alpha.shape[1]
        height = shadow_height_mm(p.kind)
        blur = max(0.6, (0.25 * height + 0.8) * ppm)
        pad = int(math.ceil(3 * blur))
        shadow = cv2.copyMakeBorder(alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), blur)
        m_shadow = homography @ _sprite_to_table(p, ppm, shadow.shape, tuple(away * height * 0.6))
        warped = _warp_into(frame, m_shadow, shadow)
        if warped is not None:
            sh, sl = warped
            frame[sl] *= (1.0 - shadow_strength * sh)[:, :, None]
        for z, k in seen_slices(p.kind) if eye_mm is not None else ((0.0, 1.0),):
            seen = lift_mm(p.centre_mm, z, eye_mm) if z > 0 else p.centre_mm
            lift = (seen[0] - p.centre_mm[0], seen[1] - p.centre_mm[1])
            m = homography @ _sprite_to_table(p, ppm / k, alpha.shape, lift)
            wc = _warp_into(frame, m, colour)
            wa = _warp_into(frame, m, alpha)
            if wc is None or wa is None:
                continue
            col, sl = wc
            a = wa[0][:, :, None]
            frame[sl] = frame[sl] * (1 - a) + col * a
            owner[sl][wa[0] > 0.5] = PIECE
