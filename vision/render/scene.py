"""Render a whole synthetic frame of a Peep War table, with its ground truth.

Deterministic from a seed: the same seed and spec always give the same frame,
so tests, benchmarks and the demo can name scenes by number. These scenes test
tile finding (pieces are plain ovals); :mod:`vision.render.game_scene` renders
real games: beans, peeps and Supply Centers with the truth of every cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.rules.peepwar.board import NEUTRAL, R_MM, Cell, cells_of, hexagon_mm, parse_cell
from companion.rules.peepwar.board import cell_polygon_mm as board_cell_polygon
from vision.geometry import Pose2D, apply_h
from vision.kit_layout import tile_slots
from vision.lens import distort_points
from vision.render.camera import Camera, distort_image, random_camera
from vision.render.layers import (
    HAND,
    PIECE,
    TABLE,
    draw_blobs,
    draw_tiles,
    ellipse_mm,
    random_hand,
    random_pieces,
    table_texture,
)
from vision.render.layout import Misplacement, PlacedTile, random_layout
from vision.render.light import gradient_field, soft_mask, temperature_gains, to_srgb

MIN_VISIBLE_MARKER_PX = 14.0  # a marker smaller than this (side, pixels) cannot be read


@dataclass(frozen=True)
class SceneSpec:
    """Ranges the renderer draws each scene's parameters from (inclusive)."""

    size: tuple[int, int] = (1280, 720)
    tiles: tuple[int, int] = (1, 7)
    max_tilt_deg: float = 45.0
    tilt_deg: float | None = None  # a fixed tilt instead of a random one
    jitter_mm: float = 15.0
    jitter_deg: float = 10.0
    misplaced: Misplacement | None = None  # a crooked Neutral tile, drift along chains
    beans: tuple[int, int] = (0, 12)
    peeps: tuple[int, int] = (0, 3)
    hands: tuple[int, int] = (0, 2)
    kelvin: tuple[float, float] = (2700.0, 7000.0)
    gradient: tuple[float, float] = (0.0, 0.35)
    shadows: tuple[int, int] = (0, 2)
    blur_sigma: tuple[float, float] = (0.0, 1.0)
    noise_sigma: tuple[float, float] = (0.5, 4.0)
    jpeg_quality: tuple[int, int] = (60, 95)
    exposure: tuple[float, float] = (0.8, 1.2)
    fill: tuple[float, float] = (0.7, 0.95)
    distortion: tuple[float, ...] | None = None  # k1 k2 p1 p2 k3 of the simulated lens


@dataclass(frozen=True)
class TruthTile:
    tile_id: int
    q: int
    r: int
    pose: Pose2D  # physical pose of the printed tile in the table frame
    rotation: int  # sixths of a turn the print is turned
    visible_slots: tuple[int, ...]  # markers fully in view, unoccluded and large enough to read


@dataclass
class Truth:
    camera: Camera
    tiles: list[TruthTile]
    cell_corners_mm: dict[str, np.ndarray]  # physical cell outlines in the table frame
    cell_corners_px: dict[str, np.ndarray]  # the same points in the recorded frame
    kelvin: float
    params: dict[str, float] = field(default_factory=dict)
    # Game scenes only: what every cell holds, in the observation's own terms (cells
    # left out are empty), and the share of each cell under a hand.
    cells: dict[str, dict] = field(default_factory=dict)
    hand_cover: dict[str, float] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)
    looks: dict = field(default_factory=dict)  # player -> game_scene.PlayerLook
    pieces: list[dict] = field(default_factory=list)  # kind, player, cell, centre_mm
    # Game scenes only: the share of each cell's picture outside the frame (> 0 only).
    out_of_frame: dict[str, float] = field(default_factory=dict)


@dataclass
class Scene:
    frame: np.ndarray  # BGR uint8, as a camera would deliver it
    truth: Truth


def cell_frame(tile: PlacedTile) -> Pose2D:
    """The pose taking a lattice-standard tile frame (cells named by table side) to the table."""
    return Pose2D(tile.pose.x, tile.pose.y, tile.pose.angle_deg - 60 * tile.rotation)


def physical_cells(tile: PlacedTile) -> dict[str, np.ndarray]:
    """Outline (mm, table frame) of every cell of a placed tile, named by its lattice cell."""
    frame = cell_frame(tile)
    out = {}
    for name in cells_of(tile.hex):
        local = board_cell_polygon(Cell(NEUTRAL, parse_cell(name).slot))
        out[name] = frame.apply(np.asarray(local))
    return out


def _visible_slots(
    index: int, tile: PlacedTile, owner: np.ndarray, cam: Camera
) -> tuple[int, ...]:
    h, w = owner.shape
    seen = []
    for s in tile_slots():
        pts = apply_h(cam.homography, tile.pose.apply(s.corners_mm))
        rec = distort_points(pts, cam.camera_matrix, cam.dist_coeffs)
        if (rec < 1).any() or (rec[:, 0] > w - 2).any() or (rec[:, 1] > h - 2).any():
            continue
        side = min(np.linalg.norm(pts[i] - pts[(i + 1) % 4]) for i in range(4))
        if side < MIN_VISIBLE_MARKER_PX:
            continue
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round(pts - (x0, y0)).astype(np.int32)], 1)
        region = owner[y0:y1, x0:x1][mask > 0]
        if region.size and np.mean(region == index) >= 0.98:
            seen.append(s.slot)
    return tuple(seen)


