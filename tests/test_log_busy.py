"""A game log another program holds locked is busy, not broken: a command that cannot wait
for it says so in one line and leaves it as it was, and never sends the player to another
file (the game is in this one)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.cli import main
from companion.gamelog import GameLog
from companion.rules.peepwar import PlaceTile

BUSY = "is busy: another program is writing to it (database is locked); try again when it is done"


def _rows(log: Path) -> list[tuple]:
    db = sqlite3.connect(log)
    rows = (db.execute("SELECT * FROM games ORDER BY id").fetchall()
            + db.execute("SELECT * FROM entries ORDER BY game_id, seq").fetchall())
    db.close()
    return rows


@contextmanager
def _held(log: Path, lock: str, *, readers_too: bool = False) -> Iterator[None]:
    """Another program (a database tool) holding ``log`` with ``BEGIN <lock>``;
    ``readers_too``: in SQLite's exclusive locking mode, which keeps readers out as well."""
    other = sqlite3.connect(log, isolation_level=None)
    if readers_too:
        other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute(f"BEGIN {lock}")
    if readers_too:  # the lock that keeps readers out is taken at the first write
        other.execute("UPDATE games SET created = created")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.fixture
def log(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setattr("companion.gamelog.LOCK_WAIT_S", 0.2)  # not the usual 10 s of waiting
    path = tmp_path / "g.sqlite"
    for _ in range(2):
        assert main(["new", "--log", str(path), "--players", "red,blue"]) == 0
    with GameLog(path) as write:
        write.open(2).play(PlaceTile("red", 1, 0))
    return path


@pytest.mark.parametrize("lock", ["IMMEDIATE", "EXCLUSIVE"])
@pytest.mark.parametrize("command", [
    ["play", "--players", "red,blue"], ["resume"], ["new"], ["undo"], ["resume", "--id", "1"],
])
def test_a_command_starting_on_a_log_another_program_holds_says_it_is_busy(
        log: Path, capsys, lock: str, command: list[str]) -> None:
    # It said "<log> is not a usable game log (database is locked); name another file
    # with --log": the game is in this file, which is only busy.
    before = _rows(log)
    capsys.readouterr()
    with _held(log, lock):
        assert main([*command, "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion {command[0]}: error: the game log {log} {BUSY}\n"
    assert _rows(log) == before


@pytest.mark.parametrize("command", [["games"], ["replay"], ["replay", "--json"]])
def test_games_and_replay_read_a_log_another_program_is_writing(
        log: Path, capsys, command: list[str]) -> None:
    capsys.readouterr()
    with _held(log, "EXCLUSIVE"):  # the log's journal lets readers in meanwhile
        assert main([*command, "--log", str(log)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", [["games"], ["replay"], ["play"], ["undo"]])
def test_a_log_held_from_readers_too_is_busy_for_every_command(
        log: Path, capsys, command: list[str]) -> None:
    before = _rows(log)
    capsys.readouterr()
    with _held(log, "EXCLUSIVE", readers_too=True):
        assert main([*command, "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion {command[0]}: error: the game log {log} {BUSY}\n"
    assert _rows(log) == before


def test_serve_starting_on_a_log_another_program_holds_says_it_is_busy(
        log: Path, tmp_path: Path, capsys) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("")
    before = _rows(log)
    capsys.readouterr()
    with _held(log, "IMMEDIATE"):
        assert main(["serve", "--log", str(log), "--port", "0", "--host", "127.0.0.1",
                     "--settings", str(settings)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion serve: error: the game log {log} {BUSY}\n"
    assert _rows(log) == before
