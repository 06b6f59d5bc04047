"""Rendered photos of a Petri (Chinese checkers) board, with their ground truth.

Three board styles: ``wood`` (a round wooden board, dark drilled holes, glass
marbles), ``plastic`` (a hexagonal plastic board, small peg holes, pegs seen
from above) and ``print`` (the A3 sheet of ``companion print petri-board`` with
marbles on it). Pieces of 2-6 players grow as connected groups from their homes
towards the centre, as Petri's placing rule makes them. A third of the frames
have a hand over the board. The board is drawn top-down in mm, the camera is a
random pinhole tilted 0-45 degrees, then light, blur, noise and JPEG are
applied. Everything is drawn from one seed, so a frame is the same every run.

:func:`render_card` renders the colour card with one marble (or peg) of each
player on its bean spot, so a profile is made as a user would make it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.geometry import apply_h
from vision.petri.holes import HOLE_NAMES, HOLES, TIPS, home_of, on_star, ring
from vision.petri.print_board import PITCH_MM as PRINT_PITCH_MM
from vision.petri.print_board import board_image, board_layout
from vision.render.camera import random_camera
from vision.render.card_scene import render_card_scene
from vision.render.cutouts import Cutout
from vision.render.layers import random_hand
from vision.render.light import develop_frame, to_linear
from vision.render.palette import FAMILIES, linear_bgr
from vision.render.sprites import light_direction

if TYPE_CHECKING:
    from calibration.profile import Profile

STYLES = ("wood", "plastic", "print")
WORLD_PPM = 2.0  # px per mm of the top-down board picture (frames show ~1.6 px per mm)
PLAYERS = tuple(f.name for f in FAMILIES)  # red, orange, yellow, green, blue, purple
USUAL_HOMES = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
STRANGER = (235, 235, 240)  # a white marble: no player's colour
_D = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


@dataclass
class PetriFrame:
    """A rendered frame and what is really on it."""

    image: np.ndarray  # BGR uint8
    style: str
    pitch_mm: float
    homes: dict[str, int]  # player -> home k
    pieces: dict[str, str]  # hole name -> player (or "stranger")
    occluded: set[str] = field(default_factory=set)  # more than half under a hand
    touched: set[str] = field(default_factory=set)  # partly under a hand (either reading is right)
    tilt_deg: float = 0.0
    homography: np.ndarray | None = None  # board mm (centre hole at 0, 0) -> image


def _qr(hole: str) -> tuple[int, int]:
    q, r = hole.split(",")
    return int(q), int(r)


def _hole_xy(q: int, r: int, pitch: float) -> tuple[float, float]:
    return (math.sqrt(3) / 2 * pitch * q, pitch * (r + q / 2))


def grow_positions(rng: np.random.Generator, homes: dict[str, int], counts: dict[str, int]
                   ) -> dict[tuple[int, int], str]:
    """Each player's pieces as a connected group from a hole of its home inwards."""
    board: dict[tuple[int, int], str] = {}
    for player, k in homes.items():
        home = [h for h in HOLES if home_of(*h) == k and h not in board]
        start = home[int(rng.integers(len(home)))]
        group = [start]
        board[start] = player
        while len(group) < counts[player]:
            frontier = sorted({(q + dq, r + dr) for q, r in group for dq, dr in _D
                               if on_star(q + dq, r + dr) and (q + dq, r + dr) not in board})
            if not frontier:
                break
            # Prefer holes towards the centre a little: the groups reach into the middle.
            w = np.array([1.0 / (1 + ring(*h)) for h in frontier])
            pick = frontier[int(rng.choice(len(frontier), p=w / w.sum()))]
            board[pick] = player
            group.append(pick)
    return board


