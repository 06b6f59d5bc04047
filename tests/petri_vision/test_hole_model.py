"""The hole model: its file, how its verdict and the rules' are joined, the tilt it reads
from the homography, and the training's labels and seed ranges."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from vision.errors import ModelError
from vision.petri import hole_model
from vision.petri.hole_model import (
    CLASSES,
    DISAGREE,
    FEATURES,
    NEIGHBOURS,
    HoleMeasures,
    evidence,
    judge,
    tilt_neighbours,
)
from vision.petri.holes import HOLE_NAMES, HOLE_QR, lattice_to_mm
from vision.petri.read import read_board
from vision.petri.reader import PetriReader
from vision.petri.training import frame_samples, frames_2d, frames_3d
from vision.render.petri import render_petri

from .conftest import KELVIN

PLAYERS = ["red", "blue"]


def measures(state: list[str], confidence: float = 1.0) -> HoleMeasures:
    """Measures of a board where every hole is mostly red, a little blue."""
    n = len(HOLE_NAMES)
    shares = np.tile([0.6, 0.2], (n, 1))
    return HoleMeasures(
        shares=shares, colour=np.zeros((n, 3)), player_means=np.zeros((2, 3)),
        player_invs=np.tile(np.eye(3), (2, 1, 1)), empty_look=None, ncc=np.zeros(n),
        contrast=np.ones(n), foreign=np.zeros(n), like_surface=None,
        view=np.ones(n, bool), state=state, confidence=np.full(n, confidence),
        doubted_as_empty=np.zeros(n, bool), printed=False, placed_in_doubt=False,
        homography=lattice_to_mm(10.0))


def chances(k: int, p: float) -> np.ndarray:
    c = np.full((len(HOLE_NAMES), len(CLASSES)), (1 - p) / (len(CLASSES) - 1))
    c[:, k] = p
    return c


def test_the_model_is_taken_where_the_rules_were_not_sure():
    m = measures(["?"] * len(HOLE_NAMES), confidence=0.0)
    states, conf = judge(chances(0, 0.99), m, PLAYERS)
    assert set(states) == {"red"} and conf.min() > 0.9
    states, conf = judge(chances(2, 0.99), m, PLAYERS)  # the runner-up colour's piece
    assert set(states) == {"blue"}
    states, conf = judge(chances(1, 0.6), m, PLAYERS)  # empty, but not sure of it
    assert set(states) == {""} and conf.max() < 0.5
    states, _ = judge(chances(3, 0.9), m, PLAYERS)
    assert set(states) == {"?"}


def test_where_rules_and_model_disagree_surely_the_rules_stand_doubtfully():
    m = measures(["red"] * len(HOLE_NAMES), confidence=0.9)
    states, conf = judge(chances(1, 0.99), m, PLAYERS)
    assert set(states) == {"red"} and conf.max() <= DISAGREE
    # Agreeing, the model's own chance sets the confidence.
    states, conf = judge(chances(0, 0.99), m, PLAYERS)
    assert set(states) == {"red"} and conf.min() > 0.9


def test_holes_out_of_view_are_left_to_the_rules():
    m = measures(["?"] * len(HOLE_NAMES), confidence=0.0)
    m = replace(m, view=np.zeros(len(HOLE_NAMES), bool))
    states, _ = judge(chances(0, 0.99), m, PLAYERS)
    assert set(states) == {"?"}


def test_the_hole_in_front_is_the_one_towards_the_camera():
    # A board tilted away from the camera: rows lower in the frame (larger y) are
    # nearer it, drawn larger.
    h = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, -0.002, 1.0]]) @ lattice_to_mm(20.0)
    front, back, tilt = tilt_neighbours(h)
    centre = HOLE_NAMES.index("0,0")
    step = HOLE_QR[front[centre]] @ lattice_to_mm(1.0)[:2, :2].T
    assert step[1] > 0
    assert NEIGHBOURS[centre].tolist().count(back[centre]) == 1 and back[centre] != front[centre]
    assert tilt > 0.01
    assert tilt_neighbours(lattice_to_mm(20.0))[2] == 0.0  # seen from straight above


def test_every_measure_is_an_input_and_finite(marbles):
    frame = render_petri(4, style="wood", kelvin=KELVIN, hand=True)
    rd = PetriReader(marbles, homes=frame.homes)
    reading = read_board(frame.image, rd.print_colours, rd.card_white, rd.homes, rd.table,
                         rd.plain_colours)
    x = evidence(reading.measures)
    assert x.shape == (len(HOLE_NAMES), len(FEATURES))
    assert np.isfinite(x).all()


def test_a_missing_or_broken_model_file_is_one_clear_error(tmp_path):
    with pytest.raises(ModelError, match="missing"):
        hole_model.load.__wrapped__(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="cannot be read"):
        hole_model.load.__wrapped__(bad)
    other = json.loads(hole_model.MODEL.read_text())
    other["features"] = other["features"][:-1]
    bad.write_text(json.dumps(other))
    with pytest.raises(ModelError, match="train it again"):
        hole_model.load.__wrapped__(bad)
    # Weights of another shape, not finite, or no spread; a file that is no object.
    shipped = json.loads(hole_model.MODEL.read_text())
    for key, value in (("w2", shipped["w2"][0]), ("b1", [float("nan")] * len(shipped["b1"])),
                       ("std", [0.0] * len(shipped["std"]))):
        bad.write_text(json.dumps(shipped | {key: value}))
        with pytest.raises(ModelError, match="hole model's weights"):
            hole_model.load.__wrapped__(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(ModelError, match="cannot be read"):
        hole_model.load.__wrapped__(bad)


def test_training_labels_each_hole_by_where_it_lies(marbles):
    frame = render_petri(100_004, style="wood", kelvin=KELVIN, hand=False)
    x, y = frame_samples(frame.image, marbles, frame)
    assert x.shape == (len(y), len(FEATURES))
    # Every hole is in view and labelled: the pieces are their colour's (or the
    # runner-up's), the rest empty.
    assert len(y) == len(HOLE_NAMES)
    assert ((y == 0) | (y == 2)).sum() == len(frame.pieces)
    assert (y == 1).sum() == len(HOLE_NAMES) - len(frame.pieces)


def test_training_teaches_holes_under_a_hand_as_hidden(marbles, pegs):
    for seed in range(100_010, 100_030):
        frame = render_petri(seed, kelvin=KELVIN, hand=True)
        if len(frame.occluded | frame.touched) >= 5:
            break
    profile = pegs if frame.style == "plastic" else marbles
    x, y = frame_samples(frame.image, profile, frame)
    # Every hole is in view; those under or partly under the hand are hidden, the pieces
    # and empty holes no hand touches their own class.
    under = frame.occluded | frame.touched
    assert len(y) == len(HOLE_NAMES)
    assert (y == 3).sum() == len(under)
    assert ((y == 0) | (y == 2)).sum() == len(set(frame.pieces) - under)


def test_training_never_reads_a_held_out_seed():
    with pytest.raises(SystemExit, match="benchmark"):
        next(frames_2d(range(1_000_000, 1_000_001)))
    with pytest.raises(SystemExit, match="benchmark"):
        next(frames_2d(range(5, 6)))
    with pytest.raises(SystemExit, match="held-out"):
        next(frames_3d(range(3_500_000, 3_500_001)))
