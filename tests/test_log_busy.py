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
from companion.errors import UserError
from companion.gamelog import SCHEMA_VERSION, GameLog
from companion.rules.peepwar import PlaceTile
from tests.log_file import log_rows

BUSY = "is busy: another program is writing to it (database is locked); try again when it is done"



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
@pytest.mark.parametrize("command", [["play", "--players", "red,blue"], ["new"], ["undo"]])
def test_a_command_writing_as_it_starts_to_a_log_another_program_holds_says_it_is_busy(
        log: Path, capsys, lock: str, command: list[str]) -> None:
    # It said "<log> is not a usable game log (database is locked); name another file
    # with --log": the game is in this file, which is only busy. The log opens; the new
    # game or the undo meets the lock.
    before = log_rows(log)
    capsys.readouterr()
    with _held(log, lock):
        assert main([*command, "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion {command[0]}: error: the game log {BUSY}\n"
    assert log_rows(log) == before


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
    before = log_rows(log)
    capsys.readouterr()
    with _held(log, "EXCLUSIVE", readers_too=True):
        assert main([*command, "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion {command[0]}: error: the game log {log} {BUSY}\n"
    assert log_rows(log) == before


class _Keyboard:
    """stdin as a player types at a terminal: ``lines``, one at a time."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("lock", ["IMMEDIATE", "EXCLUSIVE"])
@pytest.mark.parametrize(("game", "move"), [(2, "hex -1,1"), (1, "hex 1,0")])
def test_resume_opens_a_log_another_program_holds_and_only_a_move_meets_the_lock(
        log: Path, capsys, monkeypatch, lock: str, game: int, move: str) -> None:
    # Opening the log wrote its version every time, so resume could not even start: the
    # game can be looked at, and a move is refused as busy with the game going on.
    before = log_rows(log)
    monkeypatch.setattr("sys.stdin", _Keyboard(["board\n", f"{move}\n", "quit\n"]))
    capsys.readouterr()
    with _held(log, lock):
        assert main(["resume", "--log", str(log), "--id", str(game)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert f"game {game}: {game - 1} actions replayed from {log}" in out
    assert ("✗ the game log is busy: another program is writing to it (database is locked); "
            "nothing was recorded: type it again") in out
    assert "ok #" not in out and f"game {game} is saved in {log}" in out
    assert log_rows(log) == before


def test_the_page_starts_on_a_game_in_a_log_another_program_holds(log: Path) -> None:
    from companion.service import Service, ServiceOptions

    before = log_rows(log)
    with _held(log, "IMMEDIATE"):
        service = Service(ServiceOptions(port=0, log=log, players=["red", "blue"]))
        try:
            assert service.referee.game.id == 2
            assert service.referee.game.actions == [PlaceTile("red", 1, 0)]
        finally:
            service.stop()
    assert log_rows(log) == before


def test_serve_making_a_new_game_in_a_log_another_program_holds_says_it_is_busy(
        log: Path, tmp_path: Path, capsys) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("")
    before = log_rows(log)
    capsys.readouterr()
    with _held(log, "IMMEDIATE"):
        assert main(["serve", "--log", str(log), "--port", "0", "--host", "127.0.0.1",
                     "--settings", str(settings), "--new"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion serve: error: the game log {BUSY}\n"
    assert log_rows(log) == before


def _version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


def test_a_new_log_and_one_from_before_versions_get_the_version_written(
        tmp_path: Path, log: Path) -> None:
    # Opening a current log writes nothing; a new one and an older one are still marked.
    fresh = tmp_path / "new.sqlite"
    GameLog(fresh).close()
    assert _version(fresh) == SCHEMA_VERSION
    db = sqlite3.connect(log)
    db.execute("PRAGMA user_version=0")
    db.close()
    before = log_rows(log)
    with GameLog(log) as older:
        assert older.open(2).actions == [PlaceTile("red", 1, 0)]
    assert _version(log) == SCHEMA_VERSION and log_rows(log) == before


def test_a_log_from_a_newer_companion_is_still_refused_and_left_as_it_is(log: Path) -> None:
    db = sqlite3.connect(log)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(UserError, match="written by a newer Table Companion"):
        GameLog(log)
    assert _version(log) == SCHEMA_VERSION + 1
