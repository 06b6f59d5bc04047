"""The rules of Petri (Invisible City Productions, 2004), with the readings players differ on.

:class:`Petri` holds one table's options: the players in seat order, their
homes, pieces per player, the variant (``standard`` turns, or ``realtime``:
everyone plays at once and captures are simultaneous), and the readings of the
text's ambiguous sentences (``docs/petri.md`` quotes each one):

- ``placement``: ``chain`` — a piece placed this turn counts as one you occupy
  for the next; ``start`` — only the holes you held when the turn began count.
- ``removed``: where pieces removed for a short hand go — ``box`` (out of the
  game), ``hand`` or ``cup`` (your capture cup).
- ``own_pieces``: ``checked`` — your own crowded-out pieces are captured on
  your turn too (into your cup, as the text says); ``safe`` — only other
  players' pieces are checked.

Legality lives in one ``_reason`` per action, in a dispatch table, beside its
``_apply``. Randomness never happens here: a :class:`Roll` says what the dice
showed, whether the companion (:meth:`Petri.chance`) or real dice rolled them.

>>> game = Petri(players=("red", "blue"))
>>> state = game.new_state()
>>> game.why_not(state, Place("red", ("0,0",)))
'red must roll the dice first'
>>> state, events = game.apply(state, Roll("red", 2, 5))
>>> events[0].text
'red rolls 2 and 5'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from companion.errors import clipped, quoted
from companion.rules.base import Action, Event, Ruleset, Standing, Tally
from companion.rules.chance import Chance
from companion.rules.petri import captures
from companion.rules.petri.actions import ACTION_TYPES, Capture, Choose, Place, Remove, Roll
from companion.rules.petri.board import (
    HOMES,
    INDEX,
    NEIGHBOURS,
    default_homes,
    hole_order,
    homes_problem,
)
from companion.rules.petri.state import Part, PetriState, Step, bump

VARIANTS = ("standard", "realtime")
PLACEMENTS = ("chain", "start")
REMOVED = ("box", "hand", "cup")
OWN_PIECES = ("checked", "safe")
PIECES = (10, 15)
MIN_PLAYERS, MAX_PLAYERS = 2, 6
_PLAYER_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,15}$")
_STEP_WORDS = {Step.ROLL: "roll the dice", Step.DIE: "choose a die",
               Step.PLACE: "place pieces", Step.REMOVE: "remove pieces",
               Step.CAPTURE: "capture", Step.DONE: "wait for the others"}


def _holes_text(holes: Sequence[str]) -> str:
    return " ".join(holes) if holes else "nothing"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _choice(label: str, value: Any, allowed: Sequence[Any]) -> Any:
    if value not in allowed:
        raise ValueError(f"{label} must be {' or '.join(str(a) for a in allowed)}, "
                         f"not {quoted(value)}")
    return value


class Petri(Ruleset[PetriState]):
    """Petri for 2 to 6 players on a Chinese-checkers board."""

    name = "petri"
    title = "Petri"
    action_types = ACTION_TYPES

    def __init__(self, players: Sequence[str] = ("red", "blue"), pieces: int = 10,
                 homes: str = "", variant: str = "standard", placement: str = "chain",
                 removed: str = "box", own_pieces: str = "checked") -> None:
        players = tuple(players)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"Petri needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                             f"not {len(players)}")
        for p in players:
            if not isinstance(p, str) or not _PLAYER_KEY.match(p):
                raise ValueError(f"{quoted(p)} is not a player key: use a short lowercase "
                                 "name such as red or p1")
        if len(set(players)) != len(players):
            raise ValueError(f"each player needs a different key: {', '.join(players)}")
        self.players = players
        self.pieces = _choice("pieces", pieces, PIECES)
        self.variant = _choice("variant", variant, VARIANTS)
        self.placement = _choice("placement", placement, PLACEMENTS)
        self.removed = _choice("removed", removed, REMOVED)
        self.own_pieces = _choice("own_pieces", own_pieces, OWN_PIECES)
        self.homes = self._homes(homes)
        self._reasons: dict[type, Callable[[PetriState, Any, Part], str | None]] = {
            Roll: self._roll_reason, Choose: self._die_reason, Place: self._place_reason,
            Remove: self._remove_reason, Capture: self._capture_reason}
        self._applies: dict[type, Callable[[PetriState, Any, Part], tuple[PetriState,
                                                                          list[Event]]]] = {
            Roll: self._apply_roll, Choose: self._apply_die, Place: self._apply_place,
            Remove: self._apply_remove, Capture: self._apply_capture}

    def _homes(self, text: str) -> tuple[int, ...]:
        if not str(text).strip():
            return default_homes(len(self.players))
        try:
            homes = tuple(int(k) for k in str(text).split(","))
        except ValueError:
            raise ValueError(f"homes must be tips 0 to 5, one per player, e.g. 0,3 "
                             f"(not {quoted(text)})") from None
        if len(homes) != len(self.players):
            raise ValueError(f"homes must name one tip per player ({len(self.players)}), "
                             f"not {quoted(text)}")
        problem = homes_problem(homes)
        if problem:
            raise ValueError(f"homes {clipped(str(text))}: {problem}")
        return homes

    def options(self) -> dict[str, Any]:
        return {"players": list(self.players), "pieces": self.pieces,
                "homes": ",".join(str(k) for k in self.homes), "variant": self.variant,
                "placement": self.placement, "removed": self.removed,
                "own_pieces": self.own_pieces}

    @property
    def realtime(self) -> bool:
        return self.variant == "realtime"

    def new_state(self) -> PetriState:
        first = self.players if self.realtime else self.players[:1]
        return PetriState(
            players=self.players, homes=self.homes, board={},
            hands={p: self.pieces for p in self.players},
            cups={p: 0 for p in self.players}, boxed={p: 0 for p in self.players},
            parts={p: Part() for p in first})

    # --- who acts -----------------------------------------------------------------

    def waiting_for(self, state: PetriState) -> frozenset[str]:
        if state.over:
            return frozenset()
        return frozenset(p for p, part in state.parts.items() if part.step is not Step.DONE)

    def turn(self, state: PetriState) -> int:
        return state.turn

    def phase(self, state: PetriState) -> str:
        steps = {state.parts[p].step for p in self.waiting_for(state)}
        return steps.pop().value if len(steps) == 1 else ("" if not steps else "realtime")

    def is_over(self, state: PetriState) -> bool:
        return state.over

    def chance(self, state: PetriState) -> Chance | None:
        """Two dice for the first player (in seat order) who must roll: 36 equal outcomes."""
        for p in self.players:
            part = state.parts.get(p)
            if part is not None and part.step is Step.ROLL and not state.over:
                return Chance(f"{p} rolls two dice", tuple(
                    (Roll(p, a, b), 1) for a in range(1, 7) for b in range(1, 7)))
        return None

    def home(self, player: str) -> frozenset[str]:
        return HOMES[self.homes[self.players.index(player)]]

    def own_checked(self) -> bool:
        return self.own_pieces == "checked"

    def advice(self, state: PetriState, player: str) -> captures.Advice:
        """The best capture order for ``player`` now, as the page, bot and button give it."""
        return captures.advise(state.board, player, self.own_checked(), captures.BUDGET)

    # --- legality -------------------------------------------------------------------

    def why_not(self, state: PetriState, action: Action) -> str | None:
        if state.over:
            return "the game is over"
        reason = self._reasons.get(type(action))
        if reason is None:
            return f"Petri has no action {action.kind!r}"
        if action.player not in self.players:
            return f"there is no player {quoted(action.player)} at this table"
        part = state.parts.get(action.player)
        if part is None or part.step is Step.DONE:
            waiting = " and ".join(p for p in self.players if p in self.waiting_for(state))
            return f"it is not {action.player}'s turn: the game waits for {waiting}"
        return reason(state, action, part)

    def _step_reason(self, who: str, part: Part, step: Step) -> str | None:
        if part.step is step:
            return None
        if part.step is Step.ROLL:
            return f"{who} must roll the dice first"
        return f"{who} must {_STEP_WORDS[part.step]} now, not {_STEP_WORDS[step]}"

    def _roll_reason(self, state: PetriState, a: Roll, part: Part) -> str | None:
        if part.step is not Step.ROLL:
            return f"{a.player} has rolled already ({part.dice[0]} and {part.dice[1]})"
        if not (1 <= a.first <= 6 and 1 <= a.second <= 6):
            return "each die shows 1 to 6"
        return None

    def _die_reason(self, state: PetriState, a: Choose, part: Part) -> str | None:
        problem = self._step_reason(a.player, part, Step.DIE)
        if problem:
            return problem
        if a.die not in part.dice:
            return f"{a.player} rolled {part.dice[0]} and {part.dice[1]}, not {quoted(a.die)}"
        return None

    def placeable(self, state: PetriState, player: str, part: Part | None = None) -> set[str]:
        """The empty holes where ``player``'s next piece may go this turn."""
        part = part or state.parts.get(player) or Part()
        held = part.start if self.placement == "start" else set(state.holes_of(player))
        if not held:
            return {h for h in self.home(player) if h not in state.board}
        return {n for h in held for n in NEIGHBOURS[h] if n not in state.board}

    def _place_reason(self, state: PetriState, a: Place, part: Part) -> str | None:
        problem = self._step_reason(a.player, part, Step.PLACE)
        if problem:
            return problem
        if not a.holes:
            return "name the holes to place on (a piece that cannot be placed goes to the cup)"
        if len(a.holes) > part.left:
            return f"{a.player} has only {_plural(part.left, 'piece')} left to place"
        for hole in a.holes:
            if hole not in INDEX:
                return f"{quoted(hole)} is not a hole of the board"
            if hole in state.board:
                return f"{hole} is taken ({state.board[hole]})"
            if hole not in self.placeable(state, a.player, part):
                return self._not_here(state, a.player, part, hole)
            state = replace(state, board={**state.board, hole: a.player})
        return None

    def _not_here(self, state: PetriState, who: str, part: Part, hole: str) -> str:
        if self.placement == "start":
            if not part.start:
                return (f"{who} held no hole when the turn began: each piece goes in {who}'s "
                        f"home area, not {hole}")
            return f"{hole} is not next to a hole {who} held when the turn began"
        if not state.holes_of(who):
            return f"{who}'s first piece goes in {who}'s home area, not {hole}"
        return f"{hole} is not next to a hole {who} occupies"

    def _remove_reason(self, state: PetriState, a: Remove, part: Part) -> str | None:
        problem = self._step_reason(a.player, part, Step.REMOVE)
        if problem:
            return problem
        if not a.holes:
            return "name the holes of the pieces to remove"
        if len(a.holes) > part.left:
            return f"{a.player} has only {_plural(part.left, 'piece')} left to remove"
        if len(set(a.holes)) != len(a.holes):
            return "a hole is listed twice"
        for hole in a.holes:
            if state.board.get(hole) != a.player:
                return f"{clipped(hole)} does not hold a piece of {a.player}"
        return None

    def _capture_reason(self, state: PetriState, a: Capture, part: Part) -> str | None:
        return self._step_reason(a.player, part, Step.CAPTURE) or captures.why_not_order(
            state.board, a.order, a.player, self.own_checked())

    def legal_actions(self, state: PetriState) -> Iterator[Action]:
        """The legal actions: pieces one hole at a time, and one capture order for each set
        of pieces that can be captured (other orders of the same set are legal too)."""
        for p in self.players:
            part = state.parts.get(p)
            if part is None or state.over:
                continue
            if part.step is Step.ROLL:
                yield from (a for a, _ in self.chance(replace(state, parts={p: part})).outcomes)
            elif part.step is Step.DIE:
                yield from (Choose(p, d) for d in sorted(set(part.dice)))
            elif part.step is Step.PLACE:
                yield from (Place(p, (h,)) for h in sorted(self.placeable(state, p),
                                                           key=hole_order))
            elif part.step is Step.REMOVE:
                yield from (Remove(p, (h,)) for h in state.holes_of(p))
            elif part.step is Step.CAPTURE:
                yield from self._capture_orders(state, p)

    def _capture_orders(self, state: PetriState, player: str) -> Iterator[Capture]:
        for order in captures.capture_orders(state.board, player, self.own_checked()):
            yield Capture(player, order)

    # --- change -----------------------------------------------------------------------

    def _apply(self, state: PetriState, action: Action) -> tuple[PetriState, list[Event]]:
        return self._applies[type(action)](state, action, state.parts[action.player])

    def _apply_roll(self, state: PetriState, a: Roll, part: Part
                    ) -> tuple[PetriState, list[Event]]:
        new = state.with_part(a.player, replace(part, step=Step.DIE, dice=(a.first, a.second)))
        return new, [Event("roll", f"{a.player} rolls {a.first} and {a.second}",
                           {"player": a.player, "dice": [a.first, a.second]})]

    def _apply_die(self, state: PetriState, a: Choose, part: Part
                   ) -> tuple[PetriState, list[Event]]:
        p, hand, held = a.player, state.hands[a.player], frozenset(state.holes_of(a.player))
        part = replace(part, die=a.die, start=held)
        if hand >= a.die:
            ev = Event("die", f"{p} chooses {a.die}: places {_plural(a.die, 'piece')}",
                       {"player": p, "die": a.die})
            state = state.with_part(p, replace(part, step=Step.PLACE, left=a.die))
            state, more = self._unplaceable(state, p)
            return self._after_step(state, p, [ev, *more])
        if held:
            left = min(a.die, len(held))
            ev = Event("die", f"{p} chooses {a.die} with {_plural(hand, 'piece')} in hand: "
                       f"removes {_plural(left, 'piece')} from the board",
                       {"player": p, "die": a.die})
            return state.with_part(p, replace(part, step=Step.REMOVE, left=left)), [ev]
        ev = Event("die", f"{p} chooses {a.die} with {_plural(hand, 'piece')} in hand and "
                   "none on the board: the turn ends", {"player": p, "die": a.die})
        return self._end_turn(state, p, [ev])

    def _unplaceable(self, state: PetriState, p: str) -> tuple[PetriState, list[Event]]:
        # Pieces that cannot be placed go to the player's own capture cup.
        part = state.parts[p]
        if part.step is not Step.PLACE or not part.left or self.placeable(state, p):
            return state, []
        n = part.left
        state = replace(state, hands=bump(state.hands, p, -n), cups=bump(state.cups, p, n))
        state = state.with_part(p, replace(part, left=0))
        return state, [Event("cup", f"{p} cannot place {_plural(n, 'piece')}: "
                             f"{'it goes' if n == 1 else 'they go'} to {p}'s capture cup",
                             {"player": p, "pieces": n})]

    def _apply_place(self, state: PetriState, a: Place, part: Part
                     ) -> tuple[PetriState, list[Event]]:
        p, n = a.player, len(a.holes)
        state = replace(state, board={**state.board, **{h: p for h in a.holes}},
                        hands=bump(state.hands, p, -n))
        state = state.with_part(p, replace(part, left=part.left - n))
        ev = Event("place", f"{p} places at {_holes_text(a.holes)}",
                   {"player": p, "holes": list(a.holes)})
        state, more = self._unplaceable(state, p)
        state, events = self._after_step(state, p, [ev, *more])
        # Realtime: this piece may have taken the last hole another player could still use.
        for q in self.players:
            part_q = state.parts.get(q)
            if q == p or part_q is None or part_q.step is not Step.PLACE or not part_q.left:
                continue
            state, blocked = self._unplaceable(state, q)
            if blocked:
                state, events = self._after_step(state, q, [*events, *blocked])
        return state, events

    def _apply_remove(self, state: PetriState, a: Remove, part: Part
                      ) -> tuple[PetriState, list[Event]]:
        p, n = a.player, len(a.holes)
        board = {h: q for h, q in state.board.items() if h not in a.holes}
        where = {"box": "out of the game", "hand": f"back to {p}'s hand",
                 "cup": f"into {p}'s capture cup"}[self.removed]
        pot = {"box": "boxed", "hand": "hands", "cup": "cups"}[self.removed]
        state = replace(state, board=board, **{pot: bump(getattr(state, pot), p, n)})
        state = state.with_part(p, replace(part, left=part.left - n))
        ev = Event("remove", f"{p} removes {_holes_text(a.holes)} ({where})",
                   {"player": p, "holes": list(a.holes)})
        return self._after_step(state, p, [ev])

    def _after_step(self, state: PetriState, p: str, events: list[Event]
                    ) -> tuple[PetriState, list[Event]]:
        part = state.parts[p]
        if part.left:
            return state, events
        if part.step is Step.REMOVE and len(part.start) < part.die:
            events.append(Event("turn", f"{p} has run out of pieces to remove: the turn ends"))
            return self._end_turn(state, p, events)
        if self.realtime:
            return self._end_turn(state, p, events)
        board = state.board
        if not any(captures.crowded(board, h) for h in captures.checked_pieces(
                board, p, self.own_checked())):
            return self._end_turn(state, p, events)
        return state.with_part(p, replace(part, step=Step.CAPTURE)), events

    def _apply_capture(self, state: PetriState, a: Capture, part: Part
                       ) -> tuple[PetriState, list[Event]]:
        p = a.player
        board = {h: q for h, q in state.board.items() if h not in a.order}
        taken = [f"{h} ({state.board[h]})" for h in a.order]
        state = replace(state, board=board, cups=bump(state.cups, p, len(a.order)))
        text = f"{p} captures {', '.join(taken)}" if taken else f"{p} captures nothing"
        return self._end_turn(state, p, [Event("capture", text, {
            "player": p, "holes": list(a.order)})])

    def _end_turn(self, state: PetriState, p: str, events: list[Event]
                  ) -> tuple[PetriState, list[Event]]:
        if self.realtime:
            state = state.with_part(p, Part(step=Step.DONE))
            if any(part.step is not Step.DONE for part in state.parts.values()):
                return state, events
            state, events = self._simultaneous(state, events)
            played = frozenset(self.players)
            nxt = dict.fromkeys(self.players, Part())
            state = replace(state, played=played, parts=nxt, turn=state.turn + 1)
        else:
            seat = (self.players.index(p) + 1) % len(self.players)
            state = replace(state, played=state.played | {p}, current=seat,
                            parts={self.players[seat]: Part()}, turn=state.turn + 1)
        reason = self._end_reason(state)
        if reason:
            state = replace(state, over=True, reason=reason, parts={})
            events.append(Event("over", f"the game is over: {reason}", {"reason": reason}))
        return state, events

    def _simultaneous(self, state: PetriState, events: list[Event]
                      ) -> tuple[PetriState, list[Event]]:
        """Realtime: every crowded-out piece is taken at once, to the cup of the enemy with
        the most pieces next to it (to the box when enemies tie for most)."""
        board = state.board
        cups, boxed, board_after, taken = dict(state.cups), dict(state.boxed), dict(board), []
        for h in captures.simultaneous(board):
            around: dict[str, int] = {}
            for n in NEIGHBOURS[h]:
                if n in board and board[n] != board[h]:
                    around[board[n]] = around.get(board[n], 0) + 1
            top = max(around.values())
            leaders = [q for q, c in around.items() if c == top]
            del board_after[h]
            if len(leaders) == 1:
                cups[leaders[0]] += 1
                taken.append(f"{h} ({board[h]}) to {leaders[0]}")
            else:
                boxed[board[h]] += 1
                taken.append(f"{h} ({board[h]}) to the box")
        if taken:
            events.append(Event("capture", "captured at once: " + ", ".join(taken)))
        return replace(state, board=board_after, cups=cups, boxed=boxed), events

    def _end_reason(self, state: PetriState) -> str:
        for p in self.players:
            if not state.hands[p] and not state.on_board(p):
                return f"{p} has no pieces left in play or in hand"
        if not state.board and state.played >= set(self.players):
            return "the board is empty and everyone has had a turn"
        return ""

    # --- reading the state --------------------------------------------------------------

    def tally(self, state: PetriState) -> Tally:
        standings = [Standing(p, state.cups[p], {
            "hand": state.hands[p], "board": state.on_board(p), "box": state.boxed[p]})
            for p in self.players]
        headline = ", ".join(f"{p} {state.cups[p]}" for p in self.players) + " in capture cups"
        if not state.over:
            return Tally(standings, headline=headline)
        top = max(state.cups.values())
        winners = tuple(p for p in self.players if state.cups[p] == top)
        how = (f"most pieces in capture cups ({top})" if len(winners) == 1
               else f"tied on {top} pieces in capture cups")
        return Tally(standings, winners=winners, reason=f"{how}; {state.reason}",
                     headline=headline, over=True)

    def state_to_dict(self, state: PetriState) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "homes": {p: k for p, k in zip(self.players, self.homes, strict=True)},
            "variant": self.variant,
            "board": {h: state.board[h] for h in sorted(state.board, key=hole_order)},
            "hands": dict(state.hands), "cups": dict(state.cups), "box": dict(state.boxed),
            "parts": {p: {"step": part.step.value, "dice": list(part.dice), "die": part.die,
                          "left": part.left} for p, part in state.parts.items()},
            "turn": state.turn, "over": state.over, "reason": state.reason,
        }

    def view(self, state: PetriState, viewer: str | None) -> dict[str, Any]:
        """The state, and the best capture order while a player is choosing one."""
        out = self.state_to_dict(state)
        out["advice"] = None
        for p, part in state.parts.items():
            if part.step is Step.CAPTURE:
                out["advice"] = {"player": p, **self.advice(state, p).to_dict()}
        return out
