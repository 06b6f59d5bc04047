"""The ``companion`` command.

Each sub-command lives in its own module here and exposes
``add_parser(subparsers)``, which registers it with ``func=run``. Modules are
found automatically, so adding a command never edits this file; a game adds
commands of its own (Peep War's ``odds``) as ``<command>_command.py`` modules in
its package. No game is imported to build the parser: a command imports the
game it is asked about, and the options of a new game (``--edition``, ...) are
read once ``--game`` has chosen it (:mod:`companion.cli.game_options`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import pkgutil
import re
import sqlite3
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

from companion import __version__
from companion import games as registry
from companion.errors import ECHO, PATH_ECHO, UserError, clipped
from companion.gamelog import busy_message, is_busy
from vision.errors import VisionError


class CompanionParser(argparse.ArgumentParser):
    """argparse's parser, whose help may end with a part made only when help is asked for
    (``more_help``: what would otherwise import every game to build the parser), and whose
    errors cut a runaway value they repeat. Every command's parser is one (argparse makes
    sub-parsers of their parent's class)."""

    more_help: Callable[[], str] | None = None

    def format_help(self) -> str:
        text = super().format_help()
        return f"{text}\n{self.more_help()}\n" if self.more_help else text

    def error(self, message: str) -> NoReturn:
        """argparse's error (the usage, one line, exit code 2), a value it repeats ('invalid
        int value: ' and 5,000 digits) cut at :data:`ECHO` characters as every error line
        cuts one.

        >>> _cut_echoes("argument --seed: invalid int value: '" + "7" * 5000 + "'")[-4:]
        "77…'"
        """
        super().error(_cut_echoes(message))


# A value argparse repeats: quoted as repr() shows it, or a bare word (an ambiguous
# "--se=<value>").
_ECHOED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+")


def _cut_echoes(message: str) -> str:
    def cut(m: re.Match[str]) -> str:
        text = m.group()
        if len(text) <= ECHO + 2:
            return text
        return text[:ECHO] + "…" + text[-1] if text[0] in "'\"" else clipped(text)
    return _ECHOED.sub(cut, message)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser; ``argv`` lets it leave out the games' commands it does not
    need."""
    parser = CompanionParser(
        prog="companion",
        description="Table Companion: a referee beside a real game table.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # argparse builds a parser slowly (a message catalogue lookup per help string), so
    # when the command is known only its module builds real parsers; the others
    # register into a sink that just notes the commands' names.
    word = next((a for a in (argv or []) if not a.startswith("-")), None)
    names = [f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)]
    modules = _commands(names)
    if word not in modules:  # a game's command (it imports the game's rules), or help
        modules.update(_commands(registry.command_modules()))
    if word in modules:
        modules[word].add_parser(sub)
    else:
        for module in dict.fromkeys(modules[n] for n in sorted(modules)):
            module.add_parser(sub)
    return parser


def _commands(module_names: list[str]) -> dict[str, ModuleType]:
    """Each command's name and the module that registers it."""
    owners: dict[str, ModuleType] = {}
    for name in module_names:
        module = importlib.import_module(name)
        if hasattr(module, "add_parser"):
            names = _Names()
            module.add_parser(names)
            owners.update(dict.fromkeys(names.seen, module))
    return owners


class _Names:
    """Stands for argparse's sub-parsers while a command module registers: notes the names
    of its commands and accepts (and drops) everything else it is told."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def add_parser(self, name: str, *args: object, **kwargs: object) -> _Sink:
        self.seen.append(name)
        return _Sink()


class _Sink:
    def __getattr__(self, name: str) -> Callable[..., _Sink]:
        return lambda *args, **kwargs: self

    def __setattr__(self, name: str, value: object) -> None:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args, rest = parser.parse_known_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    read_options = getattr(args, "game_options", None)
    if rest and read_options is None:
        parser.error(f"unrecognized arguments: {clipped(' '.join(rest), PATH_ECHO)}")
    try:
        if read_options is not None:
            args.options = read_options(args.game, rest)
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a full disk shows here, not in an error at exit
        return code
    except (UserError, VisionError) as e:
        print(f"companion {args.command}: error: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        # A log another program holds is sound: the path and the disk need no checking.
        why = busy_message(e) if is_busy(e) else (
            f"the game log could not be read or written ({e}); "
            "check the --log path and that the disk is not full")
        print(f"companion {args.command}: error: {why}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"companion {args.command}: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 1
    except OSError as e:
        if e.errno == errno.ENAMETOOLONG and e.filename is not None:
            # A path no file can have, met where a command asks whether one is there
            # (Path.exists() raises this instead of answering no): named once, cut.
            print(f"companion {args.command}: error: {clipped(str(e.filename), PATH_ECHO)}: "
                  f"{e.strerror}; give a shorter path", file=sys.stderr)
            return 2
        if e.errno not in WRITE_FAILURES:
            raise
        _quiet_stdout()
        print(f"companion {args.command}: error: cannot write the output ({e.strerror}); "
              "check that the disk is not full", file=sys.stderr)
        return 1


# Writing the output failed: the disk (or quota) is full, or the device gave up.
WRITE_FAILURES = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so Python's own flush at exit does not fail a second time."""
    # A stdout that is not a real file (a test's capture) needs no quieting.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
