"""End to end: a fight settled by the serial egg over a real pty, ruled on, shown on the page."""

from __future__ import annotations

import http.client
import json
import re
import sys
import time
from pathlib import Path

from companion.gamelog import GameLog
from companion.inputs.egg import EggLink
from companion.inputs.egg_colours import EggColours
from companion.rules.peepwar import PeepWar
from companion.rules.peepwar.bot import Bot
from companion.service import Service, ServiceOptions
from web.event_stream import follow_events

for _path in (Path(__file__).resolve().parents[2] / "firmware",
              Path(__file__).resolve().parents[1] / "fakes"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from eggrig import EggRig  # noqa: E402  (needs the MicroPython stand-ins on sys.path)

BEANS = {"red": (0.55, 0.25, 0.22), "blue": (0.20, 0.32, 0.50)}


def _game_at_a_draw(path: Path) -> None:
    with GameLog(path) as log:
        game = log.new_game(PeepWar(players=("red", "blue"), edition=2005))
        bot = Bot(game.rules, 3)
        while not (game.state.combat and not game.state.combat.victor):
            game.play(bot.choose(game.state))


def _get(port: int, path: str) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data


def test_egg_draws_resolve_a_fight_shown_on_the_page(tmp_path: Path) -> None:
    log_path = tmp_path / "g.sqlite"
    _game_at_a_draw(log_path)
    rig = EggRig(tmp_path / "egg", HEARTBEAT_MS=100)
    rig.plug_in()
    link = EggLink(str(rig.port), colours=EggColours({p: (c,) for p, c in BEANS.items()}),
                   read_timeout=0.02, handshake_timeout=1.0, backoff=(0.05,),
                   heartbeat_timeout=3.0)  # a stalled egg loop on a loaded machine is no loss
    link.source_name = "egg"
    service = Service(ServiceOptions(port=0, log=log_path))
    service.add_source(link)
    service.start()
    port = service._server.server_port
    pushed: list[dict] = []

    follow_events(port, pushed.append)  # a browser following the server-sent events
    try:
        deadline = time.monotonic() + 20
        while _get(port, "/api/state")["devices"].get("egg", {}).get("state") != "connected":
            assert time.monotonic() < deadline, "the egg never connected"
            time.sleep(0.05)
        time.sleep(0.2)
        ref = service.referee
        cell = ref.state.combat.cell
        token = re.search(r'token: "([^"]+)"', http_get_text(port, "/")).group(1)
        draws = 0
        while ref.state.combat is not None and ref.state.combat.cell == cell:
            c = ref.state.combat
            if c.victor:  # the victor's choice is made on the page
                loser = c.other(c.victor)
                what = "troop" if c.troops[loser] else "peep"
                assert post(port, "/api/eat", {"what": what}, token) == 200
                continue
            owner = c.attacker if c.beans(c.attacker) else c.defender
            n = len(ref.game.actions)
            # The last shake's refractory time, and a shake with jolts to spare (one lost
            # while a busy machine stalls the egg's loop must not lose the shake).
            time.sleep(rig.cfg.SHAKE_REFRACTORY_MS / 1000 + 0.15)
            rig.accel.shake(0.6)
            rig.colour.put_bean(BEANS[owner])
            deadline = time.monotonic() + 5
            while len(ref.game.actions) == n:
                assert time.monotonic() < deadline, ref.snapshot()["problems"]
                time.sleep(0.02)
            rig.colour.take_bean()
            time.sleep(0.15)
            draws += 1
        assert draws >= 1
        entries = ref.log.entries(ref.game.id)
        assert sum(1 for e in entries if e["source"] == "egg") == draws
        time.sleep(0.3)
        texts = [ev["text"] for snap in pushed for ev in snap["events"]]
        assert any("draws a bean of" in t for t in texts)
        assert any(t.startswith(f"{p} wins the fight at {cell}") for t in texts for p in BEANS)
        assert pushed[-1]["devices"]["egg"]["state"] == "connected"
    finally:
        service.stop()
        rig.unplug()


def http_get_text(port: int, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    text = conn.getresponse().read().decode()
    conn.close()
    return text


def post(port: int, path: str, body: dict, token: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps(body),
                 {"Content-Type": "application/json", "X-Companion-Token": token})
    status = conn.getresponse().status
    conn.close()
    return status