def _disc(canvas: np.ndarray, centre_px, radius_px: float, colour, alpha: float = 1.0,
          soft: float = 0.7) -> None:
    """An anti-aliased filled disc (linear BGR) blended into ``canvas`` (soft edge in px)."""
    cx, cy = centre_px
    r = radius_px + 2 * soft + 1
    x0, y0 = max(int(cx - r), 0), max(int(cy - r), 0)
    x1, y1 = min(int(cx + r) + 2, canvas.shape[1]), min(int(cy + r) + 2, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d = np.sqrt((xs - cx) ** 2 + (ys - cy) ** 2)
    a = np.clip((radius_px - d) / max(soft, 0.3) + 0.5, 0, 1)[:, :, None] * alpha
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + np.asarray(colour, np.float32) * a


def piece_sprite(colour: np.ndarray, radius_px: float, glass: bool, light: np.ndarray,
                 rng: np.random.Generator) -> Cutout:
    """A marble (glass: dark rim, bright caustic, sharp highlight) or a peg head from above."""
    n = int(math.ceil(radius_px)) * 2 + 5
    c = (n - 1) / 2
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    dx, dy = (xs - c) / radius_px, (ys - c) / radius_px
    rr = np.sqrt(dx**2 + dy**2)
    alpha = np.clip((1 - rr) * radius_px + 0.5, 0, 1).astype(np.float32)
    nz = np.sqrt(np.clip(1 - rr**2, 0, 1))
    lam = np.clip(dx * light[0] + dy * light[1] + nz * light[2], 0, 1)
    base = np.asarray(colour, np.float32)
    if glass:
        # Light passes through: the far side glows (a caustic), the rim is dark.
        caustic = np.exp(-((dx + 0.45 * light[0]) ** 2 + (dy + 0.45 * light[1]) ** 2) / 0.18)
        body = base * (0.55 + 0.35 * lam[:, :, None] + 0.35 * caustic[:, :, None])
        body *= (1 - 0.35 * np.clip(rr - 0.7, 0, 1) / 0.3)[:, :, None]
        shine = 0.9 * np.exp(-((dx - 0.45 * light[0]) ** 2 + (dy - 0.45 * light[1]) ** 2) / 0.012)
    else:
        body = base * (0.6 + 0.45 * lam[:, :, None])
        shine = 0.35 * np.exp(-((dx - 0.4 * light[0]) ** 2 + (dy - 0.4 * light[1]) ** 2) / 0.03)
    body = body * (1 + 0.03 * rng.standard_normal((n, n, 1)).astype(np.float32))
    return Cutout(np.clip(body + shine[:, :, None], 0, 1.5).astype(np.float32), alpha)


def _paste(canvas: np.ndarray, sprite: Cutout, centre_px, shadow_off, shadow: float) -> None:
    h, w = sprite.alpha.shape
    x0, y0 = round(centre_px[0] - (w - 1) / 2), round(centre_px[1] - (h - 1) / 2)
    for colour, alpha, off in ((None, cv2.GaussianBlur(sprite.alpha, (0, 0), w / 10), shadow_off),
                               (sprite.colour, sprite.alpha, (0, 0))):
        xa, ya = x0 + round(off[0]), y0 + round(off[1])
        cx0, cy0 = max(xa, 0), max(ya, 0)
        cx1, cy1 = min(xa + w, canvas.shape[1]), min(ya + h, canvas.shape[0])
        if cx1 <= cx0 or cy1 <= cy0:
            continue
        a = alpha[cy0 - ya:cy1 - ya, cx0 - xa:cx1 - xa, None]
        roi = canvas[cy0:cy1, cx0:cx1]
        if colour is None:
            roi *= 1 - shadow * a
        else:
            roi[:] = roi * (1 - a) + colour[cy0 - ya:cy1 - ya, cx0 - xa:cx1 - xa] * a


def _wood(rng: np.random.Generator, size: int) -> np.ndarray:
    """Wood: a warm base with long grain stripes and slow blotches."""
    base = np.array([0.10, 0.22, 0.42], np.float32) * rng.uniform(0.55, 1.2)
    y = np.arange(size, dtype=np.float32)[:, None] * np.ones((1, size), np.float32)
    wobble = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (size, size),
                        interpolation=cv2.INTER_CUBIC) * 25
    grain = np.sin((y + wobble) * rng.uniform(0.15, 0.35)) * 0.08
    fine = cv2.GaussianBlur(rng.standard_normal((size, size)).astype(np.float32), (0, 0), 3,
                            sigmaY=0.6) * 0.15
    tex = 1 + grain + fine
    return np.clip(tex[:, :, None] * base, 0, 1).astype(np.float32)


