"""A rendered photo of the colour-calibration card with pieces on its spots.

Beans are real pixels (cutouts from photos), peeps are sugar-coated ovals of a
given colour; the card lies on a table under a chosen colour temperature, seen
by a random camera. Used to test colour calibration without a real camera.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_art import card_image, card_layout
from vision.render.camera import random_camera
from vision.render.cutouts import Cutout, scaled
from vision.render.layers import table_texture
from vision.render.light import gradient_field, temperature_gains, to_linear, to_srgb

PX_PER_MM = 4.0
MARGIN_MM = 60.0
BEAN_LENGTH_MM = 20.0


def _blend(canvas: np.ndarray, x0: int, y0: int, colour: np.ndarray | None,
           alpha: np.ndarray, darken: float = 1.0) -> None:
    """Blend (or darken, when colour is None) an alpha patch at (x0, y0), clipped to the canvas."""
    h, w = alpha.shape
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if cx1 <= cx0 or cy1 <= cy0:
        return
    a = alpha[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0, None]
    roi = canvas[cy0:cy1, cx0:cx1]
    if colour is None:
        roi *= 1 - darken * a
    else:
        roi[:] = roi * (1 - a) + colour[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0] * a


def _paste(canvas: np.ndarray, piece: Cutout, centre_px: tuple[float, float],
           shadow: float = 0.45) -> None:
    """Alpha-blend ``piece`` centred at ``centre_px``, over a soft drop shadow."""
    h, w = piece.alpha.shape
    x0 = round(centre_px[0] - w / 2)
    y0 = round(centre_px[1] - h / 2)
    off = max(2, w // 20)
    soft = cv2.GaussianBlur(piece.alpha, (0, 0), max(1.0, w / 25))
    _blend(canvas, x0 + off, y0 + off, None, soft, shadow)
    _blend(canvas, x0, y0, piece.colour, piece.alpha)


def peep_cutout(colour: np.ndarray, rng: np.random.Generator, px_per_mm: float) -> Cutout:
    """A peep-sized (60 x 35 mm) oval of ``colour``, shaded and grainy like sugar coating."""
    ax, ay = 17.5 * px_per_mm, 30.0 * px_per_mm
    h, w = int(2 * ay + 8), int(2 * ax + 8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.sqrt(((xx - w / 2) / ax) ** 2 + ((yy - h / 2) / ay) ** 2)
    alpha = np.clip((1.0 - r) * ax / 1.5, 0, 1).astype(np.float32)
    shade = (1.0 - 0.25 * np.clip(r, 0, 1) ** 2)[:, :, None]
    grain = 1.0 + 0.06 * rng.standard_normal((h, w, 1)).astype(np.float32)
    col = np.clip(np.asarray(colour, np.float32)[None, None, :] * shade * grain, 0, 1)
    return Cutout(col.astype(np.float32), alpha)


def render_card_scene(
    seed: int,
    beans: list[Cutout | None],
    peeps: list[np.ndarray | Cutout | None],
    kelvin: float,
    size: tuple[int, int] = (1600, 1200),
    max_tilt_deg: float = 25.0,
) -> np.ndarray:
    """A photo of the card for ``len(beans)`` players; None leaves that spot empty.

    A peep is a colour (drawn as a sugary oval) or a ready picture at 4 px/mm,
    long axis along x (such as :func:`vision.render.sprites.peep_sprite`).
    """
    rng = np.random.default_rng(seed)
    players = len(beans)
    layout = card_layout(players)
    s = PX_PER_MM
    card = to_linear(card_image(players, s)) * 0.85 + 0.02
    for slot, bean, peep in zip(layout.slots, beans, peeps, strict=True):
        if bean is not None:
            piece = scaled(bean, BEAN_LENGTH_MM * s / bean.length_px, rng.uniform(0, 360))
            _paste(card, piece, (slot.bean_mm[0] * s, slot.bean_mm[1] * s))
        if isinstance(peep, Cutout):  # a drawn peep, long axis along x: stand it upright
            piece = scaled(peep, 1.0, 90 + rng.uniform(-10, 10))
            _paste(card, piece, (slot.peep_mm[0] * s, slot.peep_mm[1] * s))
        elif peep is not None:
            piece = scaled(peep_cutout(peep, rng, s), 1.0, rng.uniform(-10, 10))
            _paste(card, piece, (slot.peep_mm[0] * s, slot.peep_mm[1] * s))

    m = MARGIN_MM
    world_w = round((layout.width_mm + 2 * m) * s)
    world_h = round((layout.height_mm + 2 * m) * s)
    world = table_texture(rng, (world_w, world_h))
    ch, cw = card.shape[:2]
    world[round(m * s):round(m * s) + ch, round(m * s):round(m * s) + cw] = card

    corners = np.array([[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm],
                        [0, layout.height_mm]], float)
    cam = random_camera(rng, corners, size, max_tilt_deg, fill=(0.6, 0.85))
    # world pixel -> card mm -> image
    to_mm = np.array([[1 / s, 0, 0.5 / s - m], [0, 1 / s, 0.5 / s - m], [0, 0, 1]])
    frame = cv2.warpPerspective(world, cam.homography @ to_mm, size, flags=cv2.INTER_LINEAR)
    light = gradient_field(rng, size, rng.uniform(0.0, 0.15))
    gains = temperature_gains(kelvin)
    gains = gains / gains.max()  # the camera's exposure keeps the strongest channel in range
    frame *= light[:, :, None] * gains[None, None, :] * rng.uniform(0.85, 1.05)
    image = to_srgb(frame)
    sigma = rng.uniform(0.0, 0.8)
    if sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    noise = rng.standard_normal(image.shape, dtype=np.float32) * rng.uniform(0.5, 3.0)
    image = cv2.add(image, noise, dtype=cv2.CV_8U)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image


def hue_colour(hue_deg: float, sat: float = 0.85, val: float = 0.9) -> np.ndarray:
    """A linear BGR colour from hue (degrees), saturation and value."""
    hsv = np.array([[[round(hue_deg / 2) % 180, round(sat * 255), round(val * 255)]]], np.uint8)
    return to_linear(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR))[0, 0]


__all__ = ["render_card_scene", "peep_cutout", "hue_colour"]
