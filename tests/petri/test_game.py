"""Petri through the generic parts: the command line, the demo, the referee and the page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion import games
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.petri import Capture, Step
from companion.rules.petri.board import NEIGHBOURS
from companion.rules.petri.game import GAME
from tests.petri.conftest import position
from web.app import create_app

REPO = Path(__file__).resolve().parents[2]


def _companion(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


def test_the_registry_finds_petri() -> None:
    assert games.find("petri") is GAME and GAME.reader == "vision.petri.reader:make_reader"


def test_companion_play_runs_a_scripted_game(tmp_path: Path) -> None:
    script = tmp_path / "moves.txt"
    script.write_text("roll 2 5\ndie 4\ndie 2\nplace 8,-4 0,0\nplace 8,-4 7,-4\n"
                      "roll\nbot turn\nboard\nadvice\n", encoding="utf-8")
    done = _companion("play", "--game", "petri", "--players", "red,blue", "--log",
                      str(tmp_path / "g.sqlite"), "--script", str(script), "--seed", "3",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "red rolled 2 and 5, not 4" in out
    assert "0,0 is not next to a hole red occupies" in out
    assert "red places at 8,-4 7,-4" in out and "blue rolls" in out
    assert "R red: hand 8" in out and "no captures are being chosen now" in out
    replay = _companion("replay", "--log", str(tmp_path / "g.sqlite"), cwd=tmp_path)
    assert replay.returncode == 0 and "red: place 8,-4 7,-4" in replay.stdout


def test_companion_play_refuses_bad_options_in_one_line(tmp_path: Path) -> None:
    done = _companion("play", "--game", "petri", "--players", "red,blue", "--pieces", "12",
                      "--log", str(tmp_path / "g.sqlite"), cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "pieces must be 10 or 15" in done.stderr + done.stdout


def test_companion_demo_plays_a_whole_game_in_text(tmp_path: Path) -> None:
    done = _companion("demo", "--game", "petri", "--text", "--players", "4", "--seed", "2",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Demo: Petri")
    assert re.search(r"in capture cups after \d+ turns and \d+ actions", done.stdout)
    assert "the game is over:" in done.stdout


@pytest.fixture
def referee(tmp_path: Path):
    log = GameLog(tmp_path / "g.sqlite")
    yield Referee(log, log.new_game(GAME.new_rules(["red", "blue"])), egg_seed=1)
    log.close()


def test_the_page_shows_the_board_and_takes_typed_commands(referee: Referee) -> None:
    client = create_app(referee).test_client()
    page = client.get("/").get_data(as_text=True)
    assert "Petri" in page and "Fight at" not in page  # the board is drawn from /api/state
    token = re.search(r'token: "([^"]+)"', page).group(1)
    h = {"X-Companion-Token": token}
    before = client.get("/api/state").get_json()["svg"]
    assert 'class="piece"' not in before
    for text in ("roll 3 5", "die 3", "place 8,-4 7,-4 7,-3"):
        reply = client.post("/api/command", json={"text": text}, headers=h)
        assert reply.status_code == 200, reply.get_json()
    refused = client.post("/api/command", json={"text": "die 9"}, headers=h)
    assert refused.status_code == 409 and refused.get_json()["error"] == (
        "blue must roll the dice first")
    state = client.get("/api/state").get_json()
    assert 'class="piece" data-hole="8,-4" data-player="red"' in state["svg"]
    assert state["waiting_for"] == ["blue"] and state["panel"]["hands"]["red"] == 7
    svg = client.get("/board.svg").get_data(as_text=True)
    assert svg.startswith("<svg") and 'data-hole="7,-3" data-player="red"' in svg


def test_the_end_turn_button_captures_in_the_suggested_order(referee: Referee) -> None:
    rules = referee.rules
    board = {"0,0": "blue", "1,0": "red", "0,1": "red", "-1,1": "red"}
    state = position(rules, board, step=Step.CAPTURE)
    assert GAME.end_action(rules, state) == Capture("red", ("0,0",))
    assert GAME.end_action(rules, rules.new_state()) is None
    panel = GAME.panel(rules, state, None)
    assert panel["advice"]["order"] == ["0,0"] and panel["advice"]["careless_loss"] == 0
    svg = GAME.board_svg(rules.view(state, None))
    assert 'class="capture-mark" data-capture="1" data-hole="0,0"' in svg
    assert "best capture: 0,0" in GAME.text_board(rules, state)


def test_the_demo_table_plays_petri_through_the_camera_path(referee: Referee) -> None:
    from companion.cli.demo import follow_games
    from companion.demo_table import ScriptedTable

    table = ScriptedTable(referee, seed=4, step_s=0, pause_s=0)
    first = referee.game.id
    kept = follow_games(referee)
    for _ in range(1500):
        table.step()
        if table.games:
            break
    assert table.games == 1, "the scripted game should end and a new one start"
    second = referee.game.id
    referee.new_game(["red", "blue"])  # a player starts one on the page: listed too
    assert kept == [first, second, referee.game.id] and len(set(kept)) == 3
    assert referee.misreads == 0 and not referee.problems
    sources = {(e["action"]["kind"], e["source"]) for e in referee.log.entries(first)}
    assert ("place", "camera") in sources and ("roll", "egg") in sources
    assert ("place", "page") not in sources  # every placement was read from the table


def test_the_panel_names_the_holes_a_tap_may_use(referee: Referee) -> None:
    client = create_app(referee).test_client()
    page = client.get("/").get_data(as_text=True)
    assert 'id="petri-dice"' in page and "/static/petri/petri.js" in page
    assert client.get("/static/petri/petri.js").status_code == 200
    token = re.search(r'token: "([^"]+)"', page).group(1)
    h = {"X-Companion-Token": token}
    # Real dice entered through the page's chance device, then a die chosen as an action.
    reply = client.post("/api/roll", json={"outcome": {"kind": "roll", "player": "red",
                                                       "first": 2, "second": 5}}, headers=h)
    assert reply.status_code == 200, reply.get_json()
    panel = client.get("/api/state").get_json()["panel"]
    assert panel["steps"] == {"red": "die"} and panel["dice"]["red"] == [2, 5]
    assert panel["taps"] == {}
    assert client.post("/api/action", json={"kind": "die", "player": "red", "die": 2},
                       headers=h).status_code == 200
    panel = client.get("/api/state").get_json()["panel"]
    home = sorted(referee.rules.home("red"))
    assert panel["steps"]["red"] == "place" and sorted(panel["taps"]["red"]) == home
    # A tapped hole is a place action, checked by the rules like any other.
    assert client.post("/api/action", json={"kind": "place", "player": "red",
                                            "holes": ["8,-4"]}, headers=h).status_code == 200
    panel = client.get("/api/state").get_json()["panel"]
    assert set(panel["taps"]["red"]) == set(NEIGHBOURS["8,-4"])  # next to the piece placed
    wrong = client.post("/api/action", json={"kind": "place", "player": "red",
                                             "holes": ["0,0"]}, headers=h)
    assert wrong.status_code == 409 and "not next to a hole red occupies" in wrong.get_json()[
        "error"]
