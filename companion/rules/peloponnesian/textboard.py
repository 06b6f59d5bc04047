"""The board for a terminal: what everyone at the table may see (no hand is shown).

>>> from companion.rules.peloponnesian.rules import PeloponnesianWar
>>> rules = PeloponnesianWar(["sparta", "athens", "thebes"])
>>> print(render(rules.view(rules.new_state(), None)).splitlines()[0])
A Peloponnesian War · set-up · sparta places a counter
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render(view: Mapping[str, Any]) -> str:
    """The table in ``view`` (a :func:`views.picture`) as text."""
    waiting = " and ".join(view["waiting_for"])
    if view["phase"] == "over":
        head = f"game over: {' and '.join(view['winners'])} won ({view['reason']})"
    elif view["turn"] == 0:
        head = f"set-up · {waiting} places a counter"
    else:
        head = (f"turn {view['turn']} of {view['turns']} · Gods' Support: "
                f"{view['gods_support']} · {view['phase']}"
                + (f" round {view['round']}" if view["phase"] == "play" else "")
                + (f" · waiting for {waiting}" if waiting else ""))
    lines = [f"A Peloponnesian War · {head}"]
    areas = view["map"]["areas"]
    width = max(len(a["name"]) for a in areas.values())
    for area_id, area in areas.items():
        counters = view["counters"].get(area_id, {})
        chits = view["chits"].get(area_id, [])
        if not counters and not chits:
            continue
        marks = " ".join(f"{p}×{n}" for p, n in counters.items()) or "neutral"
        tags = (" (home of " + area["home"] + ")") if area["home"] else ""
        tags += " (Delphi)" if area["delphi"] else ""
        shown = ", ".join(f"{c['player']}: {c.get('name', 'face down')}" for c in chits)
        lines.append(f"  {area['name']:<{width}}  {marks}{tags}"
                     + (f"  | chits {shown}" if shown else ""))
    held = ", ".join(f"{p} {n}/{view['needed'][p]}" for p, n in view["areas_held"].items())
    hands = ", ".join(f"{p} {h['count']}" for p, h in view["hands"].items())
    lines.append(f"  areas held (of those needed): {held} · chits in hand: {hands} · "
                 f"in the cup: {view['cup']}")
    if view["retired"]:
        lines.append("  retired: " + ", ".join(c["name"] for c in view["retired"]))
    return "\n".join(lines)


def hand(view: Mapping[str, Any], player: str) -> str:
    """One player's hand, for 'hand PLAYER' in the terminal."""
    chits = view["hands"].get(player, {}).get("chits", [])
    return f"{player} holds " + (", ".join(f"{c['name']} [{c['id']}]" for c in chits)
                                 or "no chit")
