"""The reader learns the table from corrections: on a rendered table, through the real
referee and camera loop, into a real examples file beside a real profile file."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.colour import ColourModel
from calibration.examples import ExampleStore, examples_path, forget_examples
from calibration.profile import PlayerColours, Profile, load_profile, save_profile
from companion.camera_setup import camera_loop
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peepwar import PeepWar
from companion.rules.peepwar.observation import CellReading, Pieces
from companion.settings import Settings
from vision.peepwar import learning
from vision.peepwar.reader import PeepWarReader, make_reader
from vision.render.game_scene import families_colours, profile_for_colours, render_state

PLAYERS = ["red", "blue"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}]
CELL = "1,0/2"
TRUTH = CellReading(pieces={"red": Pieces(3, False)})


@cache
def _scene():
    state = {"tiles": TILES, "cells": {CELL: {"pieces": {"red": {"troops": 3}}},
                                       "0,0/4": {"pieces": {"blue": {"troops": 2}}}}}
    return render_state(state, families_colours(PLAYERS), seed=11)


@pytest.fixture
def profile_path(tmp_path: Path) -> Path:
    path = tmp_path / "table.json"
    save_profile(profile_for_colours(families_colours(PLAYERS), seed=3), path)
    return path


def _card_from_another_lamp(path: Path) -> None:
    """The profile at ``path`` with red's bean model 30% of the way towards blue's, as a
    card photographed under another lamp: some of this table's red pixels it reads as
    blue's, or as no player's."""
    card = load_profile(path)
    red, blue = card.colours["red"].bean, card.colours["blue"].bean
    off = dataclasses.replace(red, mean=red.mean + 0.3 * (blue.mean - red.mean))
    save_profile(dataclasses.replace(card, colours={
        **card.colours, "red": dataclasses.replace(card.colours["red"], bean=off)}), path)


def test_learned_examples_survive_a_restart_and_go_with_the_profile(profile_path: Path) -> None:
    _card_from_another_lamp(profile_path)
    card = load_profile(profile_path)
    reader = make_reader(card)
    said = reader.learn(_scene().frame, CELL, TRUTH)
    assert said.startswith(f"learned from cell {CELL}: red's bean"), said
    assert examples_path(profile_path).is_file()

    # A new reader from the same profile file (a restart) reads the example back ...
    again = make_reader(load_profile(profile_path))
    assert [s.player for s in again.samples] == ["red"]
    assert "red" in {c.player for c in again.counts}  # and the net's heats there
    sample = again.samples[0].mean
    card_red = card.colours["red"].bean.mean
    learned = again.profile.colours["red"].bean.mean
    # ... and its red bean model has moved from the card's towards the labelled pixels,
    # so that fewer of them are read as blue's or no player's.
    assert np.linalg.norm(learned - card_red) > 1e-3
    assert np.linalg.norm(learned - sample) < np.linalg.norm(card_red - sample)
    assert (learning.misassigned(again.profile.colours, again.samples)
            < learning.misassigned(card.colours, again.samples))
    np.testing.assert_array_equal(again.profile.colours["blue"].bean.mean,
                                  card.colours["blue"].bean.mean)  # nothing taught blue's
    # Read with what it learned, the corrected cell stays right.
    assert again.read(_scene().frame)["cells"][CELL]["pieces"]["red"]["troops"] == 3

    # Reset (companion calibrate does it on writing a profile): the card's models again.
    assert forget_examples(profile_path)
    fresh = make_reader(load_profile(profile_path))
    assert fresh.samples == []
    np.testing.assert_array_equal(fresh.profile.colours["red"].bean.mean, card_red)


def test_the_cells_a_correction_leaves_alone_are_kept_as_read(profile_path: Path) -> None:
    # Correcting 1,0/2 keeps blue's two beans in 0,0/4, as read, as a cell let stand: what
    # a threshold learned from the corrected cell must not break.
    reader = make_reader(load_profile(profile_path))
    reader.learn(_scene().frame, CELL, TRUTH)
    (frame,) = reader.frames.values()
    assert frame.corrected == {CELL}
    stood = {cell: {(c.player, c.truth) for c in counts}
             for cell, counts in frame.confirmed.items()}
    assert stood == {"0,0/4": {("blue", 2)}}
    assert all(len(c.heats) >= c.truth for c in frame.confirmed["0,0/4"])
    # A second correction in the same frame takes its cell out of the ones let stand.
    reader.learn(_scene().frame, "0,0/4", CellReading(pieces={"blue": Pieces(2, False)}))
    (frame,) = reader.frames.values()
    assert frame.corrected == {CELL, "0,0/4"}
    assert reader._frame_counts()[0].confirmed == []
    # Both survive a restart, grouped by the frame they came from.
    again = make_reader(load_profile(profile_path))
    (kept,) = again.frames.values()
    assert kept.corrected == {CELL, "0,0/4"}
    assert {c.player for c in kept.counts} == {"red", "blue"}


def test_a_correction_on_the_page_reaches_the_reader(profile_path: Path, tmp_path: Path
                                                     ) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(4):  # a still table: the same frame again and again
        cv2.imwrite(str(frames / f"{i}.png"), _scene().frame)
    log = GameLog(tmp_path / "game.sqlite")
    try:
        referee = Referee(log, log.new_game(PeepWar(players=tuple(PLAYERS))), egg_seed=1)
        loop = camera_loop(str(frames), referee, str(profile_path),
                           Settings(stable_seconds=0.0))
        read = [loop.step(float(t)) for t in range(3)]
        assert any(obs is not None for obs in read)
        referee.correct({"cell": CELL, "pieces": {"red": {"troops": 3, "peep": False}}})
        loop.step(3.0)  # the camera thread learns it before its next frame
        kept = ExampleStore(examples_path(profile_path)).all()
        assert [(e.place, e.truth["pieces"]) for e in kept] == [
            (CELL, {"red": {"troops": 3, "peep": False}})]
        assert loop.learned and loop.learned[-1].startswith(f"learned from cell {CELL}")
        assert kept[0].crop[:4] == b"\x89PNG"
    finally:
        log.close()


def test_a_reader_without_a_profile_file_learns_in_memory_only() -> None:
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    reader = PeepWarReader(profile)
    assert reader.examples is None
    reader.learn(_scene().frame, CELL, TRUTH)
    assert len(reader.samples) == 1
    assert reader.card is profile  # the calibration itself is never changed


def _two_player_card() -> tuple[Profile, Callable[..., learning.Labelled]]:
    """Red and blue bean models far apart, and labelled examples of either player."""
    def model(a: float, b: float) -> ColourModel:
        return ColourModel(np.array([a, b, 0.5]), np.eye(3) * 1e-4, 500)

    card = Profile(players=["red", "blue"],
                   colours={"red": PlayerColours(model(0.30, 0.10), None),
                            "blue": PlayerColours(model(0.10, 0.30), None)})

    def example(player: str, a: float, b: float, spread: float = 2e-5) -> learning.Labelled:
        fp = learning.fingerprint(card.colours[player].bean)
        return learning.Labelled(player, "bean", fp, 200, np.array([a, b, 0.5]),
                                 np.eye(3) * spread)
    return card, example


def test_a_model_adapts_where_the_card_misreads_the_table_and_not_past_another_player() -> None:
    card, example = _two_player_card()
    # Red as this lamp shows it, towards blue: some of its pixels the card gives to blue.
    red_shade = example("red", 0.22, 0.18, spread=9e-4)
    assert learning.misassigned(card.colours, [red_shade]) > 0.1
    alone = learning.adapt(card, [red_shade])
    moved = alone.colours["red"].bean.mean - card.colours["red"].bean.mean
    assert np.linalg.norm(moved) > 0.02
    assert learning.misassigned(alone.colours, [red_shade]) < 0.1
    # A blue cell corrected at this table whose pixels the moved red model would take:
    # red stays the card's.
    blue_shade = example("blue", 0.19, 0.21)
    assert learning.misassigned(alone.colours, [red_shade, blue_shade]) > 0.8
    both = learning.adapt(card, [red_shade, blue_shade])
    np.testing.assert_array_equal(both.colours["red"].bean.mean, card.colours["red"].bean.mean)
    # A blue example the moved red model leaves to blue does not hold red back.
    far_blue = example("blue", 0.14, 0.26)
    with_far = learning.adapt(card, [red_shade, far_blue])
    np.testing.assert_allclose(with_far.colours["red"].bean.mean, alone.colours["red"].bean.mean)


def test_a_model_the_card_already_reads_right_is_not_moved() -> None:
    # Examples the card gives to their player teach nothing: moving a model on them could
    # only take pixels from someone else.
    card, example = _two_player_card()
    near_red = example("red", 0.28, 0.12)
    assert learning.misassigned(card.colours, [near_red]) == 0
    same = learning.adapt(card, [near_red] * 3)
    np.testing.assert_array_equal(same.colours["red"].bean.mean, card.colours["red"].bean.mean)
