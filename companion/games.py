"""The games the companion knows: one bundle per game, and the registry that lists them.

A game is a package that exports one :class:`Game` bundle. The referee, the
service, the game log, the terminal, the web shell and the command line talk
only to the bundle, never to a game's modules, so adding a game touches no
generic file:

- a package ``companion/rules/<name>/`` with a module ``game.py`` holding
  ``GAME = MyGame()`` is found by itself;
- a game installed as its own distribution names its bundle under the entry
  point group ``table_companion.games``;
- :func:`register` adds one at run time (tests do this with a toy game).

The bundle holds the game's domain parts itself (rules, notation, prompt, the
board picture, move inference, the mapping of buttons and the egg to actions)
and names its upper-layer parts — the camera reader, the page panel — as
``"module:attribute"`` strings, imported only when used, so the domain never
imports vision, web or the app. A game's own commands are modules named
``<command>_command.py`` in its package. The registry finds games and commands
without importing them, and imports a game when it is first asked for, so the
rules commands start fast.

>>> {"peepwar", "peltapeeps"} <= {g.name for g in all_games().values()}
True
>>> find("peepwar").title
'Peep War'
>>> find("chess")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
companion.games.UnknownGame: unknown game 'chess'; known: peepwar, ...
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import pkgutil
import random
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.errors import clipped, quoted
from companion.inputs.events import InputEvent
from companion.observation import BadObservation, Inference, Observation
from companion.rules.base import Action, IllegalAction, Ruleset
from companion.rules.chance import Randomiser

ENTRY_POINTS = "table_companion.games"
# What ``replay --as`` takes for an onlooker's view: no player may be called it, or they
# could never replay their own hidden draws.
WATCHER = "watcher"


class UnknownGame(ValueError):
    """A game name the registry does not know."""


@dataclass(frozen=True)
class Option:
    """A choice made when a game starts (besides the players), for the CLI and the page."""

    name: str
    help: str
    default: Any
    choices: tuple[Any, ...] = ()
    # A file on the server (a map): the command line may name any, the page only those in
    # the folder the server's owner keeps them in (web.security.page_file).
    file: bool = False

    def read(self, value: Any) -> Any:
        """``value`` (from a command line or a form) as the option's type; ValueError if not."""
        if value is None or value == "":
            return self.default
        kind = type(self.default)
        try:
            out = kind(value) if not isinstance(value, bool) or kind is bool else None
        except (TypeError, ValueError):
            out = None
        if out is None or (self.choices and out not in self.choices):
            allowed = " or ".join(str(c) for c in self.choices) or kind.__name__
            raise ValueError(f"{self.name} must be {allowed}, not {quoted(value)}")
        return out


# The options a game's sheet may take in ``companion print`` (Game.printables).
SHEET_OPTIONS = ("dpi", "out", "json", "paper", "map")


def sheet_options(takes: Iterable[str | tuple[str, str]], helps: Mapping[str, str]
                  ) -> list[tuple[str, str]]:
    """(name, help) of each option a sheet ``takes``: its own help where it gives one, else
    ``helps``'; ValueError naming an option no sheet takes, or one given no help.

    >>> sheet_options(["out", ("paper", "a3 or a4 (default a3)")], {"out": "file to write"})
    [('out', 'file to write'), ('paper', 'a3 or a4 (default a3)')]
    >>> sheet_options(["players"], {})
    Traceback (most recent call last):
    ...
    ValueError: 'players' is no option of a game's sheet; they are dpi, out, json, paper and map
    """
    out = []
    for entry in takes:
        name, own = (entry, None) if isinstance(entry, str) else entry
        if name not in SHEET_OPTIONS:
            raise ValueError(f"{name!r} is no option of a game's sheet; they are "
                             f"{', '.join(SHEET_OPTIONS[:-1])} and {SHEET_OPTIONS[-1]}")
        if own is None and name not in helps:
            raise ValueError(f"{name!r} needs its help given, (name, help): what it takes "
                             "and its default")
        out.append((name, own if own is not None else helps[name]))
    return out


# A number in a typed action has a few digits: a longer one is refused before it is read, as
# int() refuses one of more than 4,300 digits in Python's words ("use
# sys.set_int_max_str_digits()"); one too large for a float (1e999) would be infinity.
TYPED_DIGITS = 15


class _BadNumber(ValueError):
    """A number in a typed action no action takes; the message names it."""


def _typed_int(text: str) -> int:
    if len(text.lstrip("-")) > TYPED_DIGITS:
        raise _BadNumber(f"the number {clipped(text, 40)} is too large")
    return int(text)


