"""Corrections kept as examples, and how far they may move a colour model (no rendering)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.colour import ColourModel, PlayerColours
from calibration.examples import ExamplesError, ExampleStore, examples_path
from calibration.profile import Profile, load_profile, save_profile
from companion.cli import main
from companion.rules.peepwar.observation import CellReading, Pieces
from vision.peepwar import learning


def _model(mean) -> ColourModel:
    return ColourModel(np.array(mean, float), np.diag([0.04, 0.04, 0.05]) ** 2, 500)


def _card() -> Profile:
    colours = {"red": PlayerColours(_model([0.9, -0.6, 0.6]), _model([0.8, -0.5, 0.8])),
               "blue": PlayerColours(_model([-0.5, 0.9, 0.5]), _model([-0.4, 0.8, 0.7]))}
    return Profile(["red", "blue"], colours)


def _sample(card: Profile, player: str, kind: str, mean) -> learning.Labelled:
    found = learning.Labelled(player, kind, "", 200, np.array(mean, float),
                              np.diag([0.05, 0.05, 0.06]) ** 2)
    return learning.tag([found], card)[0]


def _reading_distance(model: ColourModel, x) -> float:
    return learning._mahalanobis(model, np.asarray(x, float))


def test_examples_move_a_model_towards_them_a_little_per_example() -> None:
    card = _card()
    red = card.colours["red"].bean
    # This table's red beans, lit more warmly than the card's: the card reads some of their
    # pixels as no player's.
    off = [0.75, -0.35, 0.5]
    assert learning.misassigned(card.colours, [_sample(card, "red", "bean", off)]) > 0
    three = learning.adapt(card, [_sample(card, "red", "bean", off)] * 3).colours["red"].bean
    ten = learning.adapt(card, [_sample(card, "red", "bean", off)] * 10).colours["red"].bean
    assert 0 < _reading_distance(red, three.mean) <= 3 * learning.TRUST_PER_EXAMPLE + 1e-9
    assert np.linalg.norm(ten.mean - off) < np.linalg.norm(three.mean - off) < np.linalg.norm(
        red.mean - off)
    # The spread stays the card's: the examples move the colour, not its reach.
    np.testing.assert_array_equal(ten.cov, red.cov)
    # The other models are the card's own.
    assert learning.adapt(card, [_sample(card, "red", "bean", off)] * 3).colours["blue"] == \
        card.colours["blue"]


def test_one_wrong_correction_cannot_flip_a_players_model() -> None:
    card = _card()
    red, blue = card.colours["red"].bean, card.colours["blue"].bean
    # A correction naming red over blue beans: nearer blue's card model, so not learned.
    wrong = _sample(card, "red", "bean", blue.mean)
    assert learning.adapt(card, [wrong]).colours["red"].bean == red
    # Even taken (the gate aside), one example moves red's mean one reading spread at
    # most, a third of the way: red's colour is still red's, far from blue's.
    moved = learning.adapted(red, [wrong])
    assert _reading_distance(red, moved.mean) <= learning.TRUST_PER_EXAMPLE + 1e-9
    assert _reading_distance(moved, red.mean) < _reading_distance(moved, blue.mean)


def test_bean_counts_teach_a_threshold_only_over_several_frames() -> None:
    # The net found four red peaks where three beans lie: the weakest (0.55) is no bean.
    over = learning.BeanCount("red", 3, (0.95, 0.9, 0.8, 0.55))
    one = learning.bean_threshold([learning.FrameCounts([over] * 5)])
    two = learning.bean_threshold([learning.FrameCounts([over])] * 2)
    many = learning.bean_threshold([learning.FrameCounts([over])] * 20)
    assert one == 0.5  # one frame, however many cells, is not the table's threshold
    assert two is not None and many is not None
    assert 0.5 < two < many <= 0.6  # two frames move it half of the way
    assert learning.bean_threshold([]) is None
    assert learning.bean_threshold([learning.FrameCounts([])]) is None
    card = _card()
    taught = learning.adapt(card, [], [learning.FrameCounts([over])] * 20)
    assert taught.extra["learned_bean_threshold"] == many
    assert "learned_bean_threshold" not in card.extra  # the card itself is not changed
    # A threshold the corrections have not moved is not kept: each frame's own (from its
    # peaks) goes on standing, rather than a fixed 0.5.
    unmoved = learning.adapt(card, [], [learning.FrameCounts([over] * 5)])
    assert "learned_bean_threshold" not in unmoved.extra


def test_cells_let_stand_hold_the_threshold_where_it_counts_them_right() -> None:
    over = learning.BeanCount("red", 3, (0.95, 0.9, 0.8, 0.55))
    # In the same frames, cells read right at 0.5 that a threshold over 0.55 would empty.
    stood = [learning.BeanCount("red", 1, (0.58,))] * 2
    frames = [learning.FrameCounts([over], stood)] * 5
    assert learning.bean_threshold(frames) == 0.5
    # Cells let stand that no threshold in reach changes do not hold it.
    sure = [learning.BeanCount("red", 2, (0.95, 0.9))] * 4
    assert learning.bean_threshold([learning.FrameCounts([over], sure)] * 5) > 0.5


def test_examples_of_another_calibration_are_not_used() -> None:
    card = _card()
    stale = _sample(card, "red", "bean", [0.8, -0.5, 0.75])
    recalibrated = Profile(card.players, {**card.colours, "red": PlayerColours(
        _model([0.92, -0.6, 0.62]), card.colours["red"].peep)})
    assert learning.adapt(recalibrated, [stale]) == recalibrated


def test_the_store_is_bounded_and_keeps_the_newest(tmp_path: Path) -> None:
    store = ExampleStore(tmp_path / "p.json.examples.sqlite", limit=3)
    for i in range(5):
        store.add(f"0,0/{i}", {"i": i}, b"png", {"samples": []})
    assert [e.place for e in ExampleStore(store.path).all()] == ["0,0/2", "0,0/3", "0,0/4"]


def test_a_damaged_examples_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "p.json.examples.sqlite"
    path.write_bytes(b"not a database at all, just some bytes" * 20)
    with pytest.raises(ExamplesError, match="reset-examples"):
        ExampleStore(path).all()


def test_calibrate_reset_examples_forgets_them_and_keeps_the_profile(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "table.json"
    save_profile(_card(), profile)
    ExampleStore(examples_path(profile)).add("0,0/1", {}, b"png", {"samples": []})
    assert main(["calibrate", "--reset-examples", "--out", str(profile)]) == 0
    assert "forgotten" in capsys.readouterr().out
    assert not examples_path(profile).exists()
    assert load_profile(profile).to_json() == _card().to_json()
    assert main(["calibrate", "--reset-examples", "--out", str(profile)]) == 0
    assert "no examples" in capsys.readouterr().out


def test_the_referee_tells_its_listeners_of_a_correction(peepwar_referee) -> None:
    heard = []
    peepwar_referee.on_correction(lambda place, reading: heard.append((place, reading)))
    peepwar_referee.on_correction(lambda place, reading: 1 / 0)  # a failing learner ...
    place = peepwar_referee.correct({"cell": "0,0/1", "pieces": {"red": {"troops": 2}}})
    assert heard == [("0,0/1", CellReading(pieces={"red": Pieces(2, False)}))]
    assert peepwar_referee.overrides[place] == heard[0][1]  # ... and the correction stands
