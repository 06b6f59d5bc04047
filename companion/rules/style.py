"""How the page and the board pictures show each player: a colour and a glyph, by seat.

Each player has a colour and, for colour-blind players and across-the-table
reading, a shape glyph of their own.

>>> player_style(["red", "athens"])["athens"]["glyph"]
'▲'
"""

from __future__ import annotations

# Okabe-Ito colours for keys that are not colour names.
FALLBACK = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
NAMED = {
    "red": "#d62728", "blue": "#1f77b4", "green": "#2ca02c", "yellow": "#f2c500",
    "orange": "#ff7f0e", "purple": "#8e44ad", "pink": "#e377c2", "white": "#f4f4f4",
    "black": "#333333", "brown": "#8c564b", "teal": "#17becf", "grey": "#888888",
}
GLYPHS = ["●", "▲", "■", "◆", "★", "✚"]


def player_style(players: list[str]) -> dict[str, dict[str, str]]:
    """Colour and glyph per player, by seat."""
    out = {}
    for i, p in enumerate(players):
        colour = NAMED.get(p, FALLBACK[i % len(FALLBACK)])
        out[p] = {"colour": colour, "glyph": GLYPHS[i % len(GLYPHS)],
                  "ink": "#000" if _light(colour) else "#fff"}
    return out


def _light(hex_colour: str) -> bool:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 150
