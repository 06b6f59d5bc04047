"""Explaining what the camera sees as legal Peep War actions.

The camera gives a new stable :class:`~companion.rules.peepwar.observation.PeepWarObservation`; the
game knows the state before it. :func:`infer` looks for the legal actions that
turn the state into one that looks exactly like the observation: hexes and
Supply Centers laid in setup, forced removals, moves, and production. If the
table matches an earlier state, that is offered as an undo; if nothing
explains it, the differences are listed in plain words for the players to fix.
Nothing is ever accepted that the rules refuse.

>>> from companion.rules.peepwar import PeepWar
>>> from companion.rules.peepwar.observation import PeepWarObservation, TileSeen
>>> rules = PeepWar(players=("red", "blue"))
>>> state = rules.new_state()
>>> seen = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(1, 1, 0)))
>>> infer(rules, state, seen).actions
(PlaceTile(player='red', q=1, r=0),)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from companion.observation import Inference
from companion.rules.base import Action
from companion.rules.peepwar.actions import (
    Move,
    PlaceSupplyCenter,
    PlaceTile,
    Produce,
    Remove,
)
from companion.rules.peepwar.board import cell_name, cell_neighbours, cells_of, parse_cell
from companion.rules.peepwar.observation import (
    CellReading,
    PeepWarObservation,
    Pieces,
    TileSeen,
)
from companion.rules.peepwar.rules import NEUTRAL_SUPPLY, PeepWar
from companion.rules.peepwar.state import PeepWarState, Phase, cell_order

MAX_EXPLANATIONS = 64
MAX_ORDERINGS = 720
SETUP_BUDGET = 4000  # rules applications before a setup reading is called a problem


def expected_observation(state: PeepWarState) -> PeepWarObservation:
    """What a perfect camera would report for ``state`` (tile ids are unknown: -1)."""
    cells: dict[str, CellReading] = {}
    for cell in set(state.pieces) | set(state.supply_centers):
        pieces = {
            p: Pieces(st.troops, bool(st.peep))
            for p, st in state.pieces.get(cell, {}).items()
            if st.troops or st.peep
        }
        cells[cell] = CellReading(supply_center=cell in state.supply_centers, pieces=pieces)
    tiles = tuple(TileSeen(-1, q, r) for q, r in sorted(state.tiles))
    return PeepWarObservation(game="peepwar", tiles=tiles, cells=cells)


def _describe(pieces: dict[str, Pieces]) -> str:
    if not pieces:
        return "nothing"
    parts = []
    for p, v in sorted(pieces.items()):
        what = []
        if v.troops:
            what.append(f"{v.troops} troop" + ("s" if v.troops != 1 else ""))
        if v.peep:
            what.append("a peep")
        parts.append(f"{p} {' and '.join(what)}")
    return ", ".join(parts)


def cells_on_no_tile(state: PeepWarState, obs: PeepWarObservation) -> list[str]:
    """The cells ``obs`` reads that lie on no tile of the table: neither one of the game's
    nor one the camera sees. A tile seen but not yet in the game is the table's (in setup
    the camera may see a hex laid with its Supply Center before the referee has it), and
    so is a game's tile the camera does not see this frame (a hand over it, its cells
    occluded)."""
    board = set(state.tiles) | obs.positions
    return sorted((c for c in obs.cells if parse_cell(c).tile not in board), key=cell_order)


def differences(state: PeepWarState, obs: PeepWarObservation) -> list[str]:
    """Every way ``obs`` disagrees with ``state``, in words; cells not seen are not compared.

    A hex the camera does not see is not a difference (it may be covered), and
    neither is an occluded cell: unknown is never read as empty.
    """
    out = []
    seen = obs.positions
    for q, r in sorted(seen - set(state.tiles)):
        out.append(f"the camera sees a hex at {q},{r} that is not in the game")
    expected = expected_observation(state)
    names = set(expected.cells) | set(obs.cells)
    for cell in sorted(names, key=cell_order):
        tile = parse_cell(cell).tile
        if tile not in seen or tile not in state.tiles:
            continue
        got = obs.reading(cell)
        if got.occluded:
            continue
        want = expected.reading(cell)
        if got.supply_center != want.supply_center:
            has = "a Supply Center" if got.supply_center else "no Supply Center"
            out.append(f"{cell}: the camera sees {has} there; the game "
                       f"{'has one' if want.supply_center else 'has none'}")
        if dict(got.pieces) != dict(want.pieces):
            out.append(f"{cell}: the camera sees {_describe(dict(got.pieces))}; the game has "
                       f"{_describe(dict(want.pieces))}")
    return out


def infer(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation,
          history: Sequence[PeepWarState] = ()) -> Inference:
    """Explain ``obs`` from ``state``; ``history`` holds earlier states, most recent last."""
    if not differences(state, obs):
        return Inference("same")
    found = list(itertools.islice(_explanations(rules, state, obs), MAX_EXPLANATIONS))
    if found:
        fewest = min(len(a) for a in found)
        best = [a for a in found if len(a) == fewest]
        return Inference("actions", actions=best[0], alternatives=len(best) - 1)
    for back, earlier in enumerate(reversed(history), start=1):
        if not differences(earlier, obs):
            return Inference("undo", undo=back)
    problems = differences(state, obs)
    covered = sorted(obs.occluded, key=cell_order)
    if covered:
        problems.append(f"covered, so not read: {', '.join(covered)}")
    return Inference("problem", problems=tuple(problems))


def _explanations(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation
                  ) -> Iterator[tuple[Action, ...]]:
    player = rules.to_act(state)
    if player is None:
        return
    if state.phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY):
        yield from _setup(rules, state, obs)
    elif state.phase is Phase.UPKEEP:
        yield from _removals(rules, state, obs, player)
    elif state.phase is Phase.MOVEMENT:
        yield from _movement(rules, state, obs, player)
    elif state.phase is Phase.PRODUCTION:
        yield from _production(rules, state, obs, player)


def _matches(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation) -> bool:
    return not differences(state, obs)


def _setup(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation
           ) -> Iterator[tuple[Action, ...]]:
    """Hexes and Supply Centers laid since ``state``, in the setup order."""
    new_tiles = obs.positions - set(state.tiles)
    # The Neutral Supply Center arrives with the last placement; nobody places it.
    new_centres = {
        c for c, r in obs.cells.items()
        if r.supply_center and c not in state.supply_centers and parse_cell(c).is_central
        and c != NEUTRAL_SUPPLY
    }

    budget = [SETUP_BUDGET]
    dead_ends: set = set()

    def search(s: PeepWarState, tiles: frozenset, centres: frozenset, done: tuple
               ) -> Iterator[tuple[Action, ...]]:
        # The same hexes left with the same player to lay next fail the same way.
        key = (tiles, centres, s.setup_step, frozenset(s.tiles.items()))
        if key in dead_ends or budget[0] <= 0:
            return
        found = False
        for way in _search(s, tiles, centres, done):
            found = True
            yield way
        if not found:
            dead_ends.add(key)

    def _search(s: PeepWarState, tiles: frozenset, centres: frozenset, done: tuple
                ) -> Iterator[tuple[Action, ...]]:
        if not tiles and not centres:
            if _matches(rules, s, obs):
                yield done
            return
        who = rules.to_act(s)
        if who is None:
            return
        options: list[Action] = [PlaceTile(who, q, r) for q, r in sorted(tiles)]
        options += [PlaceSupplyCenter(who, *parse_cell(c).tile) for c in sorted(centres)]
        for a in options:
            if rules.is_legal(s, a):
                budget[0] -= 1
                nxt, _ = rules.apply(s, a)
                if isinstance(a, PlaceTile):
                    yield from search(nxt, tiles - {(a.q, a.r)}, centres, (*done, a))
                else:
                    yield from search(nxt, tiles, centres - {cell_name((a.q, a.r), "c")},
                                      (*done, a))

    yield from search(state, frozenset(new_tiles), frozenset(new_centres), ())


def _deltas(state: PeepWarState, obs: PeepWarObservation, player: str
            ) -> tuple[dict[str, int], dict[str, int], list[str]]:
    """Per cell, the change in ``player``'s troops and peeps; and cells where others changed."""
    troops: dict[str, int] = {}
    peeps: dict[str, int] = {}
    others: list[str] = []
    seen = obs.positions
    for tile in sorted(set(state.tiles) & seen):
        for cell in cells_of(tile):
            got = obs.reading(cell)
            if got.occluded:
                continue
            want = state.stack(cell, player)
            have = got.pieces.get(player, Pieces(0, False))
            if have.troops != want.troops:
                troops[cell] = have.troops - want.troops
            if have.peep != bool(want.peep):
                peeps[cell] = int(have.peep) - int(bool(want.peep))
            for other in set(got.pieces) | set(state.pieces.get(cell, {})):
                if other == player:
                    continue
                st = state.stack(cell, other)
                if got.pieces.get(other, Pieces(0, False)) != Pieces(st.troops, bool(st.peep)):
                    others.append(cell)
    return troops, peeps, others


