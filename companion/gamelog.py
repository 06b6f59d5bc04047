"""The game log: every accepted action and its events, in a SQLite file.

The log is append-only: an undo is itself an entry, so nothing a player did is
ever lost, and the state is always the replay of the entries. Each action is
written in one transaction (WAL mode, ``synchronous=FULL``) before the caller
hears it was accepted, so a game survives the process being killed at any
moment and resumes where it was.

>>> import tempfile, os
>>> from companion.rules.peepwar import PeepWar, PlaceTile
>>> path = os.path.join(tempfile.mkdtemp(), "games.sqlite")
>>> with GameLog(path) as log:
...     game = log.new_game(PeepWar(players=("red", "blue")))
...     events = game.play(PlaceTile("red", 1, 0))
>>> with GameLog(path) as log:
...     log.open(game.id).actions
[PlaceTile(player='red', q=1, r=0)]
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir

from companion import games
from companion.errors import UserError, json_kind, quoted
from companion.rules.base import Action, BadActionData, Event, IllegalAction, Ruleset

SCHEMA_VERSION = 1


class LogChanged(IllegalAction):
    """Another program wrote to the same game; nothing was written, the game is reloaded."""


def entry_number(seq: int) -> int:
    """The number ``companion replay`` lists an entry by (#1 first), which every message
    naming an entry uses; ``seq``, from 0, stays inside the log."""
    return seq + 1


class DamagedEntry(UserError):
    """An entry whose stored action or events cannot be read (changed by hand, or a damaged
    disk): ``number`` names it as replay lists it and ``reason`` says what is wrong, for a
    list that shows it beside the game rather than as its own line."""

    def __init__(self, game_id: int, seq: int, reason: object) -> None:
        self.seq = seq
        self.number = entry_number(seq)
        super().__init__(f"game {game_id}, entry {self.number} cannot be read: {reason}")
        # Where in the text JSON broke is no help in a list of games: what broke is.
        self.reason = (reason.msg if isinstance(reason, json.JSONDecodeError)
                       else str(reason))


CHECKPOINT_EVERY = 64
# Seconds the log waits while another program holds it locked, before a write gives up
# (sqlite3.OperationalError "database is locked": nothing was written).
LOCK_WAIT_S = 10.0


def is_busy(e: BaseException) -> bool:
    """Whether ``e`` is SQLite giving up, after :data:`LOCK_WAIT_S`, on a log another
    program holds locked: the log is sound and nothing was written, so the same step may be
    taken again once that program is done."""
    return getattr(e, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


def busy_message(e: sqlite3.Error, path: str | Path | None = None) -> str:
    """The line for a log :func:`is_busy` refused: what holds it, and to wait for it (not
    to name another file: the game is in this one)."""
    log = f"the game log {path}" if path is not None else "the game log"
    return f"{log} is busy: another program is writing to it ({e}); try again when it is done"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    action TEXT,
    events TEXT NOT NULL DEFAULT '[]',
    source TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

# The columns a game log's tables have had since its first version.
_COLUMNS = {"games": {"id", "game", "options", "created"},
            "entries": {"game_id", "seq", "kind", "action", "events", "source", "created"}}


def default_log_path() -> Path:
    """``games.sqlite`` in the user's data directory."""
    return Path(user_data_dir("table-companion", appauthor=False)) / "games.sqlite"


def _not_a_plain_file(path: Path) -> bool:
    """Whether ``path`` is there but is no file a log can live in: a device (/dev/null), a
    pipe, or a kernel's file (/proc/self/status) that says it holds 0 bytes and yet reads
    some. SQLite takes what says 0 bytes for an empty log: ``games`` listed none, and a
    game "saved" into /dev/null was lost."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            return True
        if st.st_size:
            return False
        with path.open("rb") as f:
            return bool(f.read(1))
    except OSError:
        return False  # not there (a new log), or opening it says what is wrong


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class GameInfo:
    id: int
    game: str
    options: dict[str, Any]
    created: str
    entries: int
    # Why the stored options cannot be read (``options`` is then empty); None when they can.
    problem: str | None = None


class GameLog:
    """A SQLite file holding any number of games."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        # True when the file holds no tables (an empty file), read as an empty log held in
        # memory: nothing is written to the file.
        self.blank = False
        if self.path.is_dir():
            raise UserError(f"{self.path} is a folder; --log names the game log file")
        if _not_a_plain_file(self.path):
            raise UserError(f"{self.path} is not a regular file; --log names the game log "
                            "file")
        if readonly:
            self._open_readonly()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=LOCK_WAIT_S, isolation_level=None,
                                       check_same_thread=False)
            self._refuse_foreign()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UserError(
                    f"{self.path} was written by a newer Table Companion (log version {version}); "
                    "upgrade, or use another --log file"
                )
            self._db.executescript(_SCHEMA)  # writes only where a table is missing
            if version < SCHEMA_VERSION:
                # A log already at this version is not written to as it opens, so it opens
                # while another program holds it locked: only a move meets the lock.
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as e:
            if is_busy(e):
                raise UserError(busy_message(e, self.path)) from e
            raise UserError(
                f"{self.path} is not a usable game log ({e}); name another file with --log"
            ) from e
        except OSError as e:
            raise UserError(f"cannot open the game log {self.path}: {e.strerror}") from e

    def _open_readonly(self) -> None:
        if not self.path.exists():
            raise UserError(f"there is no game log at {self.path}")
        try:
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                       timeout=LOCK_WAIT_S, isolation_level=None,
                                       check_same_thread=False)
            tables = self._tables()
        except sqlite3.DatabaseError as e:
            if is_busy(e):
                raise UserError(busy_message(e, self.path)) from e
            raise UserError(f"{self.path} is not a usable game log ({e})") from e
        if not tables:
            # An empty file (0 bytes, or a database with no tables yet) is a new, empty log,
            # as play and new take it: read as an empty log held in memory, so that a
            # command that only reads writes nothing to the file.
            self._db.close()
            self._db = sqlite3.connect(":memory:", isolation_level=None,
                                       check_same_thread=False)
            self._db.executescript(_SCHEMA)
            self.blank = True
            return
        if not self._ours(tables):
            raise UserError(f"{self.path} is not a Table Companion game log")

    def _tables(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def _columns(self, table: str) -> set[str]:
        return {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}

    def _ours(self, tables: set[str]) -> bool:
        """Whether these tables are a game log's: a table named games is not enough, another
        program's database may have one (a board-game collection's, say)."""
        if "games" not in tables or not _COLUMNS["games"] <= self._columns("games"):
            return False
        return "entries" not in tables or _COLUMNS["entries"] <= self._columns("entries")

    def _refuse_foreign(self) -> None:
        """Never write our tables into somebody else's database."""
        tables = self._tables()
        if tables and not self._ours(tables):
            raise UserError(f"{self.path} is another program's database, not a game log; "
                            "name another file with --log")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- games ----------------------------------------------------------------------

    def new_game(self, rules: Ruleset) -> LoggedGame:
        cur = self._db.execute(
            "INSERT INTO games (game, options, created) VALUES (?, ?, ?)",
            (rules.name, json.dumps(rules.options()), _now()),
        )
        game_id = cur.lastrowid
        assert game_id is not None
        return LoggedGame(self, game_id, rules, [])

    def games(self) -> list[GameInfo]:
        rows = self._db.execute(
            "SELECT g.id, g.game, g.options, g.created, COUNT(e.seq) FROM games g "
            "LEFT JOIN entries e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id"
        ).fetchall()
        found = []
        for game_id, game, text, created, count in rows:
            # One damaged game must not hide the others: it is listed with what is wrong.
            try:
                found.append(GameInfo(game_id, game, self._options(game_id, text), created,
                                      count))
            except UserError as e:
                found.append(GameInfo(game_id, game, {}, created, count, problem=str(e)))
        return found

    def _options(self, game_id: int, text: object) -> dict[str, Any]:
        """A game's stored options; UserError when the row holds no JSON object."""
        try:
            options = json.loads(text)  # type: ignore[arg-type]
        except (ValueError, TypeError, RecursionError) as e:
            raise UserError(f"game {game_id} in {self.path} has unusable options: "
                            f"they are not readable JSON ({e})") from None
        if not isinstance(options, dict):
            raise UserError(f"game {game_id} in {self.path} has unusable options: "
                            f"{json_kind(options)} where an object belongs")
        return options

    def latest_game_id(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        return row[0]

    def open(self, game_id: int | None = None) -> LoggedGame:
        """The game (the latest one if ``game_id`` is None), replayed from its entries."""
        if game_id is None:
            game_id = self.latest_game_id()
            if game_id is None:
                raise UserError(f"{self.path} holds no game yet; start one with 'companion new'")
        row = self._db.execute("SELECT game, options FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        if row is None:
            known = ", ".join(str(g.id) for g in self.games()) or "none"
            raise UserError(f"there is no game {game_id} in {self.path} (games: {known})")
        try:
            rules = games.find(row[0]).ruleset.from_options(self._options(game_id, row[1]))
        except (ValueError, TypeError) as e:
            raise UserError(f"game {game_id} in {self.path} has unusable options: {e}") from e
        live: list[Action] = []
        numbers: list[int] = []  # each live action's entry, for an error naming it
        entries = self._db.execute(
            "SELECT seq, kind, action FROM entries WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        for seq, kind, data in entries:
            self._whole_seq(game_id, seq)
            if kind == "undo":
                if live:
                    live.pop()
                    numbers.pop()
                continue
            try:
                live.append(rules.decode_action(json.loads(data)))
            # ValueError: not JSON, or not UTF-8; TypeError: no action at all (NULL).
            except (BadActionData, ValueError, TypeError, RecursionError) as e:
                raise DamagedEntry(game_id, seq, e) from e
            numbers.append(entry_number(seq))
        # The next entry goes after the last one written, as _append checks: a log whose
        # entries skip a number (one deleted by hand) still takes moves.
        next_seq = entries[-1][0] + 1 if entries else 0
        return LoggedGame(self, game_id, rules, live, next_seq=next_seq, numbers=numbers)

    # --- writing ----------------------------------------------------------------------

    def _append(self, game_id: int, seq: int, rows: Sequence[tuple[str, str | None, str, str]]
                ) -> None:
        with self._transaction():
            last = self._db.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM entries "
                                    "WHERE game_id = ?", (game_id,)).fetchone()[0]
            if last != seq:
                raise LogChanged(
                    f"game {game_id} in {self.path} was changed by another program "
                    "(another companion, or 'companion undo'); the game was reloaded: "
                    "look at the board and try again")
            for i, (kind, action, events, source) in enumerate(rows):
                self._db.execute(
                    "INSERT INTO entries (game_id, seq, kind, action, events, source, created) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, seq + i, kind, action, events, source, _now()),
                )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    def entries(self, game_id: int) -> list[dict[str, Any]]:
        """Every entry of a game, undos included, for replay listings and debug bundles."""
        rows = self._db.execute(
            "SELECT seq, kind, action, events, source, created FROM entries "
            "WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        out = []
        for seq, kind, action, events, source, created in rows:
            self._whole_seq(game_id, seq)
            try:
                # Bytes written here by hand would reach replay --json and the debug bundle.
                if not isinstance(source, str):
                    raise ValueError("its source is not text")
                if not isinstance(created, str):
                    raise ValueError("its time is not text")
                out.append({"seq": seq, "kind": kind, "action": _stored_action(action),
                            "events": _stored_events(events), "source": source,
                            "created": created})
            except (ValueError, TypeError, RecursionError) as e:
                raise DamagedEntry(game_id, seq, e) from None
        return out

    def _whole_seq(self, game_id: int, seq: object) -> None:
        """UserError when an entry's number was changed by hand into text or a fraction:
        every message naming an entry, and the next entry's number, count on it."""
        if type(seq) is not int:
            raise UserError(f"game {game_id} in {self.path} has an entry numbered "
                            f"{quoted(seq)}, not a whole number: the log was changed by hand "
                            "or is damaged")


def _stored_action(text: object) -> dict[str, Any] | None:
    """An entry's action column as written by :meth:`LoggedGame.play` (None for an undo);
    ValueError when it is damaged, so that readers may rely on its shape."""
    if not text:
        return None
    action = json.loads(text)  # type: ignore[arg-type]
    if not isinstance(action, dict):
        raise ValueError(f"its action is {json_kind(action)}, not an object")
    return action


def _stored_events(text: object) -> list[dict[str, Any]]:
    """An entry's events column: a list of :meth:`Event.to_dict` objects; ValueError when
    it is damaged."""
    events = json.loads(text)  # type: ignore[arg-type]
    if not isinstance(events, list):
        raise ValueError(f"its events are {json_kind(events)}, not a list")
    for ev in events:
        if not (isinstance(ev, dict) and isinstance(ev.get("kind"), str)
                and isinstance(ev.get("text"), str)):
            raise ValueError(f"an event is not an event with a kind and a text: {quoted(ev)}")
        private = ev.get("private_to")
        if private is not None and not (isinstance(private, list)
                                        and isinstance(ev.get("public", ""), str | None)):
            raise ValueError(f"an event's private_to is not a list of players: {quoted(ev)}")
    return events


def entries_seen_by(rules: Ruleset, entries: Sequence[dict[str, Any]], viewer: str | None
                    ) -> list[dict[str, Any]]:
    """``entries`` (from :meth:`GameLog.entries`) as ``viewer`` may see them: private
    events as :meth:`Event.seen_by` gives them, private actions as their kind and player.

    >>> from companion.rules.peepwar import PeepWar, PlaceTile
    >>> rules = PeepWar(players=("red", "blue"))
    >>> secret = Event("draw", "red draws a 6", private_to=frozenset({"red"}), public="red draws")
    >>> entry = {"seq": 0, "kind": "action", "action": rules.encode_action(PlaceTile("red", 1, 0)),
    ...          "events": [secret.to_dict()], "source": "", "created": ""}
    >>> seen = entries_seen_by(rules, [entry], None)[0]
    >>> seen["events"], seen["action"]["q"]
    ([{'kind': 'draw', 'text': 'red draws', 'data': {}}], 1)
    """
    out = []
    for entry in entries:
        entry = dict(entry)
        events = []
        for ev in entry["events"]:
            private = ev.get("private_to")
            if private is None or viewer in private:
                events.append(ev)
            elif ev.get("public") is not None:
                events.append({"kind": ev["kind"], "text": ev["public"], "data": {}})
        entry["events"] = events
        data = entry.get("action")
        if data is not None:
            try:
                hidden = rules.action_private_to(rules.decode_action(data))
            except BadActionData:
                hidden = frozenset()  # what cannot be read is not shown
            if hidden is not None and viewer not in hidden:
                entry["action"] = {"kind": data.get("kind"), "player": data.get("player"),
                                   "hidden": True}
        out.append(entry)
    return out


class _Transaction:
    """One write: all of it committed, or none of it left behind, even when the COMMIT
    itself fails (a full disk)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is not None:
            self._roll_back()
            return
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error:
            # A COMMIT that fails may leave its transaction open, holding the rows it could
            # not save: the next write's BEGIN would then fail, and so every move after it.
            self._roll_back()
            raise

    def _roll_back(self) -> None:
        if not self.db.in_transaction:  # SQLite rolled back already (it may, on an error)
            return
        # The error that ended the write is the one to report; a ROLLBACK that fails too
        # (the disk gone) must not hide it.
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("ROLLBACK")


class LoggedGame:
    """One game bound to its log: the current state, and play/undo that write through."""

    def __init__(self, log: GameLog, game_id: int, rules: Ruleset, actions: list[Action],
                 next_seq: int = 0, numbers: Sequence[int] = ()) -> None:
        """``numbers``: the entry of each of ``actions`` as replay numbers it (undone ones
        skipped), for an error naming one; without them, the actions are counted from 1."""
        self.log = log
        self.id = game_id
        self.rules = rules
        self.actions: list[Action] = []
        # The entry replay lists each live action by: past an undo it is no longer the
        # action's place among those in play, and it is how a player finds it in replay.
        self.numbers: list[int] = []
        self._next_seq = next_seq
        self._checkpoints: dict[int, Any] = {0: rules.new_state()}
        self.state = self._checkpoints[0]
        for i, action in enumerate(actions):
            try:
                self.state, _ = rules.apply(self.state, action)
            except IllegalAction as e:
                which = f"entry {numbers[i]}" if i < len(numbers) else f"action {i + 1}"
                raise UserError(
                    f"game {game_id} does not replay: its {which} is refused ({e}); "
                    "the log may come from another version of the rules"
                ) from e
            self.actions.append(action)
            self.numbers.append(numbers[i] if i < len(numbers) else i + 1)
            self._checkpoint()

    def _checkpoint(self) -> None:
        if len(self.actions) % CHECKPOINT_EVERY == 0:
            self._checkpoints[len(self.actions)] = self.state

    def reload(self) -> None:
        """Read the game again from the log (after another program wrote to it)."""
        fresh = self.log.open(self.id)
        self.actions, self.state, self.numbers = fresh.actions, fresh.state, fresh.numbers
        self._checkpoints, self._next_seq = fresh._checkpoints, fresh._next_seq

    def _write(self, rows: list) -> None:
        try:
            self.log._append(self.id, self._next_seq, rows)
        except LogChanged:
            self.reload()
            raise

    def play(self, action: Action, source: str = "") -> list[Event]:
        """Apply and log ``action``; raises IllegalAction (nothing written) when refused."""
        state, events = self.rules.apply(self.state, action)
        self._write([(
            "action",
            json.dumps(self.rules.encode_action(action)),
            json.dumps([e.to_dict() for e in events]),
            source,
        )])
        self.numbers.append(entry_number(self._next_seq))
        self._next_seq += 1
        self.state = state
        self.actions.append(action)
        self._checkpoint()
        return events

    def undo(self, count: int = 1, source: str = "") -> list[Action]:
        """Take back the last ``count`` actions (fewer if there are fewer); returns them."""
        count = min(count, len(self.actions))
        if count <= 0:
            return []
        self._write([("undo", None, "[]", source)] * count)
        self._next_seq += count
        undone = self.actions[-count:]
        del self.actions[-count:]
        del self.numbers[-count:]
        self._rewind()
        return undone

    def actions_this_turn(self) -> int:
        """How many of the live actions belong to the turn in progress."""
        turn = self.rules.turn(self.state)
        if turn == 0:  # setup has no turns: one placement at a time
            return min(1, len(self.actions))
        n = 0
        for i in range(len(self.actions) - 1, -1, -1):
            if self.rules.turn(self._state_at(i)) != turn:
                break
            n += 1
        return n

    def _state_at(self, n: int) -> Any:
        """The state after the first ``n`` live actions."""
        base = max(k for k in self._checkpoints if k <= n)
        state = self._checkpoints[base]
        for action in self.actions[base:n]:
            state, _ = self.rules.apply(state, action)
        return state

    def _rewind(self) -> None:
        n = len(self.actions)
        for k in [k for k in self._checkpoints if k > n]:
            del self._checkpoints[k]
        self.state = self._state_at(n)

    def events(self) -> list[Event]:
        """All events of the live actions, recomputed by replay."""
        return self.rules.replay(self.actions)[1]
