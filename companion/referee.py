"""The live referee: one logged game, of any game, driven by the table and its inputs.

Everything that can change the game comes here — camera observations,
buttons, the serial egg, clicks on the page — and goes through the rules.
What is particular to a game comes from its bundle (:mod:`companion.games`):
the prompt, move inference, the end-turn button, what a bean from the egg
means. The referee keeps what the page needs (problems to fix at the table, a
move awaiting confirmation, recent events) and tells subscribers after every
change. It is thread-safe: the camera loop, device threads and web requests
call it concurrently.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, is_dataclass, replace
from typing import Any

from companion import games
from companion.errors import clipped
from companion.gamelog import GameLog, LoggedGame
from companion.inputs import events as kinds
from companion.inputs.events import InputEvent
from companion.inputs.source import SourceStatus
from companion.observation import BadObservation, Inference, Observation
from companion.rules.base import Action, Event, IllegalAction, Ruleset
from companion.rules.chance import Randomiser

log = logging.getLogger(__name__)
RECENT_EVENTS = 60
NAMED_DOUBTS = 5  # places named in the "camera is unsure" problem; more are counted
HISTORY = 24


@dataclass
class Problem:
    """Something the players must fix at the table, in their words."""

    text: str
    source: str = "camera"
    at: float = field(default_factory=time.time)


class Referee:
    """Rules on everything that happens at the table, and keeps the page informed."""

    def __init__(self, log: GameLog, game: LoggedGame, *, auto_accept: bool = True,
                 egg_seed: int | None = None) -> None:
        self.log = log
        self.game = game
        self.bundle = games.of(game.rules)
        self.auto_accept = auto_accept
        self.randomiser = Randomiser(egg_seed)
        self._lock = threading.RLock()
        self._subscribers: set[queue.Queue] = set()
        self.version = 0
        self.recent: deque[tuple[int, Event]] = deque(maxlen=RECENT_EVENTS)
        self._numbered = 0
        self.problems: list[Problem] = []
        self.proposal: Inference | None = None
        self.overrides: dict[str, Any] = {}
        self.doubtful: list[str] = []  # places the camera read with little confidence
        self._seen_when_corrected: dict[str, Any] = {}
        self.last_observation: Observation | None = None
        self.devices: dict[str, SourceStatus] = {}
        self.device_events: deque[str] = deque(maxlen=8)
        self.camera = SourceStatus("off", "no camera")
        self.misreads = 0
        self._history: deque[Any] = deque(maxlen=HISTORY)
        self._listeners: list[Callable[[str], None]] = []
        self._correction_listeners: list[Callable[[str, Any], None]] = []
        self._reload_events()

    def _reload_events(self) -> None:
        self.recent.clear()
        events = self.game.events()
        self._numbered = len(events) - min(len(events), RECENT_EVENTS)
        for ev in events[-RECENT_EVENTS:]:
            self._remember(ev)

    def _remember(self, ev: Event) -> None:
        # Events are numbered by their place in the game, so the page can say "#57".
        self._numbered += 1
        self.recent.append((self._numbered, ev))

    def _note(self, text: str, kind: str) -> None:
        self._remember(Event(kind, text))

    # --- reading ----------------------------------------------------------------------

    @property
    def rules(self) -> Ruleset:
        return self.game.rules

    @property
    def state(self) -> Any:
        return self.game.state

    def table(self) -> dict[str, Any]:
        """The game's state as data (``Ruleset.state_to_dict``): what a camera reader may
        compare a frame with before reading it (a Petri board's turn, say)."""
        with self._lock:
            return self.rules.state_to_dict(self.state)

    def snapshot(self, viewer: str | None = None) -> dict[str, Any]:
        """Everything the page shows ``viewer`` (None: a watcher), as JSON-ready data."""
        with self._lock:
            s, rules, bundle = self.state, self.rules, self.bundle
            proposal = None
            if self.proposal is not None:
                proposal = {
                    "verdict": self.proposal.verdict,
                    "actions": [bundle.format(a) for a in self.proposal.actions],
                    "players": [a.player for a in self.proposal.actions],
                    "alternatives": self.proposal.alternatives,
                    "undo": self.proposal.undo,
                }
            chance = rules.chance(s)
            events = []
            for n, ev in self.recent:
                seen = ev.seen_by(viewer)
                if seen is not None:
                    events.append({"n": n, "text": seen.text, "kind": seen.kind})
            return {
                "version": self.version,
                "game_id": self.game.id,
                "game": bundle.name,
                "title": bundle.describe(rules),
                "options": rules.options(),
                "state": rules.view(s, viewer),
                "tally": rules.tally(s).to_dict(),
                "turn": rules.turn(s),
                "phase": rules.phase(s),
                "to_act": rules.to_act(s),
                "waiting_for": sorted(rules.waiting_for(s)),
                "prompt": bundle.prompt(rules, s),
                "chance": chance.to_dict() if chance is not None else None,
                "can_end": bool(rules.waiting_for(s)) and bundle.end_action(rules, s) is not None,
                "panel": bundle.panel(rules, s, viewer),
                "events": events,
                "problems": [p.text for p in self.problems],
                "proposal": proposal,
                "overrides": sorted(self.overrides),
                "doubtful": list(self.doubtful),
                "camera": {"state": self.camera.state, "message": self.camera.message,
                           "misreads": self.misreads},
                "devices": {k: {"state": v.state, "message": v.message}
                            for k, v in self.devices.items()},
                "device_events": list(self.device_events),
                "can_undo": bool(self.game.actions),
            }

    def prompt(self) -> str:
        """One sentence: who must do what now."""
        return self.bundle.prompt(self.rules, self.state)

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

    def on_correction(self, listener: Callable[[str, Any], None]) -> None:
        """Call ``listener(place, reading)`` after every correction made by hand: the
        place and its true reading (the game's own reading type), e.g. for the camera's
        reader to learn this table from (the app wires it; the referee knows no reader)."""
        self._correction_listeners.append(listener)

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
                self._remember(ev)
            self.proposal = None
            self._changed("play")
            return events

    def play_data(self, data: Mapping[str, Any], source: str, *, public: bool = False
                  ) -> list[Event]:
        """An action given as its JSON record (``{"kind": ..., "player": ..., ...}``);
        ``public``: it comes from a place everyone sees, which may not make a secret one."""
        with self._lock:
            try:
                action = self.rules.decode_action(data)
            except ValueError as e:
                raise IllegalAction(str(e)) from e
            if public:
                self._refuse_secret(action)
            return self.play(action, source)

    def play_text(self, text: str, source: str, *, public: bool = False) -> list[Event]:
        """A typed command in the game's notation ("move 2 0,0/3 1,0/0"); "draw" or "roll"
        lets the companion's randomiser make the random step the game waits for.
        ``public`` as in :meth:`play_data`."""
        with self._lock:
            if text.strip().lower() in ("draw", "roll"):
                return self.chance(None, source)
            try:
                action = self.bundle.parse(text, self.rules, self.state)
            except ValueError as e:
                raise IllegalAction(str(e)) from e
            if public:
                self._refuse_secret(action)
            return self.play(action, source)

    def _refuse_secret(self, action: Action) -> None:
        # A chit played face down, or drawn from a real cup, made where everyone sees it
        # would show it to the table, and let anyone act for a player in secret.
        if self.rules.action_private_to(action) is not None:
            raise IllegalAction(
                f"{action.player}'s {action.kind} is secret: {action.player} makes it on "
                f"their own page (its link is on the companion's machine)")

    def end(self, source: str) -> list[Event]:
        """What the end-turn button does in this game now (end movement, end the turn)."""
        with self._lock:
            action = self.bundle.end_action(self.rules, self.state)
            if action is None:
                raise IllegalAction(f"{self.bundle.title} has no end-turn button")
            return self.play(action, source)

    def chance(self, outcome: Action | None, source: str, *, public: bool = False
               ) -> list[Event]:
        """The random step the game waits for: made by the randomiser (``outcome`` None),
        or the outcome the real egg, dice or cup gave (``public`` as in :meth:`play_data`:
        a secret outcome, a cup's draw, is not typed where everyone sees it)."""
        with self._lock:
            chance = self.rules.chance(self.state)
            if chance is None:
                raise IllegalAction(f"nothing is to be drawn or rolled now: {self.prompt()}")
            if outcome is None:
                outcome = self.randomiser.pick(chance)
            elif public:
                self._refuse_secret(outcome)
            return self.play(outcome, source)

    def undo(self, count: int = 1, source: str = "page") -> list[Action]:
        with self._lock:
            undone = self.game.undo(count, source=source)
            if undone:
                listed = "; ".join(f"{a.player}: {self.bundle.format(a)}" for a in undone)
                # A hidden action (a chit played face down) is named to nobody on the page.
                hidden = [self.rules.action_private_to(a) is not None for a in undone]
                masked = "; ".join(f"{a.player}: a hidden {a.kind}" if h else
                                   f"{a.player}: {self.bundle.format(a)}"
                                   for a, h in zip(undone, hidden, strict=True))
                self._remember(Event("undo", f"undone: {listed}", private_to=frozenset()
                                     if any(hidden) else None, public=f"undone: {masked}"))
                self._history.clear()
                self.proposal = None
                self.problems = []
                self._changed("undo")
            return undone

    def undo_turn(self, source: str = "page") -> list[Action]:
        with self._lock:
            return self.undo(max(1, self.game.actions_this_turn()), source)

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 game: str | None = None) -> None:
        """Start a new game (the old one stays in the log); ValueError when the choices
        are not allowed."""
        bundle = games.find(game) if game else self.bundle
        rules = bundle.new_rules(list(players), options)
        with self._lock:
            self.game = self.log.new_game(rules)
            self.bundle = bundle
            self.recent.clear()
            self._numbered = 0
            self._note(f"new game: {bundle.describe(rules)}", "new_game")
            self.problems, self.proposal, self.overrides = [], None, {}
            self._seen_when_corrected, self.doubtful = {}, []
            self._history.clear()
            self._forget_unreadable()
            self._changed("new_game")

    def _forget_unreadable(self) -> None:
        # A correction is checked on, and then ruled on with, the last reading: one the new
        # game refuses (another game's, or of areas another map has) would refuse every
        # correction until the camera reads the table again.
        if self.last_observation is None:
            return
        try:
            self.check(self.last_observation)
        except BadObservation:
            self.last_observation = None

    # --- the table --------------------------------------------------------------------

    def observe(self, obs: Observation) -> Inference:
        """A new stable observation from the camera: accept, propose or report it.

        Places read with little confidence are asked about, never ruled on: a
        confident wrong reading is the worst thing the camera can do. An observation of
        another game, or of a place this table has not, raises BadObservation and
        changes nothing (:meth:`check`).
        """
        with self._lock:
            self.check(obs)
            self.last_observation = obs
            seen = self._corrected(obs)
            doubtful = [p for p in seen.doubtful(self.bundle.doubtful_below)
                        if p not in self.overrides]
            self.doubtful = doubtful
            result = self.bundle.infer(self.rules, self.state, seen, list(self._history))
            self.problems = [p for p in self.problems if p.source != "camera"]
            self.proposal = None
            if result.verdict == "same":
                pass
            elif (result.verdict == "actions" and result.certain and self.auto_accept
                  and not doubtful):
                self._apply_all(result.actions, "camera")
            elif result.verdict in ("actions", "undo"):
                self.proposal = result
            else:
                self.misreads += 1
                self.problems = [Problem(t) for t in result.problems]
            if doubtful and result.verdict != "same":
                self.problems.append(Problem(_unsure_of(doubtful)))
            self._changed("observe")
            return result

    def check(self, obs: Observation) -> None:
        """BadObservation when ``obs`` is not a reading of the game in play: another game's
        (a reader left from the game before), or one naming a place this table has not.
        Every observation comes through :meth:`observe`, whoever made it (the camera loop,
        a reader's JSON, the demo), so this is where it is checked."""
        if obs.game != self.bundle.name:
            raise BadObservation(f"this observation is for {_named(obs.game)}; the game in "
                                 f"play is {self.bundle.name}")
        self.bundle.check_observation(self.rules, self.state, obs)

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

    def correct(self, data: Mapping[str, Any]) -> str:
        """The players say what really stands in one place (``data`` in the game's words,
        see its bundle's ``correction``); the camera's reading there is replaced."""
        with self._lock:
            place, reading = self.bundle.correction(self.rules, self.state, data)
            self._check_correction(place, reading)
            seen = self.last_observation.reading(place) if self.last_observation else None
            self.overrides[place] = reading
            self._seen_when_corrected[place] = seen
            self._note(f"{self.bundle.place_word} {place} corrected by hand", "correct")
            for listener in self._correction_listeners:
                try:
                    listener(place, reading)
                except Exception:  # learning from it may fail; the correction stands
                    log.exception("a correction listener failed")
            if self.last_observation is not None:
                self.observe(self.last_observation)
            else:
                self._changed("correct")
            return place

    def _check_correction(self, place: str, reading: Any) -> None:
        # A correction is checked as the camera's own reading of that place would be: on
        # the table the camera last saw (or, before any frame, the game's own table).
        base = self.last_observation
        if base is None:
            base = self.bundle.expected_observation(self.rules, self.state)
        if base is not None:
            self.check(base.with_readings({place: reading}))

    def _corrected(self, obs: Observation) -> Observation:
        # A correction holds until the camera's own reading of that place changes.
        for place in list(self.overrides):
            seen = self._seen_when_corrected.get(place)
            if seen is not None and _content(obs.reading(place)) != _content(seen):
                del self.overrides[place]
                self._seen_when_corrected.pop(place, None)
        if not self.overrides:
            return obs
        return obs.with_readings(self.overrides)

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
                    self.chance(None, ev.source)
                else:
                    return self._game_input(ev)
                return None
        except IllegalAction as e:
            self._problem(str(e), ev.source)
            return str(e)

    def _game_input(self, ev: InputEvent) -> str | None:
        found = self.bundle.input_action(self.rules, self.state, ev)
        if isinstance(found, str):
            self._problem(found, ev.source)
            return found
        if found is not None:
            self.play(found, ev.source)
            return None
        # What the game does not rule on (a shake, the egg's own button) is shown.
        self.device_events.append(_describe_input(ev))
        self._changed("device")
        return None

    def report(self, text: str, source: str) -> None:
        """Show a problem from outside the rules (a device fault, a failed reading)."""
        with self._lock:
            self._problem(text, source)

    def _problem(self, text: str, source: str) -> None:
        self.problems = [p for p in self.problems if p.source != source] + [Problem(text, source)]
        self._changed("problem")


def _named(game: str) -> str:
    # A reader's game name is echoed, so a runaway one is cut short.
    return clipped(game) if game else "no game"


def _content(reading: Any) -> Any:
    # Two readings of a place are the same table when they differ only in confidence.
    if is_dataclass(reading) and hasattr(reading, "confidence"):
        return replace(reading, confidence=1.0)
    return reading


def _describe_input(ev: InputEvent) -> str:
    details = ", ".join(f"{k} {v}" for k, v in sorted(ev.data.items()))
    return f"{ev.source}: {ev.kind}" + (f" ({details})" if details else "")


def _unsure_of(places: list[str]) -> str:
    """The problem that asks the players to check ``places``: each named, or the first few
    and how many more (a blurred frame doubts every cell; the page lists them all)."""
    named = ", ".join(places[:NAMED_DOUBTS])
    if len(places) > NAMED_DOUBTS:
        named = f"{len(places)} places ({named} and {len(places) - NAMED_DOUBTS} more)"
    return f"the camera is unsure of {named}: check {'it' if len(places) == 1 else 'them'} " \
        "on the page"
