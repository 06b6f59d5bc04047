"""The Petri board for a terminal: the star row by row, a letter per player.

>>> from companion.rules.petri import Petri
>>> rules = Petri(players=("red", "blue"))
>>> print(render(rules, rules.new_state()).splitlines()[0])
 -8             .
"""

from __future__ import annotations

from companion.rules.petri.board import INDEX, name
from companion.rules.petri.rules import Petri
from companion.rules.petri.state import PetriState, Step


def letters(players: list[str] | tuple[str, ...]) -> dict[str, str]:
    """One character per player: the initial, or the seat number when initials clash."""
    initials = [p[0].upper() for p in players]
    if len(set(initials)) == len(initials):
        return dict(zip(players, initials, strict=True))
    return {p: str(i + 1) for i, p in enumerate(players)}


def render(rules: Petri, state: PetriState) -> str:
    mark = letters(rules.players)
    lines = []
    for r in range(-8, 9):
        row = [" "] * 25
        for q in range(-8, 9):
            hole = name(q, r)
            if hole in INDEX:
                p = state.board.get(hole)
                row[2 * q + r + 12] = mark[p] if p else "."
        lines.append(f"{r:>3} " + "".join(row).rstrip())
    for p in rules.players:
        part = state.parts.get(p)
        doing = ""
        if part is not None and part.dice:
            doing = f"  rolled {part.dice[0]} {part.dice[1]}"
            if part.die:
                doing += f", die {part.die}"
            if part.step in (Step.PLACE, Step.REMOVE) and part.left:
                doing += f", {part.left} to {part.step.value}"
        lines.append(f"{mark[p]} {p}: hand {state.hands[p]}, board {state.on_board(p)}, "
                     f"cup {state.cups[p]}, home {rules.homes[rules.players.index(p)]}{doing}")
    advice = rules.view(state, None)["advice"]
    if advice and advice["order"]:
        own = f", {advice['own']} own" if advice["own"] else ""
        best = "best" if advice["exact"] else "greedy (too tangled to search through)"
        lines.append(f"{best} capture: {' '.join(advice['order'])} ({advice['enemy']} enemy"
                     f"{own}; a careless order captures {advice['careless_loss']} fewer)")
    return "\n".join(lines)
