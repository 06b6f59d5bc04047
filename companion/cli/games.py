"""Game-log commands: new, resume, replay, undo, play, games — for every registered game."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion import games
from companion.bounded_read import NotText, TooLarge, read_text_at_most
from companion.cli.game_options import add_game_args
from companion.errors import PATH_ECHO, UserError, clipped, quoted
from companion.gamelog import (
    DamagedEntry,
    GameInfo,
    GameLog,
    LogChanged,
    LoggedGame,
    default_log_path,
    entries_seen_by,
    entry_number,
)
from companion.rules.base import Ruleset


def _log_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--log", type=Path, default=None, metavar="FILE",
                   help=f"the game log (default: {default_log_path()})")


def _game_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game-id", "--id", dest="game_id", type=int, default=None, metavar="ID",
                   help="which game in the log (default: the latest)")


# SQLite keeps a game id in a signed 64-bit integer: a larger --id cannot name a game.
MAX_GAME_ID = 2**63 - 1


def _game_id(args: argparse.Namespace) -> int | None:
    """The game --id names (None: the latest); UserError when no game can have that id."""
    game_id: int | None = args.game_id
    if game_id is not None and not 1 <= game_id <= MAX_GAME_ID:
        raise UserError(f"--id {quoted(game_id)} is out of range: the games in a log are numbered "
                        "1, 2, 3, ... as 'companion games' lists them")
    return game_id


def rules_from_args(args: argparse.Namespace) -> Ruleset:
    """The rules of a new game as the command line chose them; UserError saying what is wrong."""
    try:
        game = games.find(args.game)
    except games.UnknownGame as e:
        raise UserError(str(e)) from None
    players = ([p.strip() for p in args.players.split(",") if p.strip()] if args.players
               else list(game.default_players))
    options = getattr(args, "options", None) or {}
    try:
        return game.new_rules(players, options)
    except ValueError as e:
        # The names as read, but not 2,000 of them: the error stays one line.
        raise UserError(f"{e} (--players {clipped(','.join(players))})") from e


def _open_log(args: argparse.Namespace, readonly: bool = False, existing: bool = False
              ) -> GameLog:
    """The game log; ``existing`` refuses to make a new, empty one where none is, and reads
    an empty file without writing to it (it holds no game to act on)."""
    path = args.log or default_log_path()
    if existing and not Path(path).exists():
        raise UserError(f"there is no game log at {path}: start a game with 'companion new' "
                        "or 'companion play', or give the log with --log")
    if existing and not readonly and _is_empty_file(path):
        log = GameLog(path, readonly=True)
        if log.blank:  # still empty as it was read: no game in it, and nothing written
            return log
        log.close()  # another program wrote to it just then: open it for writing
    return GameLog(path, readonly=readonly)


def _is_empty_file(path: str | Path) -> bool:
    try:
        return Path(path).stat().st_size == 0
    except OSError:
        return False  # opening it says what is wrong


# A whole four-player scripted game is under 100 KB; 8 MB is far past any real script and
# still quick to read, while /dev/zero or a runaway file is refused before a game is made.
MAX_SCRIPT_BYTES = 8_000_000


def _script(args: argparse.Namespace) -> list[str] | None:
    script = getattr(args, "script", None)
    if not script:
        return None
    shown = clipped(str(script), PATH_ECHO)  # the path as given, which may be any text
    try:
        return read_text_at_most(script, MAX_SCRIPT_BYTES, "script of commands",
                                 name=shown).splitlines()
    except OSError as e:
        raise UserError(f"cannot read the script {shown}: {e.strerror}") from e
    except TooLarge as e:
        raise UserError(str(e)) from None
    except NotText:
        raise UserError(f"{shown} is not a text file of commands (not UTF-8)") from None


def _referee(game: LoggedGame, args: argparse.Namespace, lines: list[str] | None) -> int:
    from companion.terminal import TextReferee

    referee = TextReferee(game, seed=args.seed)
    if lines is not None:
        referee.run(lines)
    else:
        referee.run(sys.stdin, interactive=sys.stdin.isatty())
    print(f"game {game.id} is saved in {game.log.path}; "
          f"continue with: companion resume --log {game.log.path} --id {game.id}")
    return 0


def run_new(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    with _open_log(args) as log:
        game = log.new_game(rules)
        print(f"game {game.id} created in {log.path}: {games.of(rules).describe(rules)}")
        print(f"play it with: companion resume --log {log.path} --id {game.id}")
    return 0


def run_play(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    lines = _script(args)
    with _open_log(args) as log:
        game = log.new_game(rules)
        print(f"game {game.id}, logged in {log.path}; type 'help' for the commands")
        return _referee(game, args, lines)


def run_resume(args: argparse.Namespace) -> int:
    lines = _script(args)
    with _open_log(args, existing=True) as log:
        game = log.open(_game_id(args))
        print(f"game {game.id}: {len(game.actions)} actions replayed from {log.path}")
        return _referee(game, args, lines)


def run_replay(args: argparse.Namespace) -> int:
    with _open_log(args, readonly=True) as log:
        game = log.open(_game_id(args))
        bundle = games.of(game.rules)
        entries = log.entries(game.id)
        viewer = None if args.viewer in (None, games.WATCHER) else args.viewer
        if args.viewer is not None:
            players = game.rules.options().get("players", [])
            if viewer is not None and viewer not in players:
                raise UserError(f"--as must be a player of game {game.id} "
                                f"({', '.join(players)}) or watcher, not {quoted(viewer)}")
            entries = entries_seen_by(game.rules, entries, viewer)
        if args.json:
            state = (game.rules.state_to_dict(game.state) if args.viewer is None
                     else game.rules.view(game.state, viewer))
            print(json.dumps({
                "game": game.rules.name, "id": game.id, "options": game.rules.options(),
                "entries": entries, "state": state,
                "tally": game.rules.tally(game.state).to_dict(),
            }, indent=2))
            return 0
        for e in entries:
            if e["kind"] == "undo":
                print(f"#{entry_number(e['seq']):<4} undo")
                continue
            if e["action"].get("hidden"):
                print(f"#{entry_number(e['seq']):<4} {e['action']['player']}: a hidden "
                      f"{e['action']['kind']}")
            else:
                action = game.rules.decode_action(e["action"])
                print(f"#{entry_number(e['seq']):<4} {action.player}: {bundle.format(action)}")
            for ev in e["events"]:
                print(f"       · {ev['text']}")
        print(bundle.text_board(game.rules, game.state))
    return 0


def run_undo(args: argparse.Namespace) -> int:
    with _open_log(args, existing=True) as log:
        game = log.open(_game_id(args))
        n = game.actions_this_turn() if args.turn else 1
        try:
            undone = game.undo(n, source="cli")
        except LogChanged:  # a running companion wrote to the game in between
            raise UserError(f"game {game.id} in {log.path} was changed by another program "
                            "just then; nothing was undone: look at the board and run "
                            "companion undo again") from None
        if not undone:
            raise UserError(f"game {game.id} has no action to undo")
        for a in undone:
            print(f"undone: {a.player}: {games.of(game.rules).format(a)}")
    return 0


def run_games(args: argparse.Namespace) -> int:
    with _open_log(args, readonly=True) as log:
        found = log.games()
        if not found:
            print(f"no games in {log.path}")
        for g in found:
            print(f"{g.id:>4}  {games_line(log, g)}")
    return 0


def _option_text(value: object) -> str:
    if isinstance(value, dict):
        return str(value.get("name", "data"))
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def games_line(log: GameLog, info: GameInfo) -> str:
    """One game of the list: its game, players, options, length and result."""
    try:
        title = games.find(info.game).title
    except games.UnknownGame:
        title = info.game
    if info.problem is not None:  # damaged options: the game cannot be opened either
        return (f"{title}; {info.entries} entries, started {info.created}; "
                f"unreadable: {info.problem}")
    options = dict(info.options)
    players = options.pop("players", [])
    if not isinstance(players, list):  # damaged, but the rest of the line still helps
        players = [players]
    # A map or chit set stored as data is named, not printed whole.
    opts = ", ".join(f"{k} {_option_text(v)}" for k, v in options.items())
    head = f"{title}: {', '.join(map(str, players)) or 'no players'}" + (
        f" ({opts})" if opts else "")
    try:
        game = log.open(info.id)
        # The check replay makes before listing a game: every entry's action and events
        # readable. Without it a game whose events were damaged looked "in progress".
        log.entries(info.id)
    except DamagedEntry as e:
        return (f"{head}; {info.entries} entries, started {info.created}; "
                f"damaged: entry {e.number} cannot be read ({clipped(e.reason)})")
    except UserError as e:  # a game of a kind this program does not know any more
        return f"{head}; {info.entries} entries, started {info.created}; unreadable: {e}"
    tally = game.rules.tally(game.state)
    if not tally.over:
        result = "in progress"
    elif tally.winners:
        result = f"{' and '.join(tally.winners)} won" + (
            f" ({tally.reason})" if tally.reason else "")
    else:
        result = "a draw" + (f" ({tally.reason})" if tally.reason else "")
    return f"{head}; {info.entries} entries, started {info.created}; {result}"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("new", help="start a new game in the log",
                       description="Start a new game in the game log.")
    add_game_args(p)
    _log_arg(p)
    p.set_defaults(func=run_new)

    p = sub.add_parser("play", help="start a game and referee it in the terminal",
                       description="Start a game and referee it in the terminal: type actions, "
                       "see the board and the Supply Center tally. 'help' lists the commands.")
    add_game_args(p)
    _log_arg(p)
    p.add_argument("--seed", type=int, default=None, help="seed of the digital egg")
    p.add_argument("--script", metavar="FILE", help="read the commands from FILE")
    p.set_defaults(func=run_play)

    p = sub.add_parser("resume", help="continue a game from the log",
                       description="Continue a game from the log in the terminal referee.")
    _log_arg(p)
    _game_arg(p)
    p.add_argument("--seed", type=int, default=None, help="seed of the digital egg")
    p.add_argument("--script", metavar="FILE", help="read the commands from FILE")
    p.set_defaults(func=run_resume)

    p = sub.add_parser("replay", help="list a game's actions and events, and its board",
                       description="Replay a game from the log: every action and event, then "
                       "the board it reaches.")
    _log_arg(p)
    _game_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--as", dest="viewer", metavar="PLAYER",
                   help="only what PLAYER (or 'watcher') may see: others' hidden chits, draws "
                   "and private events left out (default: everything in the log)")
    p.set_defaults(func=run_replay)

    p = sub.add_parser("undo", help="take back the last action of a game",
                       description="Take back the last action (the log keeps it as undone).")
    _log_arg(p)
    _game_arg(p)
    p.add_argument("--turn", action="store_true", help="take back the whole turn so far")
    p.set_defaults(func=run_undo)

    p = sub.add_parser("games", help="list the games in the log",
                       description="List the games in the game log.")
    _log_arg(p)
    p.set_defaults(func=run_games)
