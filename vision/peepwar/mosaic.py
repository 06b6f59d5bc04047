"""One top-down image of all the tiles in the table frame, with maps of what is printed where.

Pieces are read in table millimetres: a bean is 20 x 13 mm wherever it lies,
and a piece that spills from one tile onto the next is still one piece. The
frame is warped once into a mosaic of the tiles at ``PX_PER_MM`` (1 px/mm: what
the bean net reads, :mod:`vision.peepwar.bean_net`), alongside:

- ``cell_map``: which cell each pixel lies in (index into ``cell_names``), -1 off the tiles;
- ``ink``: where the tiles' printed art is dark (lines, digits, markers), from the
  tiles' own art placed at each tile's fitted pose, grown a little for fit error;
- ``solid``: where the art is solid black (the markers' squares), shrunk for fit
  error: where a pixel there is not dark, something lies over the print;
- ``in_frame``: which pixels the camera really saw.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM, cells_of, hexagon_mm, parse_cell
from vision.geometry import apply_h, pixels_in
from vision.kit_layout import CENTRAL_SLOTS, tile_slots
from vision.peepwar.cells import slot_outline_mm
from vision.peepwar.print_fit import FIT_MAX_MARKERS, fit_to_print
from vision.peepwar.tile_art import tile_image, tile_image_size
from vision.peepwar.tiles import TableView, TileDetection
from vision.viewpoint import CameraAbove, camera_above

ART_PX_PER_MM = 2.0
# The bean net reads the table at 1 px/mm; a finer mosaic (the frame's own resolution, up
# to 1.75 px/mm at 1920x1080) read no better and cost a third of a 1920x1080 frame's time.
PX_PER_MM = 1.0
INK_GROW_MM = 1.0
SOLID_LEVEL = 60  # art darker than this is solid print ...
SOLID_SHRINK_MM = 1.0  # ... kept this far inside it (fit error; thin strokes go)
TILE_EDGE_MM = 1.5  # pixels this close to a tile's cut edge may show the table: left out
OVERLAP_GROW_PX = 1.5  # overlapping tiles: the later one taken this much larger to split


@lru_cache(maxsize=80)
def _art_grey(tile_id: int) -> np.ndarray:
    """A tile's printed art, grey, at ART_PX_PER_MM."""
    return cv2.cvtColor(tile_image(tile_id, ART_PX_PER_MM), cv2.COLOR_BGR2GRAY)


@lru_cache(maxsize=1)
def _art_to_tile() -> np.ndarray:
    """3x3 map from art pixels (at ART_PX_PER_MM, hexagon centred) to the tile's own mm."""
    aw, ah = tile_image_size(ART_PX_PER_MM)
    a = 1 / ART_PX_PER_MM
    return np.array([[a, 0, -(aw / 2 - 0.5) * a], [0, a, -(ah / 2 - 0.5) * a], [0, 0, 1]])


@lru_cache(maxsize=1)
def _hexagon() -> np.ndarray:
    """A tile's outline (mm) about its centre, unturned (read-only: shared)."""
    outline = np.asarray(hexagon_mm((0, 0), R_MM), float)
    outline.flags.writeable = False
    return outline


@lru_cache(maxsize=1)
def _cell_outlines() -> tuple[np.ndarray, list[int]]:
    """The outlines of a tile's cells, in ``cells_of`` order, stacked (mm, in the tile's
    cell frame; read-only: shared), and where to split them apart."""
    polys = [slot_outline_mm(parse_cell(name).slot) for name in cells_of((0, 0))]
    stacked = np.vstack(polys)
    stacked.flags.writeable = False
    return stacked, [int(n) for n in np.cumsum([len(p) for p in polys])[:-1]]


def preload_art(tile_ids: Iterable[int]) -> None:
    """Draw these tiles' art now (about 50 ms each), so the first frames are not slowed."""
    for i in tile_ids:
        _art_grey(int(i))


