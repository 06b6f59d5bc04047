"""The mosaic's cell map where two tiles overlap (laid by hand, one edge over the other)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.rules.peepwar.board import R_MM, parse_cell, tile_centre_mm
from vision.geometry import Pose2D
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.tiles import TableView, TileDetection

APOTHEM_MM = R_MM * math.sqrt(3) / 2


def _tile(tile_id: int, hex_: tuple[int, int], x: float, y: float, angle: float
          ) -> TileDetection:
    return TileDetection(tile_id, hex_[0], hex_[1], 0, Pose2D(x, y, angle), 0.0, 0.0, 1.0,
                         tuple(range(12)), 0.1)


def _overlapping(overlap_mm: float, later_angle: float = 0.0):
    """Tiles (0, 0) and (1, 0), the second laid after the first and pushed ``overlap_mm``
    over it; the unit vector from the first's centre to the second's."""
    c = np.array(tile_centre_mm((1, 0)))
    u = c / np.linalg.norm(c)
    b = c - u * overlap_mm
    tiles = [_tile(0, (0, 0), 0.0, 0.0, 0.0), _tile(1, (1, 0), b[0], b[1], later_angle)]
    scale, shift = 2.0, np.array([300.0, 300.0])
    hom = np.array([[scale, 0, shift[0]], [0, scale, shift[1]], [0, 0, 1]])
    frame = np.full((800, 1000, 3), 230, np.uint8)
    view = TableView((1000, 800), tiles, hom)
    return build_mosaic(frame, view), u


def _tile_at(mosaic, pt_mm) -> tuple[int, int] | None:
    x, y = np.round(mosaic.to_px(pt_mm)).astype(int)
    k = int(mosaic.cell_map[y, x])
    return None if k < 0 else parse_cell(mosaic.cell_names[k]).tile


@pytest.mark.parametrize("later_angle", [0.0, 2.0, -2.0])
def test_an_overlap_is_split_between_the_two_tiles_down_its_middle(later_angle):
    """Where tile (1, 0) lies 4 mm over tile (0, 0), a point 3 mm inside the first tile's
    edge and 1 mm inside the second's is the first tile's (a bean there lies off the
    second tile's edge but for a pixel's rounding); 3 mm inside the second's, the second's.
    Painted in turn, the later tile took the whole overlap."""
    mosaic, u = _overlapping(4.0, later_angle)
    assert _tile_at(mosaic, u * (APOTHEM_MM - 3.0)) == (0, 0)
    assert _tile_at(mosaic, u * (APOTHEM_MM - 1.0)) == (1, 0)
    # Away from the overlap, each tile keeps its own cells.
    assert _tile_at(mosaic, u * (APOTHEM_MM - 8.0)) == (0, 0)
    assert _tile_at(mosaic, u * (APOTHEM_MM + 4.0)) == (1, 0)


def test_tiles_that_only_touch_keep_their_cells_up_to_their_edges():
    mosaic, u = _overlapping(0.0)
    assert _tile_at(mosaic, u * (APOTHEM_MM - 2.5)) == (0, 0)
    assert _tile_at(mosaic, u * (APOTHEM_MM + 2.5)) == (1, 0)
