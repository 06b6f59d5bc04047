"""A line typed at the terminal that the referee cannot read is answered in one short line:
a runaway word in it (5,000 characters) is quoted cut, as every other error cuts it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from companion import games
from companion.errors import ECHO
from companion.gamelog import GameLog
from companion.terminal import TextReferee

RUNAWAY = "x" * 5000


def _answer(log: Path, game: str, line: str) -> str:
    """What the referee says to ``line`` typed first in a new game of ``game``."""
    bundle = games.find(game)
    with GameLog(log) as opened:
        out = io.StringIO()
        referee = TextReferee(opened.new_game(bundle.new_rules(list(bundle.default_players),
                                                               {})), out=out)
        referee.handle(line)
    return out.getvalue()


@pytest.mark.parametrize(("game", "line"), [
    ("peepwar", "{}"), ("peepwar", "draw {}"), ("peepwar", "move {} 0,0/c 0,0/1"),
    ("petri", "{}"), ("petri", "place {}"),
    ("peloponnesian", "{}"), ("peloponnesian", "place {}"), ("peloponnesian", "draw {}"),
    ("peloponnesian", "play star attica as {}"),
])
def test_a_runaway_word_typed_is_echoed_cut_on_one_line(tmp_path: Path, game: str,
                                                        line: str) -> None:
    # It was repeated whole: a 5,000-character answer.
    short = _answer(tmp_path / "short.sqlite", game, line.format("x"))
    long = _answer(tmp_path / "long.sqlite", game, line.format(RUNAWAY))
    assert long.count("\n") == short.count("\n") == 1
    # The answer the short word gets (a list of areas may make it long), and the word cut.
    assert "x" * (ECHO - 1) + "…" in long and len(long) <= len(short) + ECHO
