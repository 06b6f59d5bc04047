"""Captures: which pieces are crowded out, which capture orders can happen, and the best one.

A piece is *crowded out* when more of its neighbours hold other players'
pieces than its own player's. After the transform, every piece in play is
checked once, one at a time, in an order the player chooses; a crowded-out
piece is taken off at once, which changes what its neighbours see. A capture
order is written as the pieces it captures, in order: it can happen when each
is crowded out at its turn and every other piece is not crowded out at some
point of it (it was checked then) — exactly the results of checking all
pieces in some order.

:func:`advise` finds the order that captures the most enemy pieces (and,
among those, loses the fewest of the mover's own), exactly: pieces that can
never be crowded out are set aside, the rest split into groups that cannot
affect each other, and each group is searched over sets of captured pieces,
bounded and memoised (see :class:`_Search`). What a careless order would lose
is measured against checking in reading order (top row first).

>>> board = {"0,0": "blue", "1,0": "red", "0,1": "red", "-1,1": "red"}
>>> crowded(board, "0,0"), tallies(board, "0,0")
(True, (0, 3))
>>> advise(board, "red").order
('0,0',)
>>> print(why_not_order(board, (), "red", own_checked=True))
0,0 is crowded out at every point of that order (0 friendly, 3 enemy neighbours): it is captured too
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from companion.errors import clipped
from companion.rules.petri.board import HOLES, INDEX, NEIGHBOURS, hole_order

_NB: tuple[tuple[int, ...], ...] = tuple(tuple(INDEX[n] for n in NEIGHBOURS[h]) for h in HOLES)


def tallies(board: Mapping[str, str], hole: str) -> tuple[int, int]:
    """(friendly, enemy) neighbours of the piece in ``hole``."""
    owner = board[hole]
    friendly = enemy = 0
    for n in NEIGHBOURS[hole]:
        p = board.get(n)
        if p is None:
            continue
        if p == owner:
            friendly += 1
        else:
            enemy += 1
    return friendly, enemy


def crowded(board: Mapping[str, str], hole: str) -> bool:
    """True when the piece in ``hole`` has more enemy than friendly neighbours."""
    friendly, enemy = tallies(board, hole)
    return enemy > friendly


def checked_pieces(board: Mapping[str, str], mover: str | None, own_checked: bool) -> list[str]:
    """The pieces a capture check looks at (the mover's own too, unless they are safe)."""
    return sorted((h for h, p in board.items() if own_checked or p != mover), key=hole_order)


def why_not_order(board: Mapping[str, str], order: Sequence[str], mover: str | None,
                  own_checked: bool) -> str | None:
    """None when checking the pieces can capture exactly ``order``, in that order; else why."""
    live = dict(board)
    checked = set(checked_pieces(board, mover, own_checked))
    seen: set[str] = set()
    ever_safe = {h for h in checked if not crowded(live, h)}
    for hole in order:
        if hole in seen:
            return f"{clipped(hole)} is listed twice"
        seen.add(hole)
        if hole not in live:
            return f"there is no piece at {clipped(hole)} to capture"
        if hole not in checked:
            return f"{hole} holds {mover}'s own piece, which is never captured on {mover}'s turn"
        friendly, enemy = tallies(live, hole)
        if enemy <= friendly:
            return (f"{hole} is not crowded out then ({friendly} friendly, {enemy} enemy "
                    "neighbours)")
        del live[hole]
        for n in NEIGHBOURS[hole]:
            if n in live and n in checked and not crowded(live, n):
                ever_safe.add(n)
    for hole in checked_pieces(board, mover, own_checked):
        if hole not in seen and hole not in ever_safe:
            friendly, enemy = tallies(live, hole)
            return (f"{hole} is crowded out at every point of that order ({friendly} friendly, "
                    f"{enemy} enemy neighbours): it is captured too")
    return None


def capture_orders(board: Mapping[str, str], mover: str | None, own_checked: bool,
                   among: Iterable[str] | None = None) -> Iterator[tuple[str, ...]]:
    """One legal capture order for each set of pieces that can be captured (of ``among``
    only, if given). Which orders are legal depends on the pieces that have had a safe
    moment on the way, so the search runs over (captured, safe so far)."""
    checked = set(checked_pieces(board, mover, own_checked))
    allowed = checked if among is None else checked & set(among)
    given: set[frozenset[str]] = set()
    visited: set[tuple[frozenset[str], frozenset[str]]] = set()
    stack = [((), frozenset(h for h in checked if not crowded(board, h)))]
    while stack:
        order, safe = stack.pop()
        taken = frozenset(order)
        if (taken, safe) in visited:
            continue
        visited.add((taken, safe))
        if taken not in given and checked - taken <= safe:
            given.add(taken)
            yield order
        live = {h: p for h, p in board.items() if h not in taken}
        for hole in sorted(allowed - taken, key=hole_order, reverse=True):
            if not crowded(live, hole):
                continue
            after = {h: p for h, p in live.items() if h != hole}
            now_safe = {n for n in NEIGHBOURS[hole]
                        if n in after and n in checked and not crowded(after, n)}
            stack.append(((*order, hole), safe | now_safe))


def simultaneous(board: Mapping[str, str]) -> list[str]:
    """Every piece crowded out now (the Realtime variant takes them all at once)."""
    return sorted((h for h in board if crowded(board, h)), key=hole_order)


@dataclass(frozen=True)
class Advice:
    """The best capture order, and what checking in reading order would capture instead."""

    order: tuple[str, ...]
    enemy: int  # enemy pieces the best order captures
    own: int  # the mover's own pieces it loses (crowded out at every point)
    careless: int  # enemy pieces captured by checking in reading order (top row first)
    exact: bool = True  # False: the search ran out of its budget; the order is greedy

    @property
    def careless_loss(self) -> int:
        return self.enemy - self.careless

    def to_dict(self) -> dict[str, object]:
        return {"order": list(self.order), "enemy": self.enemy, "own": self.own,
                "careless": self.careless, "careless_loss": self.careless_loss,
                "exact": self.exact}


class _Position:
    """The board as small integers, for the search."""

    def __init__(self, board: Mapping[str, str], mover: str | None) -> None:
        names = sorted(set(board.values()))
        self.owner: list[int] = [-1] * len(HOLES)
        for h, p in board.items():
            self.owner[INDEX[h]] = names.index(p)
        self.mover = names.index(mover) if mover in names else -2
        self.pieces = [i for i, o in enumerate(self.owner) if o >= 0]

    def crowded(self, i: int, gone: set[int] | frozenset[int]) -> bool:
        me, friendly, enemy = self.owner[i], 0, 0
        for n in _NB[i]:
            o = self.owner[n]
            if o < 0 or n in gone:
                continue
            if o == me:
                friendly += 1
            else:
                enemy += 1
        return enemy > friendly

    def closure(self, candidates: Iterable[int], gone: frozenset[int] = frozenset()) -> set[int]:
        """The candidates that can ever be crowded out, if only such pieces are removed."""
        pool = set(candidates) - gone
        found = {i for i in pool if self.crowded(i, gone)}
        grown = True
        while grown:
            grown = False
            for i in pool - found:
                me = self.owner[i]
                friendly = enemy = removable = 0
                for n in _NB[i]:
                    o = self.owner[n]
                    if o < 0 or n in gone:
                        continue
                    if o == me:
                        friendly += 1
                        removable += n in found
                    else:
                        enemy += 1
                if enemy > friendly - removable:
                    found.add(i)
                    grown = True
        return found

    def groups(self, members: set[int], joined_by: frozenset[int] = frozenset()
               ) -> list[list[int]]:
        """``members`` split into groups that touch (or share a neighbour in ``joined_by``)."""
        links: dict[int, set[int]] = {i: set() for i in members}
        for i in members:
            links[i].update(n for n in _NB[i] if n in members)
        for j in {n for i in members for n in _NB[i] if n in joined_by}:
            near = [n for n in _NB[j] if n in members]
            for a in near:
                links[a].update(near)
        out, left = [], set(members)
        while left:
            stack, group = [left.pop()], []
            while stack:
                i = stack.pop()
                group.append(i)
                for n in links[i]:
                    if n in left:
                        left.remove(n)
                        stack.append(n)
            out.append(sorted(group))
        return out


BUDGET = 3000  # sets searched before the page, the bot and the button settle for less


def advise(board: Mapping[str, str], mover: str, own_checked: bool = True,
           budget: int | None = None) -> Advice:
    """The order capturing the most enemy pieces (then losing the fewest own), exactly.

    With a ``budget`` (sets of captured pieces searched), a board too tangled to finish within it
    gets a greedy order instead (legal, not proven best: ``exact`` is False).
    """
    return _advise(frozenset(board.items()), mover, own_checked, budget)


@lru_cache(maxsize=64)  # the page asks again for every update while the player decides
def _advise(items: frozenset[tuple[str, str]], mover: str, own_checked: bool,
            budget: int | None) -> Advice:
    board = dict(items)
    pos = _Position(board, mover)
    enemies = [i for i in pos.pieces if pos.owner[i] != pos.mover]
    own = [i for i in pos.pieces if pos.owner[i] == pos.mover] if own_checked else []
    try:
        _, _, seq = _Search(pos, own, budget).solve(frozenset(enemies), frozenset())
        exact = True
    except _OutOfBudget:
        seq, exact = _greedy(pos, enemies), False
    gone = set(seq)
    lost = [i for i in own if pos.crowded(i, gone)]
    return Advice(tuple(HOLES[i] for i in (*seq, *lost)), len(seq), len(lost),
                  careless(board, mover, own_checked), exact)


def _greedy(pos: _Position, enemies: list[int]) -> tuple[int, ...]:
    """Capture while anything falls, each time the piece whose fall saves the fewest."""
    gone: set[int] = set()
    seq = []
    while True:
        options = [i for i in enemies if i not in gone and pos.crowded(i, gone)]
        if not options:
            return tuple(seq)
        pick = min(options, key=lambda i: (sum(
            1 for n in _NB[i] if n not in gone and pos.owner[n] not in (-1, pos.owner[i],
                                                                         pos.mover)), i))
        gone.add(pick)
        seq.append(pick)


def careless(board: Mapping[str, str], mover: str, own_checked: bool = True) -> int:
    """Enemy pieces captured by checking every piece in reading order, top row first."""
    live = dict(board)
    taken = 0
    for hole in checked_pieces(board, mover, own_checked):
        if crowded(live, hole):
            taken += live.pop(hole) != mover
    return taken


class _OutOfBudget(Exception):
    """The exact search used up its budget; the caller falls back to a greedy order."""


Result = tuple[int, int, tuple[int, ...]]  # enemy captured, own lost, the captures in order


class _Search:
    """The most captures (then the fewest own pieces lost) among ``pieces``, exactly.

    Pieces that can no longer be crowded out are set aside; the rest fall into
    groups that cannot affect each other (they neither touch nor share one of
    the mover's pieces), each searched on its own and memoised by the group and
    the captured pieces around it. A capture that cannot spoil another (its
    neighbours in play are its own player's or the mover's) is taken at once, and
    a piece that falls however the others do, and whose fall helps nobody, last.
    """

    def __init__(self, pos: _Position, own: list[int], budget: int | None = None) -> None:
        self.pos = pos
        self.budget = budget
        self.own = frozenset(own)
        self.memo: dict[tuple[frozenset[int], frozenset[int]], Result] = {}

    def _watched(self, pieces: Iterable[int]) -> set[int]:
        return {n for i in pieces for n in _NB[i] if n in self.own}

    def _hurts(self, i: int, live: frozenset[int]) -> bool:
        me = self.pos.owner[i]
        return any(n in live and self.pos.owner[n] not in (me, self.pos.mover) for n in _NB[i])

    def _falls_anyway(self, i: int, pieces: frozenset[int], gone: frozenset[int]) -> bool:
        """True when i is crowded out however the others fall, and taking it off helps
        nobody that matters: it is best taken last."""
        me, friendly, enemy = self.pos.owner[i], 0, 0
        for n in _NB[i]:
            o = self.pos.owner[n]
            if o < 0 or n in gone:
                continue
            if n in self.own or (o == me and n in pieces):
                return False
            if o == me:
                friendly += 1
            elif n not in pieces:
                enemy += 1
        return enemy > friendly

    def solve(self, pieces: frozenset[int], gone: frozenset[int]) -> Result:
        if self.budget is not None:
            self.budget -= 1
            if self.budget < 0:
                raise _OutOfBudget
        pos = self.pos
        watched = self._watched(pieces)
        taken: list[int] = []
        while True:
            free = [i for i in pieces if pos.crowded(i, gone) and not self._hurts(i, pieces)]
            if not free:
                break
            taken.extend(sorted(free))
            gone, pieces = gone | frozenset(free), pieces - frozenset(free)
        last = sorted(i for i in pieces if self._falls_anyway(i, pieces, gone))
        pieces = pieces - frozenset(last)
        active = pos.closure(pieces, gone)
        groups = pos.groups(active, joined_by=self.own)
        count, lost, seq = len(taken) + len(last), 0, tuple(taken)
        for group in groups:
            c, o, s = self._branch(frozenset(group), gone)
            count, lost, seq = count + c, lost + o, (*seq, *s)
        seq = (*seq, *last)
        orphans = watched - self._watched(active)
        lost += sum(pos.crowded(j, gone) for j in orphans)
        return count, lost, seq

    def _branch(self, group: frozenset[int], gone: frozenset[int]) -> Result:
        pos = self.pos
        around = {n for i in group for n in _NB[i]}
        around |= {n for j in self._watched(group) for n in _NB[j]}
        key = (group, gone & around)
        if key in self.memo:
            return self.memo[key]
        best: Result | None = None
        for i in sorted(group):
            if not pos.crowded(i, gone):
                continue
            if best is not None:
                # What can still fall after taking i bounds what this branch can reach.
                most = 1 + len(pos.closure(group - {i}, gone | {i}))
                if most < best[0] or (most == best[0] and best[1] == 0):
                    continue
            c, o, s = self.solve(group - {i}, gone | {i})
            # The mover's pieces beside i alone are watched by no part of what is left:
            # nothing left can move their neighbours, so they are lost or kept as they stand.
            o += sum(pos.crowded(j, gone | {i})
                     for j in self._watched({i}) - self._watched(group - {i}))
            if best is None or (c + 1, -o) > (best[0], -best[1]):
                best = (c + 1, o, (i, *s))
        if best is None:
            best = (0, sum(pos.crowded(j, gone) for j in self._watched(group)), ())
        self.memo[key] = best
        return best
