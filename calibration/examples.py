"""A profile's labelled examples: what corrections on the page taught the reader about this table.

Each correction of a place (a Peep War cell's true contents) is kept as one example:
the place, its true reading (JSON), the reader's crop of it (a PNG of the table frame
there, for readers that learn from pixels) and the reader's own summary of the
labelled pixels (JSON: per player's colour model, the pixel statistics it adapts from).
The reader decides what goes in; this module only keeps them.

They live in one SQLite file beside the profile, ``<profile>.examples.sqlite``, so they
survive a restart and belong to that profile only. At most MAX_EXAMPLES are kept (the
oldest go first). They are forgotten with the profile: ``companion calibrate`` writing a
profile deletes them (new colours, new card, perhaps new pieces), and so does
``companion calibrate --reset-examples --out PROFILE.json``.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> store = ExampleStore(examples_path(folder / "table.json"))
>>> store.add("1,0/3", {"pieces": {}}, b"", {"stats": []})
>>> [e.place for e in store.all()], store.path.name
(['1,0/3'], 'table.json.examples.sqlite')
>>> forget_examples(folder / "table.json"), store.all()
(True, [])
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_EXAMPLES = 400
SUFFIX = ".examples.sqlite"
_SCHEMA = """CREATE TABLE IF NOT EXISTS examples (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    place TEXT NOT NULL,
    truth TEXT NOT NULL,
    crop BLOB NOT NULL,
    summary TEXT NOT NULL)"""


class ExamplesError(ValueError):
    """The examples file cannot be used; the message says what to do."""


@dataclass(frozen=True)
class Example:
    id: int
    at: float
    place: str
    truth: dict[str, Any]
    crop: bytes
    summary: dict[str, Any]


def examples_path(profile_path: str | Path) -> Path:
    """Where the examples of the profile at ``profile_path`` are kept."""
    p = Path(profile_path)
    return p.with_name(p.name + SUFFIX)


def forget_examples(profile_path: str | Path) -> bool:
    """Delete the profile's examples; True if there were any."""
    path = examples_path(profile_path)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as e:
        raise ExamplesError(f"{path} cannot be deleted ({e.strerror})") from None
    return True


class ExampleStore:
    """The examples in one SQLite file (created on the first one added)."""

    def __init__(self, path: str | Path, limit: int = MAX_EXAMPLES) -> None:
        self.path = Path(path)
        self.limit = limit
        self._lock = threading.Lock()  # the camera thread adds, the page may read

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path)
            db.execute(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise ExamplesError(f"{self.path} is not an examples file ({e}): delete it, or "
                                "run companion calibrate --reset-examples") from None
        return db

    def add(self, place: str, truth: dict[str, Any], crop: bytes,
            summary: dict[str, Any]) -> None:
        """Keep one example; the oldest beyond ``limit`` are dropped."""
        with self._lock:
            db = self._connect()
            try:
                with db:
                    db.execute("INSERT INTO examples (at, place, truth, crop, summary) "
                               "VALUES (?, ?, ?, ?, ?)",
                               (time.time(), place, json.dumps(truth), sqlite3.Binary(crop),
                                json.dumps(summary)))
                    db.execute("DELETE FROM examples WHERE id NOT IN (SELECT id FROM examples "
                               "ORDER BY id DESC LIMIT ?)", (self.limit,))
            except sqlite3.DatabaseError as e:
                raise ExamplesError(f"{self.path}: the example was not kept ({e})") from None
            finally:
                db.close()

    def all(self) -> list[Example]:
        """Every example kept, oldest first (none when the file does not exist)."""
        with self._lock:
            if not self.path.exists():
                return []
            db = self._connect()
            try:
                rows = db.execute("SELECT id, at, place, truth, crop, summary FROM examples "
                                  "ORDER BY id").fetchall()
            except sqlite3.DatabaseError as e:
                raise ExamplesError(f"{self.path} cannot be read ({e}): delete it, or run "
                                    "companion calibrate --reset-examples") from None
            finally:
                db.close()
        out = []
        for i, at, place, truth, crop, summary in rows:
            try:
                out.append(Example(int(i), float(at), str(place), json.loads(truth),
                                   bytes(crop), json.loads(summary)))
            except (ValueError, TypeError):
                continue  # one damaged row costs that example only
        return out

    def __len__(self) -> int:
        return len(self.all())
