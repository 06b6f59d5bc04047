"""Cell geometry in a frame: the image outline of every cell, and top-down views of tiles.

A cell's outline comes from the board (``cell_polygon_mm`` of a tile at the
origin), carried to where the print really lies by the tile's cell frame, then
through the frame's homography and lens. The next stage reads pieces in a
rectified tile image at a known scale, where every cell sits at a fixed place.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from companion.rules.peepwar.board import NEUTRAL, Cell, cell_polygon_mm, cells_of, parse_cell
from vision.geometry import apply_h
from vision.peepwar.tile_art import tile_image_size
from vision.peepwar.tiles import TableView, TileDetection

RECTIFIED_PX_PER_MM = 4.0


@lru_cache(maxsize=8)
def slot_outline_mm(slot: str) -> np.ndarray:
    """The outline (mm) of the cell ``slot`` of a tile at the origin, unturned (read-only)."""
    local = np.asarray(cell_polygon_mm(Cell(NEUTRAL, slot)), float)
    local.flags.writeable = False
    return local


def cell_outline_mm(tile: TileDetection, slot: str) -> np.ndarray:
    """The outline (table mm) of the cell ``slot`` ("c" or "0".."5", by table side) of a tile."""
    return tile.cell_frame().apply(slot_outline_mm(slot))


def cell_outlines(view: TableView) -> dict[str, np.ndarray]:
    """Every cell of every found tile: name -> (n, 2) outline in frame pixels.

    Vertex order is board's ``cell_polygon_mm`` order for that cell name.
    """
    out: dict[str, np.ndarray] = {}
    if view.homography is None:
        return out
    for tile in view.tiles:
        for name in cells_of(tile.hex):
            out[name] = view.to_image(cell_outline_mm(tile, parse_cell(name).slot))
    return out


def rectified_size(px_per_mm: float = RECTIFIED_PX_PER_MM) -> tuple[int, int]:
    """(width, height) of a rectified tile image: the tile with a small margin."""
    return tile_image_size(px_per_mm)


def rectified_cell_polygon(slot: str, px_per_mm: float = RECTIFIED_PX_PER_MM) -> np.ndarray:
    """A cell's outline in a rectified tile image (OpenCV pixel coordinates)."""
    w, h = rectified_size(px_per_mm)
    local = np.asarray(cell_polygon_mm(Cell(NEUTRAL, slot)), float)
    return local * px_per_mm + (w / 2 - 0.5, h / 2 - 0.5)


def rectify_tile(
    frame: np.ndarray,
    view: TableView,
    tile: TileDetection,
    px_per_mm: float = RECTIFIED_PX_PER_MM,
) -> np.ndarray:
    """A top-down image of one tile at ``px_per_mm``, its centre at the image centre.

    Axes are the table's (x right, y towards the viewer) turned by the tile's
    small placement error, so each cell lies exactly at
    :func:`rectified_cell_polygon`. Lens distortion is removed when known.
    """
    if view.homography is None:
        raise ValueError("no table geometry in this frame (the Neutral tile was not found)")
    w, h = rectified_size(px_per_mm)
    # rectified pixel -> cell-frame mm -> table mm
    to_mm = np.array([[1 / px_per_mm, 0, -(w / 2 - 0.5) / px_per_mm],
                      [0, 1 / px_per_mm, -(h / 2 - 0.5) / px_per_mm], [0, 0, 1]])
    to_table = tile.cell_frame().matrix() @ to_mm
    if view.intrinsics is None or not np.any(view.intrinsics.dist_coeffs):
        m = view.homography @ to_table
        return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT)
    xs, ys = np.meshgrid(np.arange(w, dtype=float), np.arange(h, dtype=float))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1)
    src = view.to_image(apply_h(to_table, grid)).astype(np.float32)
    return cv2.remap(frame, src[:, 0].reshape(h, w), src[:, 1].reshape(h, w), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT)


def cell_sums(at: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin of ``at`` (an h x w map of bin numbers under ``n_bins``): its pixels, and the
    sums of their columns and of their rows (float64, exact: whole numbers).

    Counted per bin and column, and per bin and row, then weighted: whole-number counts
    are several times faster than weighted ones, and the sums the same to the last bit.

    >>> at = np.array([[0, 1, 1], [2, 1, 0]])
    >>> [v.tolist() for v in cell_sums(at, 3)]
    [[2.0, 3.0, 1.0], [2.0, 4.0, 0.0], [1.0, 1.0, 1.0]]
    """
    h, w = at.shape
    per_col = np.bincount((at * w + np.arange(w)).ravel(), minlength=n_bins * w)
    per_row = np.bincount((at + n_bins * np.arange(h)[:, None]).ravel(), minlength=n_bins * h)
    per_col, per_row = per_col.reshape(n_bins, w), per_row.reshape(h, n_bins)
    area = per_col.sum(axis=1)
    return (area.astype(np.float64), (per_col @ np.arange(w)).astype(np.float64),
            (np.arange(h) @ per_row).astype(np.float64))
