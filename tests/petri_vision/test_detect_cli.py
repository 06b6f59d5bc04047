"""``companion detect --game G`` with a game whose bundle names the Petri reader.

The Petri bundle lives with the rules; here a stand-in bundle (the toy game with
``reader = "vision.petri.reader:make_reader"``) is registered, so the command's
whole path -- profile, image, --home, the reader -- runs as it will for Petri.
"""

from __future__ import annotations

import json

import cv2
import pytest

from calibration.profile import save_profile
from companion import games
from companion.cli import main
from tests.toy.tictactoe import TicTacToeGame
from vision.render.petri import render_petri

from .conftest import KELVIN


class PetriStandIn(TicTacToeGame):
    name = "petri-reader-test"
    title = "Petri reader stand-in"
    reader = "vision.petri.reader:make_reader"
    reader_takes = ("home",)


@pytest.fixture
def stand_in():
    games.register(PetriStandIn())
    yield PetriStandIn.name
    games.unregister(PetriStandIn.name)


def test_detect_prints_the_petri_observation(stand_in, marbles, tmp_path, capsys):
    frame = render_petri(4, style="wood", kelvin=KELVIN, hand=False)
    cv2.imwrite(str(tmp_path / "board.png"), frame.image)
    save_profile(marbles, tmp_path / "me.json")
    homes = [f"--home={p}={k}" for p, k in frame.homes.items()]
    assert main(["detect", str(tmp_path / "board.png"), "--game", stand_in,
                 "--profile", str(tmp_path / "me.json"), *homes]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == "petri"
    got = {h: r["player"] for h, r in data["holes"].items() if "player" in r}
    assert got == frame.pieces
    assert "read" in data["timings_ms"]


def test_detect_on_a_photo_of_no_board_warns_in_one_line(stand_in, marbles, tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "table.png"), cv2.resize(frame_of_table(), (640, 360)))
    save_profile(marbles, tmp_path / "me.json")
    assert main(["detect", str(tmp_path / "table.png"), "--game", stand_in,
                 "--profile", str(tmp_path / "me.json")]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert len(data["holes"]) == 121
    assert all(r == {"occluded": True} for r in data["holes"].values())
    assert any("no Petri board found" in w for w in data["warnings"])
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("companion detect: warning: ")
    assert main(["detect", str(tmp_path / "table.png"), "--game", stand_in,
                 "--profile", str(tmp_path / "me.json"), "--home", "red=7"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]


def frame_of_table():
    import numpy as np

    from vision.render.layers import table_texture
    from vision.render.light import to_srgb

    return to_srgb(table_texture(np.random.default_rng(3), (1280, 720)))


@pytest.mark.parametrize(("homes", "says"), [
    ({"red": 99, "blue": 0}, "gives red the home 99"),
    ({"red": "x"}, 'gives red the home "x"'),
    ({"red": True}, "gives red the home true"),
    ({"red": 7, "blue": 0}, "gives red the home 7"),
    ([1], "is a list, not an object"),
    ("0,3", "is a string, not an object"),
    ({"red": 0, "blue": 0}, "gives two players the same home"),
    ({"zebra": 0}, "names 'zebra', who is not one of the players"),
])
def test_detect_refuses_a_profile_with_bad_homes_in_one_line(stand_in, marbles, tmp_path,
                                                              capsys, homes, says):
    cv2.imwrite(str(tmp_path / "table.png"), cv2.resize(frame_of_table(), (320, 180)))
    save_profile(marbles, tmp_path / "me.json")
    data = json.loads((tmp_path / "me.json").read_text())
    data["homes"] = homes
    (tmp_path / "me.json").write_text(json.dumps(data))
    assert main(["detect", str(tmp_path / "table.png"), "--game", stand_in,
                 "--profile", str(tmp_path / "me.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("companion detect: error: profile ")
    assert says in err[0] and "--home PLAYER=K" in err[0]


def test_detect_refuses_a_home_that_lands_on_another_players_profile_home(
        stand_in, marbles, tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "table.png"), cv2.resize(frame_of_table(), (320, 180)))
    save_profile(marbles, tmp_path / "me.json")
    data = json.loads((tmp_path / "me.json").read_text())
    data["homes"] = {"red": 0, "blue": 3}
    (tmp_path / "me.json").write_text(json.dumps(data))
    args = ["detect", str(tmp_path / "table.png"), "--game", stand_in,
            "--profile", str(tmp_path / "me.json")]
    assert main([*args, "--home", "blue=0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the home the profile gives another" in err[0]
    # Both moved: no clash, the frame is read.
    assert main([*args, "--home", "blue=0", "--home", "red=3"]) == 0
