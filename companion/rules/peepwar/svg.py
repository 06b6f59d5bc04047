"""The Peep War board as SVG, a pure function of the engine's state (never of the camera).

Each player has a colour and, for colour-blind players and across-the-table
reading, a shape glyph of their own; counts are written out as numbers.

>>> from companion.rules.peepwar import PeepWar
>>> rules = PeepWar(players=("red", "blue"))
>>> svg = board_svg(rules.view(rules.new_state(), None))
>>> svg.startswith("<svg") and "0,0/c" in svg
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from companion.rules.peepwar.board import (
    R_MM,
    SUPPLY_CIRCLE_DIAMETER_MM,
    cell_centre_mm,
    cell_polygon_mm,
    cells_of,
    parse_cell,
    tile_centre_mm,
)
from companion.rules.style import player_style


def _points(pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)


def board_svg(state: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
    """An SVG of the board in ``state`` (as given by ``PeepWar.view``)."""
    highlight = set(highlight)
    style = player_style(state["players"])
    tiles = [(t["q"], t["r"], t["owner"]) for t in state["tiles"]]
    xs, ys = [], []
    for q, r, _ in tiles:
        cx, cy = tile_centre_mm((q, r))
        xs += [cx - R_MM, cx + R_MM]
        ys += [cy - R_MM, cy + R_MM]
    pad = 8
    x0, y0 = min(xs) - pad, min(ys) - pad
    w, h = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.1f} {y0:.1f} {w:.1f} {h:.1f}" '
           'role="img" aria-label="Peep War board" class="board">']
    fight = (state.get("combat") or {}).get("cell")
    cells = state["cells"]
    for q, r, owner in tiles:
        tint = style[owner]["colour"] if owner else "#bbbbbb"
        for name in cells_of((q, r)):
            cell = parse_cell(name)
            cls = "cell"
            if name == fight:
                cls += " fight"
            if name in highlight:
                cls += " flagged"
            out.append(f'<polygon class="{cls}" data-cell="{name}" points="'
                       f'{_points(cell_polygon_mm(cell))}" fill="{tint}" fill-opacity="0.12" '
                       'stroke="#555" stroke-width="0.8"><title>'
                       f'{name}</title></polygon>')
        cx, cy = tile_centre_mm((q, r))
        out.append(f'<text class="tile-label" x="{cx:.1f}" y="{cy - 24:.1f}" font-size="9" '
                   f'text-anchor="middle" fill="#666">{q},{r}</text>')
    for name, entry in cells.items():
        cell = parse_cell(name)
        cx, cy = cell_centre_mm(cell) if not cell.is_central else tile_centre_mm(cell.tile)
        if entry.get("supply_center"):
            ctrl = entry.get("controller")
            stroke = style[ctrl]["colour"] if ctrl else "#444"
            label = f"Supply Center, held by {ctrl}" if ctrl else "Supply Center, free"
            out.append(f'<circle class="supply" data-cell="{name}" cx="{cx:.1f}" cy="{cy:.1f}" '
                       f'r="{SUPPLY_CIRCLE_DIAMETER_MM / 2:.1f}" fill="none" stroke="{stroke}" '
                       f'stroke-width="4" stroke-dasharray="{"" if ctrl else "4 3"}">'
                       f'<title>{escape(label)}</title></circle>')
        stacks = [(p, v) for p, v in entry.get("pieces", {}).items()
                  if v["troops"] or v["peep"]]
        for i, (p, v) in enumerate(stacks):
            dy = (i - (len(stacks) - 1) / 2) * 22
            out.append(_stack(name, p, v, style[p], cx, cy + dy))
    out.append("</svg>")
    return "".join(out)


def _stack(cell: str, player: str, v: dict[str, Any], st: dict[str, str], x: float, y: float
           ) -> str:
    text = f"{st['glyph']}{v['troops']}" if v["troops"] else st["glyph"]
    health = v.get("peep_health", 3 if v["peep"] else 0)
    title = f"{player}: {v['troops']} troops" + (f", a peep ({health} health)" if v["peep"] else "")
    parts = [f'<g class="stack" data-cell="{cell}" data-player="{escape(player)}" '
             f'data-troops="{v["troops"]}" data-peep="{str(bool(v["peep"])).lower()}">'
             f"<title>{escape(title)}</title>"]
    width = 30 if v["peep"] else 22
    parts.append(f'<rect x="{x - width / 2:.1f}" y="{y - 9:.1f}" width="{width}" height="18" '
                 f'rx="6" fill="{st["colour"]}" stroke="#222" stroke-width="0.8"/>')
    tx = x - (5 if v["peep"] else 0)
    parts.append(f'<text x="{tx:.1f}" y="{y + 5:.1f}" font-size="13" font-weight="bold" '
                 f'text-anchor="middle" fill="{st["ink"]}">{escape(text)}</text>')
    if v["peep"]:
        # A peep: a round head on a body, with its health as pips.
        px = x + 9
        parts.append(f'<ellipse cx="{px:.1f}" cy="{y + 2:.1f}" rx="5" ry="4" fill="#fff5b0" '
                     'stroke="#222" stroke-width="0.6"/>')
        parts.append(f'<circle cx="{px + 2:.1f}" cy="{y - 3:.1f}" r="3" fill="#fff5b0" '
                     'stroke="#222" stroke-width="0.6"/>')
        for k in range(health):
            parts.append(f'<circle cx="{px - 4 + 4 * k:.1f}" cy="{y + 11:.1f}" r="1.5" '
                         'fill="#222"/>')
    parts.append("</g>")
    return "".join(parts)
