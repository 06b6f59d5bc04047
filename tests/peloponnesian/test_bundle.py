"""The bundle through the generic parts: the command line, the terminal, the page, the SVG."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peloponnesian import Play
from companion.rules.peloponnesian.game import GAME
from companion.rules.peloponnesian.notation import parse
from tests.peloponnesian.conftest import CITIES, deal, play, set_up
from web.app import create_app

ROOT = Path(__file__).resolve().parents[2]


def _companion(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_companion_play_referees_a_typed_game(tmp_path: Path) -> None:
    script = tmp_path / "moves.txt"
    script.write_text("\n".join([
        "place megara",  # sparta is youngest by default (the first seat)
        "athens place euboea", "thebes place corcyra", "sparta place ionia",
        "draw", "draw", "hand athens", "legal", "board"]) + "\n", encoding="utf-8")
    done = _companion("play", "--game", "peloponnesian", "--players", "sparta,athens,thebes",
                      "--log", str(tmp_path / "g.sqlite"), "--seed", "4",
                      "--script", str(script))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "sparta places a counter in Megara" in out
    assert "it is not athens's move" not in out
    assert "sparta cannot place a counter in Ionia" not in out
    assert "turn 1: athens has the Gods' Support and plays first" in out
    assert re.search(r"athens draws \w", out) and "athens holds " in out
    assert "legal: thebes draw military" in out  # athens and sparta drew: thebes is next


def test_companion_demo_text_plays_a_whole_game() -> None:
    done = _companion("demo", "--game", "peloponnesian", "--text", "--seed", "5")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert " won" in last and "turns" in last
    assert "A Peloponnesian War (Greece in the fifth century BC" in done.stdout


def test_a_wrong_option_is_one_line() -> None:
    done = _companion("new", "--game", "peloponnesian", "--players", "sparta,athens,thebes",
                      "--order", "random")
    assert done.returncode != 0 and "order must be simultaneous or in-turn" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_notation_reads_the_player_when_several_may_act(tmp_path: Path) -> None:
    rules = GAME.new_rules(list(CITIES))
    s, _ = deal(rules, set_up(rules), {p: ["coup", "void", "star", "military"]
                                       if p == "athens" else ["coup", "void", "influence",
                                                              "military"] for p in CITIES})
    with pytest.raises(ValueError, match="athens and sparta and thebes may act now"):
        parse("play coup megara", rules, s)
    assert parse("athens play star megara as coup", rules, s) == Play(
        "athens", "star", "megara", "coup")
    assert parse("Thebes play Coup Megara", rules, s) == Play("thebes", "coup", "megara")
    with pytest.raises(ValueError, match="there is no area 'sparti'"):
        parse("athens play coup sparti", rules, s)
    with pytest.raises(ValueError, match="say what the Star is played as"):
        parse("athens play star megara", rules, s)


def test_the_svg_draws_areas_links_counters_and_chits_from_the_view() -> None:
    rules = GAME.new_rules(list(CITIES))
    s, _ = deal(rules, set_up(rules), {p: ["coup", "void", "influence", "military"]
                                       for p in CITIES})
    s, _ = play(rules, s, "athens play coup megara")
    watcher = GAME.board_svg(rules.view(s, None))
    mine = GAME.board_svg(rules.view(s, "athens"))
    assert watcher.count('class="area') == len(rules.map.areas)
    assert watcher.count('class="link land"') + watcher.count('class="link sea"') == len(
        rules.map.links)
    assert watcher.count('class="counter"') == 6
    assert 'class="chit hidden"' in watcher and "Coup" not in watcher
    assert 'class="chit revealed"' in mine and "Coup! (athens)" in mine
    assert "Turn 1 / 15 · Gods&#x27; Support: athens" in watcher
    assert "athens 2/7" in watcher


def test_a_player_plays_from_the_private_page_and_the_table_resolves(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        rules = GAME.new_rules(list(CITIES))
        referee = Referee(log, log.new_game(rules))
        client = create_app(referee).test_client()
        page = client.get("/").get_data(as_text=True)
        token = re.search(r'token: "([^"]+)"', page).group(1)
        keys = dict(re.findall(r'data-player="(\w+)" href="/peloponnesian/hand/\w+\?key=(\w+)"',
                               page))
        h = {"X-Companion-Token": token}
        for line in ("sparta place messenia", "athens place euboea", "thebes place locris"):
            assert client.post("/api/command", json={"text": line}, headers=h).status_code == 200

        def hand(player: str, action: dict, key: str | None = None):
            return client.post("/peloponnesian/api/hand", headers=h, json={
                "player": player, "key": key or keys[player], "action": action})

        # A misspelt chit is refused, not drawn at random in its place.
        first_draw = referee.state.draws[0]
        misspelt = hand(first_draw, {"kind": "draw", "chti": "x"})
        assert misspelt.status_code == 400
        assert misspelt.get_json()["error"].endswith("a draw takes kind and chit, not chti")
        assert referee.state.draws[0] == first_draw
        while referee.state.draws:
            who = referee.state.draws[0]
            refused = hand(next(p for p in CITIES if p != who), {"kind": "draw"})
            assert refused.status_code == 409 and "it is not" in refused.get_json()["error"]
            assert hand(who, {"kind": "draw"}).status_code == 200
        mine = client.get(f"/peloponnesian/api/hand/athens?key={keys['athens']}").get_json()
        plays = mine["panel"]["plays"]
        assert plays and all(p["chit"] in [c["id"] for c in
                                           mine["state"]["hands"]["athens"]["chits"]]
                             for p in plays)
        first = plays[0]
        # The table page is everyone's: a chit played there would be seen, and anyone could
        # play for anyone, so a secret action is refused there however it is sent.
        typed = f"athens play {first['chit']} {first['area']}"
        for path, body in (("/api/command", {"text": typed}),
                           ("/api/action", {"kind": "play", "player": "athens", **first})):
            refused = client.post(path, json=body, headers=h)
            assert refused.status_code == 409, (path, refused.get_json())
            assert "athens makes it on their own page" in refused.get_json()["error"]
        assert referee.state.board == ()
        forged = hand("sparta", {"kind": "play", **first}, key=keys["athens"])
        assert forged.status_code == 409 and "not your hand's key" in forged.get_json()["error"]
        assert hand("athens", {"kind": "place", "area": "megara"}).status_code == 400
        assert hand("athens", {"kind": "play", **first}).status_code == 200
        assert referee.state.board[0].player == "athens"
        assert client.get("/api/state").get_json()["state"]["chits"][first["area"]] == [
            {"player": "athens", "type": "hidden"}]
        bot = GAME.bot(referee.rules, 3)
        while referee.state.phase == "play":
            action = bot.choose(referee.state)
            data = referee.rules.encode_action(action)
            assert hand(action.player, data).status_code == 200
        assert client.get("/api/state").get_json()["can_end"] is True
        assert client.post("/api/end", headers=h).status_code == 200
        assert referee.state.turn == 2 and referee.state.board == ()


def test_the_demo_table_plays_game_after_game_on_the_same_map(tmp_path: Path) -> None:
    from companion.demo_table import ScriptedTable

    with GameLog(tmp_path / "g.sqlite") as log:
        rules = GAME.new_rules(["sparta", "athens"], {"order": "in-turn"})
        referee = Referee(log, log.new_game(rules))
        table = ScriptedTable(referee, seed=2, step_s=0, pause_s=0)
        for _ in range(3000):
            table.step()
            if table.games:
                break
        assert table.games == 1 and referee.game.id == 2
        again = referee.rules.options()
        assert again["players"] == ["sparta", "athens"] and again["order"] == "in-turn"
        assert again["map"] == rules.options()["map"]


def test_a_new_game_from_the_page_keeps_the_map_it_is_given(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        rules = GAME.new_rules(list(CITIES))
        data = rules.options()["map"]
        data["areas"]["cythera"] = {"name": "Cythera", "at": [150, 292], "island": True}
        data["links"].append(["cythera", "laconia", "sea"])
        referee = Referee(log, log.new_game(GAME.new_rules(list(CITIES), {"map": data})))
        client = create_app(referee).test_client()
        token = re.search(r'token: "([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
        options = client.get("/api/state").get_json()["options"]
        options.pop("players")
        new = client.post("/api/new", json={"players": "thebes,sparta", "options": options},
                          headers={"X-Companion-Token": token})
        assert new.status_code == 200, new.get_json()
        assert referee.game.id == 2 and "cythera" in referee.rules.map.areas
        assert referee.rules.players == ("thebes", "sparta")
        bad = client.post("/api/new", json={"players": "thebes,sparta", "options": {
            "map": {"areas": {}}}}, headers={"X-Companion-Token": token})
        assert bad.status_code == 400 and "the map data: the map needs" in bad.get_json()["error"]
