"""Petri's panel on the table page: the dice, placing by tapping holes, and the capture order.

The panel has no routes of its own: the dice go through the page's chance
device (``/api/roll``: the companion rolls, or the players enter what real dice
showed), and a tapped hole or a chosen die is an action (``/api/action``) the
rules check like any other. Its script draws the dice and the buttons of the
step in progress from each update, highlights the holes where a piece may go,
and walks the suggested capture order on the board one piece at a time.
"""

from __future__ import annotations

from flask import Blueprint

from web.panels import PageContext, PagePanel


def panel(ctx: PageContext) -> PagePanel:
    bp = Blueprint("petri", __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static/petri")
    return PagePanel(bp, template="petri/panel.html", script="petri.js")