def _typed_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(f"the number {clipped(text, 40)} is too large")
    return value


def _typed_constant(text: str) -> float:
    # NaN, Infinity and -Infinity: Python's JSON reads them, JSON has no such numbers.
    raise _BadNumber(f"{text} is not a number JSON allows")


class Game:
    """Everything the generic parts need of one game. Subclass and override what applies.

    The defaults describe a game with no camera reader, no page panel, no
    end-turn button and plain notation; :class:`companion.rules.peepwar.game.PeepWarGame`
    is the complete example, and ``docs/adding-a-game.md`` walks through it.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    ruleset: ClassVar[type[Ruleset]]
    options: ClassVar[tuple[Option, ...]] = ()
    place_word: ClassVar[str] = "place"  # what the camera reads one of: a cell, a hole, an area
    # A place the camera reads with less confidence than this is asked about, never ruled on.
    # Each game's reader has its own scale of confidence, so each game says where doubt starts.
    doubtful_below: ClassVar[float] = 0.5
    live: ClassVar[bool] = True  # refereed move by move at the table (PeltaPeeps is scored)
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    default_players: ClassVar[tuple[str, ...]] = ("red", "blue")
    notation_help: ClassVar[str] = ""
    example: ClassVar[str] = ""  # a typed move, shown in the page's empty command box
    # Which tally details the page shows as columns, after the score: (key, heading).
    tally_columns: ClassVar[tuple[tuple[str, str], ...]] = ()
    score_heading: ClassVar[str] = "score"
    tally_title: ClassVar[str] = "Standings"
    # Upper-layer parts, imported on use ("module:attribute"; None when the game has none).
    reader: ClassVar[str | None] = None  # (profile) -> reader with read, detect, annotate
    # What of ``detect``'s --home and --map the reader reads (from the profile): any other
    # given is refused, not ignored.
    reader_takes: ClassVar[tuple[str, ...]] = ()
    page: ClassVar[str | None] = None  # () -> PagePanel (a Flask blueprint and its files)
    demo_camera: ClassVar[str | None] = None  # (players, seed) -> a scene: profile, render
    # Sheets ``companion print`` makes for the game: (kind, help, "module:function", the
    # options it takes out of SHEET_OPTIONS; any other is refused). An option is its name,
    # or (name, help) for words of the game's own; "paper" always comes with its help, as
    # its choices and default are the sheet's. A subclass listing another is a TypeError.
    # The function takes the parsed arguments and returns a vision.print_files.Printed (the
    # files' bytes and the line to print; ``print`` writes all the files or none), raising
    # ValueError or OSError with a message for the user (vision.print_files checks that a
    # file's suffix is the format written there).
    printables: ClassVar[tuple[tuple[str, str, str, tuple[str | tuple[str, str], ...]], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for kind, _text, _ref, takes in cls.printables:
            try:
                sheet_options(takes, {n: "" for n in SHEET_OPTIONS if n != "paper"})
            except ValueError as e:
                raise TypeError(f"{cls.__name__}.printables, {kind}: {e}") from None

    # --- starting a game -----------------------------------------------------------------

    def new_rules(self, players: Sequence[str], options: Mapping[str, Any] | None = None
                  ) -> Ruleset:
        """The rules for a new game; ValueError saying what is wrong with the choices."""
        given = dict(options or {})
        unknown = set(given) - {o.name for o in self.options}
        if unknown:
            raise ValueError(f"{self.title} has no option {', '.join(sorted(unknown))}")
        if WATCHER in players:
            raise ValueError(f"{WATCHER!r} is kept for onlookers (replay --as {WATCHER}): "
                             "choose another player key")
        chosen = {o.name: o.read(given.get(o.name)) for o in self.options}
        return self.ruleset.from_options({"players": list(players), **chosen})

    def describe(self, rules: Ruleset) -> str:
        """One line naming the game and its options, e.g. "Peep War 2005, red and blue"."""
        opts = rules.options()
        extra = " ".join(str(opts[o.name]) for o in self.options if o.name in opts)
        players = ", ".join(opts.get("players", ()))
        return f"{self.title}{' ' + extra if extra else ''}: {players}"

    # --- words ------------------------------------------------------------------------------

    def parse(self, text: str, rules: Ruleset, state: Any) -> Action:
        """The action a typed line means; ValueError saying why it cannot be read.

        The default reads an action's JSON record (``{"kind": "...", ...}``).
        """
        try:
            data = json.loads(text, parse_int=_typed_int, parse_float=_typed_float,
                              parse_constant=_typed_constant)
        except _BadNumber as e:
            raise ValueError(str(e)) from None
        except (ValueError, RecursionError):
            raise ValueError(f"type an action as JSON, e.g. {{\"kind\": ..., \"player\": ...}}"
                             f" ({self.title} has no notation of its own)") from None
        return rules.decode_action(data)

    def format(self, action: Action) -> str:
        """An action in the game's notation."""
        fields = {k: v for k, v in action.__dict__.items() if k != "player"}
        return " ".join([action.kind, *(str(v) for v in fields.values())])

    def prompt(self, rules: Ruleset, state: Any) -> str:
        """One sentence: who must do what now."""
        if rules.is_over(state):
            t = rules.tally(state)
            won = " and ".join(t.winners) or "nobody"
            return f"{won} won ({t.reason}). Start a new game when you are ready."
        waiting = sorted(rules.waiting_for(state))
        return f"{' and '.join(waiting)}: your move"

    def text_board(self, rules: Ruleset, state: Any) -> str:
        """The board for a terminal."""
        return json.dumps(rules.view(state, None), indent=1)

    def board_svg(self, view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
        """The board as SVG, drawn from :meth:`Ruleset.view` (a pure function of it)."""
        return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" role="img" '
                f'aria-label="{self.title} board" class="board"></svg>')

    def terminal_words(self) -> dict[str, str]:
        """Words of the game's own that the terminal answers ("odds"), with their help."""
        return {}

    def answer(self, word: str, rules: Ruleset, state: Any) -> str:
        """The terminal's answer to one of :meth:`terminal_words`."""
        raise ValueError(f"{self.title} has no word {word!r}")

    def panel(self, rules: Ruleset, state: Any, viewer: str | None) -> dict[str, Any]:
        """Extra data the game's page panel shows (fight odds in Peep War)."""
        return {}

    # --- the table ----------------------------------------------------------------------

    def parse_observation(self, data: Mapping[str, Any]) -> Observation:
        """The observation JSON of this game, checked; BadObservation when it is not."""
        raise BadObservation(f"{self.title} has no camera reading")

    def check_observation(self, rules: Ruleset, state: Any, obs: Observation) -> None:
        """BadObservation naming a place ``obs`` reads that this table has not (a cell on
        no tile laid, an area not on the map in play): the referee refuses the whole
        reading, or the correction that would make it, rather than leave that place out."""

    def infer(self, rules: Ruleset, state: Any, obs: Observation, history: Sequence[Any]
              ) -> Inference:
        """The legal actions that explain ``obs`` (``history``: recent states, newest last)."""
        return Inference("problem", problems=(f"{self.title} is not read by the camera",))

    def expected_observation(self, rules: Ruleset, state: Any) -> Observation | None:
        """What a perfect camera would report (the demo's camera uses it)."""
        return None

    def correction(self, rules: Ruleset, state: Any, data: Mapping[str, Any]
                   ) -> tuple[str, Any]:
        """A player's "this place really holds …" from the page: (place, reading)."""
        raise ValueError(f"{self.title} takes no corrections of the camera")

    # --- buttons and the egg -----------------------------------------------------------

    def end_action(self, rules: Ruleset, state: Any) -> Action | None:
        """What the end-turn button does now (None: the game has no such button)."""
        return None

    def input_action(self, rules: Ruleset, state: Any, event: InputEvent
                     ) -> Action | str | None:
        """The action a device event means, a sentence saying why it cannot be, or None
        when the game ignores it."""
        return None

    def bot(self, rules: Ruleset, seed: int = 0) -> Any:
        """A plain player: ``bot.choose(state)`` returns a legal action for whoever acts."""
        return RandomBot(rules, seed)


