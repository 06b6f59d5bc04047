"""Top-down pictures of the pieces: beans, peeps, printed understudies, egg halves, tokens.

Each sprite is a :class:`~vision.render.cutouts.Cutout` (linear BGR relative to
white paper, and alpha) drawn at ``ppm`` pixels per mm with the piece's centre at
the image centre and its long axis along +x. Shading comes from a height field
and one light direction, so beans look like glossy ellipsoids and peeps like
puffy sugar-coated marshmallow rather than flat stickers.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.render.cutouts import Cutout

BEAN_MM = (20.0, 13.0)
PEEP_MM = (60.0, 35.0)


def _grid(w_mm: float, h_mm: float, ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates (mm, origin at the sprite centre) of a sprite canvas."""
    w = int(math.ceil(w_mm * ppm)) + 4
    h = int(math.ceil(h_mm * ppm)) + 4
    xs = (np.arange(w, dtype=np.float32) - (w / 2 - 0.5)) / ppm
    ys = (np.arange(h, dtype=np.float32) - (h / 2 - 0.5)) / ppm
    return np.meshgrid(xs, ys)


def _edge_alpha(signed_mm: np.ndarray, ppm: float) -> np.ndarray:
    """Anti-aliased coverage from a signed distance (mm, positive inside)."""
    return np.clip(signed_mm * ppm + 0.5, 0.0, 1.0).astype(np.float32)


