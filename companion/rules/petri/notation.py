"""Typed Petri commands, and the same notation written back.

The player is whoever the game waits for (in the Realtime variant, name them
first: ``blue: die 4``). ``parse`` turns text into an action or raises
ValueError with the form expected; ``format`` is its inverse.

>>> from companion.rules.petri import Petri
>>> game = Petri(players=("red", "blue"))
>>> state = game.new_state()
>>> parse("roll 3 5", game, state)
Roll(player='red', first=3, second=5)
>>> format(parse("place 8,-4  7,-3", game, state))
'place 8,-4 7,-3'
>>> format(parse("capture", game, state))
'capture'
"""

from __future__ import annotations

import re

from companion.errors import clipped, quoted
from companion.rules.base import Action
from companion.rules.petri.actions import Capture, Choose, Place, Remove, Roll
from companion.rules.petri.board import parse_hole
from companion.rules.petri.rules import Petri
from companion.rules.petri.state import PetriState

HELP = """\
roll         let the companion roll the two dice
roll A B     report real dice, e.g. roll 3 5
die N        place (or, with too few in hand, remove) N pieces, e.g. die 5
place H ...  put pieces from your hand on these holes, e.g. place 5,-4 6,-4
remove H ... take your own pieces off these holes (a hand too short to place)
capture H .. capture these pieces in this order, e.g. capture 2,1 3,0 ('capture': none)
best         capture in the suggested order (what the end-turn button does)
holes        q,r in axial coordinates: 0,0 is the centre; homes are the star's points
realtime     everyone plays at once: put your name first, e.g. blue: die 4"""


# A number a player types has a few digits: one longer than any die's is refused as not the
# form before it is read, since int() refuses one of more than 4,300 digits in Python's
# words ("use sys.set_int_max_str_digits()"); and isdigit() takes '²', which int() does not.
_DIGITS = 9
_NUMBER = re.compile(rf"[0-9]{{1,{_DIGITS}}}")


def _player(text: str, rules: Petri, state: PetriState) -> tuple[str, str]:
    head, colon, rest = text.partition(":")
    if colon and head.strip() in rules.players:
        return head.strip(), rest.strip()
    waiting = [p for p in rules.players if p in rules.waiting_for(state)]
    if len(waiting) > 1:
        raise ValueError(f"{' and '.join(waiting)} may all act now: put the player's name "
                         f"first, e.g. {waiting[0]}: {clipped(text.strip())}")
    return (waiting[0] if waiting else ""), text.strip()


def _holes(words: list[str]) -> tuple[str, ...]:
    return tuple(parse_hole(w) for w in words)


def parse(text: str, rules: Petri, state: PetriState) -> Action:
    who, text = _player(text, rules, state)
    word, *rest = text.split() or [""]
    word = word.lower()
    if word == "roll":
        if len(rest) != 2 or not all(_NUMBER.fullmatch(r) for r in rest):
            raise ValueError("type roll A B with the two dice, e.g. roll 3 5 "
                             "(or just roll to let the companion roll)")
        return Roll(who, int(rest[0]), int(rest[1]))
    if word == "die":
        if len(rest) != 1 or not _NUMBER.fullmatch(rest[0]):
            raise ValueError("type die N with one of the numbers you rolled, e.g. die 5")
        return Choose(who, int(rest[0]))
    if word == "place":
        return Place(who, _holes(rest))
    if word == "remove":
        return Remove(who, _holes(rest))
    if word == "capture":
        return Capture(who, _holes(rest))
    if word == "best":
        if rest:
            raise ValueError("type best alone: it captures in the best order the companion "
                             "finds")
        return Capture(who, rules.advice(state, who).order)
    raise ValueError(f"unknown command {quoted(word)}: roll, die, place, remove, capture or best "
                     "('help' lists them)")


def format(action: Action) -> str:
    if isinstance(action, Roll):
        return f"roll {action.first} {action.second}"
    if isinstance(action, Choose):
        return f"die {action.die}"
    if isinstance(action, Place | Remove):
        return " ".join((action.kind, *action.holes))
    if isinstance(action, Capture):
        return " ".join(("capture", *action.order))
    raise ValueError(f"Petri has no action {action.kind!r}")