class RandomBot:
    """Plays a legal action chosen at random: enough to fill a seat in any game.

    A game's own bot may subclass it and override :meth:`pick` to choose better;
    random steps (dice, the egg, the cup) always go to the randomiser.
    """

    def __init__(self, rules: Ruleset, seed: int = 0) -> None:
        self.rules = rules
        self._rng = random.Random(seed)

    def choose(self, state: Any) -> Action:
        chance = self.rules.chance(state)
        if chance is not None:
            return Randomiser(self._rng.randrange(2**32)).pick(chance)
        actions = list(self.rules.legal_actions(state))
        if not actions:
            raise IllegalAction("there is no legal action to take")
        return self.pick(state, actions)

    def pick(self, state: Any, actions: list[Action]) -> Action:
        """One of the legal ``actions`` (there is at least one)."""
        return self._rng.choice(actions)


def load(ref: str) -> Any:
    """The object ``"package.module:attribute"`` names (an upper-layer part of a bundle)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


_lock = threading.Lock()
_registered: dict[str, Game] = {}
_loaded: dict[str, Game] = {}
_places: dict[str, str] | None = None  # game name -> its bundle, "module:attribute"


def register(game: Game) -> None:
    """Add a game (or replace one of the same name)."""
    with _lock:
        _registered[game.name] = game


def unregister(name: str) -> None:
    with _lock:
        _registered.pop(name, None)


def names() -> list[str]:
    """Every game's name, without importing any game (so the rules commands start fast).

    >>> {"peepwar", "petri"} <= set(names())
    True
    """
    with _lock:
        return sorted({*_where(), *_registered})


def all_games() -> dict[str, Game]:
    """Every game: the packages under ``companion.rules``, entry points, then registered ones."""
    return {name: find(name) for name in names()}


def find(name: str) -> Game:
    """The game called ``name``, importing that game alone; :class:`UnknownGame` lists the
    known ones."""
    with _lock:
        if name in _registered:
            return _registered[name]
        if name in _loaded:
            return _loaded[name]
        where = _where().get(name)
    if where is None:
        raise UnknownGame(f"unknown game {name!r}; known: {', '.join(names())}")
    game = load(where)
    if not isinstance(game, Game) or game.name != name:
        raise UnknownGame(f"{where} is not the bundle of a game called {name!r}")
    with _lock:
        return _loaded.setdefault(name, game)


def of(rules: Ruleset) -> Game:
    """The game whose rules these are."""
    return find(rules.name)


def command_modules() -> list[str]:
    """The modules of every game's own commands (each with ``add_parser(subparsers)``, as in
    ``companion.cli``), without importing the games: a game's package holds them as
    ``<command>_command.py`` beside its bundle.

    >>> "companion.rules.peepwar.odds_command" in command_modules()
    True
    """
    with _lock:
        places = dict(_where())
    found: list[str] = []
    for ref in places.values():
        package, folders = _package_of(ref.partition(":")[0])
        found += [f"{package}.{info.name}" for info in pkgutil.iter_modules(folders)
                  if info.name.endswith("_command")]
    return sorted(found)


def _package_of(module: str) -> tuple[str, list[str]]:
    """The package holding a bundle's module, and its folders, importing no game of ours
    (a package's ``__init__`` may import its rules)."""
    import companion.rules as rules_pkg

    package, _, leaf = module.rpartition(".")
    if package.startswith(f"{rules_pkg.__name__}."):
        return package, [f"{rules_pkg.__path__[0]}/{package.rsplit('.', 1)[1]}"]
    spec = importlib.util.find_spec(module)
    if spec is None:
        return module, []
    if spec.submodule_search_locations:  # the bundle is the package itself
        return module, list(spec.submodule_search_locations)
    parent = importlib.util.find_spec(package) if package else None
    return package, list(parent.submodule_search_locations or []) if parent else []


def _where() -> dict[str, str]:
    """Where each game's bundle is, found once: the packages under ``companion.rules`` that
    have a ``game`` module (a game's name is its package's), then entry points (a game's name
    is its entry point's). Called with the lock held."""
    global _places
    if _places is None:
        import companion.rules as rules_pkg

        places: dict[str, str] = {}
        for info in pkgutil.iter_modules(rules_pkg.__path__):
            if info.ispkg and any(m.name == "game" for m in pkgutil.iter_modules(
                    [f"{rules_pkg.__path__[0]}/{info.name}"])):
                places[info.name] = f"{rules_pkg.__name__}.{info.name}.game:GAME"
        if _may_declare_games():
            from importlib.metadata import entry_points

            for ep in entry_points(group=ENTRY_POINTS):
                places[ep.name] = ep.value
        _places = places
    return _places


def _may_declare_games() -> bool:
    """Whether an installed distribution may name a game under ``ENTRY_POINTS``.

    ``importlib.metadata`` takes longer to import than the rules commands take to
    run; a look at the installed ``entry_points.txt`` files decides whether it is
    needed (it reads them properly when one names the group).
    """
    import os
    import sys

    header = f"[{ENTRY_POINTS}]"
    for folder in sys.path:
        try:
            entries = os.scandir(folder or ".")
        except OSError:  # a missing folder, or a zip file on the path: importlib reads those
            if os.path.isfile(folder):
                return True
            continue
        with entries:
            for entry in entries:
                if not entry.name.endswith((".dist-info", ".egg-info")):
                    continue
                try:
                    with open(os.path.join(entry.path, "entry_points.txt"),
                              encoding="utf-8") as f:
                        if header in f.read():
                            return True
                except (OSError, UnicodeDecodeError):
                    continue
    return False