def _board_world(rng: np.random.Generator, style: str, pitch: float, size: int,
                 holes_px: np.ndarray) -> np.ndarray:
    """The board (and table round it) top-down, world pixels, linear BGR."""
    from vision.render.layers import table_texture

    world = table_texture(rng, (size, size))
    c = (size - 1) / 2
    if style == "print":
        sheet = _sheet() * rng.uniform(0.8, 0.9) + 0.02
        h, w = sheet.shape[:2]
        lay = board_layout()
        x0 = round(c - lay.centre_mm[0] * WORLD_PPM + 0.5)
        y0 = round(c - lay.centre_mm[1] * WORLD_PPM + 0.5)
        world[y0:y0 + h, x0:x0 + w] = sheet
        return world
    mask = np.zeros((size, size), np.uint8)
    if style == "wood":
        radius = 9.4 * pitch * WORLD_PPM
        cv2.circle(mask, (round(c * 16), round(c * 16)), round(radius * 16), 255, -1,
                   cv2.LINE_AA, 4)
        surface = _wood(rng, size)
        hole_r, hole_col = 0.24 * pitch, np.array([0.02, 0.025, 0.03], np.float32)
    else:
        radius = 9.8 * pitch * WORLD_PPM
        ang = np.radians(np.arange(6) * 60 + 30 + 0.0)
        hexa = np.stack([c + radius * np.cos(ang), c + radius * np.sin(ang)], axis=1)
        cv2.fillPoly(mask, [np.round(hexa * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        tones = [(0.80, 0.80, 0.78), (0.55, 0.60, 0.62), (0.45, 0.30, 0.12), (0.15, 0.15, 0.15)]
        tone = np.array(tones[rng.integers(len(tones))], np.float32) * rng.uniform(0.85, 1.05)
        surface = np.ones((size, size, 3), np.float32) * tone
        hole_r = 0.14 * pitch
        hole_col = tone * 0.12
    a = (mask.astype(np.float32) / 255)[:, :, None]
    # A rim shadow round the board, then the board.
    shadow = _blur_small(a[:, :, 0], 6)[:, :, None]
    world *= 1 - 0.5 * shadow
    world[:] = world * (1 - a) + surface * a
    for x, y in holes_px:
        _disc(world, (x, y), hole_r * WORLD_PPM, hole_col, 1.0, 1.2)
    return world


@lru_cache(maxsize=1)
def _sheet() -> np.ndarray:
    """The printed board at WORLD_PPM, drawn at twice that and averaged, linear light."""
    sheet = to_linear(board_image(WORLD_PPM * 2))
    return cv2.resize(sheet, (round(420 * WORLD_PPM), round(297 * WORLD_PPM)),
                      interpolation=cv2.INTER_AREA)


def _blur_small(img: np.ndarray, sigma: float, factor: int = 4) -> np.ndarray:
    """A wide Gaussian blur computed at 1/factor size (cheap, and just as smooth)."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (w // factor, h // factor), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / factor)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _colour(name: str) -> np.ndarray:
    if name == "stranger":
        return linear_bgr(STRANGER)
    return linear_bgr(next(f.bean for f in FAMILIES if f.name == name))


def render_petri(seed: int, style: str | None = None, players: int | None = None,
                 size: tuple[int, int] = (1280, 720), max_tilt_deg: float = 45.0,
                 hand: bool | None = None, kelvin: float | None = None,
                 stranger: bool = False, fill: tuple[float, float] = (0.75, 0.98),
                 shift: tuple[float, float] = (0.0, 0.0),
                 position: tuple[Mapping[str, str], Mapping[str, int]] | None = None,
                 shot: int = 0) -> PetriFrame:
    """One frame; unset choices are drawn from the seed. ``shift`` moves the board by that
    share of the frame (a board half out of view); ``stranger`` adds a white marble.

    ``position`` gives the pieces (hole name -> player) and the players' homes instead of
    drawing them: the board, the camera and the lamp still come from ``seed`` alone, so
    the frames of one game (the demo's) are taken by one fixed camera, and ``shot``
    draws only the pieces' small offsets and the sensor's noise of each."""
    rng = np.random.default_rng(seed)
    style = style or STYLES[int(rng.integers(len(STYLES)))]
    n = len(position[1]) if position is not None else players or int(rng.integers(2, 7))
    hand = bool(rng.uniform() < 1 / 3) if hand is None else hand
    kelvin = kelvin or float(rng.uniform(3000, 6500))
    pitch = PRINT_PITCH_MM if style == "print" else float(rng.uniform(22, 25))
    if position is None:
        names = list(PLAYERS)
        rng.shuffle(names)
        names = names[:n]
        homes = dict(zip(names, USUAL_HOMES[n], strict=True))
        counts = {p: int(rng.integers(1, 16)) for p in names}
        board = grow_positions(rng, homes, counts)
        prng = rng  # one stream: every frame of the bench is as it always was
    else:
        homes = dict(position[1])
        board = {_qr(h): p for h, p in position[0].items()}
        prng = np.random.default_rng([seed, shot])
    if stranger:
        free = [h for h in HOLES if h not in board]
        board[free[int(rng.integers(len(free)))]] = "stranger"

    half_mm = 225.0 if style == "print" else 10.5 * pitch
    size_px = int(2 * half_mm * WORLD_PPM)
    c = (size_px - 1) / 2
    holes_px = np.array([_hole_xy(q, r, pitch) for q, r in HOLES]) * WORLD_PPM + c
    world = _board_world(rng, style, pitch, size_px, holes_px)
    light = light_direction(rng)
    glass = style != "plastic"
    radius = (0.35 if glass else 0.22) * pitch * WORLD_PPM
    off = -light[:2] / light[2] * (0.25 * pitch * WORLD_PPM)
    for (q, r), who in board.items():
        x, y = holes_px[HOLES.index((q, r))]
        jitter = prng.normal(0, 0.02 * pitch * WORLD_PPM, 2)  # a marble rests a little off
        sprite = piece_sprite(_colour(who), radius * prng.uniform(0.95, 1.05), glass, light,
                              prng)
        _paste(world, sprite, (x + jitter[0], y + jitter[1]), off, 0.45)

    # A hand reaching in over the board: drawn top-down, with its shadow.
    hand_mask = np.zeros((size_px, size_px), np.uint8)
    if hand:
        target = np.array(_hole_xy(*HOLES[int(rng.integers(len(HOLES)))], pitch))
        blobs = random_hand(rng, tuple(target))
        shadow = np.zeros_like(hand_mask)
        sh = -light[:2] / light[2] * 30 * WORLD_PPM
        for b in blobs:
            pts = b.outline_mm * WORLD_PPM + c
            cv2.fillPoly(hand_mask, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
            cv2.fillPoly(shadow, [np.round((pts + sh) * 16).astype(np.int32)], 255,
                         cv2.LINE_AA, 4)
        s = _blur_small(shadow.astype(np.float32) / 255, 12)
        world *= (1 - 0.4 * s)[:, :, None]
        a = (hand_mask.astype(np.float32) / 255)[:, :, None]
        low = rng.standard_normal((size_px // 40, size_px // 40)).astype(np.float32)
        shade = cv2.resize(low, (size_px, size_px), interpolation=cv2.INTER_CUBIC
                           )[:, :, None] * 0.12 + 1
        world[:] = world * (1 - a) + blobs[0].colour * np.clip(shade, 0.6, 1.3) * a

    pieces = {f"{q},{r}": who for (q, r), who in board.items()}
    occluded: set[str] = set()
    touched: set[str] = set()
    if hand:
        # The share of each hole's disc (a piece's size) under the hand, from 9 x 9 samples.
        hr = 0.36 * pitch * WORLD_PPM
        g = np.linspace(-hr, hr, 9)
        gx, gy = np.meshgrid(g, g)
        keep = gx**2 + gy**2 <= hr * hr
        sx = np.clip(np.round(holes_px[:, :1] + gx[keep]), 0, size_px - 1).astype(int)
        sy = np.clip(np.round(holes_px[:, 1:] + gy[keep]), 0, size_px - 1).astype(int)
        cover = (hand_mask[sy, sx] > 127).mean(axis=1)
        occluded = {n for n, cv in zip(HOLE_NAMES, cover, strict=True) if cv > 0.5}
        touched = {n for n, cv in zip(HOLE_NAMES, cover, strict=True) if 0 < cv <= 0.5}

    # The camera: sees the whole star (plus the markers for the printed board).
    extent = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)
    corners = extent * ((210.0, 148.5) if style == "print" else (8.6 * pitch, 8.6 * pitch))
    cam = random_camera(rng, corners, size, max_tilt_deg, fill=fill)
    hom = cam.homography
    if shift != (0.0, 0.0):
        hom = np.array([[1, 0, shift[0] * size[0]], [0, 1, shift[1] * size[1]], [0, 0, 1]]) @ hom
    to_mm = np.array([[1 / WORLD_PPM, 0, -c / WORLD_PPM], [0, 1 / WORLD_PPM, -c / WORLD_PPM],
                      [0, 0, 1]])
    frame = cv2.warpPerspective(world, hom @ to_mm, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    image = develop_frame(frame, rng, kelvin, noise_rng=prng)
    return PetriFrame(image, style, pitch, homes, pieces, occluded, touched,
                      cam.tilt_deg, hom)


def render_card(seed: int, players: list[str], kelvin: float, glass: bool = True) -> np.ndarray:
    """The colour card with one marble (or peg) of each player on its bean spot, peep spots
    left empty, under a lamp of ``kelvin``."""
    rng = np.random.default_rng(seed)
    light = light_direction(rng)
    ppm = 4.0
    beans = [piece_sprite(_colour(p), (8.0 if glass else 5.0) * ppm, glass, light, rng)
             for p in players]
    return render_card_scene(seed, beans, [None] * len(players), kelvin)


LAMPS = (3000.0, 4500.0, 6500.0)  # the benchmark's lamps, in kelvin


def frame_spec(seed: int) -> tuple[str, float]:
    """The board style and lamp of the benchmark's (and the hole model's training) frame
    ``seed``: the three styles in turn, each under the three lamps."""
    return STYLES[seed % 3], LAMPS[(seed // 3) % 3]


def card_profile(kelvin: float, glass: bool) -> Profile:
    """The profile a user would make under this lamp: the real calibration of a rendered
    card with one marble (``glass``) or peg of each player."""
    from calibration.colour import calibrate_card
    from calibration.profile import Profile

    keys = list(PLAYERS)
    found = calibrate_card(render_card(int(kelvin) + glass, keys, kelvin, glass), keys)
    return Profile(keys, found.models, extra={"card_white": found.white.tolist()})


def project_holes(frame: PetriFrame) -> np.ndarray:
    """(121, 2) image positions of the holes (ground truth, for tests and the bench)."""
    pts = np.array([_hole_xy(q, r, frame.pitch_mm) for q, r in HOLES])
    return apply_h(frame.homography, pts)


__all__ = ["PetriFrame", "render_petri", "render_card", "project_holes", "frame_spec",
           "card_profile", "STYLES", "LAMPS", "TIPS"]
