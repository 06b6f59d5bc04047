"""Peep War's panel on the table page: the fight (odds, the egg, eating), and cell corrections.

Its routes are the fight's decisions, as the page's buttons send them; the
panel's script draws the fight box from each update's ``panel`` data and
opens the correction dialog when a cell of the board is tapped.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from companion.rules.base import IllegalAction
from companion.rules.peepwar.actions import Eat, PeepBeans
from web.panels import PageContext, PagePanel


def panel(ctx: PageContext) -> PagePanel:
    bp = Blueprint("peepwar", __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static/peepwar")
    referee = ctx.referee
    assert ctx.act is not None and referee is not None

    def check_game() -> None:
        if referee.bundle.name != "peepwar":
            raise IllegalAction(f"the game on the table is {referee.bundle.title}, not Peep War")

    def draw(body: dict[str, Any]) -> list[str]:
        check_game()
        owner = body.get("owner")
        if owner is not None and owner not in referee.state.players:
            raise ValueError(f"owner must be a player of this game, not {owner!r}")
        outcome = None
        if owner is not None:
            c = referee.state.combat
            if c is None:
                raise IllegalAction("there is no fight going on")
            outcome = referee.rules.decode_action({"kind": "draw", "player": c.drawer,
                                                   "owner": owner})
        return [e.text for e in referee.chance(outcome, "page", public=True)]

    def eat(body: dict[str, Any]) -> list[str]:
        check_game()
        what = body.get("what")
        if what not in ("troop", "peep"):
            raise ValueError("what must be \"troop\" or \"peep\"")
        who = referee.rules.to_act(referee.state) or ""
        return [e.text for e in referee.play(Eat(who, what), "page")]

    def peep_beans(body: dict[str, Any]) -> list[str]:
        check_game()
        commit = body.get("commit")
        if not isinstance(commit, bool):
            raise ValueError("commit must be true or false")
        who = referee.rules.to_act(referee.state) or ""
        return [e.text for e in referee.play(PeepBeans(who, commit), "page")]

    for name, fn, fields in [("draw", draw, ("owner",)), ("eat", eat, ("what",)),
                             ("peep-beans", peep_beans, ("commit",))]:
        bp.add_url_rule(f"/api/{name}", f"api_{fn.__name__}", ctx.act(fn, fields),
                        methods=["POST"])
    return PagePanel(bp, template="peepwar/panel.html", script="peepwar.js")