@dataclass
class Mosaic:
    image: np.ndarray  # BGR uint8, the table frame seen from above
    px_per_mm: float
    origin_mm: np.ndarray  # table mm at the centre of pixel (0, 0)
    cell_map: np.ndarray  # int16
    cell_names: list[str]
    ink: np.ndarray  # bool
    in_frame: np.ndarray  # bool
    tile_centres_px: dict[tuple[int, int], np.ndarray]
    solid: np.ndarray  # bool
    # The frame it was warped from, and mosaic pixels -> frame pixels: for looking past the
    # tiles' edges (the mosaic holds only the tiles), at a few points.
    frame: np.ndarray
    to_frame: Callable[[np.ndarray], np.ndarray]
    # Corners (4 x 2, px) of every tile's central marker (in the central cell's ring) that
    # did not place its tile: not detected (something on it, or too small to read at this
    # resolution) or dropped from the fit as an outlier.
    unseen_central_markers: list[np.ndarray]
    # Where the camera stands over the table (mosaic pixels; its height in them too): how
    # far a tall piece's top lands beyond its foot. None if the view does not tell.
    camera: CameraAbove | None = None

    def beyond(self, pts_px: np.ndarray) -> np.ndarray:
        """BGR (float) of the frame at mosaic points ``pts_px`` (N, 2), which may lie off the
        mosaic; NaN where the camera did not see."""
        pts_px = np.asarray(pts_px, float).reshape(-1, 2)
        out = np.full((len(pts_px), 3), np.nan)
        if not len(pts_px):
            return out
        xy, ok = pixels_in(self.to_frame(pts_px), self.frame.shape)
        out[ok] = self.frame[xy[ok, 1], xy[ok, 0], :3]
        return out

    def to_px(self, pts_mm) -> np.ndarray:
        return (np.asarray(pts_mm, float) - self.origin_mm) * self.px_per_mm

    def to_mm(self, pts_px) -> np.ndarray:
        return np.asarray(pts_px, float) / self.px_per_mm + self.origin_mm

    @cached_property
    def on_tiles(self) -> np.ndarray:
        """Which pixels lie on a tile (found once: the passes ask for it again and again)."""
        return self.cell_map >= 0


