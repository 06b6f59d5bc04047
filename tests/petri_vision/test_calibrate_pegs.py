"""A colour card of pegs or marbles (peep spots empty) gives a one-colour profile."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.colour import CalibrationError, calibrate_card
from calibration.profile import Profile, load_profile, save_profile
from companion.cli import main
from vision.errors import VisionError
from vision.render.petri import render_card

from .conftest import KELVIN


def test_a_card_of_marbles_calibrates_without_peeps(marbles, tmp_path):
    assert all(c.peep is None for c in marbles.colours.values())
    save_profile(marbles, tmp_path / "p.json")
    again = load_profile(tmp_path / "p.json")
    assert again.players == marbles.players
    assert all(c.peep is None for c in again.colours.values())
    assert np.allclose(again.extra["card_white"], marbles.extra["card_white"])


def test_a_missing_marble_is_refused_by_slot():
    keys = ["red", "blue", "green"]
    photo = render_card(3, keys, KELVIN, True)
    found = calibrate_card(photo, keys)
    assert "no peeps on the card" in " ".join(found.warnings)
    from calibration.colour import piece_features  # noqa: F401  (the real path is exercised)

    with pytest.raises(CalibrationError):
        calibrate_card(np.full_like(photo, 90), keys)


def test_peep_war_refuses_a_profile_without_peeps(marbles):
    from vision.peepwar.piece_pixels import prepare

    with pytest.raises(VisionError, match="no peep colours"):
        prepare(marbles)


def test_calibrate_command_keeps_homes_and_the_card_white(tmp_path, capsys):
    import cv2

    keys = ["red", "blue"]
    cv2.imwrite(str(tmp_path / "card.png"), render_card(5, keys, KELVIN, True))
    out = tmp_path / "p.json"
    assert main(["calibrate", str(tmp_path / "card.png"), "--players", "red,blue",
                 "--out", str(out), "--home", "red=0", "--home", "blue=3"]) == 0
    prof = load_profile(out)
    assert prof.extra["homes"] == {"red": 0, "blue": 3}
    assert len(prof.extra["card_white"]) == 3
    capsys.readouterr()
    assert main(["calibrate", str(tmp_path / "card.png"), "--players", "red,blue",
                 "--out", str(out), "--home", "red=9"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "home 0-5" in err[0]
    assert main(["calibrate", str(tmp_path / "card.png"), "--players", "red,blue",
                 "--out", str(out), "--home", "green=1"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not one of the players" in err[0]
    assert isinstance(prof, Profile)


def test_calibrate_replaces_damaged_homes_and_keeps_the_rest(tmp_path, capsys):
    import json

    import cv2

    keys = ["red", "blue"]
    cv2.imwrite(str(tmp_path / "card.png"), render_card(5, keys, KELVIN, True))
    out = tmp_path / "p.json"
    assert main(["calibrate", str(tmp_path / "card.png"), "--players", "red,blue",
                 "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    data["homes"] = {"red": 99, "blue": "x"}
    data["egg"] = {"kept": True}
    out.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["calibrate", str(tmp_path / "card.png"), "--players", "red,blue",
                 "--out", str(out), "--home", "red=0", "--home", "blue=3"]) == 0
    assert "egg colours kept" in capsys.readouterr().out
    prof = load_profile(out)
    assert prof.extra["homes"] == {"red": 0, "blue": 3}
    assert prof.extra["egg"] == {"kept": True}
