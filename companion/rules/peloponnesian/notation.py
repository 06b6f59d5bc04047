"""The typed notation: ``[player] verb args``, e.g. ``athens play military megara``.

The player may be left out when only one player is waited for. Areas and
chits are named by their ids (``attica``, ``persian-gold``) or their names.

>>> from companion.rules.peloponnesian.rules import PeloponnesianWar
>>> rules = PeloponnesianWar(["sparta", "athens", "thebes"])
>>> s = rules.new_state()
>>> parse("place Megara", rules, s)
Place(player='sparta', area='megara')
>>> format(Play("athens", "star", "megara", "coup"))
'athens play star megara as coup'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.errors import clipped, quoted
from companion.rules.base import Action
from companion.rules.peloponnesian.actions import Draw, Keep, Pass, Place, Play, Resolve, Swap
from companion.rules.peloponnesian.chits import STAR, STAR_AS
from companion.rules.peloponnesian.state import State

if TYPE_CHECKING:
    from companion.rules.peloponnesian.rules import PeloponnesianWar

HELP = """\
place AREA         set-up: put your second counter on AREA
draw CHIT          the chit you took from the real cup ('draw' alone: the companion's cup)
swap CHIT | keep   Delphi's holder: discard CHIT and draw another, or keep the hand
play CHIT AREA     put a chit face down (the Star: play star AREA as military|influence|coup|void)
pass               when no chit can be played
resolve            the chits are face up: resolve the struggles and end the turn
Name the player first when several may act: athens play coup megara"""


def _slug(text: str) -> str:
    return "-".join(text.lower().replace("!", "").split())


def area_id(rules: PeloponnesianWar, word: str) -> str:
    for a in rules.map.areas.values():
        if word in (a.id, _slug(a.name)):
            return a.id
    raise ValueError(f"there is no area {quoted(word)}; areas: {', '.join(rules.map.areas)}")


def chit_id(rules: PeloponnesianWar, word: str) -> str:
    for chit in rules.chits.ids():
        if word == chit or (rules.chits.is_special(chit)
                            and word == _slug(rules.chits.special(chit).name)):
            return chit
    raise ValueError(f"there is no chit {quoted(word)}; chits: {', '.join(rules.chits.ids())}")


def parse(text: str, rules: PeloponnesianWar, state: State) -> Action:
    """The action ``text`` means; ValueError saying why it cannot be read."""
    words = text.strip().lower().split()
    if not words:
        raise ValueError("type an action; 'help' lists them")
    waiting = sorted(rules.waiting_for(state))
    if words[0] in rules.players:
        player = words.pop(0)
    elif len(waiting) == 1:
        player = waiting[0]
    elif waiting:
        raise ValueError(f"{' and '.join(waiting)} may act now: start with the player, e.g. "
                         f"'{waiting[0]} {clipped(' '.join(words))}'")
    else:
        raise ValueError("nobody is to act: the game is over")
    if not words:
        raise ValueError(f"what does {player} do? 'help' lists the actions")
    verb, args = words[0], words[1:]
    shapes = {"place": 1, "draw": 1, "swap": 1, "keep": 0, "play": 2, "pass": 0,
              "resolve": 0, "end": 0}
    if verb not in shapes:
        raise ValueError(f"unknown action {quoted(verb)}; actions: place, draw, swap, keep, play, "
                         "pass, resolve")
    if verb == "play" and len(args) == 4 and args[2] == "as":
        if args[3] not in STAR_AS:
            raise ValueError(f"the Star is played as {', '.join(STAR_AS)}, not {quoted(args[3])}")
        chit = chit_id(rules, args[0])
        return Play(player, chit, area_id(rules, args[1]), args[3] if chit == STAR else "")
    if len(args) != shapes[verb]:
        usage = {"place": "place AREA", "draw": "draw CHIT", "swap": "swap CHIT",
                 "play": "play CHIT AREA (play star AREA as KIND)"}.get(verb, verb)
        raise ValueError(f"type {usage}")
    if verb == "place":
        return Place(player, area_id(rules, args[0]))
    if verb == "draw":
        return Draw(player, chit_id(rules, args[0]))
    if verb == "swap":
        return Swap(player, chit_id(rules, args[0]))
    if verb == "keep":
        return Keep(player)
    if verb == "pass":
        return Pass(player)
    if verb in ("resolve", "end"):
        return Resolve(player)
    chit = chit_id(rules, args[0])
    if chit == STAR:
        raise ValueError("say what the Star is played as: play star AREA as KIND")
    return Play(player, chit, area_id(rules, args[1]))


def format(action: Action) -> str:  # noqa: A001 - the bundle's name for it
    """``action`` in the notation, always naming the player."""
    if isinstance(action, Place):
        return f"{action.player} place {action.area}"
    if isinstance(action, Draw | Swap):
        return f"{action.player} {action.kind} {action.chit}"
    if isinstance(action, Play):
        star = f" as {action.star_as}" if action.chit == STAR else ""
        return f"{action.player} play {action.chit} {action.area}{star}"
    if isinstance(action, Keep | Pass | Resolve):
        return f"{action.player} {action.kind}"
    raise ValueError(f"{action.kind} is not an action of A Peloponnesian War")
