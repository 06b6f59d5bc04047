"""Files saved by Windows Notepad start with a UTF-8 byte-order mark: every text file the
companion reads (settings, a script of commands, a map, a chit set) reads the same with
or without it."""

from __future__ import annotations

from pathlib import Path

from companion.cli import main
from companion.gamelog import GameLog
from companion.rules.peloponnesian.mapdata import __file__ as _mapdata_py

BOM = b"\xef\xbb\xbf"
MAPS = Path(_mapdata_py).parent / "maps"
CHITS = Path(_mapdata_py).parent / "data" / "chits.json"


def test_a_settings_file_with_a_byte_order_mark_is_read(tmp_path: Path, capsys) -> None:
    path = tmp_path / "s.toml"
    path.write_bytes(BOM + b"[server]\nport = 8123\n")
    assert main(["settings", "--file", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "8123" in out


def test_a_script_with_a_byte_order_mark_plays_its_first_command(tmp_path: Path,
                                                                 capsys) -> None:
    log, script = tmp_path / "g.sqlite", tmp_path / "moves.txt"
    script.write_bytes(BOM + b"hex -1,1\nhex 1,0\n")
    assert main(["play", "--log", str(log), "--players", "red,blue",
                 "--script", str(script)]) == 0
    capsys.readouterr()
    assert main(["replay", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "red: hex -1,1" in out and "blue: hex 1,0" in out


def test_a_map_and_a_chit_file_with_a_byte_order_mark_start_a_game(tmp_path: Path,
                                                                  capsys) -> None:
    map_path, chits_path = tmp_path / "map.json", tmp_path / "chits.json"
    map_path.write_bytes(BOM + (MAPS / "greece.json").read_bytes())
    chits_path.write_bytes(BOM + CHITS.read_bytes())
    log = tmp_path / "g.sqlite"
    assert main(["new", "--game", "peloponnesian", "--players", "sparta,athens",
                 "--map", str(map_path), "--chits", str(chits_path),
                 "--log", str(log)]) == 0, capsys.readouterr().err
    with GameLog(log) as opened:
        assert len(opened.games()) == 1


def test_a_profile_cut_short_after_a_byte_order_mark_may_still_be_replaced(
        tmp_path: Path, capsys) -> None:
    # calibrate --out refuses to replace a file that is no profile, but a profile cut short
    # is replaced; with Notepad's mark in front it was taken for "text that is not JSON".
    damaged = tmp_path / "p.json"
    damaged.write_bytes(BOM + b'{"version": 1, "players": ["red"')
    assert main(["calibrate", str(tmp_path / "no-photo.jpg"), "--players", "red,blue",
                 "--out", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert "is not a colour profile" not in err and "no-photo.jpg" in err


def test_commands_piped_in_with_a_byte_order_mark_play_the_first_one(tmp_path: Path,
                                                                     capsys) -> None:
    # 'companion play < moves.txt': the mark was read as part of the first command
    # ("unknown command '\ufeffhex'"), and the next line went to the wrong player.
    import subprocess
    import sys

    log = tmp_path / "g.sqlite"
    played = subprocess.run(
        [sys.executable, "-m", "companion", "play", "--log", str(log), "--players", "red,blue"],
        input=BOM + b"hex -1,1\nhex 1,0\n", capture_output=True, timeout=60,
        cwd=Path(__file__).resolve().parents[1])
    assert played.returncode == 0, played.stderr
    assert b"unknown command" not in played.stdout
    assert main(["replay", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "red: hex -1,1" in out and "blue: hex 1,0" in out
