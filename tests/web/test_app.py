"""The table page's HTTP side: views, controls, the anti-forgery token and the pass-phrase."""

from __future__ import annotations

import io
import re
import sqlite3
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peepwar import PeepWar
from tests.full_disk import FullAtCommit
from web.app import create_app

REMOTE = {"REMOTE_ADDR": "192.168.1.23"}


@pytest.fixture
def referee(tmp_path: Path) -> Referee:
    log = GameLog(tmp_path / "g.sqlite")
    r = Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
    yield r
    log.close()


def _token(client) -> str:
    page = client.get("/").get_data(as_text=True)
    return re.search(r'token: "([^"]+)"', page).group(1)


def test_page_and_views_are_open_to_any_host(referee: Referee) -> None:
    client = create_app(referee, passphrase="a-b-c-d").test_client()
    page = client.get("/", environ_base=REMOTE)
    assert page.status_code == 200 and "Table Companion" in page.get_data(as_text=True)
    state = client.get("/api/state", environ_base=REMOTE).get_json()
    assert state["state"]["players"] == ["red", "blue"]
    assert state["style"]["red"]["glyph"]
    svg = client.get("/board.svg").get_data(as_text=True)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert page.headers["X-Frame-Options"] == "DENY"


def test_changes_need_the_pages_token(referee: Referee) -> None:
    client = create_app(referee).test_client()
    resp = client.post("/api/command", json={"text": "hex 1,0"})
    assert resp.status_code == 403
    assert referee.game.actions == []
    resp = client.post("/api/command", json={"text": "hex 1,0"},
                       headers={"X-Companion-Token": _token(client)})
    assert resp.status_code == 200 and resp.get_json()["ok"]
    assert len(referee.game.actions) == 1


def test_other_hosts_need_the_passphrase(referee: Referee) -> None:
    client = create_app(referee, passphrase="fig-jam-oat-wren").test_client()
    token = _token(client)
    missing = client.post("/api/command", json={"text": "hex 1,0"}, environ_base=REMOTE,
                          headers={"X-Companion-Token": token})
    assert missing.status_code == 401 and "pass-phrase" in missing.get_json()["error"]
    wrong = client.post("/api/command", json={"text": "hex 1,0"}, environ_base=REMOTE,
                        headers={"X-Companion-Token": token, "X-Companion-Passphrase": "nope"})
    assert wrong.status_code == 401
    assert referee.game.actions == []
    right = client.post("/api/command", json={"text": "hex 1,0"}, environ_base=REMOTE,
                        headers={"X-Companion-Token": token,
                                 "X-Companion-Passphrase": "fig-jam-oat-wren"})
    assert right.status_code == 200 and len(referee.game.actions) == 1


def test_a_loopback_only_server_refuses_changes_from_elsewhere(referee: Referee) -> None:
    client = create_app(referee, passphrase=None).test_client()
    resp = client.post("/api/end", environ_base=REMOTE,
                       headers={"X-Companion-Token": _token(client)})
    assert resp.status_code == 403 and "only taken from the machine" in resp.get_json()["error"]


def test_refusals_come_back_in_the_players_words(referee: Referee) -> None:
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    resp = client.post("/api/command", json={"text": "hex 3,3"}, headers=h)
    assert resp.status_code == 409
    assert resp.get_json()["error"] == ("red cannot place a hex at 3,3: your first hex must "
                                        "share a side with the Neutral Territory at 0,0")
    assert client.post("/api/undo", headers=h).status_code == 409
    assert client.post("/api/command", json={}, headers=h).status_code == 400
    assert client.post("/api/correct", json={"cell": "zz"}, headers=h).status_code == 400


