"""``games``, ``resume`` and ``undo`` on the game log: plain lists with results, no new log
made where there was none."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.cli import main
from companion.gamelog import GameLog
from companion.rules.peepwar import PlaceTile
from tests.log_file import log_rows

SCRIPTS = Path(__file__).resolve().parent / "data" / "scripts"


def test_resume_and_undo_refuse_a_missing_log_and_make_none(tmp_path: Path, capsys) -> None:
    log = tmp_path / "typo.sqlite"
    for command in ("resume", "undo"):
        assert main([command, "--log", str(log)]) == 2
        err = capsys.readouterr().err
        assert f"there is no game log at {log}" in err
        assert not log.exists()


def test_an_empty_file_is_an_empty_log_for_every_command(tmp_path: Path, capsys) -> None:
    # games and replay called it "not a Table Companion game log" while play and new took
    # it as a new log; the commands that only read it write nothing to it.
    log = tmp_path / "empty.sqlite"
    log.touch()
    assert main(["games", "--log", str(log)]) == 0
    assert capsys.readouterr().out == f"no games in {log}\n"
    assert main(["replay", "--log", str(log)]) == 2
    assert capsys.readouterr().err == (f"companion replay: error: {log} holds no game yet; "
                                       "start one with 'companion new'\n")
    assert [p.name for p in tmp_path.iterdir()] == ["empty.sqlite"]
    assert log.stat().st_size == 0
    assert main(["new", "--log", str(log), "--players", "red,blue"]) == 0
    capsys.readouterr()
    assert main(["games", "--log", str(log)]) == 0
    assert "Peep War: red, blue" in capsys.readouterr().out


def test_resume_and_undo_leave_an_empty_file_as_it_was(tmp_path: Path, capsys) -> None:
    # They wrote the log's tables into it and then said it holds no game.
    log = tmp_path / "empty.sqlite"
    log.touch()
    for command in ("resume", "undo"):
        assert main([command, "--log", str(log)]) == 2
        assert capsys.readouterr().err == (f"companion {command}: error: {log} holds no game "
                                           "yet; start one with 'companion new'\n")
        assert main([command, "--log", str(log), "--id", "3"]) == 2
        assert f"there is no game 3 in {log} (games: none)" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["empty.sqlite"]
    assert log.stat().st_size == 0
    # It is still a new log for play and new, and then resume and undo act on its game.
    assert main(["new", "--log", str(log), "--players", "red,blue"]) == 0
    capsys.readouterr()
    assert main(["undo", "--log", str(log)]) == 2
    assert "game 1 has no action to undo" in capsys.readouterr().err


def test_games_lists_players_plainly_and_the_result(tmp_path: Path, capsys) -> None:
    log = str(tmp_path / "g.sqlite")
    assert main(["new", "--log", log, "--players", "red,blue,green"]) == 0
    assert main(["play", "--log", log, "--script",
                 str(SCRIPTS / "peepwar-2005-2p.txt")]) == 0
    capsys.readouterr()
    assert main(["games", "--log", log]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert "Peep War: red, blue, green (edition 2005)" in first and "in progress" in first
    assert "[" not in first and "'" not in first
    assert "Peep War: red, blue (edition 2005)" in second
    assert second.endswith("red won (red holds 4 Supply Centers (4 win))")


def test_the_text_demo_keeps_its_game_where_it_says(tmp_path: Path, capsys) -> None:
    log = tmp_path / "demo.sqlite"
    assert main(["demo", "--text", "--seed", "3", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"The demo game is kept as game 1 in {log}" in out
    assert main(["replay", "--log", str(log), "--id", "1"]) == 0
    assert capsys.readouterr().out.count("#") > 10


def _damage(log: Path, sql: str, value: str) -> None:
    db = sqlite3.connect(log)
    db.execute(sql, (value,))
    db.commit()
    db.close()



@pytest.mark.parametrize("options", ["{bad", "null", "[1,2]", "[" * 100_000])
def test_a_game_with_damaged_options_is_listed_as_unreadable_beside_the_others(
        tmp_path: Path, capsys, options: str) -> None:
    log = tmp_path / "g.sqlite"
    for players in ("red,blue", "x,y,z"):
        assert main(["new", "--log", str(log), "--players", players]) == 0
    _damage(log, "UPDATE games SET options = ? WHERE id = 1", options)
    before = log_rows(log)
    capsys.readouterr()
    assert main(["games", "--log", str(log)]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert "unreadable: game 1" in first and "has unusable options" in first
    assert "Peep War: x, y, z" in second and "in progress" in second
    assert main(["replay", "--log", str(log), "--id", "99"]) == 2
    assert "there is no game 99" in capsys.readouterr().err
    assert main(["replay", "--log", str(log), "--id", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion replay: error: game 1") and "Traceback" not in err
    assert log_rows(log) == before  # listed as it is: never repaired, never dropped


@pytest.mark.parametrize("events", ["{bad", "null", '["x"]', '[{"kind": 1}]'])
def test_replay_names_an_entry_whose_events_are_damaged(
        tmp_path: Path, capsys, events: str) -> None:
    log = tmp_path / "g.sqlite"
    assert main(["play", "--log", str(log), "--script",
                 str(SCRIPTS / "peepwar-2005-2p.txt")]) == 0
    _damage(log, "UPDATE entries SET events = ? WHERE seq = 0", events)
    before = log_rows(log)
    capsys.readouterr()
    for extra in ([], ["--json"], ["--as", "red"]):
        assert main(["replay", "--log", str(log), *extra]) == 2
        captured = capsys.readouterr()
        assert captured.err.startswith(
            "companion replay: error: game 1, entry 1 cannot be read: ")
        assert captured.err.count("\n") == 1 and captured.out == ""
    assert log_rows(log) == before


@pytest.mark.parametrize(("column", "value", "why"), [
    ("events", "{bad", "Expecting property name"),
    ("events", "null", "its events are null, not a list"),
    ("action", "{bad", "Expecting property name"),
    ("action", "[1]", "an action must be a JSON object, not list"),
])
def test_games_says_a_log_with_a_damaged_entry_is_damaged_and_lists_the_others(
        tmp_path: Path, capsys, column: str, value: str, why: str) -> None:
    # A game whose events were damaged by hand was listed as "in progress", while replay
    # refused it: the list now says so, in the status, from replay's own check.
    log = tmp_path / "g.sqlite"
    assert main(["new", "--log", str(log), "--players", "red,blue"]) == 0
    assert main(["play", "--log", str(log), "--script",
                 str(SCRIPTS / "peepwar-2005-2p.txt")]) == 0
    assert main(["new", "--log", str(log), "--players", "x,y,z"]) == 0
    with GameLog(log) as write:
        write.open(1).play(PlaceTile("red", 1, 0))
        write.open(1).play(PlaceTile("blue", -1, 0))
    for game_id in (1, 2):  # one game in progress, one over
        _damage(log, f"UPDATE entries SET {column} = ? WHERE game_id = {game_id} AND seq = 1",
                value)
    before = log_rows(log)
    capsys.readouterr()
    assert main(["games", "--log", str(log)]) == 0
    first, second, third = capsys.readouterr().out.splitlines()
    for line in (first, second):
        status = line.rsplit("; ", 1)[1]
        assert status.startswith("damaged: entry 2 cannot be read (") and why in status
        assert len(status) < 100
    assert "Peep War: x, y, z (edition 2005); 0 entries" in third
    assert third.endswith("; in progress")
    assert main(["replay", "--log", str(log), "--id", "1"]) == 2
    assert "game 1, entry 2 cannot be read: " in capsys.readouterr().err
    assert log_rows(log) == before  # listed as it is: never repaired, never dropped


def test_replay_and_games_name_a_damaged_entry_by_the_number_replay_lists(
        tmp_path: Path, capsys) -> None:
    # Replay lists entries from #1; its error and the games list counted them from 0.
    log = tmp_path / "g.sqlite"
    assert main(["play", "--log", str(log), "--script",
                 str(SCRIPTS / "peepwar-2005-2p.txt")]) == 0
    capsys.readouterr()
    assert main(["replay", "--log", str(log)]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("#5 ")]
    assert listed == ["#5    red: hex -1,0"]
    _damage(log, "UPDATE entries SET events = ? WHERE seq = 4", "{bad")
    assert main(["replay", "--log", str(log)]) == 2
    assert capsys.readouterr().err.startswith(
        "companion replay: error: game 1, entry 5 cannot be read: ")
    assert main(["games", "--log", str(log)]) == 0
    assert "; damaged: entry 5 cannot be read (" in capsys.readouterr().out


def _acknowledged(out: str) -> list[int]:
    return [int(line.split("ok #")[1]) for line in out.splitlines() if "ok #" in line]


def _listed(out: str, what: str) -> list[int]:
    """The numbers replay lists the entries ending in ``what`` by."""
    return [int(line[1:].split()[0]) for line in out.splitlines()
            if line.startswith("#") and line.endswith(what)]


def test_ok_names_a_move_by_the_number_replay_lists_it_by(tmp_path: Path, capsys) -> None:
    # "ok #N" counted the moves in play: past an undo the third move was "ok #2", while
    # replay lists it (and every error names it) as #4, after the undo's own entry #3.
    log, script = tmp_path / "g.sqlite", tmp_path / "moves.txt"
    script.write_text("hex -1,1\nhex 1,0\nundo\nhex 0,1\n")
    assert main(["play", "--log", str(log), "--players", "red,blue",
                 "--script", str(script)]) == 0
    played = _acknowledged(capsys.readouterr().out)
    assert main(["replay", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert played == [1, 2, 4] and _listed(out, "undo") == [3]
    assert _listed(out, "blue: hex 0,1") == [played[-1]]
    # Resumed, the game goes on numbering as replay does.
    script.write_text("undo\nhex 1,-1\n")
    assert main(["resume", "--log", str(log), "--script", str(script)]) == 0
    played = _acknowledged(capsys.readouterr().out)
    assert main(["replay", "--log", str(log)]) == 0
    assert played == [6] and _listed(capsys.readouterr().out, "blue: hex 1,-1") == [6]


MANY = ",".join(f"p{i}" for i in range(2000))
HUGE = "x" * 5000


@pytest.mark.parametrize("command", ["new", "play", "serve"])
@pytest.mark.parametrize(("game", "players", "named"), [
    ("peepwar", MANY, "not 2000"),
    ("petri", MANY, "not 2000"),
    ("peltapeeps", MANY, "not 2000"),
    ("peloponnesian", MANY, "not 2000 players"),
    ("peepwar", f"red,blue,{HUGE}", "'xxxxxxxxxx"),
    ("petri", f"red,{HUGE},blue", "'xxxxxxxxxx"),
    ("peloponnesian", f"sparta,{HUGE}", "'xxxxxxxxxx"),
    ("peloponnesian", "sparta,athens,corinth", "not 'corinth'"),
    ("peloponnesian", "sparta,sparta", "not sparta twice"),
])
def test_a_runaway_players_option_is_one_short_line_naming_what_is_wrong(
        tmp_path: Path, capsys, command: str, game: str, players: str, named: str) -> None:
    # 2,000 names were all repeated in the error, twice for A Peloponnesian War.
    log = tmp_path / "g.sqlite"
    assert main([command, "--game", game, "--players", players, "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"companion {command}: error: ")
    assert err.count("\n") == 1 and len(err) < 300, err
    assert named in err
    assert "…" in err or len(players) < 60
    assert not log.exists()


def test_calibrate_names_a_runaway_player_key_in_one_short_line(tmp_path: Path, capsys) -> None:
    for players, named in ((f"red,{HUGE}", "player key 'xxxxxxxx"), (MANY, "not 2000")):
        assert main(["calibrate", str(tmp_path / "card.jpg"), "--players", players,
                     "--out", str(tmp_path / "p.json")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and len(err) < 200 and named in err, err
    assert list(tmp_path.iterdir()) == []


ZEROS, ONES = "0" * 4000, "1" * 4000  # numbers, but no homes


@pytest.mark.parametrize("command", ["new", "serve"])
@pytest.mark.parametrize(("words", "named"), [
    (["--edition", HUGE], "edition must be 2001 or 2005, not 'xxxx"),
    (["--edition=2005=" + HUGE], "edition must be 2001 or 2005, not '2005=xxxx"),
    (["--game", "peloponnesian", "--players", "sparta,athens", "--youngest", HUGE],
     "youngest must be one of the players (sparta, athens), not 'xxxx"),
    (["--game", "peloponnesian", "--players", "sparta,athens", "--order", HUGE],
     "order must be simultaneous or in-turn, not 'xxxx"),
    (["--game", "peloponnesian", "--players", "sparta,athens", "--influence", HUGE],
     "influence must be adjacent or adjacent-or-own, not 'xxxx"),
    (["--game", "peloponnesian", "--players", "sparta,athens", "--map", f"/no/{HUGE}"],
     "cannot read the map /no/xxxx"),
    (["--game", "peloponnesian", "--players", "sparta,athens", "--chits", f"/no/{HUGE}"],
     "cannot read the chits /no/xxxx"),
    (["--game", "petri", "--pieces", HUGE], "pieces must be 10 or 15, not 'xxxx"),
    (["--game", "petri", "--homes", HUGE], "homes must be tips 0 to 5, one per player"),
    (["--game", "petri", "--homes", ONES], "homes must name one tip per player (2), not '1111"),
    (["--game", "petri", "--homes", f"0,{ZEROS}"], "homes 0,0000"),
    (["--game", "petri", "--variant", HUGE], "variant must be standard or realtime, not 'xxxx"),
    (["--game", "petri", "--placement", HUGE], "placement must be chain or start, not 'xxxx"),
    (["--game", "petri", "--removed", HUGE], "removed must be box or hand or cup, not 'xxxx"),
    (["--game", "petri", "--own-pieces", HUGE], "own_pieces must be checked or safe, not 'xx"),
    (["--game", "peltapeeps", "--set-size", HUGE], "set_size must be core or full, not 'xxxx"),
    ([f"--{HUGE}"], "Peep War has no option --xxxx"),
    (["--edition", "2005", HUGE], "unexpected word 'xxxx"),
])
def test_a_runaway_game_option_is_one_short_line_naming_it(
        tmp_path: Path, capsys, command: str, words: list[str], named: str) -> None:
    # A 5,000-character value was repeated whole in the error.
    log = tmp_path / "g.sqlite"
    assert main([command, "--log", str(log), *words]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"companion {command}: error: ")
    assert err.count("\n") == 1 and len(err) < 300 and "…" in err, err
    assert named in err
    assert not log.exists()


def test_replay_names_a_runaway_viewer_in_one_short_line(tmp_path: Path, capsys) -> None:
    # --as was repeated whole: a 5,000-character line.
    log = tmp_path / "g.sqlite"
    assert main(["new", "--log", str(log)]) == 0
    capsys.readouterr()
    assert main(["replay", "--log", str(log), "--as", HUGE]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion replay: error: --as must be a player of game 1 ")
    assert err.count("\n") == 1 and len(err) < 250 and "not 'xxxx" in err and "…" in err, err


def test_odds_names_a_runaway_edition_in_one_short_line(capsys) -> None:
    assert main(["odds", "--attacker", "3", "--defender", "2", "--edition", HUGE]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion odds: error: --edition 'xxxx") and "…" in err
    assert err.count("\n") == 1 and len(err) < 250, err


@pytest.mark.parametrize("words", [["demo", "--step", HUGE], ["demo", "--seconds", HUGE],
                                   ["calibrate-egg", "--timeout", HUGE]])
def test_a_runaway_number_of_seconds_is_quoted_cut(capsys, words: list[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(words)
    assert e.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]  # argparse's usage, then its error line
    assert last.startswith(f"companion {words[0]}: error: argument {words[1]}: must be a "
                           "number of seconds")
    assert last.endswith("…'") and len(last) < 250, last


DIGITS = "7" * 5000


@pytest.mark.parametrize("words", [
    ["resume", "--game-id", DIGITS], ["play", "--seed", DIGITS], ["serve", "--port", DIGITS],
    ["print", "card", "--dpi", DIGITS + "x"], ["demo", "--players", DIGITS],
    ["new", "--game", DIGITS], ["replay", f"--log={DIGITS}", "--game-id", "x" + DIGITS],
])
def test_argparses_own_error_quotes_a_runaway_value_cut(capsys, words: list[str]) -> None:
    # "argument --game-id/--id: invalid int value: '777...'" repeated all 5,000 digits.
    with pytest.raises(SystemExit) as e:
        main(words)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: companion ")
    last = err.splitlines()[-1]  # argparse's usage, then its error line
    assert last.startswith(f"companion {' '.join(w for w in words[:2] if w[0] != '-')}: "
                           "error: argument --")
    assert "…'" in last and len(last) < 250, last


def test_unrecognized_runaway_arguments_are_cut(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["games", DIGITS, *["x"] * 3000])
    assert e.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("companion: error: unrecognized arguments: 7777")
    assert "…" in last and len(last) < 250, last


@pytest.mark.parametrize(("words", "said"), [
    (["resume", "--game-id"], "--id 7777"), (["serve", "--port"], "--port must be 0 to 65535"),
    (["demo", "--text", "--players"], "--players must be 2 to 6"),
    (["print", "kit", "--out", "k.pdf", "--players"], "--players 7777"),
    (["print", "peepwar-tile", "--out", "t.png", "--id"], "--id 7777"),
    (["score", "peltapeeps", "p.jpg", "--profile", "p.json", "--port"],
     "--port must be 0 to 65535"),
    (["calibrate-egg", "--players", "red", "--profile", "p.json", "--samples"],
     "--samples must be 1 to"),
])
def test_a_number_too_large_for_an_option_is_quoted_cut(
        tmp_path: Path, monkeypatch, capsys, words: list[str], said: str) -> None:
    # A whole number Python reads (4,000 digits) but out of range was repeated whole.
    monkeypatch.chdir(tmp_path)
    log = str(tmp_path / "g.sqlite")
    assert main(["new", "--log", log]) == 0
    capsys.readouterr()
    assert main([*words, "7" * 4000, "--log", log] if words[0] in ("resume", "serve")
                else [*words, "7" * 4000]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion {words[0]}: error: ") and said in err, err[:300]
    assert err.count("\n") == 1 and len(err) < 250 and "…" in err, err


@pytest.mark.parametrize(("home", "named"), [
    (f"red={HUGE}", "--home red=xxxx"), (f"{HUGE}=1", "--home xxxx"),
    (f"red{HUGE}", "--home redxxxx"), (f"red=9{HUGE}", "--home red=9xxxx"),
])
def test_calibrate_names_a_runaway_home_in_one_short_line(
        tmp_path: Path, capsys, home: str, named: str) -> None:
    # The --home item was repeated whole, its player twice.
    assert main(["calibrate", str(tmp_path / "card.jpg"), "--players", "red,blue",
                 "--home", home, "--out", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion calibrate: error: {named}")
    assert err.count("\n") == 1 and len(err) < 250 and "…" in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_player_given_two_homes_is_refused(tmp_path: Path, capsys) -> None:
    # "--home red=0 --home red=3" (blue's meant) once took the last and read the board with
    # red at tip 3 and blue at its usual home, without a word.
    import cv2
    import numpy as np

    from calibration.profile import save_profile
    from vision.render.game_scene import families_colours, profile_for_colours

    profile = tmp_path / "p.json"
    save_profile(profile_for_colours(families_colours(["red", "blue"])), profile)
    before = profile.read_bytes()
    cv2.imwrite(str(tmp_path / "board.jpg"), np.full((120, 160, 3), 90, np.uint8))
    for args in (["calibrate", str(tmp_path / "card.jpg"), "--players", "red,blue",
                  "--out", str(tmp_path / "new.json")],
                 ["detect", str(tmp_path / "board.jpg"), "--game", "petri",
                  "--profile", str(profile)]):
        assert main([*args, "--home", "red=0", "--home", "red=3"]) == 2, args
        err = capsys.readouterr().err
        assert err.endswith("error: --home red=3: red's home is already given (red=0): "
                            "give each player's home once\n"), err
    assert profile.read_bytes() == before and not (tmp_path / "new.json").exists()


@pytest.mark.parametrize("game_id", ["99999999999999999999", "-99999999999999999999", "0"])
def test_an_id_no_game_can_have_is_refused_plainly(tmp_path: Path, capsys, game_id: str) -> None:
    log = tmp_path / "g.sqlite"
    assert main(["new", "--log", str(log)]) == 0
    before = log_rows(log)
    capsys.readouterr()
    for command in ("replay", "resume", "undo"):
        assert main([command, "--log", str(log), "--id", game_id]) == 2
        assert capsys.readouterr().err == (
            f"companion {command}: error: --id {game_id} is out of range: the games in a log "
            "are numbered 1, 2, 3, ... as 'companion games' lists them\n")
    assert log_rows(log) == before


@pytest.mark.parametrize("kind", ['["place"]', '{"place": 1}'])
def test_play_refuses_an_action_whose_kind_is_not_a_string_and_goes_on(
        tmp_path: Path, capsys, kind: str) -> None:
    script = tmp_path / "kind.txt"
    script.write_text(f'{{"kind": {kind}}}\nquit\n')
    log = tmp_path / "g.sqlite"
    assert main(["play", "--game", "peltapeeps", "--log", str(log),
                 "--script", str(script)]) == 0
    captured = capsys.readouterr()
    assert "? an action's kind must be a string, not " in captured.out
    assert "known kinds for peltapeeps: " in captured.out
    assert "Traceback" not in captured.out + captured.err


@pytest.mark.parametrize("command", ["play", "resume"])
@pytest.mark.parametrize("kind", ["big", "zero", "latin-1"])
def test_a_script_too_large_or_not_text_is_one_line_and_no_game(
        tmp_path: Path, capsys, command: str, kind: str) -> None:
    # /dev/zero given as --script never ends: it is refused at the ceiling, and no game made.
    log = tmp_path / "g.sqlite"
    assert main(["new", "--log", str(log)]) == 0
    before = log_rows(log)
    script = Path("/dev/zero") if kind == "zero" else tmp_path / "s.txt"
    if kind == "big":
        script.write_text("\n" * 8_000_001 + "end\n")
    elif kind == "latin-1":
        script.write_bytes("hex 1,0 caf\xe9\n".encode("latin-1"))
    capsys.readouterr()
    assert main([command, "--log", str(log), "--script", str(script)]) == 2
    out, err = capsys.readouterr()
    why = ("is not a text file of commands (not UTF-8)" if kind == "latin-1"
           else "is too large to be a script of commands (more than 8 MB)")
    assert out == "" and err == f"companion {command}: error: {script} {why}\n"
    assert log_rows(log) == before


def test_undo_when_a_running_companion_writes_in_between_is_one_line(
        tmp_path: Path, capsys, monkeypatch) -> None:
    from companion.gamelog import GameLog
    from companion.rules.peepwar import PlaceTile

    log = tmp_path / "g.sqlite"
    assert main(["new", "--log", str(log), "--players", "red,blue"]) == 0
    with GameLog(log) as other:
        other.open().play(PlaceTile("red", 1, 0))
    opened, wrote = GameLog.open, []

    def open_then_serve_writes(self, game_id=None):
        game = opened(self, game_id)
        if not wrote:
            wrote.append(True)
            with GameLog(log) as other:  # 'companion serve' takes a move just then
                opened(other).play(PlaceTile("blue", -1, 0))
        return game

    monkeypatch.setattr(GameLog, "open", open_then_serve_writes)
    assert main(["undo", "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion undo: error: game 1 in") and err.count("\n") == 1
    assert "changed by another program" in err and "nothing was undone" in err
    monkeypatch.undo()
    with GameLog(log) as check:
        assert len(check.open().actions) == 2


class _Typed:
    """stdin whose lines come from ``lines`` as the referee asks for them, so a test can act
    between two lines, as a player at the keyboard would wait; ``tty``: a terminal, or a
    pipe (a script)."""

    def __init__(self, lines: Iterator[str], tty: bool = True) -> None:
        self._lines = lines
        self._tty = tty

    def __iter__(self) -> Iterator[str]:
        return self._lines

    def isatty(self) -> bool:
        return self._tty


def _refused(out: str) -> list[str]:
    # At a terminal the answer follows the prompt ("red (setup tiles)> ") on its line.
    return [line.split("> ")[-1] for line in out.splitlines() if "✗" in line]


def _locked_while(log: Path, lock: str, first: list[str], then: list[str]) -> Iterator[str]:
    """``first`` typed, then one line typed while another program holds ``log`` locked for
    writing (a database tool's BEGIN ``lock``), then ``then`` once it has let go."""
    yield from first
    other = sqlite3.connect(log, isolation_level=None)
    other.execute(f"BEGIN {lock}")
    try:
        yield then[0]
    finally:
        other.execute("ROLLBACK")
        other.close()
    yield from then


@pytest.mark.parametrize("lock", ["IMMEDIATE", "EXCLUSIVE"])
def test_a_move_typed_while_another_program_locks_the_log_is_refused_and_taken_again(
        tmp_path: Path, capsys, monkeypatch, lock: str) -> None:
    # The terminal game ended on "the game log could not be read or written"; the move was
    # not recorded (each is written in its own transaction), so it may be typed again.
    log = tmp_path / "g.sqlite"
    monkeypatch.setattr("companion.gamelog.LOCK_WAIT_S", 0.2)  # not the usual 10 s of waiting
    typed = _locked_while(log, lock, [], ["hex -1,1\n", "hex 1,0\n", "quit\n"])
    monkeypatch.setattr(sys, "stdin", _Typed(typed))
    assert main(["play", "--log", str(log), "--players", "red,blue"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    refused = _refused(out)
    assert refused == ["  ✗ the game log is busy: another program is writing to it (database "
                       "is locked); nothing was recorded: type it again"]
    after = out.split(refused[0], 1)[1]
    assert "ok #1" in after and "ok #2" in after and "ok #3" not in after
    assert f"game 1 is saved in {log}" in out
    with GameLog(log) as check:
        assert check.open(1).actions == [PlaceTile("red", -1, 1), PlaceTile("blue", 1, 0)]
        assert [e["seq"] for e in check.entries(1)] == [0, 1]


def test_undo_typed_while_another_program_locks_the_log_is_refused_and_taken_again(
        tmp_path: Path, capsys, monkeypatch) -> None:
    log = tmp_path / "g.sqlite"
    monkeypatch.setattr("companion.gamelog.LOCK_WAIT_S", 0.2)
    typed = _locked_while(log, "IMMEDIATE", ["hex -1,1\n"], ["undo\n", "undo\n", "quit\n"])
    monkeypatch.setattr(sys, "stdin", _Typed(typed))
    assert main(["play", "--log", str(log), "--players", "red,blue"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert _refused(out) == ["  ✗ the game log is busy: another program is writing to it "
                             "(database is locked); nothing was undone: type it again"]
    assert out.count("  undone: hex -1,1") == 1
    with GameLog(log) as check:
        assert check.open(1).actions == []
        assert [e["kind"] for e in check.entries(1)] == ["action", "undo"]


def test_a_script_piped_in_while_another_program_locks_the_log_ends_on_one_line(
        tmp_path: Path, capsys, monkeypatch) -> None:
    # Its next lines were written for a game that took the refused one: it goes no further.
    log = tmp_path / "g.sqlite"
    monkeypatch.setattr("companion.gamelog.LOCK_WAIT_S", 0.2)
    typed = _locked_while(log, "IMMEDIATE", [], ["hex -1,1\n", "hex 1,0\n", "quit\n"])
    monkeypatch.setattr(sys, "stdin", _Typed(typed, tty=False))
    assert main(["play", "--log", str(log), "--players", "red,blue"]) == 2
    typed.close()  # the other program lets go
    out, err = capsys.readouterr()
    assert "✗" not in out and "ok #" not in out
    # Busy, not broken: no "check the --log path and that the disk is not full".
    assert err == ("companion play: error: the game log is busy: another program is writing "
                   "to it (database is locked); try again when it is done\n")
    with GameLog(log) as check:
        assert check.entries(1) == []



@pytest.mark.parametrize("command", [["games"], ["replay", "--game-id", "1"],
                                     ["new", "--players", "a,b"]])
def test_a_log_that_is_no_regular_file_is_refused_in_one_line(capsys, command) -> None:
    assert main([*command, "--log", "/proc/self/status"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("/proc/self/status is not a regular file; --log names the game log "
                        "file\n") and err.count("\n") == 1


@pytest.mark.parametrize("game", ["peepwar", "petri"])
def test_watcher_is_refused_as_a_player_key(tmp_path: Path, capsys, game: str) -> None:
    # replay --as watcher is the onlookers' view: a player called so could never replay
    # their own hidden draws.
    log = tmp_path / "g.sqlite"
    assert main(["new", "--game", game, "--players", "red,watcher", "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("companion new: error: 'watcher' is kept for onlookers (replay --as "
                   "watcher): choose another player key (--players red,watcher)\n")
    assert not log.exists()
    # A key that only begins so is any other key.
    assert main(["new", "--game", game, "--players", "red,watchers", "--log", str(log)]) == 0
