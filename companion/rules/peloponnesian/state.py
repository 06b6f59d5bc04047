"""The state of one game: immutable, every collection a tuple, changed by ``replace``.

Orientation counters are kept as ``(area, player, count)``, the cup as
``(chit, count)`` in the chit set's order, hands as sorted chit tuples, and
the chits on the map in the order they were played. A chit is always in
exactly one place: the cup, a hand, the map, put aside by Delphi's holder,
or retired.
"""

from __future__ import annotations

from dataclasses import dataclass

TURNS = 15  # the game's length

SETUP, DRAW, DELPHI, REDRAW, PLAY, REVEAL, OVER = (
    "setup", "draw", "delphi", "redraw", "play", "reveal", "over")


@dataclass(frozen=True)
class Placed:
    """A chit on the map: who put it down (its side of the area), what it is, and for
    the Star chit what it was played as."""

    player: str
    chit: str
    area: str
    star_as: str = ""


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    phase: str = SETUP
    turn: int = 0
    round: int = 0
    to_place: tuple[str, ...] = ()  # set-up: who places next, in order
    draws: tuple[str, ...] = ()  # who draws next, one entry per chit
    counters: tuple[tuple[str, str, int], ...] = ()
    cup: tuple[tuple[str, int], ...] = ()
    hands: tuple[tuple[str, tuple[str, ...]], ...] = ()
    aside: str = ""  # the chit Delphi's holder discarded, back in the cup after the redraw
    board: tuple[Placed, ...] = ()  # chits on the map, in the order they were played
    played: tuple[str, ...] = ()  # who has played (or passed) this round
    retired: tuple[str, ...] = ()
    star_plays: int = 0
    winners: tuple[str, ...] = ()
    reason: str = ""

    # --- reading ------------------------------------------------------------------------

    def hand(self, player: str) -> tuple[str, ...]:
        return dict(self.hands).get(player, ())

    def in_cup(self, chit: str) -> int:
        return dict(self.cup).get(chit, 0)

    def cup_size(self) -> int:
        return sum(n for _, n in self.cup)

    def counters_in(self, area: str) -> dict[str, int]:
        return {p: n for a, p, n in self.counters if a == area}

    def holder(self, area: str) -> str | None:
        """The player the area is oriented to (None: neutral)."""
        for a, p, n in self.counters:
            if a == area and n:
                return p
        return None

    def areas_of(self, player: str) -> frozenset[str]:
        return frozenset(a for a, p, n in self.counters if p == player and n)

    def counters_of(self, player: str) -> int:
        return sum(n for _, p, n in self.counters if p == player)

    def chits_in(self, area: str) -> tuple[Placed, ...]:
        return tuple(c for c in self.board if c.area == area)

    def sides_in(self, area: str) -> tuple[str, ...]:
        """The players with chits in ``area``, in the order they first played there."""
        out: list[str] = []
        for c in self.board:
            if c.area == area and c.player not in out:
                out.append(c.player)
        return tuple(out)

    # --- changing (each returns a new tuple) ----------------------------------------------

    def with_counter(self, area: str, player: str, delta: int) -> tuple[tuple[str, str, int], ...]:
        have = self.counters_in(area).get(player, 0) + delta
        rest = [c for c in self.counters if not (c[0] == area and c[1] == player)]
        if have > 0:
            rest.append((area, player, have))
        return tuple(sorted(rest))

    def with_hand(self, player: str, chits: tuple[str, ...]
                  ) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((p, tuple(sorted(chits)) if p == player else h) for p, h in self.hands)

    def with_cup(self, chit: str, delta: int) -> tuple[tuple[str, int], ...]:
        return tuple((c, n + delta if c == chit else n) for c, n in self.cup)