def test_undo_new_game_and_debug_bundle(referee: Referee) -> None:
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    client.post("/api/command", json={"text": "hex 1,0"}, headers=h)
    client.post("/api/command", json={"text": "hex -1,0"}, headers=h)
    assert client.post("/api/undo", headers=h).status_code == 200
    assert len(referee.game.actions) == 1
    bundle = zipfile.ZipFile(io.BytesIO(client.get("/api/debug-bundle").data))
    names = bundle.namelist()
    assert "log.json" in names and "snapshot.json" in names
    assert b'"undo"' in bundle.read("log.json")
    old = referee.game.id
    resp = client.post("/api/new", json={"players": "a,b,c", "edition": 2001}, headers=h)
    assert resp.status_code == 200 and referee.game.id != old
    assert referee.state.players == ("a", "b", "c") and referee.state.edition == 2001
    assert client.post("/api/new", json={"players": "a"}, headers=h).status_code == 400


def test_correcting_a_cell(referee: Referee) -> None:
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    resp = client.post("/api/correct", headers=h, json={
        "cell": "0,0/c", "supply_center": True, "pieces": {"red": {"troops": 2, "peep": True}}})
    assert resp.status_code == 200
    assert "0,0/c" in referee.snapshot()["overrides"]
    bad = client.post("/api/correct", headers=h, json={
        "cell": "0,0/c", "pieces": {"red": {"troops": 9}}})
    assert bad.status_code == 400 and "0 to 5" in bad.get_json()["error"]


@pytest.mark.parametrize("content_type", [
    "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", None])
def test_a_body_not_sent_as_json_is_refused_with_415_and_changes_nothing(
        referee: Referee, content_type: str | None) -> None:
    """text/plain is what a form on any site may post: the body's type keeps such a post
    out as well as the token does."""
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    if content_type is not None:
        h["Content-Type"] = content_type
    entries, version = referee.log.entries(referee.game.id), referee.version
    for route, body in [("/api/command", b'{"text": "hex 1,0"}'),
                        ("/api/correct", b'{"cell": "0,0/c", "supply_center": true}')]:
        resp = client.post(route, data=body, headers=h)
        assert resp.status_code == 415, resp.get_json()
        assert resp.get_json()["error"].startswith("send the body as application/json")
    assert referee.log.entries(referee.game.id) == entries and referee.version == version
    assert referee.overrides == {}


@pytest.mark.parametrize(("headers", "body", "echo"), [
    ({"Content-Type": "text/" + "x" * 5000}, b"{}", f"it came as text/{'x' * 54}…)"),
    ({}, b'{"text": ' + b"1" * 500 + b"e999}", f"the number {'1' * 39}… is too large"),
    ({}, b'{"' + b"k" * 500 + b'": 1, "' + b"k" * 500 + b'": 2}',
     f"the field '{'k' * 39}…' is given twice"),
    ({}, b'{"' + b"k" * 5000 + b'": 1}', f"not {'k' * 299}…"),
])
def test_a_runaway_request_is_echoed_cut_as_every_error_cuts_it(
        referee: Referee, headers: dict, body: bytes, echo: str) -> None:
    # Cut one character past its limit, where every other error's echo keeps to it.
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client), "Content-Type": "application/json", **headers}
    resp = client.post("/api/command", data=body, headers=h)
    assert resp.status_code in (400, 415)
    assert echo in resp.get_json()["error"], resp.get_json()["error"]
    assert referee.game.actions == []


@pytest.mark.parametrize(("route", "body"), [
    ("/api/command", b'{"text": ' + b"7" * 5000 + b"}"),
    ("/api/correct", b'{"cell": "0,0/c", "pieces": {"red": {"troops": -' + b"1" * 5000
     + b"}}}"),
    ("/api/undo", b'{"turn": [1, ' + b"9" * 4301 + b"]}"),
])
def test_a_number_too_long_to_read_is_a_400_in_the_pages_words(
        referee: Referee, route: str, body: bytes) -> None:
    # Python's own "Exceeds the limit (4300 digits) ... use sys.set_int_max_str_digits()"
    # before, told to someone who cannot change it.
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client), "Content-Type": "application/json"}
    entries, version = referee.log.entries(referee.game.id), referee.version
    resp = client.post(route, data=body, headers=h)
    error = resp.get_json()["error"]
    assert resp.status_code == 400, error
    assert error.startswith("the body holds a number too long to read"), error
    assert "sys." not in error and "4300" not in error and len(error) < 100
    assert referee.log.entries(referee.game.id) == entries and referee.version == version
    assert referee.overrides == {} and referee.game.actions == []


