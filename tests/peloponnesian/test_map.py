"""The map file: the default map of Greece, and one clear line for every bad file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.gamelog import GameLog
from companion.rules.peloponnesian import PeloponnesianWar
from companion.rules.peloponnesian.game import GAME
from companion.rules.peloponnesian.mapdata import DEFAULT_MAP, BadMap, load_map
from tests.peloponnesian.conftest import page_over_a_game

ROOT = Path(__file__).resolve().parents[2]


def _default() -> dict:
    return json.loads(DEFAULT_MAP.read_text(encoding="utf-8"))


def test_the_default_map_is_the_greek_world_with_its_cities_and_delphi() -> None:
    m = load_map(None)
    assert 20 <= len(m.areas) <= 26
    assert m.homes == {"sparta": "laconia", "athens": "attica", "thebes": "boeotia"}
    assert m.delphi == "phocis"
    for area in ("attica", "laconia", "boeotia", "phocis", "corinth", "argos", "megara",
                 "euboea", "thessaly", "macedonia", "chalcidice", "aetolia", "acarnania",
                 "elis", "messenia", "arcadia", "achaea", "corcyra", "aegina", "ionia"):
        assert area in m.areas, area
    kinds = {k for _, _, k in m.links}
    assert kinds == {"land", "sea"}
    for area in m.areas.values():
        if area.island:  # an island is reached by sea only
            assert {k for a, b, k in m.links if area.id in (a, b)} == {"sea"}, area.id
        x, y = area.at
        assert 0 <= x <= m.size_mm[0] and 0 <= y <= m.size_mm[1]


def test_distances_count_land_and_sea_links_alike() -> None:
    m = load_map(None)
    assert m.distance("attica", "aegina") == 1  # by sea
    assert m.distance("attica", "boeotia") == 1  # by land
    assert m.within("attica", 0) == {"attica"}
    assert m.distance("attica", "laconia") == 3


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["links"].append(["attica", "atlantis", "sea"]),
     "link 52 (attica-atlantis) names an unknown area 'atlantis'"),
    (lambda d: d["homes"].pop("thebes"), "the map has no home city for thebes"),
    (lambda d: d["areas"].update(melos={"name": "Melos", "at": [300, 280], "island": True}),
     "island 'melos' has no link: nobody could ever reach it"),
    (lambda d: d.update(delphi="olympus"), '"delphi" must name the area that holds Delphi'),
    (lambda d: d["links"].append(["attica", "megara", "air"]), 'a link is "land" or "sea"'),
    (lambda d: d["areas"]["attica"].pop("at"), "area 'attica' needs \"at\": [x, y]"),
    (lambda d: d["homes"].update(thebes="attica"), "two cities share a home area"),
    # Values of the wrong type: refused by name, not a TypeError (unhashable) nor taken.
    (lambda d: d["homes"].update(sparta=["x"]), "sparta's home ['x'] is not an area"),
    (lambda d: d.update(delphi={"a": 1}), "\"delphi\" must name the area that holds Delphi"),
    (lambda d: d.update(name=["Greece"]), '"name" must be the map\'s name'),
    (lambda d: d["areas"]["aegina"].update(island="no"), "area 'aegina' has \"island\": 'no'"),
    # Numbers the log and the page's JSON cannot carry, or no drawing could have.
    (lambda d: d["areas"]["attica"].update(at=[float("nan"), float("inf")]),
     "area 'attica' has \"at\": [nan, inf]; x and y must be finite numbers"),
    (lambda d: d["areas"]["attica"].update(at=[10**400, 3]), "area 'attica' has \"at\""),
    (lambda d: d.update(size_mm=[float("inf"), 1e308]), '"size_mm" must be [width, height]'),
    (lambda d: d.update(size_mm=[1e308, 297]), '"size_mm" must be [width, height]'),
    (lambda d: d.update(size_mm=[0, 297]), '"size_mm" must be [width, height]'),
    (lambda d: d.update(notes=[float("nan")]), "the map holds NaN or Infinity"),
])
def test_a_bad_map_file_is_refused_in_one_line(tmp_path: Path, change, message: str) -> None:
    text = _refusal(tmp_path, change)
    assert message in text and "\n" not in text
    assert text.startswith(str(tmp_path / "bad.json"))


def _refusal(tmp_path: Path, change) -> str:
    """The one line a map file, the default map with ``change`` made to it, is refused in."""
    data = _default()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BadMap) as e:
        load_map(str(path))
    return str(e.value)


RUNAWAY = "x" * 5000


def _runaway_area(d: dict) -> None:
    d["areas"][RUNAWAY] = {"name": "X", "at": [1, 1]}


def _runaway_link(d: dict) -> None:
    d["areas"][RUNAWAY] = {"name": "X", "at": [1, 1]}
    d["links"].append([RUNAWAY, RUNAWAY, "sea"])


def _falls_apart(d: dict) -> None:
    d["areas"] = {RUNAWAY: {"name": "X", "at": [1, 1]}, **d["areas"],
                  "y" * 5000: {"name": "Y", "at": [2, 2]}}
    d["links"].append([RUNAWAY, "y" * 5000, "sea"])


@pytest.mark.parametrize("change", [
    lambda d: d["areas"].update({RUNAWAY: 5}),  # not an object
    lambda d: d["areas"].update({RUNAWAY: {"name": ""}}),
    lambda d: d["areas"].update({RUNAWAY: {"name": "X"}}),  # no "at"
    lambda d: d["areas"].update({RUNAWAY: {"name": "X", "at": [RUNAWAY, 1]}}),
    lambda d: d["areas"].update({RUNAWAY: {"name": "X", "at": [1, 1], "island": RUNAWAY}}),
    lambda d: d["links"].append([RUNAWAY, 5]),
    lambda d: d["links"].append(["attica", RUNAWAY]),
    lambda d: d["links"].append([RUNAWAY, "attica"]),
    lambda d: d["links"].append(["attica", "megara", RUNAWAY]),
    _runaway_link,
    _runaway_area,
    lambda d: d["homes"].update(sparta=RUNAWAY),
    lambda d: d.update(delphi=RUNAWAY),
    lambda d: d.update(size_mm=[RUNAWAY, 1]),
    lambda d: d.update(name=[RUNAWAY]),
    _falls_apart,
])
def test_a_runaway_value_in_a_map_file_is_quoted_cut(tmp_path: Path, change) -> None:
    # It was repeated whole (5,000 characters), or cut at 57 with "..." outside the quote.
    text = _refusal(tmp_path, change)
    # (The file's own path leads the line, as long as the machine's temporary folder.)
    said = text.removeprefix(str(tmp_path / "bad.json"))
    assert "\n" not in text and len(said) < 200 and "..." not in text, text
    assert "…" in text, text


@pytest.mark.parametrize("chits", [
    {"mix": {"military": RUNAWAY}},
    {"mix": {RUNAWAY: 2}},
    {"mix": {}, "specials": [{"id": RUNAWAY, "name": "X", "city": "corinth"}]},
    {"mix": {}, "specials": [{"id": "x", "name": "X", "city": RUNAWAY}]},
    {"mix": {}, "specials": [{"id": RUNAWAY + " ", "name": "X", "city": "sparta"}]},
])
def test_a_runaway_value_in_a_chit_file_is_quoted_cut(chits: dict) -> None:
    from companion.rules.peloponnesian.chits import BadChits, parse_chits

    with pytest.raises(BadChits) as e:
        parse_chits(chits, "my-chits.json")
    text = str(e.value)
    assert "\n" not in text and len(text) < 250 and "…" in text, text


def test_bad_json_and_a_missing_file_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"areas": {', encoding="utf-8")
    with pytest.raises(BadMap, match=r"is not valid JSON \(line 1, column 12"):
        load_map(str(path))
    with pytest.raises(BadMap, match="cannot read the map .*nowhere.json"):
        load_map(str(tmp_path / "nowhere.json"))


def test_a_map_that_falls_apart_is_refused() -> None:
    data = _default()
    data["areas"]["atlantis"] = {"name": "Atlantis", "at": [10, 290]}
    data["areas"]["mu"] = {"name": "Mu", "at": [20, 290]}
    data["links"].append(["atlantis", "mu", "sea"])
    with pytest.raises(BadMap, match="cannot be reached from 'macedonia'"):
        load_map(data)


def test_the_map_travels_in_the_options_and_the_log_replays_it(tmp_path: Path) -> None:
    data = _default()
    data["name"] = "A small Greece"
    data["areas"]["cythera"] = {"name": "Cythera", "at": [150, 292], "island": True}
    data["links"].append(["cythera", "laconia", "sea"])
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    rules = GAME.new_rules(["sparta", "athens", "thebes"], {"map": str(path)})
    assert rules.options()["map"]["areas"]["cythera"]["name"] == "Cythera"
    with GameLog(tmp_path / "g.sqlite") as log:
        game = log.new_game(rules)
        game.play(GAME.parse("sparta place cythera", rules, game.state))
        game_id = game.id
    path.unlink()  # the game no longer needs the file
    with GameLog(tmp_path / "g.sqlite") as log:
        again = log.open(game_id)
        assert again.state.counters_in("cythera") == {"sparta": 1}
        assert "A small Greece" in GAME.describe(again.rules)
    # A game started from a logged game's options takes the data itself.
    assert "cythera" in GAME.new_rules(["sparta", "athens"],
                                       {"map": rules.options()["map"]}).map.areas


def test_map_option_on_the_command_line_gives_one_line_for_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "companion", "new", "--game", "peloponnesian", "--players",
         "sparta,athens,thebes", "--map", str(bad), "--log", str(tmp_path / "g.sqlite")],
        capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and "is not valid JSON" in done.stderr
    assert "Traceback" not in done.stderr


def test_two_players_and_no_stranger() -> None:
    assert PeloponnesianWar(["sparta", "athens"]).players == ("sparta", "athens")
    with pytest.raises(ValueError, match="the players are the cities sparta, athens and thebes"):
        PeloponnesianWar(["sparta", "athens", "corinth"])


@pytest.mark.parametrize("change", [
    lambda d: d["homes"].update(sparta=["x"]),
    lambda d: d.update(delphi={"a": 1}),
    lambda d: [a.update(at=[float("nan"), float("inf")]) for a in d["areas"].values()],
    lambda d: d.update(size_mm=[float("inf"), 1e308]),
])
def test_new_and_print_refuse_a_bad_map_value_in_one_line(tmp_path: Path, capsys,
                                                          change) -> None:
    data = _default()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # json writes NaN, Infinity as such
    log = tmp_path / "g.sqlite"
    assert main(["new", "--game", "peloponnesian", "--map", str(path), "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: " in err and len(err.strip().splitlines()) == 1
    if log.exists():  # no game was saved with the bad map
        with GameLog(log) as opened:
            assert opened.games() == []
    out = tmp_path / "m.png"
    assert main(["print", "peloponnesian-map", "--map", str(path), "--paper", "a3",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: " in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_the_page_refuses_a_map_with_nan_and_keeps_its_game(tmp_path: Path) -> None:
    data = _default()
    for area in data["areas"].values():
        area["at"] = [float("nan"), float("inf")]
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with page_over_a_game(tmp_path / "g.sqlite", ["sparta", "athens"],
                          tmp_path) as (referee, client, new_game):
        resp = new_game({"map": str(path)})
        assert resp.status_code == 400
        assert "must be finite numbers" in resp.get_json()["error"]
        assert referee.game.id == 1  # the game in play stays
        state = client.get("/api/state").get_data(as_text=True)
        assert "NaN" not in state and "Infinity" not in state
        json.loads(state)  # what the browser's JSON.parse must take


def test_a_map_past_the_size_cap_is_refused_from_new_and_the_page(tmp_path: Path,
                                                                 capsys) -> None:
    # Valid JSON (the default map after whitespace), so only the size can refuse it.
    path = tmp_path / "huge.json"
    path.write_text(" " * 8_000_001 + json.dumps(_default()), encoding="utf-8")
    message = f"{path} is too large to be a map (more than 8 MB)"
    with pytest.raises(BadMap, match=re.escape(message)):
        load_map(str(path))
    log = tmp_path / "g.sqlite"
    assert main(["new", "--game", "peloponnesian", "--map", str(path), "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    with page_over_a_game(tmp_path / "page.sqlite", ["sparta", "athens"],
                          tmp_path) as (referee, _, new_game):
        resp = new_game({"map": str(path)})
        assert resp.status_code == 400 and message in resp.get_json()["error"]
        assert referee.game.id == 1


def test_the_page_reads_maps_only_from_the_settings_folder_and_says_nothing_of_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Read from anywhere, a map's errors would tell a missing file from an unreadable one
    # from one that is no map, so anyone with the pass-phrase could probe the server: only a
    # file directly in the settings folder is read, and any other value gets the same words.
    folder, elsewhere = tmp_path / "settings", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "sub").mkdir()
    (folder / "sub" / "inner.json").write_text(json.dumps(_default()), encoding="utf-8")
    (folder / "mine.json").write_text(json.dumps(_default()), encoding="utf-8")
    (elsewhere / "real.json").write_text(json.dumps(_default()), encoding="utf-8")
    (elsewhere / "locked.json").write_text("{}", encoding="utf-8")
    (elsewhere / "locked.json").chmod(0)
    (folder / "out.json").symlink_to(elsewhere / "real.json")
    outside = [str(elsewhere / "real.json"), str(elsewhere / "missing.json"),
               str(elsewhere / "locked.json"), "/etc/passwd", "../elsewhere/real.json",
               "out.json", str(folder), "a\0b", "sub/inner.json",
               str(folder / "sub" / "inner.json"), "sub", ".", 5, 5.0, ["x"], True, 0, False, []]
    with page_over_a_game(tmp_path / "g.sqlite", ["sparta", "athens"], folder) as (
            referee, _, new_game):
        for name in outside:
            for option in ("map", "chits"):
                resp = new_game({option: name})
                assert resp.status_code == 400, (option, name)
                assert resp.get_json()["error"] == (
                    f'bad request: {option} must be the {option} data, "" for the shipped one, '
                    "or a file in the folder of the companion's settings file; the page reads "
                    "no other file on the server"), (option, name)
        assert referee.game.id == 1
        for name in ("mine.json", str(folder / "mine.json")):
            assert new_game({"map": name}).status_code == 200
        assert referee.game.id == 3
    # With no folder (companion demo), no value is a file: not even one in the working folder.
    monkeypatch.chdir(folder)
    (folder / "5").write_text(json.dumps(_default()), encoding="utf-8")
    with page_over_a_game(tmp_path / "none.sqlite", ["sparta", "athens"]) as (
            referee, _, new_game):
        for name in ("mine.json", 5, 5.0, ["x"], True):
            resp = new_game({"map": name})
            assert resp.status_code == 400 and resp.get_json()["error"] == (
                'bad request: map must be the map data or "" for the shipped one; the page '
                "reads no file on the server"), name
        assert referee.game.id == 1


def test_the_page_names_a_bad_map_as_it_was_given_not_where_the_server_keeps_it(
        tmp_path: Path) -> None:
    # The server's folders (a user's home, say) are not the page's to learn.
    folder = tmp_path / "settings"
    folder.mkdir()
    (folder / "bad.json").write_text("{not json", encoding="utf-8")
    (folder / "empty.json").write_text("{}", encoding="utf-8")
    with page_over_a_game(tmp_path / "g.sqlite", ["sparta", "athens"], folder) as (
            referee, _, new_game):
        resp = new_game({"map": "bad.json"})
        assert resp.status_code == 400 and resp.get_json()["error"] == (
            "bad request: bad.json is not valid JSON (line 1, column 2: Expecting property "
            "name enclosed in double quotes)")
        for given in ("missing.json", str(folder / "missing.json")):
            resp = new_game({"map": given})
            assert resp.status_code == 400 and resp.get_json()["error"] == (
                f"bad request: cannot read the map {given}: No such file or directory")
        resp = new_game({"chits": "empty.json"})
        assert resp.status_code == 400
        assert resp.get_json()["error"].startswith("bad request: empty.json: the chits need")
        assert referee.game.id == 1
