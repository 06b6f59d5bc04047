"""``companion demo --game petri``: the scripted table photographed, read back by the Petri
reader, and ruled on; a misreading is flagged and counted, never taken."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion import games
from companion.demo_camera import RenderedCamera
from companion.demo_table import ScriptedTable
from companion.gamelog import GameLog
from companion.referee import Referee

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def referee(game_log: GameLog) -> Referee:
    rules = games.find("petri").new_rules(["red", "blue"])
    return Referee(game_log, game_log.new_game(rules))


@pytest.mark.parametrize("seed", [7, 8])  # plastic pegs, the printed sheet
def test_turns_are_read_from_rendered_photos(referee: Referee, seed: int) -> None:
    camera = RenderedCamera(referee, ["red", "blue"], seed=seed, fix_after_s=0)
    table = ScriptedTable(referee, seed=seed, show=camera.show)
    for _ in range(12):
        table.step()
    assert referee.state.turn >= 2  # red's whole turn, then blue's
    assert camera.frames >= 6
    placed = [e for e in referee.log.entries(referee.game.id) if e["action"]["kind"] == "place"]
    assert placed and all(e["source"] == "camera" for e in placed)
    assert referee.misreads == 0
    assert referee.snapshot()["camera"]["state"] == "on"


def test_a_misreading_is_flagged_and_counted_not_taken(referee: Referee) -> None:
    camera = RenderedCamera(referee, ["red", "blue"], seed=7, fix_after_s=0)
    table = ScriptedTable(referee, seed=7, show=camera.show)
    for _ in range(5):
        table.step()
    frames, real = camera.frames, camera.scene.render

    def stray_piece(state, frame_no):  # the photo shows a red piece in blue's far tip
        return real({**state, "board": {**state["board"], "-8,4": "red"}}, frame_no)

    camera.scene.render = stray_piece
    camera.stop()  # the players leave the misreading on the page instead of fixing it
    while camera.frames == frames:
        table.step()
    assert referee.misreads == 1
    snap = referee.snapshot()
    assert snap["camera"]["misreads"] == 1
    assert any("-8,4" in p for p in snap["problems"])
    # The scripted players said their move by hand; the stray piece never entered the game.
    assert "-8,4" not in referee.state.board
    assert referee.state.board  # the move itself was taken


def test_the_demo_command_plays_petri_through_the_camera(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--game", "petri", "--port", "0",
         "--no-browser", "--seconds", "8", "--step", "0.1", "--log", str(tmp_path / "d.sqlite")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"kept as game \d+", proc.stdout)
    with GameLog(tmp_path / "d.sqlite") as log:
        sources = {e["source"] for e in log.entries(log.latest_game_id())}
    assert "camera" in sources
