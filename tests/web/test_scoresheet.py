"""The score-sheet page's HTTP side: scoring corrected readings, refusals, the token, uploads.

Readings come from a rendered layout's ground truth (vision.render.peltapeeps_truth),
so these check the page's server, not the photo reader — except
test_live_upload_reads_the_photo_with_the_settings_profile, which runs the real
reader (vision.peltapeeps.read.read_layout) on the rendered photo.
"""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask import Flask, request

from calibration.profile import save_profile
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peepwar import PeepWar
from companion.rules.peltapeeps.catalog import default_catalog
from companion.rules.peltapeeps.rules import FACE_UP_POINTS
from vision.peltapeeps.reading import LayoutReading, score_reading
from vision.render.peltapeeps import PeltaSpec, profile_for_teams, render_layout
from vision.render.peltapeeps_truth import truth_reading
from web.app import create_app
from web.scoresheet import (
    ScoredPhoto,
    create_score_app,
    describe,
    scoresheet_blueprint,
    shown_jpeg,
)

TOKEN = "X-Companion-Token"
FULL = default_catalog("full")


@pytest.fixture(scope="module")
def scene():
    # Two colours (blue, green), 8 pieces, 7 joins, some face up and some down.
    return render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))


@pytest.fixture(scope="module")
def profile_file(scene, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "profile.json"
    save_profile(profile_for_teams(scene.colours), path)
    return path


@pytest.fixture
def photo(scene) -> ScoredPhoto:
    return ScoredPhoto(shown_jpeg(scene.frame), truth_reading(scene), FULL, "layout.jpg",
                       teams=list(scene.colours))


@pytest.fixture
def referee(tmp_path: Path) -> Referee:
    log = GameLog(tmp_path / "g.sqlite")
    yield Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
    log.close()


def _page(client, path: str = "/score/") -> tuple[str, dict]:
    html = client.get(path).get_data(as_text=True)
    token = re.search(r'token: "([^"]+)"', html).group(1)
    initial = json.loads(re.search(r'<script id="initial" type="application/json">(.*?)</script>',
                                   html, re.S).group(1))
    return token, initial


def _score(client, token: str, photo_id: str, reading: dict, **extra):
    return client.post("/score/api/score", json={"photo": photo_id, "reading": reading, **extra},
                       headers={TOKEN: token})


def _by_team(scene) -> dict[str, dict[str, int]]:
    """The engine's sheet keyed by colour (the page names each player by their colour)."""
    return {t: scene.truth.sheet[p] for p, t in scene.truth.seats}


def test_the_page_holds_the_photo_reading_and_the_engines_totals(scene, photo) -> None:
    client = create_score_app(photo).test_client()
    assert client.get("/").headers["Location"].endswith("/score/")
    token, initial = _page(client)
    assert initial["photo"]["name"] == "layout.jpg"
    assert len(initial["photo"]["reading"]["pieces"]) == len(scene.truth.pieces)
    assert initial["result"]["sheet"] == _by_team(scene)
    assert initial["photo"]["colours"]["blue"].startswith("#")
    jpeg = client.get(initial["photo"]["url"])
    assert jpeg.status_code == 200 and jpeg.mimetype == "image/jpeg"
    assert cv2.imdecode(__import__("numpy").frombuffer(jpeg.data, "uint8"),
                        cv2.IMREAD_COLOR).shape == scene.frame.shape
    assert client.get("/score/photo/nope.jpg").status_code == 404
    assert client.get("/score/").headers["X-Frame-Options"] == "DENY"


def test_scoring_endpoint_scores_the_reading_sent(scene, photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    reading = initial["photo"]["reading"]
    resp = _score(client, token, photo.id, reading)
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["ok"] and body["sheet"] == _by_team(scene)
    assert body["joins"] == len(scene.truth.joins)
    assert sum(body["seen"].values()) == len(scene.truth.pieces)
    seen_blue = {p.piece for p in scene.truth.pieces if p.team == "blue"}
    assert set(body["unplayed"]["blue"]) == {p.id for p in FULL.pieces} - seen_blue
    assert body["warnings"] == []


def test_corrections_change_exactly_their_lines(scene, photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    base = initial["result"]["sheet"]
    reading = initial["photo"]["reading"]

    # Turn a face-up piece over: only its colour's face-up line moves, by the piece's points.
    flipped = copy.deepcopy(reading)
    up = next(p for p in flipped["pieces"] if p["face_up"])
    up["face_up"] = False
    sheet = _score(client, token, photo.id, flipped).get_json()["sheet"]
    points = FACE_UP_POINTS[FULL.piece(up["piece"]).kind]
    assert sheet[up["team"]]["face_up"] == base[up["team"]]["face_up"] - points
    assert sheet[up["team"]]["total"] == base[up["team"]]["total"] - points

    # Say a join between two colours is no join: each side loses its JOIN point.
    cross = copy.deepcopy(reading)
    team = {p["uid"]: p["team"] for p in cross["pieces"]}
    j = next(j for j in cross["joins"] if team[j["a"]] != team[j["b"]])
    j["kind"] = "touch"
    sheet = _score(client, token, photo.id, cross).get_json()["sheet"]
    for t in ("blue", "green"):
        assert sheet[t]["joins"] == base[t]["joins"] - 1

    # Remove a piece (and its joins, as the page does): it counts as unplayed again.
    gone = copy.deepcopy(reading)
    piece = gone["pieces"].pop()
    gone["joins"] = [j for j in gone["joins"] if piece["uid"] not in (j["a"], j["b"])]
    body = _score(client, token, photo.id, gone).get_json()
    assert piece["piece"] in body["unplayed"][piece["team"]]
    assert body["sheet"][piece["team"]]["unplayed"] == base[piece["team"]]["unplayed"] - 1

    # Name the unplayed pieces: none for blue, so its unplayed lines are zero.
    body = _score(client, token, photo.id, reading, unplayed={"blue": []}).get_json()
    assert body["sheet"]["blue"]["unplayed"] == body["sheet"]["blue"]["unplayed_peeps"] == 0
    assert body["sheet"]["green"] == base["green"]

    # One player with both colours: every join is between their own pieces.
    body = _score(client, token, photo.id, reading,
                  seats=[["Ann", "blue"], ["Ann", "green"]]).get_json()
    assert list(body["sheet"]) == ["Ann"]
    assert body["sheet"]["Ann"]["bonus"] == len(scene.truth.joins)


def test_a_duplicate_or_seen_unplayed_piece_is_flagged(scene, photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    reading = copy.deepcopy(initial["photo"]["reading"])
    a, b = [p for p in reading["pieces"] if p["team"] == "blue"][:2]
    for j in reading["joins"]:  # as the page renames a corrected piece's joins
        for end in ("a", "b"):
            if j[end] == b["uid"]:
                j[end] = a["uid"] + "#2"
    b["piece"], b["uid"] = a["piece"], a["uid"] + "#2"
    body = _score(client, token, photo.id, reading, unplayed={"green": [
        next(p["piece"] for p in reading["pieces"] if p["team"] == "green")]}).get_json()
    assert any(f"2 pieces are read as blue {a['piece']}" in w for w in body["warnings"])
    assert any("counted as unplayed but the photo shows it" in w for w in body["warnings"])


def test_a_piece_read_twice_scores_its_face_up_points_once(scene, photo) -> None:
    # The copy was warned of, but its face-up points were added again to the sheet.
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    base = initial["result"]["sheet"]
    reading = copy.deepcopy(initial["photo"]["reading"])
    up = next(p for p in reading["pieces"] if p["face_up"])
    reading["pieces"].append(up | {"uid": up["uid"] + "#2"})
    body = _score(client, token, photo.id, reading).get_json()
    assert any(f"2 pieces are read as {up['team']} {up['piece']}" in w for w in body["warnings"])
    assert body["sheet"] == base


@pytest.mark.parametrize("body, words", [
    ("not json", "send the corrected reading as a JSON object"),
    ({"reading": {"pieces": [], "joins": []}}, "needs pieces, joins and image_size"),
    ({"reading": {"pieces": 3, "joins": []}}, "a list of pieces and a list of joins"),
    ({"reading": {"pieces": [{}] * 201, "joins": []}}, "at most 200 pieces"),
    ({}, "the request has no reading"),
    ({"reading": {"pieces": [], "joins": [], "image_size": [10, 10]}, "seat": [["Ann", "red"]]},
     "holds photo, reading, seats and unplayed, not seat"),
])
def test_bad_requests_get_a_clear_400(photo, body, words) -> None:
    client = create_score_app(photo).test_client()
    token, _ = _page(client)
    if isinstance(body, str):
        resp = client.post("/score/api/score", data=body, headers={TOKEN: token},
                           content_type="application/json")
    else:
        resp = client.post("/score/api/score", json={"photo": photo.id, **body},
                           headers={TOKEN: token})
    assert resp.status_code == 400
    assert words in resp.get_json()["error"]


def test_bad_corrections_are_refused_by_name(scene, photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    reading = initial["photo"]["reading"]
    odd = copy.deepcopy(reading)
    odd["pieces"][0]["team"] = "chartreuse"
    err = _score(client, token, photo.id, odd).get_json()["error"]
    assert "'chartreuse' is not one of the colours" in err
    odd = copy.deepcopy(reading)
    odd["pieces"][0]["piece"] = "Z9"
    resp = _score(client, token, photo.id, odd)
    assert resp.status_code == 400 and "'Z9' is not in" in resp.get_json()["error"]
    resp = _score(client, token, photo.id, reading, unplayed={"blue": ["Z9"]})
    assert "unplayed piece blue:Z9 is not in the catalog" in resp.get_json()["error"]
    resp = _score(client, token, photo.id, reading, unplayed={"mauve": ["E1"]})
    assert "unplayed pieces of 'mauve': not one of the colours" in resp.get_json()["error"]
    resp = _score(client, token, photo.id, reading, seats=[["Ann", "blue"], ["Bob", "blue"],
                                                            ["Cy", "green"]])
    assert "each colour belongs to one player" in resp.get_json()["error"]
    resp = _score(client, token, photo.id, reading, seats=[["Ann", "blue"]])
    assert resp.status_code == 400 and "which no seat plays" in resp.get_json()["error"]
    resp = _score(client, token, "gone", reading)
    assert resp.status_code == 404 and "upload it again" in resp.get_json()["error"]


RUNAWAY = "x" * 5000
CUT = "x" * 59 + "…"


@pytest.mark.parametrize(("change", "extra", "words"), [
    (lambda r: r["pieces"][0].update(team=RUNAWAY), {}, f"'{CUT}' is not one of the colours"),
    (None, {"seats": [["Ann", RUNAWAY]]}, f"'{CUT}' is not one of the colours"),
    (None, {"seats": [["", RUNAWAY]]}, f"colour {CUT} needs a player's name"),
    (None, {"seats": [["A" + RUNAWAY, "blue"], ["B" + RUNAWAY, "blue"]]},
     f"blue is given to A{'x' * 38}… and B{'x' * 38}…"),
    (None, {"unplayed": {"blue": [RUNAWAY]}}, f"unplayed piece blue:{CUT} is not in"),
    (None, {"unplayed": {RUNAWAY: []}}, f"unplayed pieces of '{CUT}': not one of"),
    (lambda r: r["joins"][0].update(a=RUNAWAY), {},
     f"join {'x' * 39}…-{{b}} names a piece that is not in the reading"),
    (lambda r: r["joins"][0].update(kind=RUNAWAY), {}, f"kind '{'x' * 39}…' is not one of"),
    (lambda r: r["pieces"][0].update(piece=RUNAWAY), {}, f"'{'x' * 39}…' is not in"),
    (lambda r: _rename(r, "green", RUNAWAY), {"seats": [["Ann", "blue"]]},
     f"piece {CUT} is green, which no seat plays"),
    (lambda r: r["pieces"][0].update(radius_px=RUNAWAY), {},
     "could not convert string to float: 'xxx"),
], ids=["piece-colour", "seat-colour", "seat-no-name", "seat-names", "unplayed-piece",
        "unplayed-colour", "join-piece", "join-kind", "catalog-piece", "no-seat",
        "not-a-number"])
def test_a_runaway_value_in_a_correction_is_echoed_cut(photo, change, extra, words) -> None:
    # The page's refusals repeated the value sent whole: a 5,000-character error.
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    reading = copy.deepcopy(initial["photo"]["reading"])
    if change:
        change(reading)
    resp = _score(client, token, photo.id, reading, **extra)
    error = resp.get_json()["error"]
    words = words.replace("{b}", reading["joins"][0]["b"])
    assert resp.status_code == 400 and words in error and len(error) < 300, error


def _rename(reading: dict, team: str, uid: str) -> None:
    """Give the first piece of ``team`` the id ``uid``, in its joins too."""
    piece = next(p for p in reading["pieces"] if p["team"] == team)
    for j in reading["joins"]:
        for end in ("a", "b"):
            if j[end] == piece["uid"]:
                j[end] = uid
    piece["uid"] = uid


@pytest.mark.parametrize("uid, shown", [("blue:E1#2", "'blue:E1#2'"), (RUNAWAY, f"'{CUT}'")],
                         ids=["short", "runaway"])
def test_two_pieces_with_one_id_are_refused_by_the_id(photo, uid, shown) -> None:
    # Two pieces sent with one id were scored, a join naming the id taken for either.
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    reading = copy.deepcopy(initial["photo"]["reading"])
    a, b = [p for p in reading["pieces"] if p["team"] == "blue"][:2]
    for j in reading["joins"]:
        for end in ("a", "b"):
            if j[end] in (a["uid"], b["uid"]):
                j[end] = uid
    a["uid"] = b["uid"] = uid
    resp = _score(client, token, photo.id, reading)
    error = resp.get_json()["error"]
    assert resp.status_code == 400, error
    assert error == f"two pieces have the id {shown}: give each piece its own id"


def test_posts_need_the_pages_token_and_this_site(photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    body = {"photo": photo.id, "reading": initial["photo"]["reading"]}
    assert client.post("/score/api/score", json=body).status_code == 403
    assert client.post("/score/api/score", json=body, headers={TOKEN: "x"}).status_code == 403
    assert client.post("/score/api/score", json=body, headers={
        TOKEN: token, "Origin": "http://evil.example"}).status_code == 403
    remote = client.post("/score/api/score", json=body, headers={TOKEN: token},
                         environ_base={"REMOTE_ADDR": "192.168.1.9"})
    assert remote.status_code == 403  # the one-photo page takes changes from this machine only
    assert client.post("/score/api/score", json=body, headers={TOKEN: token}).status_code == 200
    assert client.post("/score/api/upload", headers={TOKEN: token}).status_code == 405


def test_a_reading_not_sent_as_json_is_refused_with_415(photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    body = json.dumps({"photo": photo.id, "reading": initial["photo"]["reading"]})
    resp = client.post("/score/api/score", data=body,
                       headers={TOKEN: token, "Content-Type": "text/plain"})
    assert resp.status_code == 415
    assert resp.get_json()["error"] == "send the body as application/json (it came as text/plain)"


def test_live_app_mounts_the_page_and_guards_it(referee: Referee, tmp_path: Path) -> None:
    client = create_app(referee, passphrase="fig-jam", page_options=_score_page("")).test_client()
    main = client.get("/").get_data(as_text=True)
    assert 'href="/score/"' in main
    token, initial = _page(client)
    assert initial["uploads"] and initial["photo"] is None
    assert "no colour profile is configured" in initial["problem"]
    assert "Back to the table" in client.get("/score/").get_data(as_text=True)
    # The live app's guard: token, then the pass-phrase from other hosts.
    assert client.post("/score/api/upload").status_code == 403
    remote = client.post("/score/api/upload", headers={TOKEN: token},
                         environ_base={"REMOTE_ADDR": "192.168.1.9"})
    assert remote.status_code == 401
    refused = client.post("/score/api/upload", headers={TOKEN: token})
    assert refused.status_code == 409 and "companion calibrate" in refused.get_json()["error"]

    missing = _score_page(str(tmp_path / "none.json"))
    client = create_app(referee, page_options=missing).test_client()
    _, initial = _page(client)
    assert f"{tmp_path / 'none.json'} does not exist" in initial["problem"]


def _upload_app(profile: Path, reader) -> Flask:
    app = Flask("web.app")

    def guard():
        return None if request.headers.get(TOKEN) == "t0k" else ("no token", 403)

    app.register_blueprint(scoresheet_blueprint(guard, "t0k", profile=str(profile),
                                                reader=reader), url_prefix="/score")
    return app


def _jpeg(frame) -> bytes:
    return cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


def test_upload_path_decodes_reads_stores_and_scores(scene, profile_file: Path) -> None:
    calls = []

    def reader(frame, profile, catalog):
        calls.append((frame.shape, list(profile.players), catalog.name))
        return truth_reading(scene)

    client = _upload_app(profile_file, reader).test_client()
    resp = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={
        "photo": (io.BytesIO(_jpeg(scene.frame)), "table.jpg"), "set": "full"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert calls == [(scene.frame.shape, list(scene.colours), FULL.name)]
    assert body["sheet"] == _by_team(scene)
    assert body["photo"]["name"] == "table.jpg" and body["photo"]["teams"] == list(scene.colours)
    assert client.get(body["photo"]["url"]).status_code == 200
    again = client.post("/score/api/score", headers={TOKEN: "t0k"}, json={
        "photo": body["photo"]["id"], "reading": body["photo"]["reading"]})
    assert again.get_json()["sheet"] == body["sheet"]

    bad = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={
        "photo": (io.BytesIO(b"not a picture"), "notes.txt")})
    assert bad.status_code == 400 and "notes.txt is not an image" in bad.get_json()["error"]
    empty = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={
        "photo": (io.BytesIO(b""), "empty.jpg")})
    assert empty.status_code == 400 and "empty.jpg is empty" in empty.get_json()["error"]
    # A small file that would decode to a huge picture is refused before it is decoded.
    bomb = cv2.imencode(".png", np.zeros((9000, 9000), np.uint8))[1].tobytes()
    big = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={
        "photo": (io.BytesIO(bomb), "bomb.png")})
    assert big.status_code == 400 and "megapixels" in big.get_json()["error"]
    none = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={})
    assert none.status_code == 400 and "choose a photo" in none.get_json()["error"]
    core = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={
        "photo": (io.BytesIO(_jpeg(scene.frame)), "t.jpg"), "set": "huge"})
    assert core.status_code == 400 and "'core' and 'full'" in core.get_json()["error"]


def test_live_upload_reads_the_photo_with_the_settings_profile(
        scene, referee: Referee, profile_file: Path) -> None:
    # Needs the photo reader, vision/peltapeeps/read.py.
    client = create_app(referee, page_options=_score_page(str(profile_file))).test_client()
    token, initial = _page(client)
    assert initial["problem"] is None
    resp = client.post("/score/api/upload", headers={TOKEN: token}, data={
        "photo": (io.BytesIO(_jpeg(scene.frame)), "table.jpg"), "set": "full"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    # How exactly the reader reads is the bench's business; the page scores what it read.
    reading = LayoutReading.from_json(body["photo"]["reading"])
    assert reading.pieces and set(reading.teams()) <= set(scene.colours)
    assert body["photo"]["teams"] == list(scene.colours)
    assert body["sheet"] == score_reading(reading, FULL)
    assert body["sheet"] == _by_team(scene)  # this layout is one the reader gets exactly right


def test_pieces_touching_nothing_are_pointed_out() -> None:
    from vision.peltapeeps.reading import SeenJoin, SeenPiece

    def piece(uid: str, x: float) -> SeenPiece:
        team, pid = uid.split(":")
        return SeenPiece(uid, team, pid, True, (x, 100.0), 40.0, 0.0)

    pieces = [piece("blue:E1", 100), piece("green:E1", 180), piece("blue:A1", 600)]
    joined = LayoutReading(pieces, [SeenJoin("blue:E1", "green:E1", "join", (140.0, 100.0))],
                           (800, 600))
    warnings = describe(joined, FULL, None, None)["warnings"]
    assert warnings == ["blue:A1 touches no other piece, but a layout is one connected group"]
    assert describe(joined, FULL, None, None)["verdict"] == {"level": "layout", "reason": ""}
    # Most pieces alone: the verdict says so once, instead of a line per piece.
    scattered = describe(LayoutReading(pieces, [], (800, 600)), FULL, None, None)
    assert scattered["verdict"] == {"level": "doubtful", "reason": "3 of the 3 pieces read "
                                    "touch no other piece, but a layout is one connected group"}
    assert not any("touches no other piece" in w for w in scattered["warnings"])


def test_the_live_page_offers_and_reads_with_your_own_set(
        scene, referee: Referee, profile_file: Path, tmp_path: Path, monkeypatch) -> None:
    import web.scoresheet as sheet
    from companion.rules.peltapeeps.catalog import load_catalog

    own = tmp_path / "our-set.json"
    own.write_text(json.dumps({"name": "our set", "pieces": [
        {"id": "E1", "kind": "egg", "connectors": [{"angle": 0, "type": "tab"},
                                                   {"angle": 180, "type": "notch"}]},
        {"id": "A3", "kind": "awake", "connectors": [{"angle": 0, "type": "tab"}]}]}))
    calls = []

    def reader(frame, profile, catalog):
        calls.append(catalog.name)
        return LayoutReading([], [], (frame.shape[1], frame.shape[0]))

    monkeypatch.setattr(sheet, "_default_reader", reader)
    app = create_app(referee, page_options=_score_page(str(profile_file), load_catalog(own)))
    client = app.test_client()
    page = client.get("/score/").get_data(as_text=True)
    assert re.search(r'<option value="custom" selected>your set: our set \(2 pieces\)', page)
    token, _ = _page(client)
    core = default_catalog("core")
    for wanted, name, ids in (("custom", "our set", ["E1", "A3"]),
                              ("core", core.name, [p.id for p in core.pieces]),
                              (None, "our set", ["E1", "A3"])):  # the page's default
        data = {"photo": (io.BytesIO(_jpeg(scene.frame)), "table.jpg")}
        if wanted:
            data["set"] = wanted
        resp = client.post("/score/api/upload", headers={TOKEN: token}, data=data)
        assert resp.status_code == 200, resp.get_json()
        assert calls[-1] == name
        assert [p["id"] for p in resp.get_json()["photo"]["catalog"]["pieces"]] == ids


def _score_page(profile: str, catalog=None) -> dict:
    """The live app's options for PeltaPeeps' page: the colour profile and the user's set."""
    return {"peltapeeps": {"profile": profile, "catalog": catalog}}


def _winner(scene) -> str | None:
    totals = {t: line["total"] for t, line in _by_team(scene).items()}
    best = max(totals.values())
    leaders = [t for t, v in totals.items() if v == best]
    return leaders[0] if len(leaders) == 1 else None


def test_the_sheet_names_a_winner_only_when_the_reading_looks_like_a_layout(scene, photo) -> None:
    client = create_score_app(photo).test_client()
    token, initial = _page(client)
    assert initial["result"]["verdict"] == {"level": "layout", "reason": ""}
    assert initial["result"]["winner"] == _winner(scene)
    assert initial["result"]["set"] == "default full set, 16 pieces a colour"
    reading = copy.deepcopy(initial["photo"]["reading"])
    n = len(reading["pieces"])
    # The reader unsure of most pieces (their cut-outs fit no piece well): no layout.
    for p in reading["pieces"][: n - 1]:
        p["confidence"] = 0.5
    body = _score(client, token, photo.id, reading).get_json()
    assert body["ok"] and body["sheet"] == _by_team(scene)  # the lines are still there
    assert body["verdict"]["level"] == "not a layout" and body["winner"] is None
    assert body["headline"].startswith("no winner named: the photo may not show a PeltaPeeps")
    # Confirmed on the page one by one (a confirmed piece is sure): half sure is in doubt.
    for p in reading["pieces"][: n // 2 - 1]:
        p["confidence"] = 1.0
    body = _score(client, token, photo.id, reading).get_json()
    assert body["verdict"] == {"level": "doubtful",
                               "reason": f"{n - n // 2} of the {n} pieces read are in doubt "
                                         "(see the warnings)"}
    assert body["winner"] is None
    for p in reading["pieces"]:
        p["confidence"] = 1.0
    body = _score(client, token, photo.id, reading).get_json()
    assert body["verdict"]["level"] == "layout" and body["winner"] == _winner(scene)


def test_an_upload_reads_with_the_full_set_unless_told(scene, profile_file: Path) -> None:
    names = []

    def reader(frame, profile, catalog):
        names.append(catalog.name)
        truth = truth_reading(scene)  # the pieces the set has
        ids = {p.id for p in catalog.pieces}
        pieces = [p for p in truth.pieces if p.piece in ids]
        uids = {p.uid for p in pieces}
        return LayoutReading(pieces, [j for j in truth.joins if {j.a, j.b} <= uids],
                             truth.image_size)

    app = _upload_app(profile_file, reader)
    client = app.test_client()
    page = client.get("/score/").get_data(as_text=True)
    assert re.search(r'<option value="full" selected>full set \(16 pieces\)', page)
    for form, name in (({}, "default full set"), ({"set": "core"}, "default core set")):
        resp = client.post("/score/api/upload", headers={TOKEN: "t0k"}, data={
            "photo": (io.BytesIO(_jpeg(scene.frame)), "table.jpg"), **form})
        assert resp.status_code == 200, resp.get_json()
        size = 16 if name == "default full set" else 8
        assert resp.get_json()["set"] == f"{name}, {size} pieces a colour"
    assert names == ["default full set", "default core set"]
