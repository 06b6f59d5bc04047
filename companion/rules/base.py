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
>>> game.waiting_for(state), game.turn(state), game.phase(state)
(frozenset({'blue'}), 0, 'setup_tiles')
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from companion.errors import clipped, quoted
from companion.rules.json_values import unknown_fields

if TYPE_CHECKING:
    from companion.rules.chance import Chance


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
    """Something that happened, worded for the players, with data for programs.

    An event only some players may know (a chit drawn into a hand) names them in
    ``private_to``; everyone else sees ``public`` (or nothing when it is None).
    The game log keeps the whole event; :meth:`seen_by` is what one viewer gets.

    >>> drawn = Event("draw", "athens draws Pericles", {"chit": "pericles"},
    ...               private_to=frozenset({"athens"}), public="athens draws a chit")
    >>> drawn.seen_by("athens").text, drawn.seen_by("sparta").text, drawn.seen_by(None).data
    ('athens draws Pericles', 'athens draws a chit', {})
    >>> Event("draw", "a secret", private_to=frozenset({"athens"})).seen_by(None) is None
    True
    """

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    private_to: frozenset[str] | None = None
    public: str | None = None

    def seen_by(self, viewer: str | None) -> Event | None:
        """The event as ``viewer`` may see it (None: a watcher who is no player)."""
        if self.private_to is None or viewer in self.private_to:
            return self
        if self.public is None:
            return None
        return Event(self.kind, self.public)

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "text": self.text, "data": dict(self.data)}
        if self.private_to is not None:
            out["private_to"] = sorted(self.private_to)
            out["public"] = self.public
        return out


@dataclass(frozen=True)
class Standing:
    """One player's line in the tally."""

    player: str
    score: int
    details: Mapping[str, Any] = field(default_factory=dict)
    out: bool = False


@dataclass(frozen=True)
class Tally:
    """Who stands where: the supply-center count in Peep War, points elsewhere.

    A finished game names its ``winners`` (several when they tie, none for a
    draw) and the ``reason`` it ended; ``winner`` is the sole winner, if any.

    >>> Tally([], winners=("athens", "thebes"), reason="most areas after turn 15").winner is None
    True
    >>> Tally([], winners=("red",), reason="7 Supply Centers").to_dict()["winner"]
    'red'
    """

    standings: Sequence[Standing]
    needed: int | None = None
    winners: tuple[str, ...] = ()
    reason: str = ""
    headline: str = ""
    over: bool = False

    @property
    def winner(self) -> str | None:
        return self.winners[0] if len(self.winners) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "standings": [
                {"player": s.player, "score": s.score, "out": s.out, **dict(s.details)}
                for s in self.standings
            ],
            "needed": self.needed,
            "winner": self.winner,
            "winners": list(self.winners),
            "reason": self.reason,
            "over": self.over,
            "headline": self.headline,
        }


S = TypeVar("S")


