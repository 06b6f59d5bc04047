"""A live reader remembers where the tiles lay: a hand or a cup over the Neutral tile does not
blank the board, and tiles that have moved since are never placed by their old places."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM, hexagon_mm
from vision.peepwar.passes.assembly import DOUBT_CONFIDENCE
from vision.peepwar.reader import PeepWarReader
from vision.render.game_scene import families_colours, profile_for_colours, render_state

PLAYERS = ["red", "blue"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"},
         {"q": 0, "r": 1, "owner": "blue"}, {"q": 1, "r": -1, "owner": None},
         {"q": 2, "r": -1, "owner": "red"}]
CELLS = {"1,0/2": {"pieces": {"red": {"troops": 3}}},
         "0,1/4": {"pieces": {"blue": {"troops": 2, "peep": True}}},
         "1,-1/c": {"supply_center": True},
         "2,-1/1": {"pieces": {"red": {"troops": 2}, "blue": {"troops": 1}}},
         "2,-1/c": {"supply_center": True, "pieces": {"red": {"troops": 1, "peep": True}}}}


@cache
def _frames() -> tuple[np.ndarray, np.ndarray]:
    """The table as rendered, and the same with the Neutral tile under a sleeve-blue cover."""
    scene = render_state({"tiles": TILES, "cells": CELLS}, families_colours(PLAYERS), seed=5)
    reader = PeepWarReader(_profile())
    reader.read(scene.frame)
    outline = reader._view.to_image(np.array(hexagon_mm((0.0, 0.0), R_MM * 1.06)))
    covered = scene.frame.copy()
    cv2.fillPoly(covered, [np.round(outline).astype(np.int32)], (120, 80, 60))
    return scene.frame, covered


@cache
def _profile():
    return profile_for_colours(families_colours(PLAYERS), seed=3)


def _placed(obs: dict) -> dict[int, tuple[int, int, int]]:
    return {t["id"]: (t["q"], t["r"], t["rotation"]) for t in obs["tiles"]}


def _far_cells(obs: dict) -> dict:
    """What the cells of the tile not beside the Neutral one hold (a cover over the Neutral
    tile is a hand to the reader, and cells touching it are read as occluded). Their
    confidence is left out: a frame with a hand in it may be asked about more
    (:mod:`vision.peepwar.doubt_model`)."""
    return {c: {k: x for k, x in v.items() if k != "confidence"}
            for c, v in obs["cells"].items() if c.startswith("2,-1/")
            and (v.get("pieces") or v.get("supply_center") or v.get("occluded"))}


def _far_confidence(obs: dict) -> dict[str, float]:
    """Each far cell's confidence; a cell left out of the observation is read empty, surely."""
    listed = {c: v["confidence"] for c, v in obs["cells"].items() if c.startswith("2,-1/")}
    return {f"2,-1/{k}": listed.get(f"2,-1/{k}", 1.0) for k in ("c", *range(6))}


def test_the_neutral_tile_hidden_the_others_are_placed_where_they_lay() -> None:
    clear, covered = _frames()
    reader = PeepWarReader(_profile())
    before = reader.read(clear)
    assert 0 in _placed(before) and len(before["tiles"]) == 5
    assert set(_far_cells(before)) == {"2,-1/1", "2,-1/c"}

    after = reader.read(covered)
    was = {i: at for i, at in _placed(before).items() if i != 0}
    assert _placed(after) == was
    assert _far_cells(after) == _far_cells(before)
    # As sure as before, or asked about by the doubt model; never surer.
    was_sure = _far_confidence(before)
    assert all(after_c in (was_sure[c], DOUBT_CONFIDENCE) and after_c <= was_sure[c]
               for c, after_c in _far_confidence(after).items())
    assert any(w.startswith("the Neutral Territory (tile 0) is hidden: tiles placed by where "
                            "tile ") for w in after["warnings"])


def test_a_reader_that_never_saw_the_neutral_tile_places_nothing() -> None:
    _, covered = _frames()
    obs = PeepWarReader(_profile()).read(covered)
    assert obs["tiles"] == [] and obs["cells"] == {}
    assert any("is not in view" in w for w in obs["warnings"])


def test_tiles_never_seen_before_are_not_said_to_have_moved() -> None:
    _, covered = _frames()
    reader = PeepWarReader(_profile())
    reader.layout = {60: (3, -3, 0)}  # a tile of another table, not in view
    obs = reader.read(covered)
    assert obs["tiles"] == []
    assert not any("elsewhere" in w for w in obs["warnings"])
    assert any("is not in view" in w for w in obs["warnings"])


def test_tiles_that_moved_since_are_not_placed_by_their_old_places() -> None:
    clear, covered = _frames()
    reader = PeepWarReader(_profile())
    seen = _placed(reader.read(clear))
    # Two tiles swapped while the Neutral tile was out of sight: what is remembered of
    # them no longer agrees with how they lie round one another.
    a, b = (i for i in seen if i != 0 and seen[i][:2] in ((1, 0), (0, 1)))
    reader.layout[a], reader.layout[b] = seen[b], seen[a]
    obs = reader.read(covered)
    assert obs["tiles"] == [] and obs["cells"] == {}
    assert any(w.startswith("tiles seen before lie elsewhere now") for w in obs["warnings"])


def test_a_frame_placed_by_remembered_tiles_teaches_nothing_new() -> None:
    clear, covered = _frames()
    reader = PeepWarReader(_profile())
    reader.read(clear)
    remembered = dict(reader.layout)
    reader.read(covered)
    assert reader.layout == remembered
