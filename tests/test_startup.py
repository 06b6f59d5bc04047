"""The rules commands load no camera, page or device library, and games installed as their
own distributions are still found."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion import games

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"cv2", "numpy", "flask", "werkzeug", "gevent", "onnxruntime", "segno", "serial",
         "gpiozero", "importlib.metadata"}


def _loaded(args: list[str], tmp_path: Path) -> set[str]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "companion", *args], cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    names = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()
             if line.startswith("import time:")}
    return {n for n in names if n in HEAVY or n.split(".")[0] in HEAVY}


@pytest.mark.parametrize("args", [
    ["odds", "--attacker", "3", "--defender", "2"], ["new"], ["games"], ["replay"],
    ["undo"], ["play", "--script", "SCRIPT"]])
def test_rules_commands_load_no_heavy_library(args: list[str], tmp_path: Path) -> None:
    log = tmp_path / "g.sqlite"
    script = tmp_path / "moves.txt"
    script.write_text("hex 1,0\n")
    from companion.cli import main

    assert main(["play", "--log", str(log), "--script", str(script)]) == 0
    args = [str(script) if a == "SCRIPT" else a for a in args]
    if args[0] != "odds":
        args += ["--log", str(log)]
    assert _loaded(args, tmp_path) == set()


def test_a_game_declared_by_an_installed_distribution_is_found(tmp_path: Path,
                                                                monkeypatch) -> None:
    (tmp_path / "toy_pkg").mkdir()
    (tmp_path / "toy_pkg" / "__init__.py").write_text(textwrap.dedent("""
        from tests.toy.tictactoe import TicTacToeGame
        GAME = TicTacToeGame()
    """))
    dist = tmp_path / "toy_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-pkg\nVersion: 1.0\n")
    (tmp_path / "toy_pkg" / "hello_command.py").write_text(
        "def add_parser(sub):\n    sub.add_parser('hello')\n")
    (dist / "entry_points.txt").write_text(
        "[table_companion.games]\ntictactoe = toy_pkg:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(games, "_places", None)
    monkeypatch.setattr(games, "_loaded", {})
    assert games._may_declare_games()
    assert "tictactoe" in games.names()
    assert "toy_pkg.hello_command" in games.command_modules()  # found without importing it
    assert "toy_pkg" not in sys.modules
    assert games.find("tictactoe").title == games.all_games()["tictactoe"].title
    monkeypatch.setattr(games, "_places", None)  # the next test finds the usual games again


def test_odds_imports_peep_war_alone_and_new_imports_the_game_it_starts(tmp_path: Path
                                                                       ) -> None:
    def games_loaded(args: list[str]) -> set[str]:
        r = subprocess.run([sys.executable, "-X", "importtime", "-m", "companion", *args],
                           cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        names = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()
                 if line.startswith("import time:")}
        return {n.split(".")[2] for n in names if n.startswith("companion.rules.")
                and n.count(".") >= 2 and n.split(".")[2] in games.names()}

    assert games_loaded(["odds", "--attacker", "3", "--defender", "2"]) == {"peepwar"}
    log = str(tmp_path / "g.sqlite")
    assert games_loaded(["new", "--log", log, "--game", "petri", "--pieces", "15"]) == {"petri"}


def test_a_new_games_options_are_read_once_the_game_is_chosen(tmp_path: Path, capsys) -> None:
    from companion.cli import main

    log = str(tmp_path / "g.sqlite")
    assert main(["new", "--log", log, "--game", "petri", "--edition", "2001"]) == 2
    assert "Petri has no option --edition" in capsys.readouterr().err
    assert main(["new", "--log", log, "--edition", "2001"]) == 0
    assert "Peep War 2001" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["games", "--log", log, "--edition", "2001"])  # games takes no game options
    assert "unrecognized arguments: --edition 2001" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    shown = capsys.readouterr().out
    assert "--edition" in shown and "--pieces" in shown  # help lists every game's options
