"""Typed Peep War commands, and the same notation written back.

Like a chess notation, it names actions briefly; the player is whoever the
game waits for. ``parse`` turns text into an action (or raises ValueError with
the form expected); ``format`` is its inverse.

>>> from companion.rules.peepwar import PeepWar
>>> game = PeepWar(players=("red", "blue"))
>>> state = game.new_state()
>>> parse("hex 1,0", game, state)
PlaceTile(player='red', q=1, r=0)
>>> format(parse("move 2+peep 0,0/c 0,0/1", game, state))
'move 2+peep 0,0/c 0,0/1'
"""

from __future__ import annotations

import re

from companion.errors import quoted
from companion.rules.base import Action
from companion.rules.peepwar.actions import (
    Draw,
    Eat,
    EndMovement,
    EndTurn,
    Move,
    PeepBeans,
    PlaceSupplyCenter,
    PlaceTile,
    Produce,
    Remove,
)
from companion.rules.peepwar.board import parse_cell, parse_tile
from companion.rules.peepwar.rules import PeepWar
from companion.rules.peepwar.state import PeepWarState, Phase

HELP = """\
setup      hex Q,R                    lay a hex of your territory, e.g. hex 1,0
           sc Q,R                     a Supply Center on your hex's central cell, e.g. sc 1,0
upkeep     remove N CELL              remove N troops, e.g. remove 2 1,0/c
           remove peep CELL           remove your peep (remove 1+peep CELL: both)
movement   move N SRC DST             move N troops one step, e.g. move 2 0,0/3 1,0/0
           move peep SRC DST          move your peep; move 2+peep SRC DST moves both
           end                        end movement (fights follow)
combat     in | out                   (2001) put the peep's beans in the egg, or keep them out
           draw                       draw from the digital egg
           draw PLAYER                report the bean you drew from a real egg, e.g. draw blue
           eat troop | eat peep       the round's victor eats a troop bean, or a peep bean
production produce CELL               a troop at a Supply Center manned by a troop and a peep
           jelly CELL                 Peep Growth Jelly: three troops there become a peep
           end                        end the turn
cells      q,r/c is a central cell, q,r/0 .. q,r/5 the border cells (side k faces 60k+30 deg)"""

# A count longer than any cell holds is refused as no count before it is read: int()
# refuses one of more than 4,300 digits in Python's words ("use sys.set_int_max_str_digits()").
_DIGITS = 9
_COUNT = re.compile(rf"^(?:([0-9]{{1,{_DIGITS}}})(?:\+(peep))?|(peep))$")


def _pieces(text: str) -> tuple[int, bool]:
    m = _COUNT.match(text)
    if not m:
        raise ValueError(f"{quoted(text)} is not a number of pieces: write 2, peep or 2+peep")
    if m.group(3):
        return 0, True
    return int(m.group(1)), bool(m.group(2))


def _cell(text: str) -> str:
    return str(parse_cell(text))


def parse(text: str, rules: PeepWar, state: PeepWarState) -> Action:
    """The action a typed command stands for, taken by whoever must act now."""
    words = text.replace("->", " ").split()
    if not words:
        raise ValueError("type a command; 'help' lists them")
    player = rules.to_act(state)
    if player is None:
        raise ValueError("the game is over")
    verb, args = words[0].lower(), words[1:]

    def need(n: int, form: str) -> None:
        if len(args) != n:
            raise ValueError(f"write: {form}")

    if verb in ("hex", "tile"):
        need(1, "hex Q,R (e.g. hex 1,0)")
        q, r = parse_tile(args[0])
        return PlaceTile(player, q, r)
    if verb in ("sc", "supply"):
        need(1, "sc Q,R (e.g. sc 1,0)")
        q, r = parse_tile(args[0].removesuffix("/c"))
        return PlaceSupplyCenter(player, q, r)
    if verb == "move":
        need(3, "move N SRC DST (e.g. move 2 0,0/3 1,0/0) or move peep SRC DST")
        troops, peep = _pieces(args[0])
        return Move(player, _cell(args[1]), _cell(args[2]), troops, peep)
    if verb == "remove":
        need(2, "remove N CELL or remove peep CELL")
        troops, peep = _pieces(args[0])
        return Remove(player, _cell(args[1]), troops, peep)
    if verb == "end":
        if state.phase is Phase.MOVEMENT:
            return EndMovement(player)
        return EndTurn(player)
    if verb in ("in", "out"):
        need(0, verb)
        return PeepBeans(player, verb == "in")
    if verb == "draw":
        need(1, "draw PLAYER (the owner of the bean drawn), or draw alone for the digital egg")
        return Draw(player, args[0].lower())
    if verb == "eat":
        need(1, "eat troop or eat peep")
        return Eat(player, args[0].lower())
    if verb == "produce":
        if len(args) == 2 and args[0] in ("troop", "peep"):
            return Produce(player, _cell(args[1]), args[0])
        need(1, "produce CELL (e.g. produce 1,0/c)")
        return Produce(player, _cell(args[0]), "troop")
    if verb == "jelly":
        need(1, "jelly CELL (e.g. jelly 1,0/c)")
        return Produce(player, _cell(args[0]), "peep")
    raise ValueError(f"unknown command {quoted(verb)}; 'help' lists the commands")


def format(action: Action) -> str:  # noqa: A001 - the inverse of parse
    """The command that :func:`parse` reads back as ``action`` (for the same player)."""
    match action:
        case PlaceTile(q=q, r=r):
            return f"hex {q},{r}"
        case PlaceSupplyCenter(q=q, r=r):
            return f"sc {q},{r}"
        case Move(src=src, dst=dst, troops=t, peep=p):
            return f"move {_count(t, p)} {src} {dst}"
        case Remove(cell=cell, troops=t, peep=p):
            return f"remove {_count(t, p)} {cell}"
        case EndMovement() | EndTurn():
            return "end"
        case PeepBeans(commit=commit):
            return "in" if commit else "out"
        case Draw(owner=owner):
            return f"draw {owner}"
        case Eat(what=what):
            return f"eat {what}"
        case Produce(cell=cell, what="peep"):
            return f"jelly {cell}"
        case Produce(cell=cell):
            return f"produce {cell}"
    raise ValueError(f"no notation for {action!r}")


def _count(troops: int, peep: bool) -> str:
    if troops and peep:
        return f"{troops}+peep"
    return "peep" if peep else str(troops)