def _shade(height: np.ndarray, ppm: float, light: np.ndarray, gloss: float,
           shininess: float) -> tuple[np.ndarray, np.ndarray]:
    """Lambert factor and specular highlight of a height field (mm) lit from ``light``."""
    gy, gx = np.gradient(height * ppm)  # height change per pixel -> per mm
    n = np.stack([-gx, -gy, np.ones_like(gx)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    lam = np.clip(n @ light, 0.0, 1.0)
    half = light + np.array([0.0, 0.0, 1.0], np.float32)
    half /= np.linalg.norm(half)
    spec = gloss * np.clip(n @ half, 0.0, 1.0) ** shininess
    return lam.astype(np.float32), spec.astype(np.float32)


def light_direction(rng: np.random.Generator) -> np.ndarray:
    """A lamp above the table, somewhat to one side (unit vector, z up)."""
    a = rng.uniform(0, 2 * math.pi)
    v = np.array([math.cos(a), math.sin(a), rng.uniform(1.2, 2.5)], np.float32)
    return v / np.linalg.norm(v)


def bean_sprite(colour: np.ndarray, rng: np.random.Generator, ppm: float,
                light: np.ndarray | None = None) -> Cutout:
    """A glossy jellybean: a slightly bent ellipsoid about 20 x 13 mm with a highlight."""
    length = BEAN_MM[0] * rng.uniform(0.93, 1.07)
    width = BEAN_MM[1] * rng.uniform(0.93, 1.07)
    bend = rng.uniform(0.0, 0.035)  # kidney shape: the long axis curves a little
    light = light_direction(rng) if light is None else light
    xs, ys = _grid(length + 2, length + 2, ppm)
    a, b = length / 2, width / 2
    yb = ys - bend * (xs**2 - a * a / 3)
    r = np.sqrt((xs / a) ** 2 + (yb / b) ** 2)
    alpha = _edge_alpha((1.0 - r) * b, ppm)
    height = 0.5 * width * np.sqrt(np.clip(1.0 - r * r, 0.0, 1.0))
    lam, spec = _shade(height, ppm, light, rng.uniform(0.5, 0.9), rng.uniform(25, 60))
    base = np.asarray(colour, np.float32)
    body = base[None, None, :] * (0.45 + 0.7 * lam[:, :, None])
    # A translucent sugar shell: a little mottling, and the highlight on top.
    mottle = cv2.GaussianBlur(rng.standard_normal(alpha.shape).astype(np.float32), (0, 0),
                              1.2 * ppm)
    body *= (1.0 + 0.15 * mottle)[:, :, None]
    col = body + spec[:, :, None]
    return Cutout(np.clip(col, 0, 1.6).astype(np.float32), alpha)


def _chick_sdf(xs: np.ndarray, ys: np.ndarray, length: float, width: float) -> np.ndarray:
    """Signed distance (mm, positive inside) of a peep seen from above, head towards +x.

    A body ellipse, a round head at the front and a short tail at the back, joined
    smoothly (a smooth union of the three shapes' distances).
    """
    body_a, body_b = 0.40 * length, width / 2
    bx = xs + 0.08 * length
    body = body_b * (1.0 - np.sqrt((bx / body_a) ** 2 + (ys / body_b) ** 2))
    head_r = 0.40 * width
    hx = xs - (0.5 * length - head_r)
    head = head_r - np.sqrt(hx**2 + ys**2)
    tail_r = 0.16 * width
    tx = xs + (0.5 * length - tail_r)
    tail = tail_r - np.sqrt(tx**2 + (ys * 1.4) ** 2)
    k = 4.0  # smooth-max: a soft join, like one squeezed marshmallow
    return k * np.log(np.exp(body / k) + np.exp(head / k) + np.exp(tail / k))


def peep_sprite(colour: np.ndarray, rng: np.random.Generator, ppm: float,
                light: np.ndarray | None = None) -> Cutout:
    """A marshmallow chick about 60 x 35 mm: puffy shading, sugar grains, two brown eyes."""
    length = PEEP_MM[0] * rng.uniform(0.95, 1.05)
    width = PEEP_MM[1] * rng.uniform(0.95, 1.05)
    light = light_direction(rng) if light is None else light
    xs, ys = _grid(length + 4, length + 4, ppm)
    sdf = _chick_sdf(xs, ys, length, width)
    alpha = _edge_alpha(sdf, ppm)
    height = 14.0 * np.sqrt(np.clip(sdf / (width / 2), 0, 1))
    lam, spec = _shade(height, ppm, light, 0.12, 6.0)
    base = np.asarray(colour, np.float32)
    body = base[None, None, :] * (0.55 + 0.55 * lam[:, :, None])
    grain = rng.standard_normal(alpha.shape).astype(np.float32)
    body *= (1.0 + 0.07 * grain)[:, :, None]
    sparkle = (rng.uniform(size=alpha.shape) > 0.995).astype(np.float32)
    sparkle = cv2.GaussianBlur(sparkle, (0, 0), 0.6) * 3.0
    col = body + (spec + 0.25 * sparkle)[:, :, None]
    # Eyes: small dark dots either side of the head.
    eye = np.zeros_like(alpha)
    hx = 0.5 * length - 0.40 * width
    for side in (-1, 1):
        d = np.sqrt((xs - hx - 2.0) ** 2 + (ys - side * 0.22 * width) ** 2)
        eye = np.maximum(eye, _edge_alpha(1.3 - d, ppm))
    col = col * (1 - eye[:, :, None]) + np.array([0.02, 0.03, 0.05], np.float32) * eye[:, :, None]
    return Cutout(np.clip(col, 0, 1.6).astype(np.float32), alpha)


def understudy_sprite(colour: np.ndarray, rng: np.random.Generator, ppm: float) -> Cutout:
    """A printed stand-in for a peep: a white card with the chick printed flat in colour."""
    card_w, card_h = 66.0, 42.0
    xs, ys = _grid(card_w + 2, card_w + 2, ppm)
    corner = 5.0
    qx = np.abs(xs) - (card_w / 2 - corner)
    qy = np.abs(ys) - (card_h / 2 - corner)
    outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
    rect = corner - outside - np.minimum(np.maximum(qx, qy), 0)
    alpha = _edge_alpha(rect, ppm)
    sdf = _chick_sdf(xs, ys, 58.0, 34.0)
    fill = _edge_alpha(sdf, ppm)
    outline = _edge_alpha(0.5 - np.abs(sdf), ppm)
    paper = np.full(alpha.shape + (3,), 0.86, np.float32)
    ink = np.asarray(colour, np.float32) * (1.0 + 0.03 * rng.standard_normal(alpha.shape + (1,)))
    col = paper * (1 - fill[:, :, None]) + ink * fill[:, :, None]
    col = col * (1 - outline[:, :, None]) + 0.04 * outline[:, :, None]
    eye = _edge_alpha(1.6 - np.sqrt((xs - 18.0) ** 2 + (ys - 4.0) ** 2), ppm)
    col = col * (1 - eye[:, :, None]) + 0.03 * eye[:, :, None]
    return Cutout(col.astype(np.float32), alpha)


def egg_sprite(colour: np.ndarray, rng: np.random.Generator, ppm: float,
               diameter_mm: float, light: np.ndarray | None = None) -> Cutout:
    """Half a plastic egg, dome up: a glossy, nearly round shell ``diameter_mm`` across."""
    light = light_direction(rng) if light is None else light
    a = diameter_mm / 2
    b = a * rng.uniform(0.9, 1.0)
    xs, ys = _grid(diameter_mm + 2, diameter_mm + 2, ppm)
    r = np.sqrt((xs / a) ** 2 + (ys / b) ** 2)
    alpha = _edge_alpha((1.0 - r) * b, ppm)
    height = 0.8 * a * np.sqrt(np.clip(1.0 - r * r, 0.0, 1.0))
    lam, spec = _shade(height, ppm, light, rng.uniform(0.6, 1.0), rng.uniform(40, 90))
    base = np.asarray(colour, np.float32)
    col = base[None, None, :] * (0.5 + 0.6 * lam[:, :, None]) + spec[:, :, None]
    return Cutout(np.clip(col, 0, 1.6).astype(np.float32), alpha)


def token_sprite(colour: np.ndarray, rng: np.random.Generator, ppm: float,
                 diameter_mm: float) -> Cutout:
    """A flat card or plastic token: a disc with a darker printed ring and star."""
    r0 = diameter_mm / 2
    xs, ys = _grid(diameter_mm + 2, diameter_mm + 2, ppm)
    d = np.sqrt(xs**2 + ys**2)
    alpha = _edge_alpha(r0 - d, ppm)
    base = np.asarray(colour, np.float32)
    ring = _edge_alpha(1.2 - np.abs(d - 0.8 * r0), ppm)
    ang = np.arctan2(ys, xs) + rng.uniform(0, 2 * math.pi)
    star = _edge_alpha(0.35 * r0 * (1 + 0.45 * np.cos(5 * ang)) - d, ppm)
    mark = np.maximum(ring, star)[:, :, None]
    col = base * (1 - mark) + base * 0.55 * mark
    col *= (1.0 + 0.02 * rng.standard_normal(alpha.shape + (1,))).astype(np.float32)
    return Cutout(np.clip(col, 0, 1).astype(np.float32), alpha)


EGG_DOME_MM = 28.0  # an egg half standing on its cut face


def lift_mm(at_mm, height_mm: float, eye_mm) -> tuple[float, float]:
    """Where on the table plane the camera at ``eye_mm`` (x, y, height) sees the point
    ``height_mm`` above table point ``at_mm``: beyond it, away from the camera.

    >>> lift_mm((100.0, 0.0), 10.0, (0.0, 0.0, 510.0))
    (102.0, 0.0)
    """
    ex, ey, eh = (float(v) for v in eye_mm)
    k = height_mm / (eh - height_mm)
    return at_mm[0] + (at_mm[0] - ex) * k, at_mm[1] + (at_mm[1] - ey) * k


def middle_seen_mm(kind: str, at_mm, eye_mm) -> tuple[float, float]:
    """Where the camera at ``eye_mm`` sees the middle of a ``kind`` of piece standing at
    table point ``at_mm`` (its foot), as drawn: one picture lifted to its middle's height
    (not an egg half's slices).

    >>> middle_seen_mm("bean", (100.0, 0.0), (0.0, 0.0, 555.5))
    (101.0, 0.0)
    """
    slices = seen_slices(kind)
    if len(slices) != 1:
        raise ValueError(f"a {kind} is drawn as slices, not one picture")
    return lift_mm(at_mm, slices[0][0], eye_mm)


def seen_slices(kind: str) -> tuple[tuple[float, float], ...]:
    """How to draw a piece, pictured from straight above, for a camera that is not: its
    picture at these heights (mm) and scales, lowest first. A bean lying down or a peep's
    body is round like an egg on its side, and its outline from any side is about its
    widest slice's, lifted to its middle (a bean about 11 mm tall, a peep's body about
    28 mm with its head above). An egg half stands on its cut face: its dome narrows from
    its foot up.

    >>> seen_slices("bean")
    ((5.5, 1.0),)
    >>> [(z, round(k, 2)) for z, k in seen_slices("egg")]
    [(0.0, 1.0), (7.0, 0.97), (14.0, 0.87), (21.0, 0.66)]
    """
    if kind == "egg":
        return tuple((z, math.sqrt(1.0 - (z / EGG_DOME_MM) ** 2))
                     for z in (0.0, 7.0, 14.0, 21.0))
    return (({"bean": 5.5, "peep": 15.0, "understudy": 0.2, "token": 0.5}[kind], 1.0),)


def shadow_height_mm(kind: str) -> float:
    """How high a piece stands, which sets how far its shadow falls."""
    return {"bean": 5.0, "peep": 14.0, "understudy": 0.4, "egg": 18.0, "token": 1.0}[kind]
