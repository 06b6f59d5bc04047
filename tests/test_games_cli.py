"""``games``, ``resume`` and ``undo`` on the game log: plain lists with results, no new log
made where there was none."""

from __future__ import annotations

from pathlib import Path

from companion.cli import main

SCRIPTS = Path(__file__).resolve().parent / "data" / "scripts"


def test_resume_and_undo_refuse_a_missing_log_and_make_none(tmp_path: Path, capsys) -> None:
    log = tmp_path / "typo.sqlite"
    for command in ("resume", "undo"):
        assert main([command, "--log", str(log)]) == 2
        err = capsys.readouterr().err
        assert f"there is no game log at {log}" in err
        assert not log.exists()


def test_games_lists_players_plainly_and_the_result(tmp_path: Path, capsys) -> None:
    log = str(tmp_path / "g.sqlite")
    assert main(["new", "--log", log, "--players", "red,blue,green"]) == 0
    assert main(["play", "--log", log, "--script",
                 str(SCRIPTS / "peepwar-2005-2p.txt")]) == 0
    capsys.readouterr()
    assert main(["games", "--log", log]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert "Peep War: red, blue, green (edition 2005)" in first and "in progress" in first
    assert "[" not in first and "'" not in first
    assert "Peep War: red, blue (edition 2005)" in second
    assert second.endswith("red won (red holds 4 Supply Centers (4 win))")


def test_the_text_demo_keeps_its_game_where_it_says(tmp_path: Path, capsys) -> None:
    log = tmp_path / "demo.sqlite"
    assert main(["demo", "--text", "--seed", "3", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"The demo game is kept as game 1 in {log}" in out
    assert main(["replay", "--log", str(log), "--id", "1"]) == 0
    assert capsys.readouterr().out.count("#") > 10
