"""``companion demo``: a whole scripted game, refereed in the terminal.

Needs no camera and no Pi: two (or more) plain players play Peep War from setup
to victory through the text referee, logged to a temporary game log.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from companion.errors import UserError
from companion.gamelog import GameLog
from companion.rules.peepwar import PeepWar, notation
from companion.rules.peepwar.bot import Bot
from companion.terminal import TextReferee

DEFAULT_PLAYERS = ["red", "blue", "green", "yellow", "purple", "orange"]


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 6:
        raise UserError(f"--players must be 2 to 6, not {args.players}")
    rules = PeepWar(players=DEFAULT_PLAYERS[: args.players], edition=args.edition)
    delay = args.delay if args.delay is not None else (0.02 if sys.stdout.isatty() else 0.0)
    with tempfile.TemporaryDirectory() as tmp, GameLog(Path(tmp) / "demo.sqlite") as log:
        game = log.new_game(rules)
        referee = TextReferee(game, seed=args.seed, source="demo")
        bot = Bot(rules, args.seed)
        print(f"Demo: Peep War {args.edition}, {', '.join(rules.players)} "
              f"(seed {args.seed}); {rules.needed()} Supply Centers win")
        for action in bot.play(game.state):
            print(f"{referee.prompt()}{notation.format(action)}")
            if not referee.play(action):
                raise UserError("the scripted game made an illegal move; please report this")
            if delay:
                time.sleep(delay)
        referee.handle("board")
        tally = rules.tally(game.state)
        print(f"{tally.headline} after {game.state.turn} turns and {len(game.actions)} actions")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="watch a scripted game refereed (no camera, no Pi)",
                       description="Play a scripted Peep War game from setup to victory "
                       "through the referee; needs no camera and no Pi.")
    p.add_argument("--players", type=int, default=2, help="2 to 6 (default 2)")
    p.add_argument("--edition", type=int, default=2005, choices=[2001, 2005])
    p.add_argument("--seed", type=int, default=7, help="seed of the game (default 7)")
    p.add_argument("--delay", type=float, default=None,
                   help="seconds between actions (default: a little on a terminal, none in a pipe)")
    p.set_defaults(func=run)
