"""Explaining what the camera sees on the map as the turn's changes, checked by the rules.

Between two stable readings the table may show:

- set-up: a player's second counter put down -> :class:`Place`, checked by the rules;
- the rounds: a chit put face down on its player's side -> nothing to apply (the
  player names the chit on their own view; the camera only sees that a chit lies
  there, and a chit face up before the reveal, or on a side whose player has
  played already, is shown as a problem);
- after the reveal: the counters moved as the struggles say -> :class:`Resolve`.
  The rules resolve the struggles themselves and the camera's counters are
  compared with theirs, area by area: a mismatch is shown as problems, never
  applied (the players move the counters right, or resolve on the page);
- a table that looks like an earlier state: an undo.

Problems never name a face-down chit: what the camera sees is public, what the
game knows of a hidden chit is not.

>>> from companion.rules.peloponnesian.rules import PeloponnesianWar
>>> rules = PeloponnesianWar(["sparta", "athens", "thebes"], youngest="athens")
>>> s = rules.new_state()
>>> seen = expected_observation(rules, s)
>>> infer(rules, s, seen).verdict
'same'
>>> more = seen.with_readings({"euboea": AreaReading({"athens": 1})})
>>> infer(rules, s, more).actions
(Place(player='athens', area='euboea'),)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from companion.observation import Inference
from companion.rules.base import IllegalAction
from companion.rules.peloponnesian.actions import Place, Resolve
from companion.rules.peloponnesian.observation import AreaReading, PeloObservation
from companion.rules.peloponnesian.rules import PeloponnesianWar
from companion.rules.peloponnesian.state import DELPHI, DRAW, PLAY, REDRAW, REVEAL, SETUP, State
from companion.rules.peloponnesian.views import HIDDEN


def expected_observation(rules: PeloponnesianWar, state: State) -> PeloObservation:
    """What a perfect camera would report for ``state`` (chits face down until revealed)."""
    areas: dict[str, AreaReading] = {}
    for area in rules.map.areas:
        counters = state.counters_in(area)
        chits = tuple((c.chit if state.phase == REVEAL else HIDDEN, c.player)
                      for c in state.chits_in(area))
        if counters or chits:
            areas[area] = AreaReading(counters, chits)
    return PeloObservation(rules.name, areas)


def seen_chits(rules: PeloponnesianWar, state: State, area: str) -> tuple[tuple[str, str], ...]:
    """The chits a perfect camera sees in ``area`` (a correction keeps them)."""
    return expected_observation(rules, state).reading(area).chits


def _counter_words(counters: dict[str, int]) -> str:
    return ", ".join(f"{p} {n}" for p, n in sorted(counters.items())) or "no counters"


def counter_differences(rules: PeloponnesianWar, state: State, obs: PeloObservation
                        ) -> list[str]:
    """Every area whose counters the camera sees otherwise than ``state`` has them."""
    out = []
    for area in rules.map.areas:
        if area in obs.occluded:
            continue
        want, seen = state.counters_in(area), dict(obs.reading(area).counters)
        if want != seen:
            out.append(f"{rules.map.name_of(area)}: the camera sees {_counter_words(seen)}; "
                       f"the game has {_counter_words(want)}")
    return out


def chit_differences(rules: PeloponnesianWar, state: State, obs: PeloObservation,
                     pending: frozenset[str] = frozenset(), leftovers: bool = False
                     ) -> list[str]:
    """Every area whose chits the camera sees otherwise than ``state`` has them.

    ``pending``: players who may be putting a chit down now (a face-down chit of theirs
    more than the game has is expected); ``leftovers``: face-up chits of the last turn
    may still lie on the map (the players gather them back into the cup)."""
    out = []
    for area in rules.map.areas:
        if area in obs.occluded:
            continue
        name = rules.map.name_of(area)
        expect = Counter((c.chit if state.phase == REVEAL else HIDDEN, c.player)
                         for c in state.chits_in(area))
        seen = Counter(obs.reading(area).chits)
        for kind, side in seen - expect:
            if kind == HIDDEN and side in pending:
                continue
            if leftovers and kind != HIDDEN:
                continue
            face = "face down" if kind == HIDDEN else kind
            out.append(f"{name}: the camera sees a chit ({face}) on {side}'s side that the "
                       "game does not have there")
        for kind, side in expect - seen:
            # Chits of one side lie stacked: the camera sees the top one of a side.
            if any(s == side for _, s in seen):
                continue
            face = "face down" if kind == HIDDEN else kind
            out.append(f"{name}: the game has a chit ({face}) of {side} there that the camera "
                       "does not see")
    return out


def infer(rules: PeloponnesianWar, state: State, obs: PeloObservation,
          history: Sequence[State] = ()) -> Inference:
    """Explain ``obs`` from ``state``; ``history`` holds earlier states, most recent last."""
    seen_players = {p for a in obs.areas.values() for p in a.counters} | {
        side for a in obs.areas.values() for _, side in a.chits}
    strangers = sorted(seen_players - set(rules.players))
    if strangers:
        return Inference("problem", problems=(
            f"the camera sees pieces of {', '.join(strangers)}, who is not at this table",))
    pending = rules.waiting_for(state) if state.phase == PLAY else frozenset()
    leftovers = state.phase in (DRAW, DELPHI, REDRAW)
    counters = counter_differences(rules, state, obs)
    chits = chit_differences(rules, state, obs, frozenset(pending), leftovers)
    if not counters and not chits:
        return Inference("same")
    if state.phase == SETUP and not chits:
        placed = _placements(rules, state, obs)
        if placed is not None:
            return placed
    if state.phase == REVEAL:
        return _resolved(rules, state, obs)
    for back, earlier in enumerate(reversed(history), start=1):
        if not counter_differences(rules, earlier, obs) and not chit_differences(
                rules, earlier, obs):
            return Inference("undo", undo=back)
    return Inference("problem", problems=tuple(counters + chits))


def _placements(rules: PeloponnesianWar, state: State, obs: PeloObservation
                ) -> Inference | None:
    """Set-up: new counters, one per placing player, checked by the rules."""
    actions = []
    for area in rules.map.areas:
        if area in obs.occluded:
            continue
        want, seen = state.counters_in(area), obs.reading(area).counters
        for p, n in seen.items():
            if n == want.get(p, 0) + 1:
                actions.append(Place(p, area))
    now = state
    for a in actions:
        why = rules.why_not(now, a)
        if why:
            return Inference("problem", problems=(why,))
        now, _ = rules.apply(now, a)
    if actions and not counter_differences(rules, now, obs):
        return Inference("actions", actions=tuple(actions))
    return None


def _resolved(rules: PeloponnesianWar, state: State, obs: PeloObservation) -> Inference:
    """After the reveal: the counters the struggles give, compared with the camera's."""
    who = sorted(rules.waiting_for(state))[0]
    try:
        after, _ = rules.apply(state, Resolve(who))
    except IllegalAction as e:
        return Inference("problem", problems=(str(e),))
    # Once resolved the chits go back to the cup; they may still lie there meanwhile.
    at_reveal = replace(after, board=state.board, phase=REVEAL)
    wrong = counter_differences(rules, at_reveal, obs)
    if wrong:
        return Inference("problem", problems=tuple(
            w.replace("the game has", "the struggles give") for w in wrong))
    return Inference("actions", actions=(Resolve(who),))
