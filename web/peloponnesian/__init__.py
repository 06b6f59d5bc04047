"""A Peloponnesian War's panel: secret hands, each on its player's own private page.

The table page shows everyone only what lies on the table. Each player opens
``/peloponnesian/hand/<player>?key=<key>`` (on a phone, say): their hand,
their own face-down chits on the map, and buttons to draw, swap at Delphi and
play chits face down. The keys are made from a secret kept in the panel, so
they change when the companion restarts; the table page lists the links only
to whoever sits at the companion's machine. Changes still pass the page's
guard (its token, and the pass-phrase from other machines).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request, url_for

from companion.rules.base import IllegalAction
from companion.rules.json_values import unknown_fields
from web.panels import PageContext, PagePanel
from web.security import LOOPBACK, refuse, same

GAME = "peloponnesian"
FROM_HAND = ("play", "pass", "swap", "keep", "draw")  # what a player does from their page


def panel(ctx: PageContext) -> PagePanel:
    bp = Blueprint(GAME, __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static/peloponnesian")
    referee = ctx.referee
    assert ctx.act is not None and referee is not None
    secret = secrets.token_bytes(32)

    def key_for(player: str) -> str:
        return hmac.new(secret, player.encode(), hashlib.sha256).hexdigest()[:24]

    def on_table() -> bool:
        return referee.bundle.name == GAME

    def allowed(player: str, key: str) -> bool:
        return on_table() and player in referee.rules.players and same(key, key_for(player))

    def private(player: str) -> dict[str, Any]:
        snap = referee.snapshot(player)
        snap["svg"] = referee.bundle.board_svg(snap["state"])
        return snap

    @bp.app_context_processor
    def hand_links() -> dict[str, Any]:
        def links() -> list[tuple[str, str]]:
            if not on_table() or (request.remote_addr or "") not in LOOPBACK:
                return []
            return [(p, url_for(f"{GAME}.hand", player=p, key=key_for(p)))
                    for p in referee.rules.players]
        return {"peloponnesian_hand_links": links}

    @bp.get("/peloponnesian/hand/<player>")
    def hand(player: str) -> Any:
        key = request.args.get("key", "")
        if not allowed(player, key):
            return Response("This is not a hand's address: open it from the link on the "
                            "companion's machine.", status=403, mimetype="text/plain")
        return render_template("peloponnesian/hand.html", player=player, key=key,
                               token=ctx.token, initial=private(player))

    @bp.get("/peloponnesian/api/hand/<player>")
    def hand_state(player: str) -> Response:
        if not allowed(player, request.args.get("key", "")):
            return refuse(403, "this is not your hand's key")
        return jsonify(private(player))

    def act_from_hand(body: dict[str, Any]) -> list[str]:
        player, key, data = body.get("player"), body.get("key"), body.get("action")
        if not isinstance(player, str) or not isinstance(key, str) or not allowed(player, key):
            raise IllegalAction("this is not your hand's key: open your page from the "
                                "companion's machine again")
        if not isinstance(data, dict) or data.get("kind") not in FROM_HAND:
            raise ValueError(f"action must be one of {', '.join(FROM_HAND)}")
        if data["kind"] == "draw" and "chit" not in data:
            # The chance draw reads no field: a misspelt "chit" would draw at random.
            extra = unknown_fields(data, ("kind",))
            if extra:
                raise ValueError(f"a draw takes kind and chit, not {extra}")
            if player not in referee.rules.waiting_for(referee.state):
                raise IllegalAction(f"it is not {player}'s draw: {referee.prompt()}")
            return [e.text for e in referee.chance(None, "hand")]
        return [e.text for e in referee.play_data({**data, "player": player}, "hand")]

    bp.add_url_rule("/peloponnesian/api/hand", "api_hand",
                    ctx.act(act_from_hand, ("player", "key", "action")), methods=["POST"])
    return PagePanel(bp, template="peloponnesian/panel.html", script="peloponnesian.js")
