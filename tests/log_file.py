"""A game log file as another program sees it: what tests compare before and after."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def log_rows(log: Path) -> list[tuple]:
    """Every game and entry row of the SQLite file ``log``, in a fixed order."""
    db = sqlite3.connect(log)
    rows = (db.execute("SELECT * FROM games ORDER BY id").fetchall()
            + db.execute("SELECT * FROM entries ORDER BY game_id, seq").fetchall())
    db.close()
    return rows