def _removals(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation, player: str
              ) -> Iterator[tuple[Action, ...]]:
    troops, peeps, others = _deltas(state, obs, player)
    if others or any(v > 0 for v in troops.values()) or any(v > 0 for v in peeps.values()):
        return
    cells = sorted(set(troops) | set(peeps), key=cell_order)
    actions = [Remove(player, c, -troops.get(c, 0), peeps.get(c, 0) < 0) for c in cells]
    yield from _in_some_order(rules, state, obs, actions)


def _production(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation, player: str
                ) -> Iterator[tuple[Action, ...]]:
    troops, peeps, others = _deltas(state, obs, player)
    if others:
        return
    actions: list[Action] = []
    for cell in sorted(set(troops) | set(peeps), key=cell_order):
        dt, dp = troops.get(cell, 0), peeps.get(cell, 0)
        if (dt, dp) == (1, 0):
            actions.append(Produce(player, cell, "troop"))
        elif (dt, dp) == (-3, 1):
            actions.append(Produce(player, cell, "peep"))
        else:
            return
    yield from _in_some_order(rules, state, obs, actions)


def _movement(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation, player: str
              ) -> Iterator[tuple[Action, ...]]:
    troops, peeps, others = _deltas(state, obs, player)
    if others:
        return
    unmoved_troops = {c: state.stack(c, player).unmoved for c in state.pieces}
    unmoved_peeps = {
        c: int(bool(st.peep) and not st.peep_moved)
        for c in state.pieces if (st := state.stack(c, player))
    }
    troop_flow = _fewest_moves(troops, unmoved_troops, state.tiles)
    peep_flow = _fewest_moves(peeps, unmoved_peeps, state.tiles)
    if troop_flow is None or peep_flow is None:
        return
    moves: dict[tuple[str, str], list] = {}
    for (src, dst), n in troop_flow.items():
        moves.setdefault((src, dst), [0, False])[0] += n
    for src, dst in peep_flow:
        moves.setdefault((src, dst), [0, False])[1] = True
    actions = [Move(player, a, b, n, p) for (a, b), (n, p) in sorted(moves.items())]
    for way in _in_some_order(rules, state, obs, actions):
        yield way
        if sum(peep_flow.values()) > 1:
            # Peeps differ (health, whether they moved): when several moved, the camera
            # cannot tell which went where, so the players must confirm.
            yield way