def test_json_with_a_charset_and_a_bare_post_are_taken(referee: Referee) -> None:
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    resp = client.post("/api/command", data=b'{"text": "hex 1,0"}',
                       headers={**h, "Content-Type": "application/json; charset=utf-8"})
    assert resp.status_code == 200 and len(referee.game.actions) == 1
    # No body, so nothing to misread: fetch sends an empty string as text/plain.
    assert client.post("/api/check", headers=h).status_code == 200
    assert client.post("/api/check", data=b"", headers={
        **h, "Content-Type": "text/plain;charset=UTF-8"}).status_code == 200


def test_a_rebinding_host_name_or_a_foreign_origin_is_refused(referee: Referee) -> None:
    client = create_app(referee).test_client()
    token = _token(client)
    evil = client.get("/", headers={"Host": "evil.example:8080"})
    assert evil.status_code == 400 and "unknown host name" in evil.get_json()["error"]
    cross = client.post("/api/new", json={}, headers={
        "X-Companion-Token": token, "Origin": "http://evil.example"})
    assert cross.status_code == 403
    assert client.get("/", headers={"Host": "192.168.1.9:8080"}).status_code == 200
    assert client.get("/", headers={"Host": "localhost:8080"}).status_code == 200


def test_odd_tokens_and_wrong_guesses_are_refused_not_crashed(referee: Referee) -> None:
    client = create_app(referee, passphrase="fig-jam-oat-wren").test_client()
    token = _token(client)
    assert client.post("/api/end", headers={"X-Companion-Token": "café"}).status_code == 403
    statuses = [client.post("/api/end", environ_base=REMOTE, headers={
        "X-Companion-Token": token, "X-Companion-Passphrase": f"pomme-café-{i}"}).status_code
        for i in range(7)]
    assert statuses[:5] == [401] * 5 and 429 in statuses[5:]
    # Even the right pass-phrase waits out the back-off.
    right = client.post("/api/end", environ_base=REMOTE, headers={
        "X-Companion-Token": token, "X-Companion-Passphrase": "fig-jam-oat-wren"})
    assert right.status_code == 429


def test_malformed_corrections_are_bad_requests(referee: Referee) -> None:
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    for pieces in ({"red": 3}, ["red"]):
        resp = client.post("/api/correct", json={"cell": "0,0/c", "pieces": pieces}, headers=h)
        assert resp.status_code == 400


@pytest.mark.parametrize("game, players, body, words", [
    # An empty-looking pieces or counters of the wrong type read as "this place is empty".
    ("peepwar", ["red", "blue"], {"cell": "0,0/c", "pieces": []}, "pieces must map"),
    ("peepwar", ["red", "blue"], {"cell": "0,0/c", "pieces": ""}, "pieces must map"),
    ("peepwar", ["red", "blue"], {"cell": "0,0/c", "pieces": False}, "pieces must map"),
    ("peloponnesian", ["sparta", "athens", "thebes"], {"area": "attica", "counters": []},
     "counters must map"),
    ("peloponnesian", ["sparta", "athens", "thebes"], {"area": "attica", "counters": 0},
     "counters must map"),
    # A misspelt field was ignored, as if the players had not said it.
    ("peepwar", ["red", "blue"], {"cell": "0,0/c", "supply_centre": True},
     "not supply_centre"),
    ("peepwar", ["red", "blue"], {"cell": "0,0/c", "pieces": {"red": {"troop": 2}}},
     "pieces of red must be {troops, peep}"),
    ("petri", ["red", "blue"], {"hole": "0,0", "colour": "red"}, "not colour"),
    ("peloponnesian", ["sparta", "athens", "thebes"],
     {"area": "attica", "counter": {"athens": 2}}, "not counter"),
    # A cell on no tile laid is not on the table, whatever the players say of it.
    ("peepwar", ["red", "blue"], {"cell": "3,3/c", "supply_center": True},
     "cell 3,3/c is on no tile placed on the table"),
    # An area not on the map is named, with the nearest that is.
    ("peloponnesian", ["sparta", "athens", "thebes"], {"area": "Atica"},
     "there is no area 'Atica' on the map: did you mean attica?"),
])
def test_a_correction_of_the_wrong_shape_is_refused_and_changes_nothing(
        tmp_path: Path, game: str, players: list[str], body: dict, words: str) -> None:
    from companion import games

    with GameLog(tmp_path / "g.sqlite") as log:
        referee = Referee(log, log.new_game(games.find(game).new_rules(players, None)),
                          egg_seed=1)
        client = create_app(referee).test_client()
        entries, version = log.entries(referee.game.id), referee.version
        resp = client.post("/api/correct", json=body, headers={"X-Companion-Token":
                                                                _token(client)})
        assert resp.status_code == 400, resp.get_json()
        assert words in resp.get_json()["error"]
        assert referee.overrides == {} and referee.version == version
        assert log.entries(referee.game.id) == entries