class Ruleset(ABC, Generic[S]):
    """The rules of one game with the options of one table.

    Subclasses list their action classes in ``action_types`` and implement
    :meth:`new_state`, :meth:`why_not`, :meth:`legal_actions`, :meth:`_apply`,
    :meth:`tally`, :meth:`is_over`, :meth:`state_to_dict` and one of
    :meth:`to_act` (one player decides at a time) or :meth:`waiting_for`
    (several may act at once). Games with chance implement :meth:`chance`;
    games with hidden information implement :meth:`view`.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not getattr(cls, "__abstractmethods__", None) and (
                cls.to_act is Ruleset.to_act and cls.waiting_for is Ruleset.waiting_for):
            raise TypeError(f"{cls.__name__} must define to_act or waiting_for")

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

    def to_act(self, state: S) -> str | None:
        """The one player whose decision the game waits for; None when nobody's, or when
        several may act at once (see :meth:`waiting_for`)."""
        waiting = self.waiting_for(state)
        return next(iter(waiting)) if len(waiting) == 1 else None

    def waiting_for(self, state: S) -> frozenset[str]:
        """Every player who may act now (empty once the game is over)."""
        who = self.to_act(state)
        return frozenset() if who is None else frozenset((who,))

    def turn(self, state: S) -> int:
        """The turn in progress, counted from 1; 0 while the table is being set up."""
        return 0

    def phase(self, state: S) -> str:
        """The name of the part of the turn in progress ("" for games without phases)."""
        return ""

    def chance(self, state: S) -> Chance | None:
        """The random step the game waits for now (a draw, a roll), or None.

        Its outcomes are ordinary actions: a randomiser picks one by weight, or the
        players report what the real egg, dice or cup gave.
        """
        return None

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True once the game has a result."""

    @abstractmethod
    def state_to_dict(self, state: S) -> dict[str, Any]:
        """A JSON-ready picture of the whole state, for the log, tests and comparisons."""

    def view(self, state: S, viewer: str | None) -> dict[str, Any]:
        """What ``viewer`` may see of the state (None: a watcher who is no player).

        Games without hidden information show everyone everything.
        """
        return self.state_to_dict(state)

    def action_private_to(self, action: Action) -> frozenset[str] | None:
        """The players who may see ``action`` itself (None: everyone).

        A chit drawn from a cup or played face down names what is hidden: a
        watcher's copy of the log shows only its kind and player.
        """
        return None

    # --- actions as data ---------------------------------------------------------

    def encode_action(self, action: Action) -> dict[str, Any]:
        """``{"kind": ..., field: value, ...}``, ready for JSON (tuples as lists, enums as
        their values)."""
        return {"kind": action.kind, **{f.name: _encode(getattr(action, f.name))
                                        for f in dataclasses.fields(action)}}

    def decode_action(self, data: Mapping[str, Any]) -> Action:
        """The action a record describes; raises :class:`BadActionData` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise BadActionData(f"an action must be a JSON object, not {type(data).__name__}")
        kinds = {cls.kind: cls for cls in self.action_types}
        kind = data.get("kind")
        # Checked before the lookup: a list or object kind is unhashable, and `in` on the
        # dict would raise TypeError instead of saying what is wrong.
        if not isinstance(kind, str):
            known = ", ".join(sorted(kinds))
            raise BadActionData(f"an action's kind must be a string, not {quoted(kind)}; "
                                f"known kinds for {self.name}: {known}")
        if kind not in kinds:
            known = ", ".join(sorted(kinds))
            raise BadActionData(f"unknown action kind {quoted(kind)} for {self.name}; "
                                f"known: {known}")
        cls = kinds[kind]
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                if f.default is not dataclasses.MISSING:
                    continue
                raise BadActionData(f"action {kind!r} needs the field {f.name!r}")
            values[f.name] = _check_type(kind, f.name, data[f.name], hints[f.name])
        names = unknown_fields(data, {"kind"} | {f.name for f in dataclasses.fields(cls)})
        if names:
            raise BadActionData(f"action {kind!r} has unknown fields: {clipped(names)}")
        return cls(**values)


def _encode(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    return value


class _Mismatch(Exception):
    """A value that is not of the type a field is hinted with (caught in _check_type)."""


def _check_type(kind: str, name: str, value: Any, hint: Any) -> Any:
    """``value`` as a field typed ``hint`` holds it; raises BadActionData saying what is wrong.

    Knows None, bool, int, float, str, enums (by value), ``Literal``, and tuples
    (``tuple[int, ...]``, ``tuple[str, int]``) of any of these.
    """
    try:
        return _convert(value, hint)
    except _Mismatch:
        raise BadActionData(f"action {kind!r}: field {name!r} must be {_type_name(hint)}, "
                            f"not {quoted(value)}") from None


def _convert(value: Any, hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if isinstance(hint, types.UnionType) or origin is typing.Union:
        for option in typing.get_args(hint):
            try:
                return _convert(value, option)
            except _Mismatch:
                continue
        raise _Mismatch
    if origin is typing.Literal:
        if any(value == v and type(value) is type(v) for v in typing.get_args(hint)):
            return value
        raise _Mismatch
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise _Mismatch
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0]) for v in value)
        if len(args) != len(value):
            raise _Mismatch
        return tuple(_convert(v, a) for v, a in zip(value, args, strict=True))
    if hint is type(None):
        if value is None:
            return None
        raise _Mismatch
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise _Mismatch from None
    if hint is bool and isinstance(value, bool):
        return value
    if hint is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if hint is float and isinstance(value, int | float) and not isinstance(value, bool):
        try:  # a whole number of thousands of digits is no float: refused, not a crash
            number = float(value)
        except OverflowError:
            raise _Mismatch from None
        if not math.isfinite(number):
            raise _Mismatch
        return number
    if hint is str and isinstance(value, str):
        return value
    raise _Mismatch


def _type_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if isinstance(hint, types.UnionType) or origin is typing.Union:
        return " or ".join(_type_name(a) for a in typing.get_args(hint))
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_type_name(args[0])}"
        return "a list of " + ", ".join(_type_name(a) for a in args)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return " or ".join(repr(m.value) for m in hint)
    return "None" if hint is type(None) else getattr(hint, "__name__", str(hint))
