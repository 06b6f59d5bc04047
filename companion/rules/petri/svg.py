"""The Petri board as SVG, a pure function of ``Petri.view`` (never of the camera).

Holes are small grey dots (a home's tinted in its player's colour), pieces are
discs in the player's colour with their glyph, the suggested capture order is
numbered on the pieces it takes, and hands and capture cups are written below.

>>> from companion.rules.petri import Petri
>>> rules = Petri(players=("red", "blue"))
>>> svg = board_svg(rules.view(rules.new_state(), None))
>>> svg.startswith("<svg") and svg.count('class="hole') == 121
True
>>> 'class="piece"' in svg, "cup 0" in svg
(False, True)
>>> view = {**rules.view(rules.new_state(), None), "board": {"0,0": "blue", "1,0": "red"},
...         "advice": {"player": "red", "order": ["0,0"], "enemy": 1, "own": 0, "careless": 1,
...                    "careless_loss": 0}}
>>> svg = board_svg(view)
>>> 'class="piece" data-hole="0,0" data-player="blue"' in svg, 'data-capture="1"' in svg
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from companion.rules.petri.board import HOLES, HOMES, position
from companion.rules.style import player_style

SCALE = 22.0  # picture units between neighbouring holes
PAD = 20.0
LINE = 16.0  # height of a line of text under the board


def _xy(hole: str) -> tuple[float, float]:
    x, y = position(hole)
    return x * SCALE, y * SCALE


def board_svg(view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
    """An SVG of the board in ``view`` (as given by ``Petri.view``)."""
    flagged = set(highlight)
    players = list(view["players"])
    style = player_style(players)
    home_of = {h: p for p, k in view["homes"].items() for h in HOMES[k]}
    xs, ys = zip(*(_xy(h) for h in HOLES), strict=True)
    x0, y0 = min(xs) - PAD, min(ys) - PAD
    width = max(xs) - min(xs) + 2 * PAD
    board_h = max(ys) - min(ys) + 2 * PAD
    height = board_h + LINE * (len(players) + 2)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.1f} {y0:.1f} {width:.1f} '
           f'{height:.1f}" role="img" aria-label="Petri board" class="board">']
    for hole in HOLES:
        x, y = _xy(hole)
        owner = home_of.get(hole)
        fill = style[owner]["colour"] if owner else "#999"
        cls = "hole flagged" if hole in flagged else "hole"
        ring = ' stroke="#e00" stroke-width="3"' if hole in flagged else ""
        out.append(f'<circle class="{cls}" data-hole="{hole}" cx="{x:.1f}" cy="{y:.1f}" r="4" '
                   f'fill="{fill}" fill-opacity="{0.45 if owner else 0.6}"{ring}>'
                   f"<title>{hole}</title></circle>")
    for hole, player in view["board"].items():
        x, y = _xy(hole)
        st = style[player]
        out.append(f'<g class="piece" data-hole="{hole}" data-player="{escape(player)}">'
                   f"<title>{escape(player)} at {hole}</title>"
                   f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" fill="{st["colour"]}" '
                   'stroke="#222" stroke-width="1"/>'
                   f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="10" text-anchor="middle" '
                   f'fill="{st["ink"]}">{escape(st["glyph"])}</text></g>')
    advice = view.get("advice") or {}
    for i, hole in enumerate(advice.get("order", ()), start=1):
        x, y = _xy(hole)
        out.append(f'<g class="capture-mark" data-capture="{i}" data-hole="{hole}">'
                   f'<circle cx="{x + 8:.1f}" cy="{y - 8:.1f}" r="6" fill="#fff" stroke="#e00" '
                   f'stroke-width="1.5"/><text x="{x + 8:.1f}" y="{y - 5:.1f}" font-size="9" '
                   f'font-weight="bold" text-anchor="middle" fill="#e00">{i}</text></g>')
    ty = y0 + board_h
    for p in players:
        st = style[p]
        part = (view.get("parts") or {}).get(p) or {}
        dice = part.get("dice") or []
        rolled = f" · rolled {dice[0]} and {dice[1]}" if dice else ""
        chosen = f", die {part['die']}" if part.get("die") else ""
        out.append(f'<text class="player-line" data-player="{escape(p)}" x="{x0 + PAD:.1f}" '
                   f'y="{ty:.1f}" font-size="12" fill="#222">'
                   f'<tspan fill="{st["colour"]}">{escape(st["glyph"])}</tspan> {escape(p)}: '
                   f'hand {view["hands"][p]} · cup {view["cups"][p]}'
                   f"{escape(rolled + chosen)}</text>")
        ty += LINE
    if advice.get("order"):
        out.append(f'<text class="advice" x="{x0 + PAD:.1f}" y="{ty:.1f}" font-size="12" '
                   f'fill="#e00">{"best" if advice.get("exact", True) else "a greedy"} order '
                   f'captures {advice["enemy"]}; a careless order {advice["careless_loss"]} '
                   'fewer</text>')
    out.append("</svg>")
    return "".join(out)