ROLL = {"kind": "roll", "player": "red", "first": 6, "second": 6}


@pytest.mark.parametrize("game, route, body, words", [
    # The real dice's roll, misspelt: the companion rolled its own and logged it.
    ("petri", "/api/roll", {"outcom": ROLL}, "takes outcome, not outcom"),
    # "the whole turn", misspelt: one action was undone instead.
    ("petri", "/api/undo", {"turns": True}, "takes turn, not turns"),
    ("petri", "/api/end", {"turn": True}, "takes no fields, not turn"),
    ("petri", "/api/command", {"text": "roll", "player": "blue"}, "not player"),
    # The players, misspelt: a new game with the last game's players was started.
    ("peepwar", "/api/new", {"player": ["a", "b"]}, "Peep War has no option player"),
    ("peepwar", "/api/new", {"players": ["a", "b"], "editon": 2001}, "no option editon"),
    ("peepwar", "/api/draw", {"ownr": "blue"}, "takes owner, not ownr"),
    ("peepwar", "/api/eat", {"what": "troop", "who": "red"}, "not who"),
])
def test_a_misspelt_field_is_refused_not_ignored(tmp_path: Path, game: str, route: str,
                                                 body: dict, words: str) -> None:
    from companion import games

    with GameLog(tmp_path / "g.sqlite") as log:
        rules = games.find(game).new_rules(["red", "blue"], None)
        referee = Referee(log, log.new_game(rules), egg_seed=1)
        if route == "/api/undo":
            referee.chance(None, "test")  # something to undo
        client = create_app(referee).test_client()
        before = [(g.id, g.entries) for g in log.games()], referee.version
        resp = client.post(route, json=body, headers={"X-Companion-Token": _token(client)})
        assert resp.status_code == 400, resp.get_json()
        assert words in resp.get_json()["error"]
        assert ([(g.id, g.entries) for g in log.games()], referee.version) == before


def test_a_field_given_twice_is_refused_not_taken_as_the_last(referee: Referee) -> None:
    """Python's json keeps the last of repeated keys: {"text": "hex 1,0", "text": "hex -1,0"}
    played the second, which no player could tell from the request."""
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client), "Content-Type": "application/json"}
    for route, body in [("/api/command", b'{"text": "hex 1,0", "text": "hex -1,0"}'),
                        ("/api/correct", b'{"cell": "0,0/c", "pieces": {"red": {"troops": 1},'
                                         b' "red": {"troops": 2}}}')]:
        resp = client.post(route, data=body, headers=h)
        assert resp.status_code == 400, resp.get_json()
        assert resp.get_json()["error"].startswith("the field ")
        assert "is given twice" in resp.get_json()["error"]
    assert referee.log.entries(referee.game.id) == [] and referee.overrides == {}


