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
    (dist / "entry_points.txt").write_text("[table_companion.games]\ntoy = toy_pkg:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(games, "_found", None)
    assert games._may_declare_games()
    found = games.all_games()
    assert "tictactoe" in found
    monkeypatch.setattr(games, "_found", None)  # the next test finds the usual games again
