"""The Peep War state as text for a terminal: hexes, occupied cells, the tally.

Kept apart from the rules, as a chess board's rendering is kept apart from
move generation.
"""

from __future__ import annotations

from companion.rules.peepwar.board import tile_name
from companion.rules.peepwar.rules import PeepWar
from companion.rules.peepwar.state import PeepWarState, Phase, Stack, cell_order


def _stack(player: str, st: Stack) -> str:
    text = f"{player} {st.troops}" if st.troops else player
    if st.peep:
        text += f" +peep({st.peep})"
    return text


def render(rules: PeepWar, s: PeepWarState) -> str:
    lines = []
    who = rules.to_act(s)
    status = f"{who}: {s.phase.value.replace('_', ' ')}" if who else f"{s.winner} won"
    lines.append(f"Peep War {s.edition} · turn {s.turn} · {status}")
    owners = ", ".join(
        f"{tile_name(t)} {o or 'Neutral'}" for t, o in sorted(s.tiles.items())
    )
    lines.append(f"hexes: {owners}")
    if s.phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY):
        if s.supply_centers:
            lines.append("Supply Centers: " + ", ".join(sorted(s.supply_centers)))
        return "\n".join(lines)
    lines.append(f"{'cell':<9} {'Supply':<8} pieces")
    for cell in sorted(set(s.pieces) | set(s.supply_centers), key=cell_order):
        sc = ""
        if cell in s.supply_centers:
            sc = s.controller(cell) or "free"
        stacks = "  ".join(_stack(p, st) for p, st in sorted(s.pieces.get(cell, {}).items())
                           if not st.empty)
        lines.append(f"{cell:<9} {sc:<8} {stacks}".rstrip())
    c = s.combat
    if c is not None:
        egg = ", ".join(
            f"{p} {c.troops[p]} troop + {c.peep_beans.get(p, 0)} peep beans" for p in c.sides
        )
        lines.append(f"fight at {c.cell}: the egg holds {egg}; {rules.to_act(s)} to act")
    tally = rules.tally(s)
    parts = [
        f"{st.player} {st.score}" + (" (out)" if st.out else "") for st in tally.standings
    ]
    lines.append(f"Supply Centers held ({tally.needed} of {len(s.supply_centers)} win): "
                 + ", ".join(parts))
    return "\n".join(lines)
