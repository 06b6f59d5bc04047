"""Glare is not a hand: print seen through a reflection is read, print under a pale hand is
not (:mod:`vision.peepwar.print_seen`, the hidden-print rule of
:mod:`vision.peepwar.occlusion`).

A rendered table's top-down mosaic gets a broad reflection (a window's, on a laminated
tile: the image veiled towards the paper's own colour, which lifts the markers' ink past
the share of the paper the hidden-print rule takes for covered) and a pale hand (smooth,
skin-tinted, as bright as paper) over part of the same tile.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pytest

from companion.rules.peepwar.board import cells_of
from vision.peepwar import hand_net, occlusion
from vision.peepwar.mosaic import Mosaic, build_mosaic
from vision.peepwar.piece_pixels import classify
from vision.peepwar.pieces import read_pieces
from vision.peepwar.table import prepare_reader
from vision.peepwar.tiles import find_tiles
from vision.render.game_scene import families_colours, profile_for_colours, render_state

PLAYERS = ["red", "blue", "yellow"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}]
CELLS = {"0,0/c": {"supply_center": True, "pieces": {}},
         "1,0/1": {"pieces": {"blue": {"troops": 2, "peep": False}}},
         "1,0/4": {"pieces": {"yellow": {"troops": 1, "peep": True}}},
         "0,0/3": {"pieces": {"red": {"troops": 1, "peep": False}}}}
GLARE_TILE = "1,0"


@cache
def _table() -> tuple[Mosaic, object]:
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    prepare_reader(profile)
    scene = render_state({"tiles": TILES, "cells": CELLS}, families_colours(PLAYERS), 1)
    return build_mosaic(scene.frame, find_tiles(scene.frame, profile.intrinsics)), profile


def _mm_from(m: Mosaic, centre: np.ndarray) -> np.ndarray:
    h, w = m.cell_map.shape
    yy, xx = np.mgrid[0:h, 0:w]
    return np.hypot(xx - centre[0], yy - centre[1]) / m.px_per_mm


def _paper(m: Mosaic) -> np.ndarray:
    return np.median(m.image[..., :3][m.on_tiles & ~m.ink], axis=0).astype(np.float32)


def _glare(m: Mosaic, strength: float = 0.5) -> Mosaic:
    """``m`` with a broad reflection over the whole glare tile: veiled towards the paper's
    colour (the light's), ink lifted to about 0.6 of the paper."""
    d = _mm_from(m, m.tile_centres_px[(1, 0)])
    g = (strength * np.clip((80 - d) / 15, 0, 1))[..., None].astype(np.float32)
    img = m.image.astype(np.float32)
    img[..., :3] = img[..., :3] * (1 - g) + _paper(m) * g
    return dataclasses.replace(m, image=np.clip(np.round(img), 0, 255).astype(np.uint8))


def _pale_hand(m: Mosaic) -> tuple[Mosaic, np.ndarray]:
    """``m`` with a pale finger laid over the glare tile's outer markers (a strip 22 mm
    wide, skin-tinted, as bright as the paper, softly shaded), and its mask."""
    cx, cy = m.tile_centres_px[(1, 0)]
    s = m.px_per_mm
    h, w = m.cell_map.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # A strip from the tile's middle out past its right-hand side, 22 mm wide.
    along = (xx - cx) / s
    across = np.abs(yy - cy) / s
    inside = np.clip((11 - across) / 1.5, 0, 1) * np.clip((along - 25) / 1.5, 0, 1)
    skin = _paper(m) * np.array([0.92, 0.96, 1.0], np.float32)  # BGR: a little warmer
    shade = (1.0 - 0.06 * (across / 11) ** 2)[..., None]
    img = m.image.astype(np.float32)
    a = inside[..., None]
    img[..., :3] = img[..., :3] * (1 - a) + skin * shade * a
    return (dataclasses.replace(m, image=np.clip(np.round(img), 0, 255).astype(np.uint8)),
            inside > 0.5)


def _occluded(m: Mosaic, profile) -> set[str]:
    return {name for name, c in read_pieces(m, profile).cells.items() if c.occluded}


def _under(m: Mosaic, mask: np.ndarray) -> set[str]:
    """Cells with at least 5 % of their area under ``mask``."""
    out = set()
    for i, name in enumerate(m.cell_names):
        cell = m.cell_map == i
        if cell.any() and (mask & cell).sum() >= 0.05 * cell.sum():
            out.add(name)
    return out


def test_print_seen_through_a_reflection_is_not_a_hand(monkeypatch) -> None:
    """The reflection lifts the ink past the hidden-print share over the whole tile (the
    rule alone would occlude its cells); the print still shows as print, so no cell is
    occluded and the pieces are read."""
    m, profile = _table()
    glared = _glare(m)
    px = classify(glared, profile)
    assert px.print_hidden.sum() >= 1000 * m.px_per_mm**2  # the glare hides the ink ...
    monkeypatch.setattr(occlusion, "GLARE_SHARE", 2.0)  # ... and, never seen through,
    monkeypatch.setattr(hand_net, "available", lambda: False)  # (the rules alone)
    assert len(_occluded(glared, profile) & set(cells_of((1, 0)))) >= 4  # it is a "hand"
    monkeypatch.undo()
    reading = read_pieces(glared, profile)
    assert not any(c.occluded for c in reading.cells.values())
    blue = reading.cells["1,0/1"].to_json()
    assert blue["pieces"] == {"blue": {"troops": 2, "peep": False}}


@pytest.mark.parametrize("glare", [False, True])
def test_a_pale_hand_over_print_stays_occluded(glare: bool) -> None:
    """A pale finger over the markers hides their print: its cells are occluded, with or
    without the reflection over the same tile; the cells it does not reach are not."""
    m, profile = _table()
    hand, mask = _pale_hand(_glare(m) if glare else m)
    under = _under(m, mask)
    assert under
    occluded = _occluded(hand, profile)
    assert under <= occluded
    assert occluded <= under | {c for c in cells_of((1, 0)) if c not in under}
