"""What each viewer may see of a game: the table for everyone, a hand for its holder.

A player sees their own hand and their own face-down chits; everyone else sees
how many chits each hand holds and, on the map, face-down chits as
``"hidden"`` on their player's side. Once revealed, chits are face up for all.
The whole state (``everything``) is for the log and the tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.rules.peloponnesian.chits import STAR
from companion.rules.peloponnesian.state import REVEAL, TURNS, State

if TYPE_CHECKING:
    from companion.rules.peloponnesian.rules import PeloponnesianWar

HIDDEN = "hidden"


def map_picture(rules: PeloponnesianWar) -> dict[str, Any]:
    """The map as the board picture needs it: areas, where they are drawn, links."""
    m = rules.map
    homes = {area: city for city, area in m.homes.items()}
    return {
        "name": m.name,
        "size_mm": list(m.size_mm),
        "areas": {a.id: {"name": a.name, "at": list(a.at), "island": a.island,
                         "home": homes.get(a.id), "delphi": a.id == m.delphi}
                  for a in m.areas.values()},
        "links": [list(link) for link in m.links],
    }


def _chit(rules: PeloponnesianWar, chit: str) -> dict[str, Any]:
    out: dict[str, Any] = {"id": chit, "name": rules.chits.name(chit)}
    if rules.chits.is_special(chit):
        out["favours"] = rules.chits.special(chit).city
    return out


def picture(rules: PeloponnesianWar, s: State, viewer: str | None,
            everything: bool = False) -> dict[str, Any]:
    """The state as ``viewer`` may see it (``everything``: the whole state)."""
    face_up = everything or s.phase == REVEAL
    chits: dict[str, list[dict[str, Any]]] = {}
    for c in s.board:
        seen = face_up or c.player == viewer
        entry: dict[str, Any] = {"player": c.player, "type": HIDDEN}
        if seen:
            entry.update(_chit(rules, c.chit), type=c.chit)
            if c.chit == STAR:
                entry["star_as"] = c.star_as
        chits.setdefault(c.area, []).append(entry)
    hands: dict[str, Any] = {}
    for p, hand in s.hands:
        hands[p] = {"count": len(hand)}
        if everything or p == viewer:
            hands[p]["chits"] = [_chit(rules, c) for c in hand]
    counters: dict[str, dict[str, int]] = {}
    for area, p, n in s.counters:
        counters.setdefault(area, {})[p] = n
    out: dict[str, Any] = {
        "game": rules.name,
        "players": list(rules.players),
        "viewer": viewer,
        "map": map_picture(rules),
        "turn": s.turn,
        "turns": TURNS,
        "phase": s.phase,
        "round": s.round,
        "gods_support": rules.gods_support(s.turn),
        "order": list(rules.play_order(s.turn)) if s.turn else list(s.to_place),
        "waiting_for": sorted(rules.waiting_for(s)),
        "played": list(s.played),
        "counters": counters,
        "chits": chits,
        "hands": hands,
        "cup": s.cup_size(),
        "aside": bool(s.aside),
        "retired": [_chit(rules, c) for c in s.retired],
        "star_plays": s.star_plays,
        "areas_held": {p: len(s.areas_of(p)) for p in rules.players},
        "needed": {p: rules.needed(s, p) for p in rules.players},
        "delphi_holder": rules.delphi_holder(s),
        "winners": list(s.winners),
        "reason": s.reason,
    }
    if everything:
        out["cup_chits"] = {c: n for c, n in s.cup if n}
        out["aside"] = s.aside
        out["draws"] = list(s.draws)
    return out


def revealed(rules: PeloponnesianWar, s: State) -> str:
    """The chits on the map, in words, as they are turned face up."""
    parts = []
    for area in rules.map.areas:
        chits = s.chits_in(area)
        if chits:
            shown = ", ".join(f"{c.player} {rules.chits.name(c.chit)}"
                              + (f" as {c.star_as}" if c.chit == STAR else "") for c in chits)
            parts.append(f"{rules.map.name_of(area)}: {shown}")
    return "the chits are revealed — " + ("; ".join(parts) or "none")
