"""Helpers for the Petri tests: a position builder and a command player.

``position`` builds a state from a board picture in a few words: the pieces
on the board, whose turn it is and at which step, the hands; ``play`` feeds
typed notation through ``rules.apply``, the path the terminal takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from companion.rules.base import Event
from companion.rules.petri import Part, Petri, PetriState, Step, notation


def position(rules: Petri, board: Mapping[str, str], mover: str | None = None,
             step: Step = Step.CAPTURE, hands: Mapping[str, int] | None = None,
             **part: object) -> PetriState:
    """A state with ``board`` on the table and ``mover`` at ``step``; the rest of each
    player's pieces in hand unless ``hands`` says otherwise."""
    mover = mover or rules.players[0]
    state = rules.new_state()
    on = {p: sum(1 for q in board.values() if q == p) for p in rules.players}
    hands = dict(hands) if hands is not None else {p: rules.pieces - on[p]
                                                   for p in rules.players}
    boxed = {p: rules.pieces - on[p] - hands[p] for p in rules.players}
    return replace(state, board=dict(board), hands=hands, boxed=boxed,
                   current=rules.players.index(mover),
                   parts={mover: Part(step=step, **part)},  # type: ignore[arg-type]
                   played=frozenset(rules.players))


def play(rules: Petri, state: PetriState, *lines: str) -> tuple[PetriState, list[Event]]:
    events: list[Event] = []
    for line in lines:
        state, new = rules.apply(state, notation.parse(line, rules, state))
        events.extend(new)
    return state, events
