"""``companion demo``: the whole referee on a scripted game, no camera and no Pi.

By default it serves the table page and plays a scripted Peep War game at the
table in a loop until stopped; ``--text`` plays one game in the terminal. Each
demo game is a new game in ``demo.sqlite`` beside the usual game log (or in
``--log``), kept however the demo ends, so it can be replayed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from companion import games
from companion.cli.game_options import options_help, read_options, seconds
from companion.errors import UserError, quoted

if TYPE_CHECKING:
    from companion.referee import Referee

DEFAULT_PLAYERS = ["red", "blue", "green", "yellow", "purple", "orange"]  # renderer's colours


def run(args: argparse.Namespace) -> int:
    game = games.find(args.game)
    if not game.live:
        live = [name for name, g in games.all_games().items() if g.live]
        raise UserError(f"--game {args.game}: {game.title} is not refereed live; the demo "
                        f"plays {', '.join(live)}")
    # 0 is a number of players to refuse, not a request for the default.
    count = len(game.default_players) if args.players is None else args.players
    if not game.min_players <= count <= game.max_players:
        raise UserError(f"--players must be {game.min_players} to {game.max_players} "
                        f"for {game.title}, not {quoted(count)}")
    # A game whose seats have names of their own (cities) keeps them; others get colours.
    pool = game.default_players if count <= len(game.default_players) else DEFAULT_PLAYERS
    players = list(pool[:count])
    options = getattr(args, "options", None) or {}
    log = demo_log_path(args)
    if args.text:
        return _text(game, players, options, args, log)
    from companion.demo_table import ScriptedTable
    from companion.service import (
        ServiceOptions,
        banner,
        bound_service,
        open_browser,
        run_until_interrupted,
    )

    opts = ServiceOptions(host="127.0.0.1", port=args.port, log=log,
                          game=game.name, players=players, options=options, new_game=True,
                          egg_seed=args.seed)
    service = bound_service(opts)  # the port is bound before the game is opened or made
    try:
        show = None
        if not args.no_camera and game.demo_camera is not None:
            from companion.demo_camera import RenderedCamera

            camera = RenderedCamera(service.referee, players, seed=args.seed)
            service.camera_view = camera
            service.on_stop(camera.stop)
            show = camera.show
        kept = follow_games(service.referee)
        table = ScriptedTable(service.referee, seed=args.seed, step_s=args.step, show=show)
        service.on_stop(table.stop)
        url = service.start()
        table.start()
    except BaseException:
        service.stop()  # the socket and the log, whichever part failed
        raise
    opened = False if args.no_browser else open_browser(url)
    print(banner(service, "A scripted game is being played at the table; "
                 + ("the page is open in your browser." if opened else
                    f"open {url} in a browser to watch.")), flush=True)
    run_until_interrupted(service.stop, args.seconds)
    print(kept_games(kept, log), flush=True)
    return 0


def follow_games(referee: Referee) -> list[int]:
    """The ids of the games played at ``referee`` from now on, the current one first: the
    table starts another after each end, and a player may start one on the page."""
    ids = [referee.game.id]

    def noted(reason: str) -> None:
        if reason == "new_game":
            ids.append(referee.game.id)

    referee.on_change(noted)
    return ids


def kept_games(ids: list[int], log: Path) -> str:
    """Where the demo's games are (the table starts another after each end), and how to
    replay the last.

    >>> print(kept_games([3], Path("d.sqlite")))
    the demo game is kept as game 3 in d.sqlite; see it again with: companion replay --log ...
    >>> kept_games([3, 4, 5], Path("d.sqlite")).split(";")[0]
    'the demo games are kept as games 3, 4 and 5 in d.sqlite'
    """
    last = ids[-1]
    replay = f"companion replay --log {log} --id {last}"
    if len(ids) == 1:
        return f"the demo game is kept as game {last} in {log}; see it again with: {replay}"
    listed = ", ".join(map(str, ids[:-1])) + f" and {last}"
    return (f"the demo games are kept as games {listed} in {log}; see the last again with: "
            f"{replay}")


MAX_ACTIONS = 20000  # a scripted game that has not ended by then is a bug to report


def demo_log_path(args: argparse.Namespace) -> Path:
    """Where demo games are kept: ``--log``, or demo.sqlite beside the usual game log."""
    from companion.gamelog import default_log_path

    path = Path(args.log) if args.log else default_log_path().parent / "demo.sqlite"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot make the folder for the demo's log {path}: {e.strerror}; "
                        "give another with --log") from e
    return path


def _text(bundle: games.Game, players: list[str], options: dict, args: argparse.Namespace,
          path: Path) -> int:
    from companion.gamelog import GameLog
    from companion.terminal import TextReferee

    try:
        rules = bundle.new_rules(players, options)
    except ValueError as e:  # a game option given wrong (--edition 1999, a map not a map)
        raise UserError(str(e)) from None
    delay = 0.02 if sys.stdout.isatty() else 0.0
    with GameLog(path) as log:
        game = log.new_game(rules)
        referee = TextReferee(game, seed=args.seed, source="demo")
        print(f"Demo: {bundle.describe(rules)} (seed {args.seed}); "
              f"{rules.tally(game.state).headline}")
        print(f"The demo game is kept as game {game.id} in {log.path}; see it again with: "
              f"companion replay --log {log.path} --id {game.id}")
        bot = bundle.bot(rules, args.seed)
        for _ in range(MAX_ACTIONS):
            if rules.is_over(game.state):
                break
            action = bot.choose(game.state)
            print(f"{referee.prompt()}{bundle.format(action)}")
            if not referee.play(action):
                raise UserError("the scripted game made an illegal move; please report this")
            if delay:
                time.sleep(delay)
        referee.handle("board")
        tally = rules.tally(game.state)
        print(f"{tally.headline} after {rules.turn(game.state)} turns and "
              f"{len(game.actions)} actions")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="watch a scripted game refereed (no camera, no Pi)",
                       description="Serve the table page and play a scripted Peep War game "
                       "at the table, in a loop until stopped; needs no camera and no Pi.")
    p.add_argument("--game", default="peepwar", choices=games.names(),
                   help="the game to play (default peepwar; any game played live)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks one)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--players", type=int, default=None,
                   help="how many players (default: the game's usual number, 2 in Peep War)")
    p.add_argument("--seed", type=int, default=7, help="seed of the game (default 7)")
    p.add_argument("--step", type=seconds, default=0.6,
                   help="seconds between table actions (default 0.6)")
    p.add_argument("--seconds", type=seconds, default=None,
                   help="stop after this many seconds (default: run until stopped)")
    p.add_argument("--text", action="store_true", help="play one game in the terminal instead")
    p.add_argument("--log", type=Path, metavar="FILE", help="keep the demo games in FILE "
                   "(default: demo.sqlite beside the usual game log)")
    p.add_argument("--no-camera", action="store_true",
                   help="skip rendering the table as a camera picture (faster, no vision)")
    # The chosen game's own options (--edition 2001, ...), read once --game has chosen it.
    p.set_defaults(func=run, game_options=read_options)
    p.more_help = options_help  # type: ignore[attr-defined]
