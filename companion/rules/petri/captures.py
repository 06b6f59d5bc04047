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
among those, loses the fewest of the mover's own), and the fewest a careless
order could capture, both exactly: pieces that can never be crowded out are
set aside, the rest split into groups that cannot affect each other, and each
group is searched over sets of removed (and checked) pieces with memoisation;
a capture that cannot spoil another is taken at once.

>>> board = {"0,0": "blue", "1,0": "red", "0,1": "red", "-1,1": "red"}
>>> crowded(board, "0,0"), tallies(board, "0,0")
(True, (0, 3))
>>> advise(board, "red").order
('0,0',)
>>> print(why_not_order(board, (), "red", own_checked=True))
0,0 is crowded out at every point of that order (0 friendly, 3 enemy neighbours): it is captured too
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

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
            return f"{hole} is listed twice"
        seen.add(hole)
        if hole not in live:
            return f"there is no piece at {hole} to capture"
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


def simultaneous(board: Mapping[str, str]) -> list[str]:
    """Every piece crowded out now (the Realtime variant takes them all at once)."""
    return sorted((h for h in board if crowded(board, h)), key=hole_order)


@dataclass(frozen=True)
class Advice:
    """The best capture order and what a careless one would lose."""

    order: tuple[str, ...]
    enemy: int  # enemy pieces the best order captures
    own: int  # the mover's own pieces it loses (crowded out at every point)
    worst: int  # enemy pieces the worst order captures

    @property
    def careless_loss(self) -> int:
        return self.enemy - self.worst

    def to_dict(self) -> dict[str, object]:
        return {"order": list(self.order), "enemy": self.enemy, "own": self.own,
                "worst": self.worst, "careless_loss": self.careless_loss}


class _Position:
    """The board as small integers, for the searches."""

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

    def closure(self, candidates: Iterable[int]) -> set[int]:
        """The candidates that can ever be crowded out, if only such pieces are removed."""
        pool = set(candidates)
        found = {i for i in pool if self.crowded(i, frozenset())}
        grown = True
        while grown:
            grown = False
            for i in pool - found:
                me = self.owner[i]
                friendly = enemy = removable = 0
                for n in _NB[i]:
                    o = self.owner[n]
                    if o < 0:
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

    def groups(self, members: set[int], joined_by: Iterable[int] = ()) -> list[list[int]]:
        """``members`` split into groups that touch (or share a neighbour in ``joined_by``)."""
        links: dict[int, set[int]] = {i: set() for i in members}
        for i in members:
            links[i].update(n for n in _NB[i] if n in members)
        for j in joined_by:
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


def advise(board: Mapping[str, str], mover: str, own_checked: bool = True) -> Advice:
    """The order capturing the most enemy pieces (then losing the fewest own), exactly."""
    pos = _Position(board, mover)
    enemies = [i for i in pos.pieces if pos.owner[i] != pos.mover]
    own = [i for i in pos.pieces if pos.owner[i] == pos.mover] if own_checked else []
    reach = pos.closure(enemies)
    order: list[int] = []
    gone: set[int] = set()
    for group in pos.groups(reach, joined_by=own):
        order.extend(_best(pos, group, own))
    gone.update(order)
    enemy_count = len(order)
    lost = [i for i in own if pos.crowded(i, gone)]
    order.extend(lost)
    worst = 0
    everyone = pos.closure(enemies + own)
    for group in pos.groups(everyone):
        worst += _worst(pos, group)
    return Advice(tuple(HOLES[i] for i in order), enemy_count, len(lost), worst)


def _best(pos: _Position, group: list[int], own: list[int]) -> list[int]:
    """The capture sequence in ``group`` with the most captures, then the fewest own lost."""
    near_own = [j for j in own if any(n in group for n in _NB[j])]
    memo: dict[frozenset[int], tuple[tuple[int, int], tuple[int, ...]]] = {}

    def harmless(i: int, gone: frozenset[int]) -> bool:
        # Taking i off can only make its own player's pieces weaker: never a loss.
        me = pos.owner[i]
        return all(pos.owner[n] in (-1, me, pos.mover) or n in gone for n in _NB[i])

    def solve(gone: frozenset[int]) -> tuple[tuple[int, int], tuple[int, ...]]:
        if gone in memo:
            return memo[gone]
        taken: list[int] = []
        now = gone
        while True:
            free = [i for i in group if i not in now and pos.crowded(i, now) and harmless(i, now)]
            if not free:
                break
            taken.extend(free)
            now = now | frozenset(free)
        options = [i for i in group if i not in now and pos.crowded(i, now)]
        if not options:
            lost = sum(pos.crowded(j, now) for j in near_own)
            result = ((len(now) - len(gone), -lost), tuple(taken))
        else:
            best: tuple[tuple[int, int], tuple[int, ...]] | None = None
            for i in options:
                (n, lost), seq = solve(now | {i})
                value = ((n + 1 + len(taken), lost), (*taken, i, *seq))
                if best is None or value[0] > best[0]:
                    best = value
            assert best is not None
            result = best
        memo[gone] = result
        return result

    return list(solve(frozenset())[1])


def _worst(pos: _Position, group: list[int]) -> int:
    """The fewest enemy pieces any checking order captures in ``group``."""
    memo: dict[tuple[frozenset[int], frozenset[int]], int] = {}

    def solve(gone: frozenset[int], kept: frozenset[int]) -> int:
        key = (gone, kept)
        if key in memo:
            return memo[key]
        left = [i for i in group if i not in gone and i not in kept]
        # A safe piece with no undecided neighbour is best kept at once.
        settle = [i for i in left if not pos.crowded(i, gone) and not any(
            n in left for n in _NB[i])]
        if settle:
            result = solve(gone, kept | frozenset(settle))
        elif not left:
            result = 0
        else:
            result = len(group) + 1
            for i in left:
                if pos.crowded(i, gone):
                    cost = int(pos.owner[i] != pos.mover) + solve(gone | {i}, kept)
                else:
                    cost = solve(gone, kept | {i})
                result = min(result, cost)
        memo[key] = result
        return result

    return solve(frozenset(), frozenset())


def brute_force(board: Mapping[str, str], mover: str, own_checked: bool = True
                ) -> tuple[int, int, int]:
    """(most enemy captures, fewest own lost with them, fewest enemy captures) over every
    order of checking the pieces: the definition :func:`advise` must meet, for small boards."""
    from itertools import permutations

    pieces = checked_pieces(board, mover, own_checked)
    best: tuple[int, int] | None = None
    worst: int | None = None
    for perm in permutations(pieces):
        live = dict(board)
        enemy = own = 0
        for h in perm:
            if crowded(live, h):
                if live.pop(h) == mover:
                    own += 1
                else:
                    enemy += 1
        best = (enemy, -own) if best is None else max(best, (enemy, -own))
        worst = enemy if worst is None else min(worst, enemy)
    if best is None or worst is None:
        return 0, 0, 0
    return best[0], -best[1], worst