def _fewest_moves(delta: dict[str, int], movable: dict[str, int], tiles
                  ) -> dict[tuple[str, str], int] | None:
    """The fewest one-step moves that change each cell's count by ``delta``.

    Beans are alike, so a troop seen two cells away may be a chain: one troop
    stepped into a cell while another stepped out of it. A min-cost flow over
    the cells finds it; a cell can send out at most its ``movable`` pieces.
    None when no legal set of steps gives ``delta``.
    """
    if not delta:
        return {}
    supply = {c: -d for c, d in delta.items() if d < 0}
    demand = {c: d for c, d in delta.items() if d > 0}
    if sum(supply.values()) != sum(demand.values()):
        return None
    cells = sorted({c for c, n in movable.items() if n} | set(supply) | set(demand),
                   key=cell_order)
    graph = _FlowGraph()
    for c in cells:
        # c/in: pieces arriving; c/gate: pieces leaving (at most the movable ones).
        graph.add(("in", c), ("gate", c), 10**6, 0)
        graph.add(("gate", c), ("out", c), movable.get(c, 0), 0)
        if c in supply:
            graph.add("S", ("gate", c), supply[c], 0)
        if c in demand:
            graph.add(("in", c), "T", demand[c], 0)
        for n in cell_neighbours(parse_cell(c), tiles):
            if n in cells:
                graph.add(("out", c), ("in", n), 10**6, 1)
    if graph.min_cost_flow("S", "T") != sum(demand.values()):
        return None
    flow = {}
    for (u, v), f in graph.flows().items():
        if f > 0 and isinstance(u, tuple) and u[0] == "out" and isinstance(v, tuple):
            flow[(u[1], v[1])] = f
    return flow


