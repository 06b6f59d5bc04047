"""A real companion process killed with SIGKILL mid-game loses no accepted action."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from companion.gamelog import GameLog
from companion.rules.peepwar import PeepWar, notation
from companion.rules.peepwar.bot import Bot


def _commands(n: int) -> list[str]:
    rules = PeepWar(players=("red", "blue", "green"), edition=2005)
    state = rules.new_state()
    out = []
    for action in Bot(rules, 11).play(state, n):
        out.append(notation.format(action))
    return out


def test_sigkill_while_writing_keeps_every_acknowledged_action(tmp_path: Path) -> None:
    log = tmp_path / "games.sqlite"
    commands = _commands(600)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "play", "--log", str(log),
         "--players", "red,blue,green", "--edition", "2005"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdin and proc.stdout

    def feed() -> None:
        try:
            for c in commands:
                proc.stdin.write(c + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    acknowledged = 0
    for line in proc.stdout:
        if line.strip().startswith("ok #"):
            acknowledged = int(line.strip()[4:])
            if acknowledged >= 120:
                proc.send_signal(signal.SIGKILL)
                break
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert acknowledged >= 120

    with GameLog(log) as gl:
        game = gl.open()
        got = [notation.format(a) for a in game.actions]
    # Every acknowledged action is there, in order; at most the one being written after it.
    assert got[:acknowledged] == commands[:acknowledged]
    assert len(got) <= len(commands)
    assert got == commands[: len(got)]

    # And the game carries on where it stopped.
    resumed = subprocess.run(
        [sys.executable, "-m", "companion", "resume", "--log", str(log)],
        input=commands[len(got)] + "\nboard\n", capture_output=True, text=True, timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(got)} actions replayed" in resumed.stdout
    assert f"ok #{len(got) + 1}" in resumed.stdout
