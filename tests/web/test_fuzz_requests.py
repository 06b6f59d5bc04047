"""Every POST the page and the game panels take, fuzzed: never a 500, always one clear error.

Bodies are random JSON (with the fields each route reads given random values of
any type), random bytes, huge numbers, deep nesting and oversized bodies, sent
through the real app to a real referee and SQLite log in changing game states.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peepwar import PeepWar
from companion.rules.peepwar.bot import Bot
from companion.rules.peltapeeps.catalog import default_catalog
from vision.render.peltapeeps import PeltaSpec, render_layout
from vision.render.peltapeeps_truth import truth_reading
from web.app import create_app
from web.request_body import MAX_BODY
from web.scoresheet import ScoredPhoto, create_score_app, shown_jpeg

ROUTES = ["/api/end", "/api/undo", "/api/command", "/api/action", "/api/roll", "/api/accept",
          "/api/correct", "/api/new", "/api/draw", "/api/eat", "/api/peep-beans"]
FIELDS = ["text", "turn", "outcome", "cell", "pieces", "supply_center", "players", "game",
          "options", "edition", "owner", "what", "commit", "kind", "player", "troops", "peep",
          "photo", "reading", "seats", "unplayed", "from", "to", "q", "r", "supply_centers"]
PLAYERS = ["red", "blue", "green", "", "0,0/c"]

scalars = (st.none() | st.booleans() | st.integers() | st.integers(-10, 10)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.sampled_from(PLAYERS + ["troop", "peep", "hex 1,0", "0,0/c", "1,0/3", "move"])
           | st.text(max_size=30))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.sampled_from(FIELDS + PLAYERS) | st.text(max_size=8),
                                        inner, max_size=4), max_leaves=12)
pieces = st.dictionaries(st.sampled_from(PLAYERS) | st.text(max_size=6), st.fixed_dictionaries(
    {}, optional={"troops": values, "peep": values}) | values, max_size=3)
objects = st.dictionaries(st.sampled_from(FIELDS), values, max_size=6) | st.fixed_dictionaries(
    {"cell": st.sampled_from(["0,0/c", "1,0/3", "9,9/9", "zz", ""]) | values},
    optional={"pieces": pieces, "supply_center": values})
raw_json = objects.map(lambda o: json.dumps(o).encode())
NASTY = [b"", b"{", b"null", b"[]", b"\xff\xfe\x00", b'{"cell": "0,0/c", "pieces": {"red": '
         b'{"troops": 1e400}}}', b'{"troops": -1e400}', b'{"text": NaN}', b'{"a": Infinity}',
         b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000,
         b'{"players": "' + b"x," * 5000 + b'"}', b'{"text": "' + b"a" * 10_000 + b'"}']
bodies = raw_json | st.binary(max_size=200) | st.sampled_from(NASTY)


@pytest.fixture
def referee(tmp_path: Path):
    log = GameLog(tmp_path / "g.sqlite")
    r = Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
    yield r
    log.close()


def _client(referee: Referee):
    client = create_app(referee, passphrase="fig-jam").test_client()
    token = re.search(r'token: "([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    return client, {"X-Companion-Token": token, "Content-Type": "application/json"}


def _check(resp) -> None:
    assert resp.status_code < 500, resp.get_data(as_text=True)[:500]
    data = resp.get_json()
    assert isinstance(data, dict)
    if resp.status_code >= 400:
        assert data["ok"] is False and 0 < len(data["error"]) <= 400


def _advance(referee: Referee, steps: int) -> None:
    bot = Bot(referee.rules, steps)
    for _ in range(steps):
        if referee.rules.is_over(referee.state):
            return
        referee.play(bot.choose(referee.state), "test")


@pytest.mark.slow
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.integers(0, 60), posts=st.lists(st.tuples(st.sampled_from(ROUTES), bodies),
                                                  min_size=1, max_size=5))
def test_no_post_to_the_table_page_gives_a_500(referee: Referee, steps: int, posts) -> None:
    _advance(referee, steps)  # setup, movement, fights: each route in many states
    client, headers = _client(referee)
    for route, body in posts:
        _check(client.post(route, data=body, headers=headers))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), body=objects)
def test_fields_of_a_refused_request_are_named(referee: Referee, route: str, body) -> None:
    client, headers = _client(referee)
    resp = client.post(route, data=json.dumps(body), headers=headers)
    _check(resp)


def test_the_known_crashers_get_a_clear_400(referee: Referee) -> None:
    client, headers = _client(referee)
    cases = {
        b'{"cell": "0,0/c", "pieces": {"red": {"troops": 1e400}}}': "too large",
        b'{"a":' * 3000 + b"1" + b"}" * 3000: "nested deeper",
        b"[" * 100 + b"]" * 100: "nested deeper",
        b'{"cell": "0,0/c", "pieces": {"mauve": {"troops": 1}}}': "no player 'mauve'",
        b'{"cell": "0,0/c", "pieces": {"red": {"troops": 1.5}}}': "troops",
        # Python's own "Exceeds the limit (4300 digits)... sys.set_int_max_str_digits()" before
        b'{"cell": "' + b"1" * 5000 + b',0/c"}': "is not a cell name",
    }
    for body, words in cases.items():
        resp = client.post("/api/correct", data=body, headers=headers)
        assert resp.status_code == 400 and words in resp.get_json()["error"], resp.get_json()


def test_a_body_over_the_limit_is_refused_without_being_echoed(referee: Referee) -> None:
    client, headers = _client(referee)
    big = json.dumps({"text": "hex 1,0 " * (MAX_BODY // 4)}).encode()
    resp = client.post("/api/command", data=big, headers=headers)
    assert resp.status_code == 413 and len(resp.get_data()) < 1000
    assert "larger than" in resp.get_json()["error"]
    # Just under the limit, a long command is refused by name, not echoed whole.
    long = json.dumps({"text": "x" * (MAX_BODY - 100)}).encode()
    resp = client.post("/api/command", data=long, headers=headers)
    assert resp.status_code == 400 and len(resp.get_data()) < 1000
    assert "text" in resp.get_json()["error"]
    resp = client.post("/api/action", data=json.dumps({"kind": "y" * 20_000}).encode(),
                       headers=headers)
    assert resp.status_code < 500 and len(resp.get_data()) < 1000


@pytest.fixture(scope="module")
def score_client():
    scene = render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))
    photo = ScoredPhoto(shown_jpeg(scene.frame), truth_reading(scene), default_catalog("full"),
                        "layout.jpg", teams=list(scene.colours))
    client = create_score_app(photo).test_client()
    token = re.search(r'token: "([^"]+)"|"token": "([^"]+)"|token = "([^"]+)"',
                      client.get("/score/").get_data(as_text=True))
    return client, photo, next(g for g in token.groups() if g)


reading_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                              | st.dictionaries(st.sampled_from(
                                  ["pieces", "joins", "id", "team", "piece", "x", "y", "face_up",
                                   "a", "b", "angle", "kind", "confidence"]) | st.text(max_size=5),
                                  inner, max_size=4), max_leaves=15)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_post_to_the_score_sheet_gives_a_500(score_client, data) -> None:
    client, photo, token = score_client
    real = photo.reading.to_json()
    body = data.draw(st.fixed_dictionaries({"photo": st.just(photo.id) | values}, optional={
        "reading": reading_values | st.just(real) | st.fixed_dictionaries(
            {"pieces": st.just(real["pieces"]) | reading_values,
             "joins": st.just(real["joins"]) | reading_values}),
        "seats": values, "unplayed": values}).map(lambda o: json.dumps(o).encode())
        | st.sampled_from(NASTY))
    resp = client.post("/score/api/score", data=body,
                       headers={"X-Companion-Token": token, "Content-Type": "application/json"})
    _check(resp)


@pytest.fixture(scope="module")
def upload_client(tmp_path_factory):
    from calibration.profile import save_profile
    from vision.render.peltapeeps import profile_for_teams

    scene = render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))
    profile = tmp_path_factory.mktemp("profile") / "p.json"
    save_profile(profile_for_teams(scene.colours), profile)
    tmp = tmp_path_factory.mktemp("log")
    log = GameLog(tmp / "g.sqlite")
    referee = Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
    client = create_app(referee, page_options={"peltapeeps": {"profile": str(profile)}}
                        ).test_client()
    token = re.search(r'token: "([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    yield client, token
    log.close()


def _tiny_images() -> list[bytes]:
    import cv2
    import numpy as np

    rng = np.random.default_rng(3)
    out = []
    for shape, ext in (((8, 8, 3), ".png"), ((40, 30, 3), ".jpg"), ((1, 5000, 3), ".png")):
        ok, buf = cv2.imencode(ext, rng.integers(0, 255, shape, dtype=np.uint8))
        out.append(buf.tobytes())
    return out


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(photo=st.binary(max_size=400) | st.sampled_from(_tiny_images()),
       name=st.sampled_from(["a.jpg", "a.png", "a", "../../x.jpg", "\u00e9.heic", ""]),
       set_=st.none() | st.sampled_from(["core", "full", "custom", "", "x" * 300])
       | st.text(max_size=10), field=st.sampled_from(["photo", "picture"]))
def test_no_upload_to_the_score_sheet_gives_a_500(upload_client, photo, name, set_,
                                                   field) -> None:
    import io

    client, token = upload_client
    data = {field: (io.BytesIO(photo), name)}
    if set_ is not None:
        data["set"] = set_
    resp = client.post("/score/api/upload", data=data, content_type="multipart/form-data",
                       headers={"X-Companion-Token": token})
    _check(resp)


def test_malformed_fields_are_a_400_that_names_them(referee: Referee) -> None:
    client, headers = _client(referee)
    cases = [("/api/action", {"kind": "zzz"}, "kind"), ("/api/undo", {"turn": "yes"}, "turn"),
             ("/api/roll", {"outcome": 5}, "action"), ("/api/new", {"game": 5}, "game"),
             ("/api/eat", {"what": 1}, "what"), ("/api/draw", {"owner": [1]}, "owner"),
             ("/api/correct", {"cell": "0,0/c", "supply_center": "no"}, "supply_center")]
    for route, body, field in cases:
        resp = client.post(route, data=json.dumps(body), headers=headers)
        assert resp.status_code == 400 and field in resp.get_json()["error"], (route, resp.json)


PELO_ROUTES = ROUTES + ["/peloponnesian/api/hand"]
CITIES = ["sparta", "athens", "thebes"]


@pytest.mark.slow
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.integers(0, 40), data=st.data())
def test_no_post_to_a_peloponnesian_table_gives_a_500(tmp_path: Path, steps: int, data) -> None:
    from companion import games
    from companion.rules.peloponnesian import PeloponnesianWar

    log = GameLog(tmp_path / f"p{steps}-{data.draw(st.integers(0, 10**9))}.sqlite")
    try:
        referee = Referee(log, log.new_game(PeloponnesianWar(CITIES)), egg_seed=1)
        bot = games.find("peloponnesian").bot(referee.rules, steps)
        for _ in range(steps):
            if referee.rules.is_over(referee.state):
                break
            referee.play(bot.choose(referee.state), "test")
        client, headers = _client(referee)
        page = client.get("/").get_data(as_text=True)
        keys = dict(re.findall(r"/peloponnesian/hand/(\w+)\?key=([\w-]+)", page))
        hand = st.fixed_dictionaries({
            "player": st.sampled_from(CITIES + ["red", ""]) | values,
            "key": st.sampled_from(list(keys.values()) or ["x"]) | st.text(max_size=10),
            "action": st.fixed_dictionaries(
                {"kind": st.sampled_from(["play", "pass", "swap", "keep", "draw", "move"])},
                optional={"chit": values, "area": values, "chits": values,
                          "player": values}) | values,
        }).map(lambda o: json.dumps(o).encode())
        posts = data.draw(st.lists(st.tuples(st.sampled_from(PELO_ROUTES), bodies | hand),
                                   min_size=1, max_size=5))
        for route, body in posts:
            _check(client.post(route, data=body, headers=headers))
    finally:
        log.close()
