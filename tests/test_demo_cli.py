"""``companion demo``'s options: a number it cannot use is one clear error, never a
traceback nor a quiet default."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main


@pytest.mark.parametrize("option", ["--step", "--seconds"])
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_seconds_that_are_no_wait_are_an_argparse_error(tmp_path: Path, capsys, option,
                                                        value) -> None:
    # --step nan would spin the scripted table with no pause; --seconds inf would overflow
    # the wait in a traceback.
    with pytest.raises(SystemExit) as stop:
        main(["demo", "--text", "--log", str(tmp_path / "d.sqlite"), f"{option}={value}"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f"companion demo: error: argument {option}: must be a number of seconds above 0 and "
        f"at most 604800 (a week), not {value!r}")
    assert not (tmp_path / "d.sqlite").exists()


@pytest.mark.parametrize(("game", "players", "allowed"), [
    ("peepwar", "0", "2 to 6 for Peep War"),
    ("peepwar", "1", "2 to 6 for Peep War"),
    ("peepwar", "7", "2 to 6 for Peep War"),
    ("peepwar", "-1", "2 to 6 for Peep War"),
    ("peloponnesian", "4", "2 to 3 for"),
])
def test_a_number_of_players_the_game_has_no_seats_for_is_refused(tmp_path: Path, capsys,
                                                                  game, players,
                                                                  allowed) -> None:
    # --players 0 is a number to refuse: taken as "the default", a 2-player game would be
    # played quietly.
    log = tmp_path / "d.sqlite"
    assert main(["demo", "--text", "--game", game, "--log", str(log),
                 f"--players={players}"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"companion demo: error: --players must be {allowed}")
    assert err.strip().endswith(f", not {players}") and len(err.splitlines()) == 1
    assert not log.exists()


def test_the_usual_number_of_players_is_the_default(tmp_path: Path, capsys) -> None:
    assert main(["demo", "--text", "--seed", "3", "--log", str(tmp_path / "d.sqlite")]) == 0
    assert ": red, blue (seed 3)" in capsys.readouterr().out.splitlines()[0]


def test_a_port_taken_leaves_no_demo_game_in_the_log(tmp_path: Path, capsys) -> None:
    # The page's port is bound before the demo game is made: a port in use stops the demo
    # with one line and no new, empty game in demo.sqlite.
    import socket
    import sqlite3

    log = tmp_path / "d.sqlite"
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["demo", "--no-browser", "--no-camera", "--port", str(port), "--log",
                     str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion demo: error: cannot listen on 127.0.0.1:{port} ")
    assert err.count("\n") == 1
    if log.exists():
        db = sqlite3.connect(log)
        assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)
        db.close()


@pytest.mark.parametrize(("args", "words"), [
    (["--edition", "1999"], "edition must be 2001 or 2005, not '1999'"),
    (["--game", "petri", "--homes", "0,0"], "each player needs a home of their own"),
    (["--game", "peloponnesian", "--map", "NOTJSON"], "is not valid JSON"),
])
def test_a_game_option_given_wrong_is_one_line_in_the_text_demo(tmp_path: Path, capsys,
                                                                  args, words) -> None:
    # The page's demo said so; the text demo ended in a ValueError traceback.
    bad = tmp_path / "map.json"
    bad.write_text("{")
    args = [str(bad) if a == "NOTJSON" else a for a in args]
    assert main(["demo", "--text", "--log", str(tmp_path / "d.sqlite"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion demo: error: ") and err.count("\n") == 1
    assert words in err
    assert not (tmp_path / "d.sqlite").exists()
