"""Petri's state: the board, each player's hand, capture cup and removed pieces, and the
turns in progress."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from companion.rules.petri.board import hole_order


class Step(enum.Enum):
    ROLL = "roll"
    DIE = "die"
    PLACE = "place"
    REMOVE = "remove"
    CAPTURE = "capture"
    DONE = "done"  # Realtime: this player's transform is over; the round waits for the rest


@dataclass(frozen=True)
class Part:
    """One player's turn in progress."""

    step: Step = Step.ROLL
    dice: tuple[int, ...] = ()
    die: int = 0
    left: int = 0  # pieces still to place or remove
    start: frozenset[str] = frozenset()  # the holes the player held when the turn began


@dataclass(frozen=True)
class PetriState:
    players: tuple[str, ...]
    homes: tuple[int, ...]
    board: Mapping[str, str]  # hole -> player
    hands: Mapping[str, int]
    cups: Mapping[str, int]
    boxed: Mapping[str, int]  # removed pieces out of the game (the "box" reading)
    parts: Mapping[str, Part] = field(default_factory=dict)  # turns in progress
    current: int = 0  # seat whose turn it is (in Realtime, unused)
    turn: int = 1  # a player's turn, or in Realtime a round
    played: frozenset[str] = frozenset()  # players who have finished a turn
    over: bool = False
    reason: str = ""

    def holes_of(self, player: str) -> list[str]:
        return sorted((h for h, p in self.board.items() if p == player), key=hole_order)

    def on_board(self, player: str) -> int:
        return sum(1 for p in self.board.values() if p == player)

    def counted(self) -> int:
        """Every piece: board, hands, cups and the box (the starting total, always)."""
        return (len(self.board) + sum(self.hands.values()) + sum(self.cups.values())
                + sum(self.boxed.values()))

    def with_part(self, player: str, part: Part | None) -> PetriState:
        parts = dict(self.parts)
        if part is None:
            parts.pop(player, None)
        else:
            parts[player] = part
        return replace(self, parts=parts)


def bump(counts: Mapping[str, int], player: str, by: int) -> dict[str, int]:
    out = dict(counts)
    out[player] = out.get(player, 0) + by
    return out
