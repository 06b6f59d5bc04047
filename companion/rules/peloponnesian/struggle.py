"""Struggles: the chits of an area meet by the grid, then the survivors act on its counters.

The project's reading of rules section 4 (each step is documented in
``docs/peloponnesian.md``):

1. Each side's chits line up in the order they were played; the Star chit
   takes two places (its doubled value), as the type it was played as.
2. The two lines meet place by place (first against first, …); a chit with
   no opponent (the longer line's extra chits) survives — the "number" of the
   rules. Grid chits meet by the grid (the loser is retired, a draw retires
   both); Void loses to anything and two Voids both go; a Special chit beats
   any grid chit or Void and works for its favoured city, whoever played it;
   two Specials of different cities draw, of the same city both survive.
3. The survivors act one by one, in the order they were played: one removes
   one counter of another player, else places a counter of its own on a
   neutral area, else adds one to its player's own (at most two). A surviving
   Void does nothing.

>>> from companion.rules.peloponnesian.chits import load_chits
>>> from companion.rules.peloponnesian.state import Placed
>>> mix = load_chits(None)
>>> chits = (Placed("sparta", "military", "attica"), Placed("athens", "coup", "attica"))
>>> result = resolve_area("attica", chits, {"athens": 1}, mix)
>>> result.counters, result.lines[-1]
({}, 'sparta removes a counter of athens')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from companion.rules.peloponnesian.chits import STAR, VOID, ChitSet, grid
from companion.rules.peloponnesian.state import Placed

MAX_COUNTERS = 2  # orientation counters of one player in one area


@dataclass(frozen=True)
class Fighter:
    """One place in a side's line: a chit (or half the Star), what it counts as, whom
    it works for."""

    index: int  # the chit's place in the order of play
    kind: str  # military, influence, coup, void or "special"
    works_for: str
    label: str


@dataclass
class Outcome:
    counters: dict[str, int]
    lines: list[str] = field(default_factory=list)


def _line(chits: Sequence[tuple[int, Placed]], mix: ChitSet) -> list[Fighter]:
    out: list[Fighter] = []
    for i, c in chits:
        if c.chit == STAR:
            out += [Fighter(i, c.star_as, c.player, f"{c.player}'s Star as {c.star_as}")] * 2
        elif mix.is_special(c.chit):
            s = mix.special(c.chit)
            out.append(Fighter(i, "special", s.city, f"{c.player}'s {s.name} (for {s.city})"))
        else:
            out.append(Fighter(i, c.chit, c.player, f"{c.player}'s {c.chit}"))
    return out


def _meet(a: Fighter, b: Fighter) -> tuple[bool, bool]:
    """Whether ``a`` and ``b`` survive their meeting."""
    if a.kind == "special" and b.kind == "special":
        same = a.works_for == b.works_for
        return same, same
    if a.kind == "special":
        return True, False
    if b.kind == "special":
        return False, True
    if a.kind == VOID or b.kind == VOID:
        return a.kind != VOID, b.kind != VOID
    result = grid(a.kind, b.kind)
    return result == "win", result == "lose"


def resolve_area(area: str, chits: Sequence[Placed], counters: Mapping[str, int],
                 mix: ChitSet) -> Outcome:
    """The counters of ``area`` after its struggle, and what happened, in words."""
    sides: list[str] = []
    for c in chits:
        if c.player not in sides:
            sides.append(c.player)
    lines = {p: _line([(i, c) for i, c in enumerate(chits) if c.player == p], mix)
             for p in sides}
    out = Outcome(dict(counters))
    survivors: list[Fighter] = []
    if len(sides) == 2:
        a_line, b_line = lines[sides[0]], lines[sides[1]]
        for a, b in zip(a_line, b_line, strict=False):
            keep_a, keep_b = _meet(a, b)
            verdict = ("both stay" if keep_a and keep_b else f"{a.label} wins" if keep_a
                       else f"{b.label} wins" if keep_b else "both are retired")
            out.lines.append(f"{a.label} meets {b.label}: {verdict}")
            survivors += [f for f, kept in ((a, keep_a), (b, keep_b)) if kept]
        n = min(len(a_line), len(b_line))
        survivors += a_line[n:] + b_line[n:]
    else:
        for p in sides:
            survivors += lines[p]
    survivors.sort(key=lambda f: f.index)  # stable: the Star's two halves stay together
    for f in survivors:
        if f.kind == VOID:
            continue
        out.lines.append(_act(f.works_for, out.counters))
    return out


def _act(player: str, counters: dict[str, int]) -> str:
    """One surviving chit of ``player`` acts on the area's counters."""
    enemies = sorted(p for p, n in counters.items() if p != player and n)
    if enemies:
        foe = enemies[0]
        counters[foe] -= 1
        if not counters[foe]:
            del counters[foe]
        return f"{player} removes a counter of {foe}"
    have = counters.get(player, 0)
    if have == 0:
        counters[player] = 1
        return f"{player} orients the area with a counter"
    if have < MAX_COUNTERS:
        counters[player] = have + 1
        return f"{player} strengthens the area with a second counter"
    return f"{player} already has {MAX_COUNTERS} counters there"


def needed(player: str, holder_of_home: str | None, base: int = 7) -> int:
    """Areas ``player`` must hold to win: 7, or 8 while another player holds their city."""
    return base + 1 if holder_of_home not in (None, player) else base


def final_winners(areas: Mapping[str, int], counters: Mapping[str, int]) -> tuple[str, ...]:
    """After the last turn: the most areas, then the most counters; ties win together."""
    best = max(areas.values())
    top = [p for p in areas if areas[p] == best]
    most = max(counters[p] for p in top)
    return tuple(p for p in top if counters[p] == most)