def test_device_text_cannot_inject_script_into_the_page(referee: Referee) -> None:
    from companion.inputs.events import DEVICE_ERROR, InputEvent

    referee.handle_input(InputEvent("egg", DEVICE_ERROR, {
        "message": "</script><script>alert(document.domain)</script>"}))
    page = create_app(referee).test_client().get("/").get_data(as_text=True)
    assert "<script>alert" not in page
    assert "\\u003c/script\\u003e" in page


def test_the_debug_bundle_needs_the_passphrase_from_another_machine(referee: Referee) -> None:
    class Frames:
        def latest_jpeg(self) -> bytes | None:
            return None

        def debug_files(self) -> dict[str, bytes]:
            return {"frame.jpg": b"\xff\xd8 a photo of the living room"}

    client = create_app(referee, passphrase="fig-jam-oat-wren", camera=Frames()).test_client()
    missing = client.get("/api/debug-bundle", environ_base=REMOTE)
    assert missing.status_code == 401 and "pass-phrase" in missing.get_json()["error"]
    wrong = client.get("/api/debug-bundle", environ_base=REMOTE,
                       headers={"X-Companion-Passphrase": "fig-jam-oat-wre"})
    assert wrong.status_code == 401
    right = client.get("/api/debug-bundle", environ_base=REMOTE,
                       headers={"X-Companion-Passphrase": "fig-jam-oat-wren"})
    assert right.status_code == 200
    assert "frame.jpg" in zipfile.ZipFile(io.BytesIO(right.data)).namelist()
    assert client.get("/api/debug-bundle").status_code == 200  # this machine needs none
    # The live view stays open to watchers.
    assert client.get("/api/state", environ_base=REMOTE).status_code == 200


def test_a_loopback_only_server_gives_the_debug_bundle_to_no_other_machine(
        referee: Referee) -> None:
    client = create_app(referee, passphrase=None).test_client()
    resp = client.get("/api/debug-bundle", environ_base=REMOTE)
    assert resp.status_code == 403 and "only the machine" in resp.get_json()["error"]


def test_a_watcher_gets_the_watchers_view_and_can_check_the_passphrase(referee: Referee) -> None:
    client = create_app(referee, passphrase="fig-jam-oat-wren",
                        join_url="http://192.168.1.23:8080/").test_client()
    page = client.get("/", environ_base=REMOTE).get_data(as_text=True)
    assert 'remote: true' in page and 'id="watch-form"' in page
    assert 'id="join"' in page and "http://192.168.1.23:8080/" in page and "<svg" in page
    token = re.search(r'token: "([^"]+)"', page).group(1)
    wrong = client.post("/api/check", environ_base=REMOTE,
                        headers={"X-Companion-Token": token, "X-Companion-Passphrase": "x"})
    assert wrong.status_code == 401
    right = client.post("/api/check", environ_base=REMOTE,
                        headers={"X-Companion-Token": token,
                                 "X-Companion-Passphrase": "fig-jam-oat-wren"})
    assert right.status_code == 200 and right.get_json()["result"] is True
    assert 'remote: false' in client.get("/").get_data(as_text=True)
    # A server taking changes from this machine only: watchers get no pass-phrase form.
    closed = create_app(referee, passphrase=None).test_client().get("/", environ_base=REMOTE)
    assert 'id="watch-form"' not in closed.get_data(as_text=True)


@pytest.mark.parametrize("events", ["{bad", "null", '["x"]'])
def test_the_debug_bundle_names_a_damaged_log_entry_and_still_comes(
        referee: Referee, events: str) -> None:
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    assert client.post("/api/command", json={"text": "hex 1,0"}, headers=h).status_code == 200
    db = sqlite3.connect(referee.log.path)
    db.execute("UPDATE entries SET events = ?", (events,))
    db.commit()
    db.close()
    resp = client.get("/api/debug-bundle")
    assert resp.status_code == 200
    bundle = zipfile.ZipFile(io.BytesIO(resp.data))
    assert "log.json" not in bundle.namelist() and "snapshot.json" in bundle.namelist()
    assert bundle.read("log-unreadable.txt").decode().startswith(
        f"game {referee.game.id}, entry 1 cannot be read: ")
    db = sqlite3.connect(referee.log.path)
    assert db.execute("SELECT events FROM entries").fetchall() == [(events,)]
    db.close()


