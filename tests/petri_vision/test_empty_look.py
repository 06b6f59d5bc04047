"""A player whose calibrated colour is the colour of the board's own empty holes (varnished
wood under a warm lamp beside orange marbles): the reader must not read those empty holes
as that player's pieces with confidence."""

from __future__ import annotations

import dataclasses

import numpy as np

from calibration.colour import ColourModel
from calibration.profile import Profile
from vision.petri.colours import pixel_features
from vision.petri.holes import HOLE_NAMES
from vision.petri.reader import PetriReader
from vision.render.petri import project_holes, render_petri

from .conftest import KELVIN


def board_coloured_player(frame, profile: Profile, player: str) -> Profile:
    """``profile`` with ``player``'s bean model moved onto the frame's empty holes' colour."""
    gains = 1.0 / np.asarray(profile.extra["card_white"], float)
    centres = np.round(project_holes(frame)).astype(int)
    empty = [i for i, n in enumerate(HOLE_NAMES) if n not in frame.pieces]
    px = np.concatenate([frame.image[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3)
                         for x, y in centres[empty]])
    mean = np.median(pixel_features(px, gains), axis=0)
    old = profile.colours[player]
    bean = ColourModel(mean, np.diag([0.02, 0.02, 0.04]) ** 2, old.bean.pixels)
    colours = dict(profile.colours)
    colours[player] = dataclasses.replace(old, bean=bean)
    return Profile(list(profile.players), colours, extra=dict(profile.extra))


def test_empty_holes_of_a_players_colour_are_not_read_as_that_player(marbles):
    frame = render_petri(4, style="wood", kelvin=KELVIN, hand=False)
    absent = next(p for p in marbles.players if p not in frame.pieces.values())
    reader = PetriReader(board_coloured_player(frame, marbles, absent), homes=frame.homes)
    data = reader.read(frame.image)
    confident_wrong = [n for n in HOLE_NAMES if n not in frame.pieces
                       and data["holes"].get(n, {}).get("player") == absent
                       and data["holes"][n].get("confidence", 1.0) >= 0.5]
    assert confident_wrong == []
    # The pieces that are there are still read, and the empty holes are read empty.
    for name, player in frame.pieces.items():
        assert data["holes"][name].get("player") == player
    empty_read = [n for n in HOLE_NAMES if n not in frame.pieces
                  and not data["holes"].get(n, {}).get("player")
                  and not data["holes"].get(n, {}).get("occluded")]
    assert len(empty_read) >= 0.9 * (len(HOLE_NAMES) - len(frame.pieces))


def test_the_empty_holes_colour_is_not_learnt_from_too_few_holes() -> None:
    # With 45 holes seen (a third are one player's marbles, the empty holes' colours
    # spread), the tightest group could be those marbles and a few empty holes: no fit.
    from vision.petri.read import _empty_look

    rng = np.random.default_rng(0)
    cols = np.vstack([rng.normal([0.3, 0.1, 0.4], 0.08, (30, 3)),
                      np.tile([0.6, 0.25, 0.5], (15, 1)) + rng.normal(0, 0.002, (15, 3))])
    assert _empty_look(cols, np.ones(45, bool)) is None
    many = np.vstack([rng.normal([0.3, 0.1, 0.4], 0.02, (60, 3)), cols[30:]])
    mean, _ = _empty_look(many, np.ones(75, bool))
    assert np.allclose(mean, [0.3, 0.1, 0.4], atol=0.02)
