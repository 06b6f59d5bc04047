"""A bean out of the real egg, as a Peep War move: the Draw it means, or why it cannot be.

Pure: no I/O, no clock. The rules stay the one judge; this only reads the
fight to know who is drawing, and asks the rules (``why_not``) whether a bean
of that player can still be in the egg now.
"""

from __future__ import annotations

from companion.inputs.events import BEAN, InputEvent
from companion.rules.peepwar import Draw, PeepWar, PeepWarState


def draw_for_bean(rules: PeepWar, state: PeepWarState, event: InputEvent) -> Draw | str:
    """The :class:`Draw` a matched ``bean`` event stands for, or a sentence saying why not."""
    if event.kind != BEAN:
        return f"a {event.kind} event is not a bean drawn from the egg"
    fight = state.combat
    if fight is None:
        return "a bean came out of the egg but no fight is going on: put it back"
    if "player" not in event.data:
        return ("the egg read a bean but has no colour references to tell whose it is: "
                "run companion calibrate-egg, or enter the draw on the page")
    owner = event.data["player"]
    if owner is None:
        why = event.data.get("match", "its colour matched nobody")
        return f"the egg could not tell whose bean that was ({why}): enter the draw on the page"
    action = Draw(fight.drawer, owner)
    reason = rules.why_not(state, action)
    if reason is not None:
        return f"the egg read a {owner} bean, but {reason}"
    return action
