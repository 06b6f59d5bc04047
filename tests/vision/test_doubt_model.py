"""The doubt model (:mod:`vision.peepwar.doubt_model`) asks about cells the rules read
surely when their measures look like misread cells, and never makes a reading surer or
different; on a rendered table read by the real reader."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

from companion.games import find as find_game
from vision.errors import ModelError
from vision.peepwar import doubt_model
from vision.peepwar.cell_warnings import Warned
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.passes.assembly import DOUBT_CONFIDENCE
from vision.peepwar.pieces import read_state
from vision.peepwar.table import prepare_reader, read_table
from vision.peepwar.tiles import find_tiles
from vision.render.game_scene import families_colours, profile_for_colours, render_state

PLAYERS = ["red", "blue"]
TILES = [{"q": 0, "r": 0, "owner": None}, {"q": 1, "r": 0, "owner": "red"}]
CELLS = {"1,0/1": {"pieces": {"blue": {"troops": 2, "peep": False}}},
         "0,0/3": {"pieces": {"red": {"troops": 3, "peep": True}}},
         "0,0/5": {"pieces": {"red": {"troops": 1, "peep": False}}}}


@cache
def _scene():
    profile = profile_for_colours(families_colours(PLAYERS), seed=3)
    prepare_reader(profile)
    return render_state({"tiles": TILES, "cells": CELLS}, families_colours(PLAYERS), 1), profile


def _state():
    scene, profile = _scene()
    return read_state(build_mosaic(scene.frame, find_tiles(scene.frame, profile.intrinsics)),
                      profile)


def _model(bias: float, weight_on: str | None = None, weight: float = 0.0
           ) -> doubt_model.DoubtModel:
    """A model whose chance is the logistic of ``bias`` (plus ``weight`` times the
    standardised measure ``weight_on``)."""
    n = len(doubt_model.FEATURES)
    w1 = np.zeros((n, 1))
    if weight_on is not None:
        w1[doubt_model.FEATURES.index(weight_on), 0] = 1.0
    return doubt_model.DoubtModel(np.zeros(n), np.ones(n), w1, np.zeros(1),
                                  np.array([weight]), np.array(bias))


def test_the_rules_doubt_is_where_the_referee_starts_asking() -> None:
    # The model judges only the cells the referee would rule on.
    assert find_game("peepwar").doubtful_below == doubt_model.SURE_FROM
    assert DOUBT_CONFIDENCE < doubt_model.SURE_FROM  # a cell asked about is below it


def test_measures_hold_every_cell_read_and_the_warnings_about_it() -> None:
    st = _state()
    names, x = doubt_model.cell_measures(st)
    assert sorted(names) == sorted(n for n, c in st.cells.items() if not c.occluded)
    assert x.shape == (len(names), len(doubt_model.FEATURES))
    row = dict(zip(doubt_model.FEATURES, x[names.index("0,0/3")], strict=True))
    assert row["troops"] == 3 and row["peeps"] == 1 and row["players"] == 1
    assert row["colour mm2"] > 1000  # a peep and three beans of red
    assert row["tiles"] == 2
    empty = dict(zip(doubt_model.FEATURES, x[names.index("1,0/4")], strict=True))
    assert empty["troops"] == 0 and empty["colour mm2"] < 50
    # Each warning about a cell is counted under its kind, whatever its words.
    before = dict(zip(doubt_model.FEATURES, x[names.index("0,0/5")], strict=True))
    st.warn("0,0/5", "a doubtful red bean (62% sure)", Warned.DOUBTFUL_BEAN)
    st.warn("0,0/5", "a bean of uncertain standing", Warned.DOUBTFUL_BEAN)
    st.warn("0,0/5", "a doubtful red bean, in the words of another kind", Warned.DOUBTED)
    st.warn("0,0/5", "perhaps one more red bean (40% sure)", Warned.ONE_MORE_BEAN)
    st.warnings.remove("cell 0,0/5: perhaps one more red bean (40% sure)")  # taken back
    names, x = doubt_model.cell_measures(st)
    row = dict(zip(doubt_model.FEATURES, x[names.index("0,0/5")], strict=True))
    assert row["warned: doubtful bean"] == before["warned: doubtful bean"] + 2
    assert row["warned: other"] == before["warned: other"] + 1
    assert row["warned: one more bean"] == before["warned: one more bean"]


def test_a_warning_said_twice_and_taken_back_once_counts_once() -> None:
    st = _state()
    given = len(st.cell_warnings())
    st.warn("0,0/5", "a bean, doubtful or dark", Warned.DOUBTFUL_BEAN)
    st.warn("0,0/5", "a bean, doubtful or dark", Warned.DARK_BEAN)
    assert st.cell_warnings()[given:] == [("0,0/5", Warned.DOUBTFUL_BEAN),
                                          ("0,0/5", Warned.DARK_BEAN)]
    st.warnings.remove("cell 0,0/5: a bean, doubtful or dark")  # the first said goes
    assert st.cell_warnings()[given:] == [("0,0/5", Warned.DARK_BEAN)]
    st.warnings.append("the camera moved")  # a frame's warning: about no cell
    assert len(st.cell_warnings()) == given + 1


def test_a_cell_judged_likely_wrong_is_asked_about_and_nothing_else_changes(
        monkeypatch) -> None:
    before = _state()
    before.cells["0,0/5"].lower(0.6)  # a cell the rules doubted more than the model would
    monkeypatch.setattr(doubt_model, "load", lambda: _model(5.0))  # every cell: 99% wrong
    st = _state()
    st.cells["0,0/5"].lower(0.6)
    doubt_model.judge(st)
    assert st.cells["0,0/5"].confidence == 0.6
    for name, cell in st.cells.items():
        was = before.cells[name]
        assert (cell.troops, cell.peeps, cell.supply_center, cell.occluded) == \
            (was.troops, was.peeps, was.supply_center, was.occluded)
        if was.occluded:
            continue
        if was.confidence >= doubt_model.SURE_FROM:
            assert cell.confidence == DOUBT_CONFIDENCE
            assert any(w.startswith(f"cell {name}: read as it looks") for w in st.warnings)
        else:
            assert cell.confidence == was.confidence  # never surer, never lower again
    # In the observation an empty cell asked about is listed, with no pieces.
    scene, profile = _scene()
    obs = read_table(scene.frame, profile)
    assert obs["cells"]["1,0/4"] == {"supply_center": False, "pieces": {}, "confidence": 0.7}
    assert obs["cells"]["0,0/3"]["pieces"] == {"red": {"troops": 3, "peep": True}}


def test_a_chance_that_is_no_number_asks(monkeypatch) -> None:
    # A measure out of all bounds gives no chance: the cell is asked about, not left sure.
    model = _model(-8.0, weight_on="slant", weight=1.0)
    monkeypatch.setattr(doubt_model, "load", lambda: model)
    st = _state()
    sure = [n for n, c in st.cells.items() if not c.occluded and c.confidence >= 0.8]
    real = doubt_model.cell_measures

    def out_of_bounds(state):
        names, x = real(state)
        x[names.index(sure[0]), doubt_model.FEATURES.index("slant")] = np.nan
        return names, x
    monkeypatch.setattr(doubt_model, "cell_measures", out_of_bounds)
    doubt_model.judge(st)
    assert st.cells[sure[0]].confidence == DOUBT_CONFIDENCE
    assert f"cell {sure[0]}: read as it looks, but its measures are out of all bounds: " \
        "check it" in st.warnings
    assert all(st.cells[n].confidence >= 0.8 for n in sure[1:])  # logistic(-8 + slant)


def test_cells_judged_likely_right_keep_the_rules_reading(monkeypatch) -> None:
    monkeypatch.setattr(doubt_model, "load", lambda: _model(-8.0))
    scene, profile = _scene()
    obs = read_table(scene.frame, profile)
    monkeypatch.setattr(doubt_model, "load", lambda: None)  # the rules alone
    assert read_table(scene.frame, profile)["cells"] == obs["cells"]


def test_the_chance_follows_the_measures(monkeypatch) -> None:
    # Only the cells whose measure raises the chance past ASK_FROM are asked about.
    monkeypatch.setattr(doubt_model, "load",
                        lambda: _model(-6.0, weight_on="troops", weight=3.0))
    st = _state()
    sure = {n for n, c in st.cells.items() if not c.occluded and c.confidence >= 0.8}
    doubt_model.judge(st)
    asked = {n for n in sure if st.cells[n].confidence < 0.8}
    assert "0,0/3" in asked  # three troops: logistic(-6 + 3 * 3) = 0.95
    assert not asked & {n for n in sure if not st.cells[n].troops}  # logistic(-6) = 0.002


def test_the_shipped_model_asks_nothing_of_a_plain_table() -> None:
    # A flat, well-lit rendered table whose every cell the rules read right and surely.
    model = doubt_model.load()
    assert model is not None
    st = _state()
    names, x = doubt_model.cell_measures(st)
    p = model.chances(x)
    assert p.shape == (len(x),) and ((p >= 0) & (p < doubt_model.ASK_FROM)).all()
    # The same cell, heaped with colour its count does not explain under a steep camera in a
    # frame full of doubt, is likelier wrong.
    k = names.index("0,0/5")
    odd = x[k].copy()
    for measure, value in (("colour mm2", 2000.0), ("slant", 1.0),
                           ("frame mean confidence", 0.6), ("frame warnings per cell", 1.0),
                           ("least bean heat", 0.5), ("mean bean heat", 0.5)):
        odd[doubt_model.FEATURES.index(measure)] = value
    assert model.chances(odd[None])[0] > p[k]


def test_the_chance_is_a_number_however_far_out_the_measures_lie() -> None:
    model = _model(0.0, weight_on="troops", weight=1.0)
    x = np.zeros((2, len(doubt_model.FEATURES)))
    x[:, doubt_model.FEATURES.index("troops")] = [-1e6, 1e6]
    assert model.chances(x).tolist() == [0.5, 1.0]


@pytest.mark.parametrize("content", ["{", json.dumps({"features": ["x"]}),
                                     json.dumps({"features": list(doubt_model.FEATURES),
                                                 "mean": [0], "std": [1], "w1": [[0]],
                                                 "b1": [0], "w2": [0], "b2": 0})])
def test_a_broken_model_file_is_one_clear_error(tmp_path, content) -> None:
    path = tmp_path / "doubt_model.json"
    path.write_text(content)
    with pytest.raises(ModelError, match="doubt model"):
        doubt_model.load.__wrapped__(path)


def test_a_model_of_other_numbers_is_refused(tmp_path) -> None:
    data = _model(0.0).to_json()
    for key, bad in (("std", [0.0] * len(doubt_model.FEATURES)), ("b2", float("nan")),
                     ("features", list(reversed(doubt_model.FEATURES)))):
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(data | {key: bad}))
        with pytest.raises(ModelError, match="doubt model"):
            doubt_model.load.__wrapped__(path)


def test_a_broken_model_stops_the_reader_at_start(monkeypatch, tmp_path) -> None:
    path = tmp_path / "doubt_model.json"
    path.write_text("not json")
    read = doubt_model.load.__wrapped__
    monkeypatch.setattr(doubt_model, "load", lambda: read(path))
    with pytest.raises(ModelError, match="cannot be read"):
        prepare_reader(_scene()[1])


def test_without_a_model_file_the_rules_alone_decide(tmp_path) -> None:
    assert doubt_model.load.__wrapped__(tmp_path / "absent.json") is None


def test_training_samples_say_which_cells_the_rules_read_wrongly() -> None:
    from vision.peepwar.training.train_doubt_model import frame_samples

    scene, profile = _scene()
    truth = scene.truth
    x, y = frame_samples(scene.frame, profile, truth)
    assert x.shape == (len(y), len(doubt_model.FEATURES)) and set(y.tolist()) <= {0, 1}
    assert len(y) == 14  # two tiles' cells, none covered
    # A truth that disagrees with a cell the reader gets right marks that cell wrong.
    was = truth.cells["0,0/5"]
    truth.cells["0,0/5"] = {"supply_center": False,
                            "pieces": {"red": {"troops": 4, "peep": False}}}
    try:
        assert frame_samples(scene.frame, profile, truth)[1].sum() == y.sum() + 1
    finally:
        truth.cells["0,0/5"] = was


def test_training_reuses_samples_only_of_the_same_reader(tmp_path) -> None:
    from vision.peepwar.training.train_doubt_model import gather, reader_fingerprint

    scene, profile = _scene()
    scenes = [("2d-test", scene.frame, profile, scene.truth)]
    x, y = gather(scenes, tmp_path, reader="a reader")
    assert len(y) == 14 and (tmp_path / "2d-test.npz").exists()
    again = gather([("2d-test", None, None, None)], tmp_path, reader="a reader")  # not read
    assert (again[0] == x).all() and (again[1] == y).all()
    with pytest.raises(SystemExit, match="another version of the reader"):
        gather(scenes, tmp_path, reader="another reader")
    assert reader_fingerprint() == reader_fingerprint() != "a reader"


def test_training_refuses_held_out_frames(tmp_path) -> None:
    from vision.peepwar.training.train_doubt_model import main

    with pytest.raises(SystemExit, match="not a development seed"):
        main(["--2d", "500000-499999", "--3d", "50000-50001", "--samples", str(tmp_path),
              "--out", str(tmp_path / "m.json")])
    with pytest.raises(SystemExit, match="training scenes start at 500000"):
        main(["--2d", "1000-1001", "--samples", str(tmp_path), "--out", str(tmp_path / "m.json")])
    with pytest.raises(SystemExit, match="the bean net learnt from frames below 40500"):
        main(["--2d", "500000-499999", "--3d", "40100", "--samples", str(tmp_path),
              "--out", str(tmp_path / "m.json")])
    with pytest.raises(SystemExit, match="3D seed 50010 is not a development seed"):
        main(["--2d", "500000-499999", "--3d", "40900-50010", "--samples", str(tmp_path),
              "--out", str(tmp_path / "m.json")])
    assert not (tmp_path / "m.json").exists()
    assert not list(tmp_path.rglob("*.npz"))  # refused before any frame was read
