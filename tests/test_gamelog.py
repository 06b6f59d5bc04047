"""The game log: a real SQLite file, append-only undo, resume, bad files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion.errors import UserError
from companion.gamelog import GameLog
from companion.rules.base import IllegalAction
from companion.rules.peepwar import PeepWar, PlaceTile
from companion.rules.peepwar.bot import Bot
from tests.full_disk import FullAtCommit


def _play(game, n: int, seed: int = 1) -> None:
    bot = Bot(game.rules, seed)
    for _ in range(n):
        game.play(bot.choose(game.state))


def test_actions_survive_reopening_and_replay_to_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        game = log.new_game(PeepWar(players=("red", "blue", "green"), edition=2001))
        _play(game, 150)
        state, actions = game.state, list(game.actions)
    with GameLog(path) as log:
        again = log.open(game.id)
    assert again.actions == actions
    assert again.state == state
    assert again.rules.options() == {"players": ["red", "blue", "green"], "edition": 2001}


def test_log_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    GameLog(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_refused_action_writes_nothing(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        game = log.new_game(PeepWar())
        with pytest.raises(IllegalAction, match="Neutral Territory is there"):
            game.play(PlaceTile("red", 0, 0))
        assert log.entries(game.id) == []


def test_undo_is_recorded_and_the_undone_action_kept(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        game = log.new_game(PeepWar())
        game.play(PlaceTile("red", 1, 0))
        before = game.state
        game.play(PlaceTile("blue", -1, 0))
        assert game.undo() == [PlaceTile("blue", -1, 0)]
        assert game.state == before
        kinds = [e["kind"] for e in log.entries(game.id)]
        assert kinds == ["action", "action", "undo"]
        assert log.entries(game.id)[1]["action"]["q"] == -1
    with GameLog(path) as log:
        assert log.open().state == before


def test_undo_far_back_uses_checkpoints_and_matches_replay(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        game = log.new_game(PeepWar())
        _play(game, 200, seed=5)
        actions = list(game.actions)
        game.undo(70)
        expected, _ = game.rules.replay(actions[:130])
        assert game.state == expected
        assert log.open(game.id).state == expected


def test_undo_turn_takes_back_only_the_current_turn(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        game = log.new_game(PeepWar())
        bot = Bot(game.rules, 2)
        while game.state.turn < 3:
            game.play(bot.choose(game.state))
        start = game.state
        for _ in range(3):
            game.play(bot.choose(game.state))
        n = game.actions_this_turn()
        assert n == 3
        game.undo(n)
        assert game.state == start


def test_several_games_in_one_file(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        a = log.new_game(PeepWar(players=("red", "blue")))
        b = log.new_game(PeepWar(players=("x", "y", "z"), edition=2001))
        a.play(PlaceTile("red", 1, 0))
        assert [g.id for g in log.games()] == [a.id, b.id]
        assert log.open().id == b.id
        assert log.open(a.id).actions == [PlaceTile("red", 1, 0)]
        with pytest.raises(UserError, match="there is no game 99"):
            log.open(99)


def test_a_file_that_is_not_a_log_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(UserError, match="not a usable game log"):
        GameLog(path)


def test_an_empty_log_says_how_to_start(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log, pytest.raises(UserError, match="companion new"):
        log.open()


def test_a_damaged_entry_is_named(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        game = log.new_game(PeepWar())
        game.play(PlaceTile("red", 1, 0))
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET action = ?", (json.dumps({"kind": "fly", "player": "red"}),))
    db.commit()
    db.close()
    with GameLog(path) as log, pytest.raises(UserError, match="entry 1 cannot be read.*fly"):
        log.open()


def _entries_with_an_undo(path: Path) -> None:
    """Game 1 with the entries #1 hex -1,1, #2 undo, #3 hex -1,1 and #4 hex 1,0, as replay
    numbers them: the live actions (two) are not the entries (four)."""
    with GameLog(path) as log:
        game = log.new_game(PeepWar(players=("red", "blue")))
        game.play(PlaceTile("red", -1, 1))
        game.undo()
        game.play(PlaceTile("red", -1, 1))
        game.play(PlaceTile("blue", 1, 0))


def _set_action(path: Path, seq: int, action: dict | str) -> None:
    db = sqlite3.connect(path)
    text = action if isinstance(action, str) else json.dumps(action)
    db.execute("UPDATE entries SET action = ? WHERE seq = ?", (text, seq))
    db.commit()
    db.close()


@pytest.mark.parametrize("action", [{"kind": "fly", "player": "blue"}, "{bad"])
def test_a_damaged_entry_is_named_by_its_number_in_replay(
        tmp_path: Path, action: dict | str) -> None:
    # Named "entry 3" for replay's "#4", "entry 0" for its "#1".
    path = tmp_path / "g.sqlite"
    _entries_with_an_undo(path)
    _set_action(path, 3, action)
    with GameLog(path) as log:
        with pytest.raises(UserError, match=r"^game 1, entry 4 cannot be read: ") as opened:
            log.open()
        assert opened.value.number == 4
        if isinstance(action, str):  # what replay lists first: every entry readable
            with pytest.raises(UserError, match=r"^game 1, entry 4 cannot be read: "):
                log.entries(1)


@pytest.mark.parametrize(("column", "value", "words"), [
    # Bytes where text belongs: replay --json once died in json.dumps with a traceback.
    ("source", b"\xff", "entry 1 cannot be read: its source is not text"),
    ("created", b"\xff", "entry 1 cannot be read: its time is not text"),
    # Text where the entry's number belongs: every command once died adding 1 to it.
    ("seq", "a", "has an entry numbered 'a', not a whole number"),
])
def test_an_entry_column_changed_by_hand_is_one_line_in_every_command(
        tmp_path: Path, capsys, column: str, value: object, words: str) -> None:
    from companion.cli import main

    path = tmp_path / "g.sqlite"
    _entries_with_an_undo(path)
    db = sqlite3.connect(path)
    db.execute(f"UPDATE entries SET {column} = ? WHERE seq = 0", (value,))
    db.commit()
    db.close()
    before = path.read_bytes()
    (tmp_path / "none.txt").write_text("")
    # The game itself replays without an entry's source and time, so only the listings
    # need them; without its entries' numbers nothing may open it.
    commands = [["replay", "--json"], ["replay"], ["replay", "--as", "watcher"]] + (
        [["undo"], ["resume", "--script", str(tmp_path / "none.txt")]] if column == "seq"
        else [])
    for args in commands:
        assert main([*args, "--log", str(path)]) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, (args, err)
    assert main(["games", "--log", str(path)]) == 0
    assert words.split(": ")[-1] in capsys.readouterr().out  # listed, with the others
    assert path.read_bytes() == before  # nothing written to the damaged log


@pytest.mark.parametrize(("events", "shown"), [
    ([{"kind": 1, "text": "x" * 5000}], "{'kind': 1, 'text': 'xxxx"),
    (["x" * 5000], "'xxxx"),
    ([{"kind": "k", "text": "t", "private_to": "x" * 5000}], "{'kind': 'k', 'text': 't', 'p"),
])
def test_a_runaway_damaged_event_is_quoted_cut_with_an_ellipsis(
        tmp_path: Path, events: list, shown: str) -> None:
    # It was cut at 60 characters with nothing to show it was cut.
    path = tmp_path / "g.sqlite"
    _entries_with_an_undo(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE entries SET events = ? WHERE seq = 0", (json.dumps(events),))
    db.commit()
    db.close()
    with GameLog(path) as log, pytest.raises(UserError) as refused:
        log.entries(1)
    why = str(refused.value).split(": ", 2)[2]
    assert why.startswith(shown) and "…" in why[-2:] and len(why) < 110, why


def test_an_entry_the_rules_refuse_is_named_by_its_number_in_replay(tmp_path: Path) -> None:
    # Named "its action 2" (the live actions counted, undone ones left out) for replay's #4.
    path = tmp_path / "g.sqlite"
    _entries_with_an_undo(path)
    _set_action(path, 3, {"kind": "place_tile", "player": "blue", "q": -1, "r": 1})
    with GameLog(path) as log, pytest.raises(
            UserError, match=r"^game 1 does not replay: its entry 4 is refused \("):
        log.open()


@pytest.mark.parametrize("step", ["play", "undo"])
def test_a_save_failing_at_its_commit_is_rolled_back_and_the_next_one_is_recorded(
        tmp_path: Path, monkeypatch, step: str) -> None:
    # The failed save's transaction stayed open: every later move failed ("cannot start a
    # transaction within a transaction") until the program was restarted.
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        game = log.new_game(PeepWar(players=("red", "blue")))
        game.play(PlaceTile("red", -1, 1))
        full = FullAtCommit(log._db)
        monkeypatch.setattr(log, "_db", full)
        failed = (lambda: game.play(PlaceTile("blue", 1, 0))) if step == "play" else game.undo
        with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
            failed()
        assert not full.armed and not log._db.in_transaction
        assert game.actions == [PlaceTile("red", -1, 1)]  # as reported: not recorded
        game.play(PlaceTile("blue", 1, 0))
        game.play(PlaceTile("red", 0, 1))
        recorded = list(game.actions)
    with GameLog(path) as log:
        assert log.open(game.id).actions == recorded
        assert [(e["seq"], e["kind"]) for e in log.entries(game.id)] == [
            (0, "action"), (1, "action"), (2, "action")]


def test_another_program_writing_the_same_game_is_caught_and_reloaded(tmp_path: Path) -> None:
    from companion.gamelog import LogChanged

    path = tmp_path / "g.sqlite"
    with GameLog(path) as one, GameLog(path) as two:
        a = one.new_game(PeepWar())
        b = two.open(a.id)
        a.play(PlaceTile("red", 1, 0))
        with pytest.raises(LogChanged, match="changed by another program"):
            b.play(PlaceTile("red", -1, 0))
        assert b.actions == [PlaceTile("red", 1, 0)]  # reloaded from the file
        b.play(PlaceTile("blue", -1, 0))
    with GameLog(path) as log:
        assert len(log.open().actions) == 2


@pytest.mark.parametrize(("name", "tables", "rows"), [
    ("photos.db", ["CREATE TABLE photos (id INTEGER)"], []),
    # A board-game collection's database may well have a table named games: the log wrote
    # its entries table and its version into it, turned it to WAL, and then failed with
    # "the game log could not be read or written (table games has no column named game)".
    ("collection.db", ["CREATE TABLE games (title TEXT, shelf INTEGER)",
                       "INSERT INTO games VALUES ('Petri', 3)"], [("Petri", 3)]),
])
def test_another_programs_database_is_left_alone(tmp_path: Path, name: str, tables: list[str],
                                                 rows: list[tuple]) -> None:
    path = tmp_path / name
    db = sqlite3.connect(path)
    for sql in tables:
        db.execute(sql)
    db.commit()
    db.close()
    with pytest.raises(UserError, match="another program's database"):
        GameLog(path)
    with pytest.raises(UserError, match="not a Table Companion game log"):
        GameLog(path, readonly=True)
    db = sqlite3.connect(path)
    table = tables[0].split()[2]
    assert {r[0] for r in db.execute("SELECT name FROM sqlite_master")} == {table}
    assert db.execute("PRAGMA journal_mode").fetchone()[0] != "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    assert db.execute(f"SELECT * FROM {table}").fetchall() == rows
    db.close()


def test_a_folder_is_not_a_log(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is a folder"):
        GameLog(tmp_path)


@pytest.mark.parametrize("path", ["/dev/null", "/proc/self/status"])
@pytest.mark.parametrize("readonly", [False, True])
def test_a_device_or_kernel_file_is_not_a_log(path: str, readonly: bool) -> None:
    # Both say they hold 0 bytes, which SQLite took for an empty log.
    with pytest.raises(UserError, match=f"^{path} is not a regular file; --log names"):
        GameLog(path, readonly=readonly)


def test_undo_turn_in_setup_takes_back_one_placement(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        game = log.new_game(PeepWar())
        _play(game, 4)
        assert game.actions_this_turn() == 1


def test_a_log_whose_entries_skip_a_number_still_takes_moves_and_undo(tmp_path: Path) -> None:
    # An undone action and its undo deleted by hand (a database tool) left seq 0, 3: every
    # write was refused as "changed by another program" for good, and 'companion undo'
    # ended in a traceback.
    path = tmp_path / "g.sqlite"
    with GameLog(path) as log:
        game = log.new_game(PeepWar())
        game.play(PlaceTile("red", 1, 0))
        game.play(PlaceTile("blue", -1, 0))
        game.undo(1)
        game.play(PlaceTile("blue", 0, 1))
    db = sqlite3.connect(path)
    db.execute("DELETE FROM entries WHERE seq IN (1, 2)")
    db.commit()
    db.close()
    with GameLog(path) as log:
        game = log.open()
        assert game.actions == [PlaceTile("red", 1, 0), PlaceTile("blue", 0, 1)]
        assert game.undo(1, source="test") == [PlaceTile("blue", 0, 1)]
        game.play(PlaceTile("blue", -1, 0))
    with GameLog(path) as log:
        assert log.open().actions == [PlaceTile("red", 1, 0), PlaceTile("blue", -1, 0)]
        assert [e["seq"] for e in log.entries(game.id)] == [0, 3, 4, 5]


def test_undo_typed_after_another_program_wrote_is_one_line_not_a_traceback(
        tmp_path: Path) -> None:
    import io

    from companion.terminal import TextReferee

    path = tmp_path / "g.sqlite"
    with GameLog(path) as one, GameLog(path) as two:
        game = one.new_game(PeepWar())
        game.play(PlaceTile("red", 1, 0))
        out = io.StringIO()
        terminal = TextReferee(game, out=out)
        two.open(game.id).play(PlaceTile("blue", -1, 0))  # 'companion serve' on the same log
        assert terminal.handle("undo")
        assert "✗ game 1" in out.getvalue() and "changed by another program" in out.getvalue()
        assert game.actions == [PlaceTile("red", 1, 0), PlaceTile("blue", -1, 0)]  # reloaded
        assert terminal.handle("undo") and game.actions == [PlaceTile("red", 1, 0)]
