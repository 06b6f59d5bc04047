"""The ``companion`` command.

Each sub-command lives in its own module here and exposes
``add_parser(subparsers)``, which registers it with ``func=run``. Modules are
found automatically, so adding a command never edits this file; a game adds
commands of its own (Peep War's ``odds``) by naming such modules in its bundle.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import pkgutil
import sqlite3
import sys
from collections.abc import Sequence

from companion import __version__
from companion import games as registry
from companion.errors import UserError
from vision.errors import VisionError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: a referee beside a real game table.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = [f"{__name__}.{info.name}" for info in pkgutil.iter_modules(__path__)]
    names += [m for game in registry.all_games().values() for m in game.commands]
    for name in sorted(names, key=lambda n: n.rsplit(".", 1)[-1]):
        module = importlib.import_module(name)
        if hasattr(module, "add_parser"):
            module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a full disk shows here, not in an error at exit
        return code
    except (UserError, VisionError) as e:
        print(f"companion {args.command}: error: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(
            f"companion {args.command}: error: the game log could not be read or written ({e}); "
            "check the --log path and that the disk is not full",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"companion {args.command}: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 1
    except OSError as e:
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