def test_the_debug_bundle_names_an_entry_whose_source_is_not_text(referee: Referee) -> None:
    # Bytes written into the log by hand once made the bundle a 500 (json.dumps of bytes).
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    assert client.post("/api/command", json={"text": "hex 1,0"}, headers=h).status_code == 200
    db = sqlite3.connect(referee.log.path)
    db.execute("UPDATE entries SET source = ?", (b"\xff",))
    db.commit()
    db.close()
    resp = client.get("/api/debug-bundle")
    assert resp.status_code == 200
    bundle = zipfile.ZipFile(io.BytesIO(resp.data))
    assert "log.json" not in bundle.namelist()
    assert bundle.read("log-unreadable.txt").decode() == (
        f"game {referee.game.id}, entry 1 cannot be read: its source is not text\n")


def test_a_game_log_locked_by_another_program_is_a_503_and_nothing_is_lost(
        referee: Referee, tmp_path: Path) -> None:
    # A database tool holding the log open for writing answered an Internal Server Error page.
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    assert client.post("/api/command", json={"text": "hex 1,0"}, headers=h).status_code == 200
    referee.log._db.execute("PRAGMA busy_timeout = 50")  # not the usual 10 s of waiting
    other = sqlite3.connect(tmp_path / "g.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        resp = client.post("/api/command", json={"text": "hex -1,0"}, headers=h)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert resp.status_code == 503 and resp.get_json()["ok"] is False
    assert "game log is busy" in resp.get_json()["error"]
    assert "nothing was recorded" in resp.get_json()["error"]
    assert len(referee.game.actions) == 1
    again = client.post("/api/command", json={"text": "hex -1,0"}, headers=h)
    assert again.status_code == 200 and len(referee.log.entries(referee.game.id)) == 2


def test_a_move_whose_save_fails_at_its_commit_is_a_503_and_the_next_is_recorded(
        referee: Referee, monkeypatch) -> None:
    # A full disk at the last step of a save left its transaction open: every later move
    # was a 503 until the companion was restarted.
    client = create_app(referee).test_client()
    h = {"X-Companion-Token": _token(client)}
    assert client.post("/api/command", json={"text": "hex 1,0"}, headers=h).status_code == 200
    monkeypatch.setattr(referee.log, "_db", FullAtCommit(referee.log._db))
    resp = client.post("/api/command", json={"text": "hex -1,0"}, headers=h)
    assert resp.status_code == 503
    assert "(database or disk is full); nothing was recorded" in resp.get_json()["error"]
    assert len(referee.game.actions) == 1
    again = client.post("/api/command", json={"text": "hex -1,0"}, headers=h)
    assert again.status_code == 200 and len(referee.game.actions) == 2
    monkeypatch.undo()
    with GameLog(referee.log.path) as check:
        assert [e["seq"] for e in check.entries(referee.game.id)] == [0, 1]
        assert check.open(referee.game.id).actions == referee.game.actions


@pytest.mark.parametrize("lock", ["IMMEDIATE", "EXCLUSIVE"])
@pytest.mark.parametrize(("path", "body"), [("/api/command", {"text": "hex -1,0"}),
                                            ("/api/undo", {})])
def test_a_move_refused_by_a_lock_says_the_log_is_busy_and_a_full_disk_says_check_it(
        tmp_path: Path, monkeypatch, lock: str, path: str, body: dict) -> None:
    # A lock was answered as a disk error: "could not be written ...; check the disk and
    # that no other program holds the log open", where only waiting is needed.
    monkeypatch.setattr("companion.gamelog.LOCK_WAIT_S", 0.2)  # not the usual 10 s of waiting
    with GameLog(tmp_path / "g.sqlite") as log:
        referee = Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
        client = create_app(referee).test_client()
        h = {"X-Companion-Token": _token(client)}
        assert client.post("/api/command", json={"text": "hex 1,0"}, headers=h).status_code == 200
        other = sqlite3.connect(log.path, isolation_level=None)
        other.execute(f"BEGIN {lock}")
        try:
            busy = client.post(path, json=body, headers=h)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert busy.status_code == 503 and busy.get_json()["error"] == (
            "the game log is busy: another program is writing to it (database is locked); "
            "nothing was recorded: try again")
        assert len(referee.game.actions) == 1
        monkeypatch.setattr(log, "_db", FullAtCommit(log._db))
        full = client.post(path, json=body, headers=h)
        assert full.status_code == 503 and full.get_json()["error"] == (
            "the game log could not be written (database or disk is full); nothing was "
            "recorded: try again, and check the disk and that no other program holds the "
            "log open")
        assert len(referee.game.actions) == 1
        monkeypatch.undo()
    with GameLog(tmp_path / "g.sqlite") as check:
        assert [e["kind"] for e in check.entries(1)] == ["action"]


def test_a_new_game_from_the_page_refuses_a_player_called_watcher(referee: Referee) -> None:
    client = create_app(referee).test_client()
    old = referee.game.id
    resp = client.post("/api/new", json={"players": "red,watcher"},
                       headers={"X-Companion-Token": _token(client)})
    assert resp.status_code == 400
    assert resp.get_json() == {"ok": False, "error": "bad request: 'watcher' is kept for "
                               "onlookers (replay --as watcher): choose another player key"}
    assert referee.game.id == old and [g.id for g in referee.log.games()] == [old]


@pytest.mark.parametrize("options", [[], "", 0, "edition=2001", [["edition", 2001]]])
def test_a_new_games_options_that_are_no_object_are_refused(referee: Referee, options) -> None:
    client = create_app(referee).test_client()
    old = referee.game.id
    resp = client.post("/api/new", json={"players": "a,b", "options": options},
                       headers={"X-Companion-Token": _token(client)})
    assert resp.status_code == 400
    assert resp.get_json() == {"ok": False, "error": "bad request: options must be an object, "
                               'e.g. {"edition": 2001}'}
    assert referee.game.id == old and [g.id for g in referee.log.games()] == [old]
    # Absent or null: no options, the game's defaults.
    for body in ({"players": "a,b"}, {"players": "a,b", "options": None}):
        resp = client.post("/api/new", json=body, headers={"X-Companion-Token": _token(client)})
        assert resp.status_code == 200 and referee.state.players == ("a", "b")


@pytest.mark.parametrize(("method", "path", "status", "error"), [
    ("GET", "/api/nothing-here", 404,
     "/api/nothing-here is no request the companion takes: reload the page, or check the "
     "address"),
    ("GET", "/score/api/nothing-here", 404,
     "/score/api/nothing-here is no request the companion takes: reload the page, or check "
     "the address"),
    ("GET", "/api/command", 405, "/api/command takes POST, not GET"),
    ("DELETE", "/api/new", 405, "/api/new takes POST, not DELETE"),
    ("POST", "/api/state", 405, "/api/state takes GET, not POST"),
])
def test_an_unknown_api_address_or_wrong_method_is_answered_in_json(
        referee: Referee, method: str, path: str, status: int, error: str) -> None:
    client = create_app(referee).test_client()
    resp = client.open(path, method=method, headers={"X-Companion-Token": _token(client)})
    assert resp.status_code == status
    assert resp.get_json() == {"ok": False, "error": error}
    if status == 405:
        assert method not in resp.headers["Allow"] and resp.headers["Allow"]
    assert referee.log.entries(referee.game.id) == []


def test_an_unknown_page_address_is_still_the_plain_not_found_page(referee: Referee) -> None:
    resp = create_app(referee).test_client().get("/nothing-here")
    assert resp.status_code == 404 and resp.mimetype == "text/html"
