"""Whole games from setup to victory, for 2 and 4 players in each edition."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.gamelog import GameLog
from companion.rules.peepwar import PeepWar, Phase, notation

SCRIPTS = Path(__file__).resolve().parents[1] / "data" / "scripts"
CASES = ["peepwar-2001-2p.txt", "peepwar-2005-2p.txt", "peepwar-2001-4p.txt",
         "peepwar-2005-4p.txt"]


def _header(path: Path) -> tuple[int, list[str], str, int, list[str]]:
    text = path.read_text()
    m = re.search(r"Peep War (\d+), players ([\w,]+)", text)
    e = re.search(r"expect: (\w+) wins after turn (\d+); out: ([\w,]+)", text)
    assert m and e
    out = [] if e.group(3) == "none" else e.group(3).split(",")
    return int(m.group(1)), m.group(2).split(","), e.group(1), int(e.group(2)), out


@pytest.mark.parametrize("name", CASES)
def test_scripted_game_reaches_the_expected_victory(name: str) -> None:
    path = SCRIPTS / name
    edition, players, winner, turn, out = _header(path)
    rules = PeepWar(players=players, edition=edition)
    state = rules.new_state()
    lines = [ln.split("#")[0].strip() for ln in path.read_text().splitlines()]
    commands = [ln for ln in lines if ln]
    for i, command in enumerate(commands):
        assert not rules.is_over(state), f"game over before command {i + 1}"
        state, _ = rules.apply(state, notation.parse(command, rules, state))
    assert state.phase is Phase.OVER
    assert state.winner == winner
    assert state.turn == turn
    assert list(state.out) == out
    tally = rules.tally(state)
    # The winner either holds the threshold or is the last player standing.
    held = {s.player: s.score for s in tally.standings}
    assert held[winner] >= rules.needed() or len(state.in_game()) == 1


def test_scripted_game_through_the_companion_command(tmp_path: Path) -> None:
    log = tmp_path / "games.sqlite"
    result = subprocess.run(
        [sys.executable, "-m", "companion", "play", "--log", str(log), "--players", "red,blue",
         "--edition", "2005", "--script", str(SCRIPTS / "peepwar-2005-2p.txt")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "red wins: red controls 4 of 5 Supply Centers (4 needed)" in result.stdout
    assert "✗" not in result.stdout
    with GameLog(log) as gl:
        game = gl.open()
        assert game.state.winner == "red"
        assert len(game.actions) == 172
