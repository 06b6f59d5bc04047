"""The map as SVG, a pure function of a view (so a watcher's picture hides what they may not see).

Areas at their drawing positions, land links brown and sea links blue dashed,
counters by player (Sparta on the left of an area, Athens on the right,
Thebes in the middle, as on the table), chits face down (``?``) or revealed,
the Gods' Support, the turn of 15, and each player's areas against the 7 or 8
they need.

>>> from companion.rules.peloponnesian.rules import PeloponnesianWar
>>> rules = PeloponnesianWar(["sparta", "athens", "thebes"])
>>> svg = board_svg(rules.view(rules.new_state(), None))
>>> svg.startswith("<svg") and 'data-area="attica"' in svg and "set-up" in svg
True
>>> svg.count('class="counter')
3
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from companion.rules.style import player_style

RADIUS = 14.0
SIDE_DX = {"sparta": -7.0, "thebes": 0.0, "athens": 7.0}  # where each city puts its pieces
LETTER = {"military": "M", "influence": "I", "coup": "C", "void": "V", "star": "★",
          "hidden": "?"}
HEADER_MM = 16.0


def board_svg(view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
    """An SVG of the table in ``view`` (as given by ``PeloponnesianWar.view``)."""
    flagged = set(highlight)
    m = view["map"]
    w, h = m["size_mm"]
    style = player_style(list(view["players"]))
    areas = m["areas"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 {-HEADER_MM} {w:g} '
           f'{h + HEADER_MM:g}" role="img" aria-label="A Peloponnesian War map" class="board">',
           f'<rect x="0" y="{-HEADER_MM}" width="{w:g}" height="{h + HEADER_MM:g}" '
           'fill="#eef3f7"/>']
    for a, b, kind in m["links"]:
        (x1, y1), (x2, y2) = areas[a]["at"], areas[b]["at"]
        dash = ' stroke-dasharray="3 2"' if kind == "sea" else ""
        colour = "#4a7fb5" if kind == "sea" else "#8c6239"
        out.append(f'<line class="link {kind}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
                   f'stroke="{colour}" stroke-width="0.8"{dash}/>')
    for area_id, area in areas.items():
        out.append(_area(view, area_id, area, style, area_id in flagged))
    out.append(_header(view, style, w))
    out.append("</svg>")
    return "".join(out)


def _area(view: Mapping[str, Any], area_id: str, area: Mapping[str, Any],
          style: Mapping[str, Mapping[str, str]], flagged: bool) -> str:
    x, y = area["at"]
    counters = view["counters"].get(area_id, {})
    holder = next(iter(counters), None)
    fill = style[holder]["colour"] if holder in style else "#f7f1e1"
    cls = "area" + (" flagged" if flagged else "") + (" island" if area["island"] else "")
    label = area["name"] + (f" ({area['home'].capitalize()})" if area["home"] else "") + (
        " (Delphi)" if area["delphi"] else "")
    parts = [f'<g class="{cls}" data-area="{escape(area_id)}">',
             f'<circle cx="{x:g}" cy="{y:g}" r="{RADIUS:g}" fill="#fbf7ec"/>',
             f'<circle cx="{x:g}" cy="{y:g}" r="{RADIUS:g}" fill="{fill}" fill-opacity="0.35" '
             f'stroke="{"#c00" if flagged else "#555"}" stroke-width="{1.2 if flagged else 0.6}"/>',
             f'<text x="{x:g}" y="{y - RADIUS - 1.5:g}" font-size="5.5" text-anchor="middle" '
             f'font-weight="{"bold" if area["home"] or area["delphi"] else "normal"}">'
             f'{escape(label)}</text>']
    for player, n in counters.items():
        st = style.get(player, {"colour": "#999", "glyph": "?", "ink": "#000"})
        for i in range(n):
            cx, cy = x + (i - (n - 1) / 2) * 7.5, y - 5
            parts.append(f'<g class="counter" data-player="{escape(player)}">'
                         f'<rect x="{cx - 3.3:g}" y="{cy - 3.3:g}" width="6.6" height="6.6" '
                         f'fill="{st["colour"]}" stroke="#000" stroke-width="0.4"/>'
                         f'<text x="{cx:g}" y="{cy + 1.8:g}" font-size="4.8" text-anchor="middle" '
                         f'fill="{st["ink"]}">{escape(st["glyph"])}</text></g>')
    by_side: dict[str, int] = {}
    for chit in view["chits"].get(area_id, []):
        player = chit["player"]
        k = by_side.get(player, 0)
        by_side[player] = k + 1
        # Sparta's chits on the left of the area, Athens' on the right, Thebes' in the middle.
        cx = x + SIDE_DX.get(player, 0.0) + (k % 2) * 4.6 - 2.3
        cy = y + 5 + (k // 2) * 5.6
        kind = chit["type"]
        letter = LETTER.get(kind, "S")  # any other type is a Special chit
        face = "hidden" if kind == "hidden" else "revealed"
        title = chit.get("name", "a face-down chit") + f" ({player})"
        colour = style.get(player, {"colour": "#999"})["colour"]
        parts.append(f'<g class="chit {face}" data-player="{escape(player)}">'
                     f'<title>{escape(title)}</title>'
                     f'<rect x="{cx - 2.2:g}" y="{cy - 2.6:g}" width="4.4" height="5.2" '
                     f'fill="{"#444" if face == "hidden" else "#fff"}" stroke="{colour}" '
                     f'stroke-width="0.8"/><text x="{cx:g}" y="{cy + 1.5:g}" font-size="4" '
                     f'text-anchor="middle" fill="{"#fff" if face == "hidden" else "#000"}">'
                     f'{escape(letter)}</text></g>')
    parts.append("</g>")
    return "".join(parts)


def _header(view: Mapping[str, Any], style: Mapping[str, Mapping[str, str]], w: float) -> str:
    if view["phase"] == "over":
        head = f"Over: {' and '.join(view['winners'])} won"
    elif view["turn"] == 0:
        head = "set-up"
    else:
        head = f"Turn {view['turn']} / {view['turns']} · Gods' Support: {view['gods_support']}"
    parts = [f'<text class="turn" x="4" y="{-HEADER_MM + 9:g}" font-size="7">'
             f'{escape(head)}</text>']
    x = w * 0.52
    for p in view["players"]:
        st = style[p]
        held, need = view["areas_held"][p], view["needed"][p]
        parts.append(f'<g class="held" data-player="{escape(p)}"><rect x="{x:g}" '
                     f'y="{-HEADER_MM + 3:g}" width="6.6" height="6.6" fill="{st["colour"]}"/>'
                     f'<text x="{x + 8:g}" y="{-HEADER_MM + 9:g}" font-size="7">'
                     f'{escape(p)} {held}/{need}</text></g>')
        x += w * 0.15
    return "".join(parts)
