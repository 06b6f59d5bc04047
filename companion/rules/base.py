"""The one interface every game's rules follow.

A game is a :class:`Ruleset` (the rules plus the options chosen for one game,
such as the players and the edition) working on immutable state values.
Actions are small frozen dataclasses; :meth:`Ruleset.why_not` is the single
place that decides legality and says why an action is refused, and
:meth:`Ruleset.apply` turns a legal action into a new state and the events a
player should hear about. Nothing here does any I/O, so the same rules serve the
terminal referee, the camera loop, the web page and the tests.

>>> from companion.rules.peepwar import PeepWar, PlaceTile
>>> game = PeepWar(players=("red", "blue"), edition=2005)
>>> state = game.new_state()
>>> game.why_not(state, PlaceTile("red", 0, 0))
'red cannot place a hex at 0,0: the Neutral Territory is there'
>>> state, events = game.apply(state, PlaceTile("red", 1, 0))
>>> events[0].text
'red places a hex at 1,0'
"""

from __future__ import annotations

import dataclasses
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar


class IllegalAction(ValueError):
    """An action the rules refuse; ``str(error)`` is the sentence for the player."""


class BadActionData(ValueError):
    """An action record (JSON from a log, a page or a device) that does not decode."""


@dataclass(frozen=True)
class Action:
    """Base for a game's action value objects.

    Every action names the ``player`` who takes it; subclasses add their own
    fields and set ``kind``, the name used in logs and on the wire.
    """

    kind: ClassVar[str] = "action"
    player: str


@dataclass(frozen=True)
class Event:
    """Something that happened, worded for the players, with data for programs."""

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "data": dict(self.data)}


@dataclass(frozen=True)
class Standing:
    """One player's line in the tally."""

    player: str
    score: int
    details: Mapping[str, Any] = field(default_factory=dict)
    out: bool = False


@dataclass(frozen=True)
class Tally:
    """Who stands where: the supply-center count in Peep War, points elsewhere."""

    standings: Sequence[Standing]
    needed: int | None = None
    winner: str | None = None
    headline: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "standings": [
                {"player": s.player, "score": s.score, "out": s.out, **dict(s.details)}
                for s in self.standings
            ],
            "needed": self.needed,
            "winner": self.winner,
            "headline": self.headline,
        }


S = TypeVar("S")


class Ruleset(ABC, Generic[S]):
    """The rules of one game with the options of one table.

    Subclasses list their action classes in ``action_types`` and implement
    :meth:`new_state`, :meth:`why_not`, :meth:`legal_actions`, :meth:`_apply`
    and :meth:`tally`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    action_types: ClassVar[tuple[type[Action], ...]]

    # --- construction and identity -------------------------------------------------

    @abstractmethod
    def options(self) -> dict[str, Any]:
        """The options that recreate this ruleset (stored in the game log)."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Ruleset[S]:
        return cls(**options)

    @abstractmethod
    def new_state(self) -> S:
        """The state before the first action."""

    # --- legality ----------------------------------------------------------------

    @abstractmethod
    def why_not(self, state: S, action: Action) -> str | None:
        """None when ``action`` is legal in ``state``, else the reason in plain words."""

    def is_legal(self, state: S, action: Action) -> bool:
        return self.why_not(state, action) is None

    @abstractmethod
    def legal_actions(self, state: S) -> Iterator[Action]:
        """Every legal action in ``state`` (each one passes :meth:`why_not`)."""

    # --- change ------------------------------------------------------------------

    def apply(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """The state after ``action`` and what happened; raises :class:`IllegalAction`."""
        reason = self.why_not(state, action)
        if reason is not None:
            raise IllegalAction(reason)
        return self._apply(state, action)

    @abstractmethod
    def _apply(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """Apply an action already known to be legal."""

    def replay(self, actions: Sequence[Action]) -> tuple[S, list[Event]]:
        """The state after playing ``actions`` from the start, and all their events."""
        state = self.new_state()
        events: list[Event] = []
        for action in actions:
            state, new = self.apply(state, action)
            events.extend(new)
        return state, events

    # --- reading the state -------------------------------------------------------

    @abstractmethod
    def tally(self, state: S) -> Tally:
        """The standings: supply centers, points, who is out, who won."""

    @abstractmethod
    def to_act(self, state: S) -> str | None:
        """The player whose decision the game waits for (None when it is over)."""

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True once the game has a result."""

    @abstractmethod
    def state_to_dict(self, state: S) -> dict[str, Any]:
        """A JSON-ready picture of the state, for the page and for comparisons."""

    # --- actions as data ---------------------------------------------------------

    def encode_action(self, action: Action) -> dict[str, Any]:
        """``{"kind": ..., field: value, ...}``, ready for JSON."""
        return {"kind": action.kind, **dataclasses.asdict(action)}

    def decode_action(self, data: Mapping[str, Any]) -> Action:
        """The action a record describes; raises :class:`BadActionData` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise BadActionData(f"an action must be a JSON object, not {type(data).__name__}")
        kinds = {cls.kind: cls for cls in self.action_types}
        kind = data.get("kind")
        if kind not in kinds:
            known = ", ".join(sorted(kinds))
            raise BadActionData(f"unknown action kind {kind!r} for {self.name}; known: {known}")
        cls = kinds[kind]
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                if f.default is not dataclasses.MISSING:
                    continue
                raise BadActionData(f"action {kind!r} needs the field {f.name!r}")
            values[f.name] = _check_type(kind, f.name, data[f.name], hints[f.name])
        extra = set(data) - {"kind"} - {f.name for f in dataclasses.fields(cls)}
        if extra:
            raise BadActionData(f"action {kind!r} has unknown fields: {', '.join(sorted(extra))}")
        return cls(**values)


def _check_type(kind: str, name: str, value: Any, hint: Any) -> Any:
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for t in allowed:
        if t is type(None) and value is None:
            return value
        if t is bool and isinstance(value, bool):
            return value
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if t is float and isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if t is str and isinstance(value, str):
            return value
    names = " or ".join(getattr(t, "__name__", str(t)) for t in allowed)
    raise BadActionData(f"action {kind!r}: field {name!r} must be {names}, not {value!r}")
