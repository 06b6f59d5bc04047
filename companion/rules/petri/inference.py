"""Explaining what the camera sees as legal Petri actions.

The camera gives a new stable :class:`PetriObservation`; the game knows the
state before it. Between two stable readings a player may place pieces (or
take their own off, for a short hand) and then take captured pieces off. :func:`infer`
turns that into the turn's :class:`Place`, :class:`Remove` and :class:`Capture`
actions and checks each with the rules; a capture the rules do not allow is
reported as a problem in plain words, never applied. The dice are not seen:
they are rolled and chosen on the page or at the terminal first. A table that
looks like an earlier state is offered as an undo.

>>> from companion.rules.petri import Petri, Roll, Choose
>>> rules = Petri(players=("red", "blue"))
>>> state, _ = rules.apply(rules.new_state(), Roll("red", 2, 6))
>>> state, _ = rules.apply(state, Choose("red", 2))
>>> seen = PetriObservation("petri", {"7,-4": HoleReading("red"), "8,-4": HoleReading("red")})
>>> infer(rules, state, seen).actions
(Place(player='red', holes=('7,-4', '8,-4')),)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from companion.observation import Inference
from companion.rules.base import Action, IllegalAction
from companion.rules.petri import captures
from companion.rules.petri.actions import Capture, Place, Remove
from companion.rules.petri.board import hole_order
from companion.rules.petri.observation import HoleReading, PetriObservation
from companion.rules.petri.rules import Petri
from companion.rules.petri.state import PetriState, Step


class _Unexplained(Exception):
    """The observation cannot come from a legal turn; the message says why."""


def expected_observation(state: PetriState) -> PetriObservation:
    """What a perfect camera would report for ``state``."""
    return PetriObservation("petri", {h: HoleReading(p) for h, p in state.board.items()})


def differences(board: dict[str, str] | object, obs: PetriObservation) -> list[str]:
    """Every hole where ``obs`` disagrees with ``board``; hidden holes are not compared."""
    assert isinstance(board, dict)
    seen, hidden = obs.pieces(), obs.occluded
    out = []
    for hole in sorted(set(board) | set(seen), key=hole_order):
        if hole in hidden or board.get(hole) == seen.get(hole):
            continue
        has = seen.get(hole) or "nothing"
        out.append(f"{hole}: the camera sees {has}; the game has {board.get(hole) or 'nothing'}")
    return out


def infer(rules: Petri, state: PetriState, obs: PetriObservation,
          history: Sequence[PetriState] = ()) -> Inference:
    """Explain ``obs`` from ``state``; ``history`` holds earlier states, most recent last."""
    strangers = sorted(set(obs.pieces().values()) - set(rules.players))
    if strangers:
        return Inference("problem", problems=(
            f"the camera sees pieces of {', '.join(strangers)}, who is not at this table",))
    if not differences(dict(state.board), obs):
        return Inference("same")
    try:
        return Inference("actions", actions=tuple(_explain(rules, state, obs)))
    except _Unexplained as e:
        why = str(e)
    for back, earlier in enumerate(reversed(history), start=1):
        if not differences(dict(earlier.board), obs):
            return Inference("undo", undo=back)
    return Inference("problem", problems=(why, *differences(dict(state.board), obs)))


def _explain(rules: Petri, state: PetriState, obs: PetriObservation) -> list[Action]:
    seen, hidden = obs.pieces(), obs.occluded
    for hole, player in seen.items():
        if hole in state.board and state.board[hole] != player:
            raise _Unexplained(f"{hole}: a piece of {state.board[hole]} became {player}'s")
    added = {h: p for h, p in seen.items() if h not in state.board}
    gone = [h for h in sorted(state.board, key=hole_order) if h not in seen and h not in hidden]
    actions: list[Action] = []
    for p in rules.players:
        part = state.parts.get(p)
        mine = [h for h, q in added.items() if q == p]
        if part is None:
            continue
        if part.step in (Step.ROLL, Step.DIE) and (mine or any(state.board[h] == p
                                                                for h in gone)):
            step = "roll the dice" if part.step is Step.ROLL else "choose a die"
            raise _Unexplained(f"{p} must {step} before changing the board")
        if part.step is Step.PLACE and mine:
            state = _play(rules, state, Place(p, _placing_order(rules, state, p, mine)), actions)
            for h in mine:
                del added[h]
        elif part.step is Step.REMOVE:
            own = [h for h in gone if state.board[h] == p][:part.left]
            if own:
                state = _play(rules, state, Remove(p, tuple(own)), actions)
                gone = [h for h in gone if h not in own]
    if added:
        who = sorted(set(added.values()))
        raise _Unexplained(f"the camera sees new pieces of {', '.join(who)} at "
                           f"{' '.join(sorted(added, key=hole_order))}, but "
                           f"{' and '.join(who)} may not place now")
    capturing = [p for p, part in state.parts.items() if part.step is Step.CAPTURE]
    if gone and capturing:
        state = _play(rules, state, Capture(capturing[0], _capture_order(
            rules, state, capturing[0], gone)), actions)
    elif gone and not rules.realtime:
        raise _Unexplained(f"the camera sees {' '.join(gone)} taken off, but no capture is "
                           "due now")
    left = differences(dict(state.board), obs)
    if left:
        raise _Unexplained("the board does not match a legal turn: " + "; ".join(left))
    return actions


def _play(rules: Petri, state: PetriState, action: Action, actions: list[Action]) -> PetriState:
    try:
        state, _ = rules.apply(state, action)
    except IllegalAction as e:
        raise _Unexplained(f"{action.player}: {e}") from None
    actions.append(action)
    return state


def _placing_order(rules: Petri, state: PetriState, player: str, holes: list[str]
                   ) -> tuple[str, ...]:
    """The holes in an order the rules allow (each next to one already held), if any."""
    order: list[str] = []
    left = sorted(holes, key=hole_order)
    while left:
        ok = rules.placeable(state, player)
        nxt = next((h for h in left if h in ok), left[0])
        order.append(nxt)
        left.remove(nxt)
        state = replace(state, board={**state.board, nxt: player})
    return tuple(order)


def _capture_order(rules: Petri, state: PetriState, player: str, gone: list[str]
                   ) -> tuple[str, ...]:
    """An order in which checking the pieces captures exactly ``gone``; else why not."""
    board, own = state.board, rules.own_checked()
    for order in captures.capture_orders(board, player, own, among=gone):
        if set(order) == set(gone):
            return order
    reason = captures.why_not_order(board, tuple(sorted(gone, key=hole_order)), player, own)
    raise _Unexplained(f"the camera sees {' '.join(gone)} taken off, but the rules do not "
                       f"capture {'it' if len(gone) == 1 else 'them'} so: {reason}")
