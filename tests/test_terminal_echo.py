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
    # An action typed as JSON (PeltaPeeps has no notation): its kind, a field's value and
    # a field of no action.
    ("peltapeeps", '{{"kind": "{}"}}'),
    ("peltapeeps", '{{"kind": "place", "player": "red", "team": "red", "piece": "E1", '
                   '"x": "{}", "y": 0, "rotation": 0, "face_up": true}}'),
    ("peltapeeps", '{{"kind": "end_turn", "player": "red", "{}": 1}}'),
])
def test_a_runaway_word_typed_is_echoed_cut_on_one_line(tmp_path: Path, game: str,
                                                        line: str) -> None:
    # It was repeated whole: a 5,000-character answer.
    short = _answer(tmp_path / "short.sqlite", game, line.format("x"))
    long = _answer(tmp_path / "long.sqlite", game, line.format(RUNAWAY))
    assert long.count("\n") == short.count("\n") == 1
    # The answer the short word gets (a list of areas may make it long), and the word cut.
    assert "x" * (ECHO - 1) + "…" in long and len(long) <= len(short) + ECHO


HUGE = "9" * 5000  # past the 4,300 digits int() reads


@pytest.mark.parametrize(("game", "line", "answer"), [
    ("petri", "die {}", "  ? type die N with one of the numbers you rolled, e.g. die 5\n"),
    ("petri", "roll 3 {}", "  ? type roll A B with the two dice, e.g. roll 3 5 "
                           "(or just roll to let the companion roll)\n"),
    ("petri", "roll {} 3", "  ? type roll A B with the two dice, e.g. roll 3 5 "
                           "(or just roll to let the companion roll)\n"),
    ("peepwar", "move {} 0,0/c 0,0/1", "is not a number of pieces: write 2, peep or 2+peep"),
    ("peepwar", "remove {}+peep 0,0/c", "is not a number of pieces: write 2, peep or 2+peep"),
    ("peltapeeps", '{{"kind": "place", "x": {}}}', "  ? the number 99999"),
])
def test_a_number_of_thousands_of_digits_typed_is_refused_in_the_games_words(
        tmp_path: Path, game: str, line: str, answer: str) -> None:
    # int() refused it in Python's words: "Exceeds the limit (4300 digits) for integer string
    # conversion ...; use sys.set_int_max_str_digits() to increase the limit".
    said = _answer(tmp_path / "g.sqlite", game, line.format(HUGE))
    assert answer in said and said.startswith("  ? "), said
    assert said.count("\n") == 1 and len(said) < 200, said
    assert "digits" not in said and "sys." not in said


@pytest.mark.parametrize(("game", "line"), [("petri", "die ²"), ("petri", "roll ² 3")])
def test_a_digit_int_cannot_read_is_refused_as_the_form(tmp_path: Path, game: str,
                                                        line: str) -> None:
    # isdigit() takes '²', which int() refuses: "invalid literal for int() with base 10".
    said = _answer(tmp_path / "g.sqlite", game, line)
    assert said.startswith("  ? type ") and "int()" not in said, said


@pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity"])
def test_a_typed_action_with_no_finite_number_is_refused(tmp_path: Path, number: str) -> None:
    # Python's JSON reads these as infinity or NaN, and the piece was placed there.
    said = _answer(tmp_path / "g.sqlite", "peltapeeps",
                   '{"kind": "place", "player": "red", "team": "red", "piece": "E1", '
                   f'"x": {number}, "y": 0, "rotation": 0, "face_up": true}}')
    assert said in (f"  ? the number {number} is too large\n",
                    f"  ? {number} is not a number JSON allows\n"), said