def build_mosaic(frame: np.ndarray, view: TableView) -> Mosaic:
    """Warp ``frame`` into the table frame, at ``PX_PER_MM``, over every tile ``view`` found."""
    if view.homography is None or not view.tiles:
        raise ValueError("no tiles placed in this frame")
    s = PX_PER_MM
    hexes = {t.hex: t.pose.apply(_hexagon()) for t in view.tiles}
    pts = np.vstack(list(hexes.values()))
    origin = pts.min(axis=0) - 2.0
    w, h = (np.ceil((pts.max(axis=0) + 2.0 - origin) * s)).astype(int) + 1
    to_mm = np.array([[1 / s, 0, origin[0]], [0, 1 / s, origin[1]], [0, 0, 1]])
    fh, fw = frame.shape[:2]
    # OpenCV interpolates four channels with SIMD and three without: warping BGRA and
    # dropping the alpha after is about twice as fast, and gives the same bytes.
    as_bgra = frame.ndim == 3 and frame.shape[2] == 3
    source = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA) if as_bgra else frame
    if view.intrinsics is None or not np.any(view.intrinsics.dist_coeffs):
        m = view.homography @ to_mm
        image = cv2.warpPerspective(source, m, (int(w), int(h)),
                                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        corners = apply_h(np.linalg.inv(m), np.array([[0, 0], [fw - 1, 0], [fw - 1, fh - 1],
                                                      [0, fh - 1]], float))
        in_frame = np.zeros((int(h), int(w)), np.uint8)
        cv2.fillPoly(in_frame, [np.round(corners).astype(np.int32)], 1)
    else:
        xs, ys = np.meshgrid(np.arange(w, dtype=float), np.arange(h, dtype=float))
        grid = np.stack([xs.ravel(), ys.ravel()], axis=1)
        src = view.to_image(apply_h(to_mm, grid)).astype(np.float32)
        mx, my = src[:, 0].reshape(h, w), src[:, 1].reshape(h, w)
        image = cv2.remap(source, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        in_frame = ((mx >= 0) & (mx <= fw - 1) & (my >= 0) & (my <= fh - 1)).astype(np.uint8)

    if as_bgra:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    tiles = [_fitted(t, image, in_frame, to_mm) for t in view.tiles]

    def px(poly_mm: np.ndarray) -> np.ndarray:
        return np.round((poly_mm - origin) * s * 8).astype(np.int32)  # 3 fractional bits

    hexes = {t.hex: t.pose.apply(_hexagon()) for t in tiles}
    names: list[str] = []
    cell_map = np.full((int(h), int(w)), -1, np.int16)
    tiles_mask = np.zeros((int(h), int(w)), np.uint8)
    outlines, ends = _cell_outlines()
    for t in tiles:
        # All of a tile's cells in one transform: cells_of order, as ``outlines`` holds them.
        on_table = np.split(px(t.cell_frame().apply(outlines)), ends)
        for name, outline in zip(cells_of(t.hex), on_table, strict=True):
            cv2.fillPoly(cell_map, [outline], len(names), cv2.LINE_8, 3)
            names.append(name)
        cv2.fillPoly(tiles_mask, [px(hexes[t.hex])], 1, cv2.LINE_8, 3)
    _split_overlaps(cell_map, tiles, [hexes[t.hex] for t in tiles], px)
    edge = max(1, int(round(TILE_EDGE_MM * s)))
    inner = cv2.erode(tiles_mask, np.ones((2 * edge + 1, 2 * edge + 1), np.uint8))
    cell_map[inner == 0] = -1

    ink = np.zeros((int(h), int(w)), np.uint8)
    solid = np.zeros((int(h), int(w)), np.uint8)
    for t in tiles:
        art = _art_grey(t.tile_id)
        box = (hexes[t.hex] - origin) * s
        x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(box.max(axis=0)).astype(int) + 2, (int(w), int(h)))
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
        m = shift @ np.linalg.inv(to_mm) @ t.pose.matrix() @ _art_to_tile()
        warped = cv2.warpAffine(art, m[:2], (int(x1 - x0), int(y1 - y0)),
                                flags=cv2.INTER_LINEAR, borderValue=255)
        ink[y0:y1, x0:x1] |= (warped < 200).astype(np.uint8)
        solid[y0:y1, x0:x1] |= (warped < SOLID_LEVEL).astype(np.uint8)
    grow = max(1, int(round(INK_GROW_MM * s)))
    ink = cv2.dilate(ink, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    shrink = max(1, int(round(SOLID_SHRINK_MM * s)))
    solid = cv2.erode(solid, np.ones((2 * shrink + 1, 2 * shrink + 1), np.uint8))
    centres = {t.hex: (np.array([t.pose.x, t.pose.y]) - origin) * s for t in tiles}
    unseen = [(t.pose.apply(slot.corners_mm) - origin) * s
              for t in tiles for slot in tile_slots()[CENTRAL_SLOTS]
              if slot.slot not in t.markers_seen]
    camera = camera_above(view.homography @ to_mm, view.frame_size,
                          None if view.intrinsics is None else view.intrinsics.camera_matrix)
    return Mosaic(image, s, origin, cell_map, names, ink > 0, in_frame > 0, centres, solid > 0,
                  frame, lambda pts: view.to_image(apply_h(to_mm, pts)), unseen, camera)


def _outward_normals(outline_mm: np.ndarray) -> np.ndarray:
    """The outward unit normals (n x 2) of the convex ``outline_mm``'s edges."""
    edge = np.roll(outline_mm, -1, axis=0) - outline_mm
    normal = np.stack([edge[:, 1], -edge[:, 0]], axis=1) / np.linalg.norm(edge, axis=1)[:, None]
    return -normal if np.dot(normal[0], outline_mm[0] - outline_mm.mean(axis=0)) < 0 else normal


def _split_overlaps(cell_map: np.ndarray, tiles: list[TileDetection],
                    outlines_mm: list[np.ndarray], px: Callable[[np.ndarray], np.ndarray]
                    ) -> None:
    """Where two tiles overlap, give each pixel to the tile it lies deeper inside.

    Painted in turn, the later tile would take all of the overlap, and a bean lying
    just off its edge (on the other tile, a pixel's rounding away) would be counted
    in its cell. Split where the two edges that face each other are equally far, the
    overlap goes to neither tile's edge, however the tiles are turned.
    """
    per_tile = len(cells_of((0, 0)))
    outlines, ends = _cell_outlines()
    reach = 4 * R_MM
    # Tile j's outline grown by a pixel and a half: its fill took the pixels its edge
    # crosses, which tile i's overlap, cut exactly, would not.
    grow = 1 + OVERLAP_GROW_PX / PX_PER_MM / (R_MM * math.sqrt(3) / 2)
    centres = [np.array([t.pose.x, t.pose.y]) for t in tiles]
    apart = 2 * R_MM * grow
    exact = [o.astype(np.float32) for o in outlines_mm]
    normals: dict[int, np.ndarray] = {}
    cells: dict[int, list[np.ndarray]] = {}
    for j in range(1, len(tiles)):
        cj = centres[j]
        grown = (cj + (outlines_mm[j] - cj) * grow).astype(np.float32)
        for i in range(j):
            if np.hypot(*(cj - centres[i])) > apart:
                continue  # no hexagons that far apart can touch
            area, both = cv2.intersectConvexConvex(exact[i], grown)
            if area <= 0 or both is None:
                continue
            ci = centres[i]
            for t in (i, j):
                if t not in normals:
                    normals[t] = _outward_normals(outlines_mm[t])
            # Depth inside a tile, near its edge that faces the other, is its apothem
            # less n . (p - c): deeper inside i where w . p > k.
            ni = normals[i][int(np.argmax(normals[i] @ (cj - ci)))]
            nj = normals[j][int(np.argmax(normals[j] @ (ci - cj)))]
            w = nj - ni
            norm = float(np.linalg.norm(w))
            if norm < 1e-9:
                continue
            w /= norm
            k = (float(nj @ cj) - float(ni @ ci)) / norm
            mid = (ci + cj) / 2
            on = mid + w * (k - float(w @ mid))  # the split line's point nearest the two
            along = np.array([-w[1], w[0]])
            side = np.array([on + along * reach, on + along * reach + w * reach,
                             on - along * reach + w * reach, on - along * reach], np.float32)
            area, theirs = cv2.intersectConvexConvex(both, side)
            if area <= 0 or theirs is None:
                continue
            # Tile j was painted after tile i: paint tile i's cells again over its part.
            if i not in cells:
                cells[i] = [c.astype(np.float32) for c in
                            np.split(tiles[i].cell_frame().apply(outlines), ends)]
            for n, cell in enumerate(cells[i]):
                area, part = cv2.intersectConvexConvex(cell, theirs)
                if area > 0 and part is not None:
                    cv2.fillPoly(cell_map, [px(part.reshape(-1, 2).astype(float))],
                                 i * per_tile + n, cv2.LINE_8, 3)


def _fitted(tile: TileDetection, image: np.ndarray, in_frame: np.ndarray,
            to_mm: np.ndarray) -> TileDetection:
    """``tile`` with its pose fitted to its print, when few markers placed it."""
    if len(tile.markers_seen) > FIT_MAX_MARKERS:
        return tile
    pose = fit_to_print(image, in_frame > 0, to_mm, _art_grey(tile.tile_id), _art_to_tile(),
                        tile.pose)
    return tile if pose is None else replace(tile, pose=pose)
