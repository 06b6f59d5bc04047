"""The live referee: one logged Peep War game driven by the table and its inputs.

Everything that can change the game comes here — camera observations,
buttons, the serial egg, clicks on the page — and goes through the rules.
The referee keeps what the page needs (problems to fix at the table, a move
awaiting confirmation, recent events) and tells subscribers after every change.
It is thread-safe: the camera loop, device threads and web requests call it
concurrently.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.gamelog import GameLog, LoggedGame
from companion.inputs import events as kinds
from companion.inputs.egg_combat import draw_for_bean
from companion.inputs.events import InputEvent
from companion.inputs.source import SourceStatus
from companion.observation import CellReading, Observation, Pieces
from companion.rules.base import Action, Event, IllegalAction
from companion.rules.peepwar import (
    Draw,
    Eat,
    EndMovement,
    EndTurn,
    PeepBeans,
    PeepWar,
    PeepWarState,
    Phase,
    notation,
)
from companion.rules.peepwar.egg import DigitalEgg
from companion.rules.peepwar.inference import Inference, infer
from companion.rules.peepwar.odds import Side, combat_odds

RECENT_EVENTS = 60
HISTORY = 24


@dataclass
class Problem:
    """Something the players must fix at the table, in their words."""

    text: str
    source: str = "camera"
    at: float = field(default_factory=time.time)


def _content(r: CellReading) -> tuple:
    return r.supply_center, tuple(sorted(r.pieces.items())), r.occluded


class Referee:
    """Rules on everything that happens at the table, and keeps the page informed."""

    def __init__(self, log: GameLog, game: LoggedGame, *, auto_accept: bool = True,
                 egg_seed: int | None = None) -> None:
        if not isinstance(game.rules, PeepWar):
            raise TypeError("the live referee plays Peep War")
        self.log = log
        self.game = game
        self.auto_accept = auto_accept
        self.egg = DigitalEgg(egg_seed)
        self._lock = threading.RLock()
        self._subscribers: set[queue.Queue] = set()
        self.version = 0
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT_EVENTS)
        self.problems: list[Problem] = []
        self.proposal: Inference | None = None
        self.overrides: dict[str, CellReading] = {}
        self._seen_when_corrected: dict[str, CellReading | None] = {}
        self.last_observation: Observation | None = None
        self.devices: dict[str, SourceStatus] = {}
        self.camera = SourceStatus("off", "no camera")
        self._history: deque[PeepWarState] = deque(maxlen=HISTORY)
        self._listeners: list[Callable[[str], None]] = []
        for ev in game.events()[-RECENT_EVENTS:]:
            self.recent.append({"text": ev.text, "kind": ev.kind})

    # --- reading ----------------------------------------------------------------------

    @property
    def rules(self) -> PeepWar:
        return self.game.rules  # type: ignore[return-value]

    @property
    def state(self) -> PeepWarState:
        return self.game.state

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows, as JSON-ready data."""
        with self._lock:
            s = self.state
            rules = self.rules
            proposal = None
            if self.proposal is not None:
                proposal = {
                    "verdict": self.proposal.verdict,
                    "actions": [notation.format(a) for a in self.proposal.actions],
                    "players": [a.player for a in self.proposal.actions],
                    "alternatives": self.proposal.alternatives,
                    "undo": self.proposal.undo,
                }
            return {
                "version": self.version,
                "game_id": self.game.id,
                "state": rules.state_to_dict(s),
                "tally": rules.tally(s).to_dict(),
                "supply_centers_in_play": 2 * len(s.players) + 1,
                "to_act": rules.to_act(s),
                "prompt": self.prompt(),
                "odds": self.odds(),
                "events": list(self.recent),
                "problems": [p.text for p in self.problems],
                "proposal": proposal,
                "overrides": sorted(self.overrides),
                "camera": {"state": self.camera.state, "message": self.camera.message},
                "devices": {k: {"state": v.state, "message": v.message}
                            for k, v in self.devices.items()},
                "can_undo": bool(self.game.actions),
            }

    def prompt(self) -> str:
        """One sentence: who must do what now."""
        s, rules = self.state, self.rules
        who = rules.to_act(s)
        if who is None:
            return f"{s.winner} has won. Start a new game when you are ready."
        c = s.combat
        if c is not None:
            if c.undecided:
                return f"{who}: put your peep's beans in the egg, or keep them out?"
            if c.victor:
                return f"{who} won the round: eat a troop bean or a peep bean"
            return f"{who}: draw a bean from the egg (fight at {c.cell})"
        return {
            Phase.SETUP_TILES: f"{who}: lay a hex",
            Phase.SETUP_SUPPLY: f"{who}: put a Supply Center on one of your hexes",
            Phase.UPKEEP: f"{who}: remove pieces your Supply Centers cannot support",
            Phase.MOVEMENT: f"{who}: move your pieces, then press end movement",
            Phase.PRODUCTION: f"{who}: produce at your Supply Centers, then press end turn",
        }[s.phase]

    def odds(self) -> dict[str, Any] | None:
        """The odds of the fight in progress, as the page shows them before each draw."""
        s = self.state
        c = s.combat
        if c is None:
            return None

        def side(p: str) -> Side:
            return Side(c.troops[p], s.stack(c.cell, p).peep,
                        peep_beans=p not in c.kept_out and p not in c.undecided)

        try:
            odds = combat_odds(side(c.attacker), side(c.defender))
        except ValueError:
            return None
        return {
            "cell": c.cell, "attacker": c.attacker, "defender": c.defender,
            "attacker_wins": float(odds.attacker_wins),
            "defender_wins": float(odds.defender_wins),
            "likely": [o.to_dict() for o in odds.likely(4)],
            "egg": {p: {"troops": c.troops[p], "peep": c.peep_beans.get(p, 0)} for p in c.sides},
            "drawer": c.drawer,
        }

    # --- subscribers ------------------------------------------------------------------

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=64)
        with self._lock:
            self._subscribers.add(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            self._subscribers.discard(q)

    def on_change(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(reason)`` after every change (e.g. to drive LEDs)."""
        self._listeners.append(listener)

    def _changed(self, reason: str) -> None:
        self.version += 1
        for q in list(self._subscribers):
            # A stalled browser re-reads the whole snapshot when it catches up.
            with contextlib.suppress(queue.Full):
                q.put_nowait(self.version)
        for listener in self._listeners:
            listener(reason)

    # --- acting on the game -----------------------------------------------------------

    def play(self, action: Action, source: str) -> list[Event]:
        """Apply and log one action; raises IllegalAction with the rules' reason."""
        with self._lock:
            before = self.state
            events = self.game.play(action, source=source)
            self._history.append(before)
            for ev in events:
                self.recent.append({"text": ev.text, "kind": ev.kind})
            self.proposal = None
            self._changed("play")
            return events

    def play_text(self, text: str, source: str) -> list[Event]:
        """A typed command in the terminal notation ("move 2 0,0/3 1,0/0", "draw")."""
        with self._lock:
            if text.strip().lower() == "draw":
                return self.draw(None, source)
            try:
                action = notation.parse(text, self.rules, self.state)
            except ValueError as e:
                raise IllegalAction(str(e)) from e
            return self.play(action, source)

    def end(self, source: str) -> list[Event]:
        """End movement, or end the turn, whichever the phase calls for."""
        with self._lock:
            who = self.rules.to_act(self.state) or ""
            phase = self.state.phase
            action: Action = EndMovement(who) if phase is Phase.MOVEMENT else EndTurn(who)
            return self.play(action, source)

    def draw(self, owner: str | None, source: str) -> list[Event]:
        """A draw from the digital egg (``owner`` None) or one reported from a real egg."""
        with self._lock:
            c = self.state.combat
            if c is None:
                raise IllegalAction("there is no fight going on")
            if owner is None:
                try:
                    action = self.egg.draw(self.state)
                except ValueError as e:
                    raise IllegalAction(f"{self.prompt()} first ({e})") from e
            else:
                action = Draw(c.drawer, owner)
            return self.play(action, source)

    def eat(self, what: str, source: str) -> list[Event]:
        with self._lock:
            return self.play(Eat(self.rules.to_act(self.state) or "", what), source)

    def peep_beans(self, commit: bool, source: str) -> list[Event]:
        with self._lock:
            return self.play(PeepBeans(self.rules.to_act(self.state) or "", commit), source)

    def undo(self, count: int = 1, source: str = "page") -> list[Action]:
        with self._lock:
            undone = self.game.undo(count, source=source)
            if undone:
                listed = "; ".join(f"{a.player}: {notation.format(a)}" for a in undone)
                self.recent.append({"text": f"undone: {listed}", "kind": "undo"})
                self._history.clear()
                self.proposal = None
                self.problems = []
                self._changed("undo")
            return undone

    def undo_turn(self, source: str = "page") -> list[Action]:
        with self._lock:
            return self.undo(max(1, self.game.actions_this_turn()), source)

    def new_game(self, players: list[str], edition: int) -> None:
        """Start a new game (the old one stays in the log)."""
        rules = PeepWar(players=players, edition=edition)
        with self._lock:
            self.game = self.log.new_game(rules)
            self.recent.clear()
            self.recent.append({"text": f"new game: Peep War {edition}, "
                                        f"{', '.join(players)}", "kind": "new_game"})
            self.problems, self.proposal, self.overrides = [], None, {}
            self._history.clear()
            self._changed("new_game")

    # --- the table --------------------------------------------------------------------

    def observe(self, obs: Observation) -> Inference:
        """A new stable observation from the camera: accept, propose or report it."""
        with self._lock:
            self.last_observation = obs
            result = infer(self.rules, self.state, self._corrected(obs), list(self._history))
            self.problems = [p for p in self.problems if p.source != "camera"]
            self.proposal = None
            if result.verdict == "same":
                pass
            elif result.verdict == "actions" and result.certain and self.auto_accept:
                self._apply_all(result.actions, "camera")
            elif result.verdict in ("actions", "undo"):
                self.proposal = result
            else:
                self.problems = [Problem(t) for t in result.problems]
            self._changed("observe")
            return result

    def accept(self, source: str = "page") -> list[Event]:
        """Accept the move (or undo) the camera proposed."""
        with self._lock:
            p = self.proposal
            if p is None:
                raise IllegalAction("there is no inferred move waiting to be accepted")
            if p.verdict == "undo":
                self.undo(p.undo, source)
                return []
            return self._apply_all(p.actions, source)

    def _apply_all(self, actions: tuple[Action, ...], source: str) -> list[Event]:
        out: list[Event] = []
        for a in actions:
            out.extend(self.play(a, source))
        return out

    def correct(self, cell: str, pieces: dict[str, Pieces], supply_center: bool) -> None:
        """The players say what really stands in ``cell``; the camera's reading is replaced."""
        with self._lock:
            seen = self.last_observation.reading(cell) if self.last_observation else None
            self.overrides[cell] = CellReading(supply_center=supply_center, pieces=pieces)
            self._seen_when_corrected[cell] = seen
            self.recent.append({"text": f"cell {cell} corrected by hand", "kind": "correct"})
            if self.last_observation is not None:
                self.observe(self.last_observation)
            else:
                self._changed("correct")

    def _corrected(self, obs: Observation) -> Observation:
        # A correction holds until the camera's own reading of that cell changes.
        for cell in list(self.overrides):
            seen = self._seen_when_corrected.get(cell)
            if seen is not None and _content(obs.reading(cell)) != _content(seen):
                del self.overrides[cell]
                self._seen_when_corrected.pop(cell, None)
        if not self.overrides:
            return obs
        return replace(obs, cells={**obs.cells, **self.overrides})

    def set_camera(self, status: SourceStatus) -> None:
        with self._lock:
            if status != self.camera:
                self.camera = status
                self._changed("camera")

    # --- inputs (buttons, egg, page) --------------------------------------------------

    def handle_input(self, ev: InputEvent) -> str | None:
        """Act on an input event; returns a refusal sentence, or None when it was done."""
        try:
            with self._lock:
                if ev.kind == kinds.DEVICE_STATUS:
                    self.devices[ev.source] = SourceStatus(
                        str(ev.data.get("state", "")), str(ev.data.get("message", "")))
                    self._changed("device")
                    return None
                if ev.kind == kinds.DEVICE_ERROR:
                    self._problem(f"{ev.source}: {ev.data.get('message', 'device error')}",
                                  ev.source)
                    return None
                if ev.kind in (kinds.END_TURN, kinds.NEXT_PHASE):
                    self.end(ev.source)
                elif ev.kind == kinds.UNDO:
                    self.undo(1, ev.source)
                elif ev.kind == kinds.UNDO_TURN:
                    self.undo_turn(ev.source)
                elif ev.kind == kinds.CONFIRM:
                    self.accept(ev.source)
                elif ev.kind == kinds.DRAW:
                    self.draw(None, ev.source)
                elif ev.kind == kinds.BEAN:
                    found = draw_for_bean(self.rules, self.state, ev)
                    if isinstance(found, str):
                        self._problem(found, ev.source)
                        return found
                    self.play(found, ev.source)
                # Shakes and the egg's own button are shown, not ruled on.
                return None
        except IllegalAction as e:
            self._problem(str(e), ev.source)
            return str(e)

    def report(self, text: str, source: str) -> None:
        """Show a problem from outside the rules (a device fault, a failed reading)."""
        with self._lock:
            self._problem(text, source)

    def _problem(self, text: str, source: str) -> None:
        self.problems = [p for p in self.problems if p.source != source] + [Problem(text, source)]
        self._changed("problem")
