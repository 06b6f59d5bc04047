"""A game log's connection on a disk that fills up at the last step of a save, for tests of
what a failed save leaves behind (a real tiny filesystem needs privileges tests lack)."""

from __future__ import annotations

import sqlite3


class FullAtCommit:
    """Stands for a log's connection: its next COMMIT fails as on a full disk, after the
    entry's rows were written into the transaction; everything else goes to ``db``."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.armed = True

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == "COMMIT" and self.armed:
            self.armed = False
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self._db, name)