def _uniform(rng: np.random.Generator, lo_hi) -> float:
    return float(rng.uniform(lo_hi[0], lo_hi[1]))


def _count(rng: np.random.Generator, lo_hi) -> int:
    return int(rng.integers(lo_hi[0], lo_hi[1] + 1))


def finish_frame(frame: np.ndarray, rng: np.random.Generator, spec, cam: Camera,
                 outline: np.ndarray) -> tuple[np.ndarray, float, float, int]:
    """Light, lens and sensor over a composed frame (linear reflectance) -> the camera's JPEG.

    ``spec`` supplies the ranges (kelvin, gradient, shadows, exposure, blur_sigma,
    noise_sigma, jpeg_quality); cast shadows fall around ``outline`` (table mm).
    Returns the image, the light's colour temperature, the blur and the JPEG quality.
    """
    h, w = frame.shape[:2]
    hom = cam.homography
    # Light: colour temperature, exposure, a smooth gradient and soft cast shadows.
    kelvin = _uniform(rng, spec.kelvin)
    light = gradient_field(rng, (w, h), _uniform(rng, spec.gradient))
    cast = np.zeros((h, w), np.uint8)
    for _ in range(_count(rng, spec.shadows)):
        c = outline[rng.integers(len(outline))]
        shape = ellipse_mm(c, (rng.uniform(60, 200), rng.uniform(30, 90)), rng.uniform(0, 180))
        cv2.fillPoly(cast, [np.round(apply_h(hom, shape)).astype(np.int32)], 255)
    light *= 1.0 - rng.uniform(0.3, 0.5) * soft_mask(cast, rng.uniform(4, 20))
    gains = temperature_gains(kelvin)
    if getattr(spec, "auto_exposure", False):  # the camera keeps its strongest channel in range
        gains = gains / gains.max()
    gains = gains * _uniform(rng, spec.exposure)
    frame *= light[:, :, None] * gains[None, None, :]
    image = to_srgb(frame)

    # The camera: lens, focus, sensor noise, compression.
    if np.any(cam.dist_coeffs):
        image = distort_image(image, cam.camera_matrix, cam.dist_coeffs)
    sigma = _uniform(rng, spec.blur_sigma)
    if sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    noise = rng.standard_normal(image.shape, dtype=np.float32) * _uniform(rng, spec.noise_sigma)
    image = cv2.add(image, noise, dtype=cv2.CV_8U)
    quality = _count(rng, spec.jpeg_quality)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    image = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image
    return image, kelvin, sigma, quality


def render_scene(
    seed: int, spec: SceneSpec | None = None, layout: list[PlacedTile] | None = None
) -> Scene:
    """One frame of a random table, and what is really in it.

    ``layout`` replaces the random tiles with given ones (the rest stays random).
    """
    spec = spec or SceneSpec()
    rng = np.random.default_rng(seed)
    w, h = spec.size
    tiles = random_layout(rng, _count(rng, spec.tiles), spec.jitter_mm, spec.jitter_deg,
                          misplaced=spec.misplaced)
    if layout is not None:
        tiles = list(layout)
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in tiles])
    cam = random_camera(rng, outline, spec.size, spec.max_tilt_deg, spec.fill, spec.tilt_deg)
    if spec.distortion is not None:
        cam = replace(cam, dist_coeffs=np.asarray(spec.distortion, float))
    hom = cam.homography

    # Table, then tiles, then pieces, then hands.
    frame = table_texture(rng, spec.size)
    owner = np.full((h, w), TABLE, np.int16)
    paper = (rng.uniform(0.02, 0.05), rng.uniform(0.75, 0.92))
    draw_tiles(frame, owner, tiles, hom, paper)
    pieces = random_pieces(rng, tiles, _count(rng, spec.beans), _count(rng, spec.peeps))
    draw_blobs(frame, owner, pieces, hom, rng)
    hands = []
    for _ in range(_count(rng, spec.hands)):
        over = tiles[rng.integers(len(tiles))].pose
        hands += random_hand(rng, (over.x + rng.normal(0, 40), over.y + rng.normal(0, 40)))
    draw_blobs(frame, owner, hands, hom, rng)

    image, kelvin, sigma, quality = finish_frame(frame, rng, spec, cam, outline)

    truth_tiles = []
    corners_mm: dict[str, np.ndarray] = {}
    for index, tile in enumerate(tiles):
        truth_tiles.append(TruthTile(
            tile.tile_id, tile.hex[0], tile.hex[1], tile.pose, tile.rotation,
            _visible_slots(index, tile, owner, cam),
        ))
        corners_mm.update(physical_cells(tile))
    corners_px = {
        name: distort_points(apply_h(hom, pts), cam.camera_matrix, cam.dist_coeffs)
        for name, pts in corners_mm.items()
    }
    params = {"tilt_deg": cam.tilt_deg, "blur_sigma": sigma, "jpeg_quality": quality,
              "hands": len(hands) and math.ceil(len(hands) / 7), "pieces": len(pieces),
              "piece_pixels": float(np.mean(owner == PIECE)),
              "hand_pixels": float(np.mean(owner == HAND))}
    return Scene(image, Truth(cam, truth_tiles, corners_mm, corners_px, kelvin, params))
