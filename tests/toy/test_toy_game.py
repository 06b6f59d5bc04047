"""A third game, registered from outside the generic code, plays through referee, terminal, page."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from companion import games
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.terminal import TextReferee
from tests.toy.tictactoe import GAME
from web.app import create_app


@pytest.fixture
def toy():
    games.register(GAME)
    yield GAME
    games.unregister(GAME.name)


def test_the_referee_plays_it_and_the_log_replays_it(toy, tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        referee = Referee(log, log.new_game(toy.new_rules(["x", "o"])))
        for text in ("mark 0", "mark 3", "mark 1", "mark 4", "mark 2"):
            referee.play_text(text, "test")
        snap = referee.snapshot()
        assert snap["tally"]["winners"] == ["x"] and snap["tally"]["reason"] == "three in a row"
        assert snap["prompt"].startswith("x won (three in a row)")
        assert referee.undo_turn("test")  # one mark a turn: undo takes back the last
        game_id = referee.game.id
    with GameLog(path) as log:
        again = log.open(game_id)
        assert again.rules.name == "tictactoe" and len(again.actions) == 4


def test_the_terminal_plays_it(toy, tmp_path: Path) -> None:
    out = io.StringIO()
    with GameLog(tmp_path / "g.sqlite") as log:
        text = TextReferee(log.new_game(toy.new_rules(["x", "o"])), out=out)
        text.run(["mark 4", "mark 4", "mark 0", "board", "legal"])
    said = out.getvalue()
    assert "x marks square 4" in said and "square 4 is taken" in said
    assert "o . .\n. x ." in said and "legal: mark 1 |" in said


def test_the_page_plays_it(toy, tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        referee = Referee(log, log.new_game(toy.new_rules(["x", "o"])))
        client = create_app(referee).test_client()
        page = client.get("/").get_data(as_text=True)
        assert "Tic-tac-toe" in page and "Fight at" not in page  # no Peep War panel
        token = re.search(r'token: "([^"]+)"', page).group(1)
        h = {"X-Companion-Token": token}
        assert client.post("/api/command", json={"text": "mark 4"}, headers=h).status_code == 200
        refused = client.post("/api/action", json={"kind": "mark", "player": "o", "square": 4},
                              headers=h)
        assert refused.status_code == 409 and "taken" in refused.get_json()["error"]
        assert client.post("/api/end", headers=h).status_code == 409  # no end-turn button
        state = client.get("/api/state").get_json()
        assert state["game"] == "tictactoe" and state["waiting_for"] == ["o"]
        assert 'data-square="4"' in state["svg"]


def test_a_terminal_word_given_more_than_it_takes_says_so(toy, tmp_path: Path) -> None:
    out = io.StringIO()
    with GameLog(tmp_path / "g.sqlite") as log:
        game = log.new_game(toy.new_rules(["x", "o"]))
        text = TextReferee(game, out=out)
        text.run(["mark 4", "undo 5", "bot turn 99", "help zz"])
        assert len(game.actions) == 1  # nothing undone, nothing played
    said = out.getvalue()
    assert "'undo' or 'undo turn' takes nothing more: type it alone" in said
    assert "'bot' or 'bot turn' takes nothing more" in said
    assert "'help' takes nothing more" in said
    assert "unknown command" not in said
