"""A new game's own options on the command line (``--edition 2001``, ``--pieces 15``, ...).

Which options exist depends on ``--game``, so they are read in a second step,
after the command line has chosen the game: the parser itself imports no game,
and ``companion new`` imports the one game it starts. ``--help`` still lists
every game's options (it imports them all, which only help needs).

It also keeps the option types several commands share (:func:`seconds`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

from companion import games
from companion.errors import UserError, clipped, quoted


def add_game_args(p: argparse.ArgumentParser) -> None:
    """--game, --players, and (read later by :func:`read_options`) the game's own options."""
    p.add_argument("--game", default="peepwar", choices=games.names(),
                   help="the game (default: peepwar)")
    p.add_argument("--players", default=None,
                   help="player keys in seat order, comma-separated (default: the game's, "
                   "e.g. red,blue)")
    p.set_defaults(game_options=read_options)
    p.epilog = "Each game's own options: see --help."
    p.more_help = options_help  # type: ignore[attr-defined]


def options_help() -> str:
    """Every game's options, as ``--help`` shows them."""
    lines = ["each game's own options:"]
    for game in games.all_games().values():
        for o in game.options:
            choices = f" ({' or '.join(str(c) for c in o.choices)})" if o.choices else ""
            default = f"; default {o.default}" if o.default not in ("", None) else ""
            lines.append(f"  --{_flag(o.name):<14} {game.title}: {o.help}{choices}{default}")
    return "\n".join(lines)


def read_options(game_name: str, words: Sequence[str]) -> dict[str, Any]:
    """The options of ``game_name`` given in ``words`` (what the first parse left over);
    UserError naming a word no option of that game takes.

    >>> read_options("peepwar", ["--edition", "2001"])
    {'edition': '2001'}
    >>> read_options("peepwar", ["--pieces", "15"])
    Traceback (most recent call last):
    ...
    companion.errors.UserError: Peep War has no option --pieces
    """
    game = games.find(game_name)
    parser = _Strict(prog=f"companion --game {game_name}", add_help=False)
    for o in game.options:
        parser.add_argument(f"--{_flag(o.name)}", dest=o.name, default=None)
    try:
        known, rest = parser.parse_known_args(list(words))
    except _Refused as e:
        raise UserError(f"{game.title}: {e}") from None
    if rest:
        word = next((w for w in rest if w.startswith("-")), rest[0])
        if word.startswith("-"):
            raise UserError(f"{game.title} has no option {clipped(word.split('=', 1)[0])}")
        raise UserError(f"unexpected word {quoted(word)}")
    return {k: v for k, v in vars(known).items() if v is not None}


def _flag(name: str) -> str:
    return name.replace("_", "-")


class _Refused(Exception):
    pass


class _Strict(argparse.ArgumentParser):
    """A parser that raises instead of printing usage and exiting."""

    def error(self, message: str) -> Any:  # argparse's hook; never returns
        raise _Refused(message)


MAX_SECONDS = 7 * 24 * 3600.0  # a week: longer waits are a typo, and threads refuse ~292 years


def seconds(text: str) -> float:
    """argparse type of an option giving a wait or a duration in seconds: a finite number
    above 0 (``nan`` or ``inf`` would make a wait spin, never end, or overflow a thread's
    timeout), at most :data:`MAX_SECONDS`.

    >>> seconds("2.5")
    2.5
    >>> seconds("nan")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number of seconds above 0 ... not 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {MAX_SECONDS:g} (a week), "
            f"not {quoted(text)}")
    return value