class _FlowGraph:
    """A small min-cost max-flow (successive shortest paths with Bellman-Ford)."""

    def __init__(self) -> None:
        self.edges: list[list] = []  # [to, capacity, cost, reverse index]
        self.adj: dict = {}
        self.origin: list[tuple] = []

    def add(self, u, v, cap: int, cost: int) -> None:
        self.adj.setdefault(u, []).append(len(self.edges))
        self.edges.append([v, cap, cost, len(self.edges) + 1])
        self.origin.append((u, v))
        self.adj.setdefault(v, []).append(len(self.edges))
        self.edges.append([u, 0, -cost, len(self.edges) - 1])
        self.origin.append((v, u))
        self._caps = getattr(self, "_caps", []) + [cap, 0]

    def min_cost_flow(self, s, t) -> int:
        total = 0
        while True:
            dist = {s: 0}
            back: dict = {}
            changed = True
            while changed:
                changed = False
                for u in list(dist):
                    for i in self.adj.get(u, []):
                        v, cap, cost, _ = self.edges[i]
                        if cap > 0 and dist[u] + cost < dist.get(v, 1 << 60):
                            dist[v] = dist[u] + cost
                            back[v] = i
                            changed = True
            if t not in dist:
                return total
            push, v = 1 << 60, t
            while v != s:
                i = back[v]
                push = min(push, self.edges[i][1])
                v = self.edges[self.edges[i][3]][0]
            v = t
            while v != s:
                i = back[v]
                self.edges[i][1] -= push
                self.edges[self.edges[i][3]][1] += push
                v = self.edges[self.edges[i][3]][0]
            total += push

    def flows(self) -> dict:
        out: dict = {}
        for i in range(0, len(self.edges), 2):
            used = self._caps[i] - self.edges[i][1]
            if used:
                out[self.origin[i]] = out.get(self.origin[i], 0) + used
        return out


def _in_some_order(rules: PeepWar, state: PeepWarState, obs: PeepWarObservation,
                   actions: list[Action]) -> Iterator[tuple[Action, ...]]:
    """``actions`` in the first order the rules accept that ends looking like ``obs``."""
    if not actions:
        return
    for order in itertools.islice(itertools.permutations(actions), MAX_ORDERINGS):
        s = state
        for a in order:
            if not rules.is_legal(s, a):
                break
            s, _ = rules.apply(s, a)
        else:
            if _matches(rules, s, obs):
                yield tuple(order)
                return
