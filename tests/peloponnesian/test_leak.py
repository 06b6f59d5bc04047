"""No view leaks a hidden chit: two games alike on the table but for what Sparta holds.

Both games see the same public history; only Sparta's hand and the chit Sparta
puts face down differ (Brasidas in one, Lysander in the other). Everything a
watcher or another player can get — the table page, ``/api/state``, the event
stream's data, the debug bundle's log and snapshot, Athens' private page —
must then be byte for byte the same (once the page's own secrets, which
differ between the two servers, are blanked out), and so must the log's
replay for a watcher (``companion replay --as watcher``). Sparta's own page must
differ: the test can tell a leak when there is one.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.cli import main
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peloponnesian import Draw, Play
from companion.rules.peloponnesian.game import GAME
from tests.peloponnesian.conftest import CITIES, set_up
from web.app import create_app

SECRETS = [(re.compile(r'token: "[^"]+"'), 'token: "T"'),
           (re.compile(r'"token": "[^"]+"'), '"token": "T"'),
           (re.compile(r"key=[0-9a-f]+"), "key=K"),
           (re.compile(r'key: "[0-9a-f]+"'), 'key: "K"'),
           (re.compile(r'"key": "[0-9a-f]+"'), '"key": "K"'),
           (re.compile(r'"(sent_at|created)": "?[0-9.:TZ+-]+"?'), r'"\1": 0'),
           (re.compile(r'"boot": "[0-9a-f]+"'), '"boot": "B"')]  # the server's run


def _blank(text: str) -> str:
    for pattern, replacement in SECRETS:
        text = pattern.sub(replacement, text)
    return text


def _game(tmp_path: Path, special: str):
    """A referee and page where Sparta holds ``special`` and has put it face down."""
    log = GameLog(tmp_path / f"{special}.sqlite")
    rules = GAME.new_rules(list(CITIES))
    referee = Referee(log, log.new_game(rules))
    for p, area in (("sparta", "messenia"), ("athens", "euboea"), ("thebes", "locris")):
        referee.play_text(f"{p} place {area}", "test")
    # Sparta's second draw differs too, so the cup's odds would tell the two apart.
    second = ["coup", "military"] if special == "brasidas" else ["military", "coup"]
    hands = {"sparta": [special, *second, "void"],
             "athens": ["pericles", "coup", "void", "military"],
             "thebes": ["sacred-band", "coup", "void", "influence"]}
    assert set_up(rules).draws == referee.state.draws
    return referee, hands


def _deal(referee: Referee, hands: dict[str, list[str]], stop_after: int = 99) -> None:
    n = 0
    while referee.state.draws and n < stop_after:
        who = referee.state.draws[0]
        referee.chance(Draw(who, hands[who].pop(0)), "cup")
        n += 1


def _seen(referee: Referee, client: FlaskClient, keys: dict[str, str]) -> dict[str, str]:
    """Everything a watcher, and Athens, can get from the companion."""
    bundle = zipfile.ZipFile(io.BytesIO(client.get("/api/debug-bundle").data))
    remote = {"REMOTE_ADDR": "192.168.1.50"}
    replays = {}
    for fmt in ([], ["--json"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["replay", "--log", str(referee.log.path), "--as", "watcher",
                         *fmt]) == 0
        replays[f"replay --as watcher {' '.join(fmt)}"] = _blank(out.getvalue())
    return {
        **replays,
        "table page": _blank(client.get("/").get_data(as_text=True)),
        "remote table page": _blank(client.get("/", environ_base=remote).get_data(
            as_text=True)),
        "/api/state": _blank(json.dumps(client.get("/api/state").get_json(), sort_keys=True)),
        "event stream data": json.dumps(referee.snapshot(None), sort_keys=True),
        "board.svg": client.get("/board.svg").get_data(as_text=True),
        "watcher's log": _blank(bundle.read("log.json").decode()),
        "bundle snapshot": bundle.read("snapshot.json").decode(),
        "athens' page": _blank(client.get(
            f"/peloponnesian/hand/athens?key={keys['athens']}").get_data(as_text=True)),
        "athens' data": _blank(json.dumps(client.get(
            f"/peloponnesian/api/hand/athens?key={keys['athens']}").get_json(),
            sort_keys=True)),
    }


def _keys(client: FlaskClient) -> dict[str, str]:
    page = client.get("/").get_data(as_text=True)
    return dict(re.findall(r'data-player="(\w+)" href="/peloponnesian/hand/\w+\?key=(\w+)"',
                           page))


@pytest.fixture
def two_games(tmp_path: Path):
    games = []
    for special in ("brasidas", "lysander"):
        referee, hands = _game(tmp_path, special)
        client = create_app(referee).test_client()
        games.append((referee, hands, client, _keys(client)))
    yield games
    for referee, *_ in games:
        referee.log.close()


def test_nothing_a_watcher_or_athens_gets_depends_on_spartas_hidden_chits(two_games) -> None:
    (ra, ha, ca, ka), (rb, hb, cb, kb) = two_games
    assert set(ka) == set(CITIES) and ka != kb  # each server has its own keys
    # Mid-draw: Sparta holds the Special, the cup's odds must not show it.
    for referee, hands in ((ra, ha), (rb, hb)):
        _deal(referee, hands, stop_after=5)
    assert ra.state.hand("sparta") != rb.state.hand("sparta")
    assert _seen(ra, ca, ka) == _seen(rb, cb, kb)
    # Mid-round: Sparta's Special lies face down in Megara; one play was undone on the way.
    for referee, hands, special in ((ra, ha, "brasidas"), (rb, hb, "lysander")):
        _deal(referee, hands)
        referee.play(Play("sparta", special, "attica"), "hand")
        referee.undo(1, "page")
        referee.play(Play("sparta", special, "megara"), "hand")
        referee.play(Play("athens", "pericles", "megara"), "hand")
    seen_a, seen_b = _seen(ra, ca, ka), _seen(rb, cb, kb)
    for what in seen_a:
        assert seen_a[what] == seen_b[what], f"{what} tells what Sparta holds"
    assert "undone: sparta: a hidden play" in seen_a["event stream data"]
    assert '"type": "hidden"' in seen_a["/api/state"]
    # The control: Sparta's own page does show its chits, so a leak would be seen.
    mine_a = ca.get(f"/peloponnesian/hand/sparta?key={ka['sparta']}").get_data(as_text=True)
    mine_b = cb.get(f"/peloponnesian/hand/sparta?key={kb['sparta']}").get_data(as_text=True)
    assert _blank(mine_a) != _blank(mine_b)
    assert ra.snapshot("sparta")["state"]["chits"]["megara"][0]["type"] == "brasidas"
    assert rb.snapshot("sparta")["state"]["chits"]["megara"][0]["type"] == "lysander"


def test_the_table_page_lists_the_hand_links_only_at_the_companions_machine(
        two_games) -> None:
    referee, _, client, keys = two_games[0]
    remote = client.get("/", environ_base={"REMOTE_ADDR": "192.168.1.50"}).get_data(
        as_text=True)
    assert "key=" not in remote and "ask there for your link" in remote
    assert client.get("/peloponnesian/hand/sparta?key=nope").status_code == 403
    assert client.get(f"/peloponnesian/hand/sparta?key={keys['athens']}").status_code == 403
    assert client.get("/peloponnesian/api/hand/sparta").status_code == 403
