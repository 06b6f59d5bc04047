"""The rules of Peep War, 2001 text and 2005 revision, in one place.

:class:`PeepWar` holds the options of one table (players in seat order, the
edition). ``why_not`` decides legality and words every refusal;
``legal_actions`` generates exactly the actions ``why_not`` accepts; ``apply``
returns the next state and the events. Randomness never happens here: a
:class:`~companion.rules.peepwar.actions.Draw` says whose bean came out of the
egg, whether the randomiser (:meth:`PeepWar.chance`), a person or the serial
egg drew it.

The module is longer than most on purpose: legality lives in one ``_reason``
with one check per action in a dispatch table, next to the ``_apply`` of each,
so that what is allowed and what it does are read side by side.

>>> from companion.rules.peepwar import PeepWar
>>> game = PeepWar(players=("red", "blue"), edition=2005)
>>> game.needed()
4
>>> PeepWar(players=("a", "b", "c", "d"), edition=2001).needed()
7
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from companion.errors import clipped, quoted
from companion.rules.base import Action, Event, Ruleset, Standing, Tally
from companion.rules.chance import Chance
from companion.rules.peepwar.actions import (
    ACTION_TYPES,
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
from companion.rules.peepwar.board import (
    NEUTRAL,
    Cell,
    Hex,
    cell_name,
    cell_neighbours,
    parse_cell,
    tile_name,
    tile_neighbours,
    tiles_touch,
)
from companion.rules.peepwar.state import (
    MAX_TROOPS_PER_CELL,
    PEEP_HEALTH,
    Combat,
    PeepWarState,
    Phase,
    Stack,
    cell_order,
)

EDITIONS = (2001, 2005)
# The 2001 text gives a table; it disagrees with "80%, rounded up" for 4 and 6 players.
WIN_TABLE_2001 = {2: 4, 3: 6, 4: 7, 5: 9, 6: 10}
HEXES_PER_PLAYER = 3
SUPPLY_CENTERS_PER_PLAYER = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 6
SEGMENTS = {3: "tail", 2: "body", 1: "head"}  # the segment eaten when health drops from this value
NEUTRAL_SUPPLY = cell_name(NEUTRAL, "c")
_PLAYER_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,15}$")

_PHASE_WORDS = {
    Phase.SETUP_TILES: "placing hexes",
    Phase.SETUP_SUPPLY: "placing Supply Centers",
    Phase.UPKEEP: "removing unsupported pieces",
    Phase.MOVEMENT: "movement",
    Phase.COMBAT: "combat",
    Phase.PRODUCTION: "production",
    Phase.OVER: "over",
}


def setup_order(players: Sequence[str], edition: int) -> list[tuple[Phase, str]]:
    """Who places what, in order.

    2001: "Each player takes a turn building their Territory" — each player lays
    all three hexes in one go, then each places both Supply Centers in one go.
    2005: one hex each around the table, three times; then one Supply Center
    each, twice.
    """
    if edition == 2001:
        tiles = [p for p in players for _ in range(HEXES_PER_PLAYER)]
        supply = [p for p in players for _ in range(SUPPLY_CENTERS_PER_PLAYER)]
    else:
        tiles = list(players) * HEXES_PER_PLAYER
        supply = list(players) * SUPPLY_CENTERS_PER_PLAYER
    return [(Phase.SETUP_TILES, p) for p in tiles] + [(Phase.SETUP_SUPPLY, p) for p in supply]


def supply_centers_to_win(edition: int, players: int) -> int:
    """80% of the Supply Centers in play (two per player plus the Neutral one)."""
    if edition == 2001:
        return WIN_TABLE_2001[players]
    in_play = SUPPLY_CENTERS_PER_PLAYER * players + 1
    return -(-4 * in_play // 5)  # 80% rounded up, in integers


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _pieces_text(troops: int, peep: int) -> str:
    parts = []
    if troops:
        parts.append(_plural(troops, "troop"))
    if peep:
        parts.append(f"a peep ({peep} health)")
    return " and ".join(parts) or "nothing"


class PeepWar(Ruleset[PeepWarState]):
    """Peep War for 2 to 6 players, edition 2001 or 2005."""

    name = "peepwar"
    title = "Peep War"
    action_types = ACTION_TYPES

    def __init__(self, players: Sequence[str] = ("red", "blue"), edition: int = 2005) -> None:
        players = tuple(players)
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(
                f"Peep War needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}"
            )
        for p in players:
            if not isinstance(p, str) or not _PLAYER_KEY.match(p):
                raise ValueError(
                    f"{quoted(p)} is not a player key: use a short lowercase name such as red "
                    "or p1 (a letter, then letters, digits, - or _; at most 16)"
                )
        if len(set(players)) != len(players):
            raise ValueError(f"each player needs a different key: {', '.join(players)}")
        if edition not in EDITIONS:
            raise ValueError(f"edition must be 2001 or 2005, not {quoted(edition)}")
        self.players = players
        self.edition = edition
        self._order = setup_order(players, edition)

    def options(self) -> dict[str, Any]:
        return {"players": list(self.players), "edition": self.edition}

    def needed(self) -> int:
        return supply_centers_to_win(self.edition, len(self.players))

    def new_state(self) -> PeepWarState:
        phase, first = self._order[0]
        return PeepWarState(
            players=self.players,
            edition=self.edition,
            phase=phase,
            current=first,
            tiles={NEUTRAL: None},
        )

    # --- who acts -----------------------------------------------------------------

    def to_act(self, state: PeepWarState) -> str | None:
        if state.phase is Phase.OVER:
            return None
        combat = state.combat
        if combat is not None:
            if combat.undecided:
                return combat.undecided[0]
            return combat.victor or combat.drawer
        return state.current

    def is_over(self, state: PeepWarState) -> bool:
        return state.phase is Phase.OVER

    def turn(self, state: PeepWarState) -> int:
        return state.turn

    def phase(self, state: PeepWarState) -> str:
        return state.phase.value

    def chance(self, state: PeepWarState) -> Chance | None:
        """The egg, when a fight waits for a draw: each side's beans in it are its weight.

        >>> from companion.rules.peepwar.state import Combat
        >>> game = PeepWar(players=("red", "blue"))
        >>> fight = Combat("0,0/c", "red", "blue", {"red": 1, "blue": 2}, {"red": 0, "blue": 0},
        ...                drawer="blue")
        >>> egg = game.chance(replace(game.new_state(), phase=Phase.COMBAT, combat=fight))
        >>> [(a.owner, w) for a, w in egg.outcomes]
        [('red', 1), ('blue', 2)]
        """
        c = state.combat
        if c is None or c.undecided or c.victor:
            return None
        return Chance(f"draw a bean from the egg (fight at {c.cell})", tuple(
            (Draw(c.drawer, side), c.beans(side)) for side in (c.attacker, c.defender)
            if c.beans(side)))

    # --- legality -------------------------------------------------------------------

    def why_not(self, state: PeepWarState, action: Action) -> str | None:
        reason = self._reason(state, action)
        if reason is None:
            return None
        describe = getattr(action, "describe", lambda: action.kind)
        return f"{clipped(action.player)} cannot {describe()}: {reason}"

    def _reason(self, s: PeepWarState, a: Action) -> str | None:
        if not isinstance(a, ACTION_TYPES):
            return f"{type(a).__name__} is not a Peep War action"
        if a.player not in s.players:
            return f"there is no player {quoted(a.player)} at this table ({', '.join(s.players)})"
        if s.phase is Phase.OVER:
            return f"the game is over; {s.winner} won"
        if a.player in s.out:
            return f"{a.player} is out of the game"
        expected = self.to_act(s)
        if a.player != expected:
            return f"it is {expected}'s turn to act ({self._doing(s)})"
        check = _CHECKS[type(a)]
        return check(self, s, a)

    def _doing(self, s: PeepWarState) -> str:
        c = s.combat
        if c is None:
            return _PHASE_WORDS[s.phase]
        if c.undecided:
            return f"{c.undecided[0]} chooses whether the peep's beans go in the egg at {c.cell}"
        if c.victor:
            return f"{c.victor} chooses which bean to eat at {c.cell}"
        return f"{c.drawer} draws from the egg at {c.cell}"

    def _phase_is(self, s: PeepWarState, *phases: Phase) -> str | None:
        if s.phase in phases:
            return None
        return f"it is the {_PHASE_WORDS[s.phase]} phase"

    def _check_place_tile(self, s: PeepWarState, a: PlaceTile) -> str | None:
        if (r := self._phase_is(s, Phase.SETUP_TILES)) is not None:
            return r
        at = (a.q, a.r)
        if at == NEUTRAL:
            return "the Neutral Territory is there"
        if at in s.tiles:
            return f"{s.tiles[at]}'s hex is already there"
        own = [t for t, owner in s.tiles.items() if owner == a.player]
        if not own:
            if not tiles_touch(at, NEUTRAL):
                return "your first hex must share a side with the Neutral Territory at 0,0"
        elif not any(tiles_touch(at, t) for t in own):
            names = ", ".join(tile_name(t) for t in sorted(own))
            if self._can_extend(s, a.player, own):
                return f"it must share a side with a hex of your territory ({names})"
            # Hemmed in: the texts do not say; any hex touching the map keeps the game going.
            if not any(tiles_touch(at, t) for t in s.tiles):
                return (f"your territory ({names}) is hemmed in, so this hex may go anywhere "
                        "that shares a side with a hex on the table")
        return self._reserve_reason(s, a.player, at)

    def _reserve_reason(self, s: PeepWarState, player: str, at: Hex) -> str | None:
        """Keep a free side of the Neutral Territory for every first hex still to come."""
        if not tiles_touch(at, NEUTRAL):
            return None
        waiting = [w for w in self._waiting_for_first_hex(s) if w != player]
        free = sum(1 for n in tile_neighbours(NEUTRAL) if n not in s.tiles)
        if free - 1 < len(waiting):
            return (f"the free sides of the Neutral Territory are kept for the first hexes of "
                    f"{', '.join(waiting)}")
        return None

    def _can_extend(self, s: PeepWarState, player: str, own: list[Hex]) -> bool:
        """Whether some free position touches ``own`` and passes the Neutral reserve."""
        free = {n for t in own for n in tile_neighbours(t)} - set(s.tiles)
        return any(self._reserve_reason(s, player, at) is None for at in free)

    def _waiting_for_first_hex(self, s: PeepWarState) -> list[str]:
        """Players who have yet to lay a first hex."""
        placed = {o for o in s.tiles.values() if o}
        return [p for p in self.players if p not in placed]

    def _check_place_supply(self, s: PeepWarState, a: PlaceSupplyCenter) -> str | None:
        if (r := self._phase_is(s, Phase.SETUP_SUPPLY)) is not None:
            return r
        at = (a.q, a.r)
        if at not in s.tiles:
            return f"there is no hex at {tile_name(at)}"
        if s.tiles[at] != a.player:
            return f"{tile_name(at)} is not in your territory"
        if cell_name(at, "c") in s.supply_centers:
            return f"a Supply Center is already on {tile_name(at)}/c"
        return None

    def _cell(self, s: PeepWarState, name: str) -> tuple[Cell | None, str | None]:
        try:
            cell = parse_cell(name)
        except ValueError as e:
            return None, str(e)
        if cell.tile not in s.tiles:
            return None, f"there is no hex at {tile_name(cell.tile)}"
        return cell, None

    def _excess(self, s: PeepWarState, player: str) -> tuple[int, int]:
        troops, peeps = s.totals(player)
        max_troops, max_peeps = s.support(player)
        return max(0, troops - max_troops), max(0, peeps - max_peeps)

    def _check_remove(self, s: PeepWarState, a: Remove) -> str | None:
        if (r := self._phase_is(s, Phase.UPKEEP)) is not None:
            return r
        cell, err = self._cell(s, a.cell)
        if err:
            return err
        if a.troops < 0 or (a.troops == 0 and not a.peep):
            return "say how many troops (at least one) or the peep to remove"
        assert cell is not None
        have = s.stack(str(cell), a.player)
        if a.troops > have.troops:
            return f"you have {_plural(have.troops, 'troop')} at {cell}"
        if a.peep and not have.peep:
            return f"you have no peep at {cell}"
        extra_troops, extra_peeps = self._excess(s, a.player)
        if a.troops > extra_troops:
            if extra_troops == 0:
                return "your Supply Centers support all your troops"
            return f"you only have to remove {_plural(extra_troops, 'troop')}"
        if a.peep and extra_peeps == 0:
            return "your Supply Centers support all your peeps"
        return None

    def _check_move(self, s: PeepWarState, a: Move) -> str | None:
        if (r := self._phase_is(s, Phase.MOVEMENT)) is not None:
            return r
        if a.troops < 0 or (a.troops == 0 and not a.peep):
            return "say how many troops (at least one) or the peep to move"
        src, err = self._cell(s, a.src)
        if err:
            return err
        dst, err = self._cell(s, a.dst)
        if err:
            return err
        if src == dst:
            return "a piece must move to another cell"
        if str(dst) not in set(cell_neighbours(src, s.tiles)):
            return "the cells do not touch"
        here = s.stack(str(src), a.player)
        if a.troops > here.troops:
            return f"you have {_plural(here.troops, 'troop')} at {src}"
        if a.troops > here.unmoved:
            return (
                f"only {_plural(here.unmoved, 'troop')} at {src} "
                f"{'has' if here.unmoved == 1 else 'have'} not moved this turn"
            )
        if a.peep and not here.peep:
            return f"you have no peep at {src}"
        if a.peep and here.peep_moved:
            return f"your peep at {src} has already moved this turn"
        there = s.stack(str(dst), a.player)
        if there.troops + a.troops > MAX_TROOPS_PER_CELL:
            return (
                f"that would put {there.troops + a.troops} of your troops in {dst}; "
                f"a cell holds at most {MAX_TROOPS_PER_CELL} of a player's troops"
            )
        if a.peep and there.peep:
            return f"you already have a peep in {dst}"
        if a.peep and s.edition == 2001:
            for other in s.occupants(str(dst)):
                if other != a.player and s.stack(str(dst), other).peep:
                    return f"{other}'s peep is in {dst} and two peeps may never share a cell"
        return None

    def _check_end_movement(self, s: PeepWarState, a: EndMovement) -> str | None:
        return self._phase_is(s, Phase.MOVEMENT)

    def _check_peep_beans(self, s: PeepWarState, a: PeepBeans) -> str | None:
        c = s.combat
        if c is None or not c.undecided:
            return "there is no choice about peep beans to make now"
        return None

    def _check_draw(self, s: PeepWarState, a: Draw) -> str | None:
        c = s.combat
        if c is None:
            return "there is no fight going on"
        if c.undecided or c.victor:
            return f"first {self._doing(s)}"
        if a.owner not in c.sides:
            return f"{clipped(a.owner)} is not in the fight at {c.cell}"
        if c.beans(a.owner) == 0:
            return f"none of {a.owner}'s beans are left in the egg"
        return None

    def _check_eat(self, s: PeepWarState, a: Eat) -> str | None:
        c = s.combat
        if c is None or c.victor is None:
            return "nobody has won a round that needs a choice"
        loser = c.other(c.victor)
        if a.what == "troop":
            if not c.troops.get(loser, 0):
                return f"{loser} has no troop beans left in the egg"
        elif a.what == "peep":
            if not c.peep_beans.get(loser, 0):
                return f"{loser} has no peep beans in the egg"
        else:
            return f"eat 'troop' or 'peep', not {quoted(a.what)}"
        return None

    def _check_produce(self, s: PeepWarState, a: Produce) -> str | None:
        if (r := self._phase_is(s, Phase.PRODUCTION)) is not None:
            return r
        cell, err = self._cell(s, a.cell)
        if err:
            return err
        if a.what not in ("troop", "peep"):
            return f"produce a 'troop' or a 'peep', not {quoted(a.what)}"
        name = str(cell)
        if name not in s.supply_centers:
            return f"there is no Supply Center at {name}"
        if s.controller(name) != a.player:
            return f"you do not control the Supply Center at {name}"
        if name in s.produced:
            return f"the Supply Center at {name} has already produced this phase"
        here = s.stack(name, a.player)
        troops, peeps = s.totals(a.player)
        max_troops, max_peeps = s.support(a.player)
        centers = _plural(len(s.controlled(a.player)), "Supply Center")
        if a.what == "troop":
            if not (here.troops and here.peep):
                return "a Supply Center produces a troop only when a troop and a peep man it"
            if here.troops + 1 > MAX_TROOPS_PER_CELL:
                return f"a cell holds at most {MAX_TROOPS_PER_CELL} of a player's troops"
            if troops + 1 > max_troops:
                return f"your {centers} support {max_troops} troops and you have {troops}"
        else:
            if here.troops < 3:
                return f"Peep Growth Jelly needs three troops at {name}"
            if here.peep:
                return f"your peep is already at {name}; two peeps may never share a cell"
            if peeps + 1 > max_peeps:
                return f"your {centers} support {_plural(max_peeps, 'peep')} and you have {peeps}"
        return None

    def _check_end_turn(self, s: PeepWarState, a: EndTurn) -> str | None:
        return self._phase_is(s, Phase.PRODUCTION)

    # --- generation -------------------------------------------------------------------

    def legal_actions(self, state: PeepWarState) -> Iterator[Action]:
        s = state
        who = self.to_act(s)
        if who is None:
            return
        candidates: Iterator[Action] = _CANDIDATES[s.phase](self, s, who)
        for action in candidates:
            if self._reason(s, action) is None:
                yield action

    def _gen_tiles(self, s: PeepWarState, p: str) -> Iterator[Action]:
        free = {n for t in s.tiles for n in tile_neighbours(t)} - set(s.tiles)
        for q, r in sorted(free):
            yield PlaceTile(p, q, r)

    def _gen_supply(self, s: PeepWarState, p: str) -> Iterator[Action]:
        for (q, r), owner in sorted(s.tiles.items()):
            if owner == p:
                yield PlaceSupplyCenter(p, q, r)

    def _own_cells(self, s: PeepWarState, p: str) -> list[str]:
        return sorted((c for c, who in s.pieces.items() if p in who), key=cell_order)

    def _gen_upkeep(self, s: PeepWarState, p: str) -> Iterator[Action]:
        for cell in self._own_cells(s, p):
            st = s.stack(cell, p)
            for k in range(st.troops + 1):
                yield Remove(p, cell, k, False)
                if st.peep:
                    yield Remove(p, cell, k, True)

    def _gen_movement(self, s: PeepWarState, p: str) -> Iterator[Action]:
        yield EndMovement(p)
        for cell in self._own_cells(s, p):
            st = s.stack(cell, p)
            can_peep = bool(st.peep) and not st.peep_moved
            for dst in cell_neighbours(parse_cell(cell), s.tiles):
                for k in range(st.unmoved + 1):
                    yield Move(p, cell, dst, k, False)
                    if can_peep:
                        yield Move(p, cell, dst, k, True)

    def _gen_combat(self, s: PeepWarState, p: str) -> Iterator[Action]:
        c = s.combat
        if c is None:
            return
        if c.undecided:
            yield PeepBeans(p, True)
            yield PeepBeans(p, False)
        elif c.victor:
            yield Eat(p, "troop")
            yield Eat(p, "peep")
        else:
            for owner in c.sides:
                yield Draw(p, owner)

    def _gen_production(self, s: PeepWarState, p: str) -> Iterator[Action]:
        for cell in s.controlled(p):
            yield Produce(p, cell, "troop")
            yield Produce(p, cell, "peep")
        yield EndTurn(p)

    # --- change -------------------------------------------------------------------------

    def _apply(self, state: PeepWarState, action: Action) -> tuple[PeepWarState, list[Event]]:
        events: list[Event] = []
        new = _APPLY[type(action)](self, state, action, events)
        return new, events

    def _do_place_tile(self, s: PeepWarState, a: PlaceTile, ev: list[Event]) -> PeepWarState:
        tiles = {**s.tiles, (a.q, a.r): a.player}
        ev.append(Event("place_tile", f"{a.player} places a hex at {a.q},{a.r}",
                        {"player": a.player, "q": a.q, "r": a.r}))
        return self._next_setup_step(replace(s, tiles=tiles), ev)

    def _do_place_supply(
        self, s: PeepWarState, a: PlaceSupplyCenter, ev: list[Event]
    ) -> PeepWarState:
        cell = cell_name((a.q, a.r), "c")
        ev.append(Event("place_supply_center", f"{a.player} places a Supply Center on {cell}",
                        {"player": a.player, "cell": cell}))
        s = replace(s, supply_centers=s.supply_centers | {cell})
        return self._next_setup_step(s, ev)

    def _next_setup_step(self, s: PeepWarState, ev: list[Event]) -> PeepWarState:
        step = s.setup_step + 1
        if step < len(self._order):
            phase, who = self._order[step]
            return replace(s, setup_step=step, phase=phase, current=who)
        pieces: dict[str, dict[str, Stack]] = {}
        for cell in sorted(s.supply_centers, key=cell_order):
            owner = s.tiles[parse_cell(cell).tile]
            assert owner is not None
            pieces[cell] = {owner: Stack(troops=1, peep=PEEP_HEALTH)}
            ev.append(Event("garrison", f"{owner} puts a troop and a peep on {cell}",
                            {"player": owner, "cell": cell}))
        ev.append(Event("place_supply_center", f"a Supply Center goes on the Neutral Territory, "
                        f"{NEUTRAL_SUPPLY}", {"player": None, "cell": NEUTRAL_SUPPLY}))
        s = replace(s, setup_step=step, pieces=pieces,
                    supply_centers=s.supply_centers | {NEUTRAL_SUPPLY})
        ev.append(Event("setup_done", "setup is complete", {}))
        return self._begin_turn(s, self.players[0], ev)

    # Turns ------------------------------------------------------------------------------

    def _elimination(self, s: PeepWarState, p: str) -> str | None:
        if not s.controlled(p):
            return "controls no Supply Center"
        troops, peeps = s.totals(p)
        if peeps == 0 and troops <= 3:
            return f"has only {_plural(troops, 'troop')} and no peep"
        if peeps == 1 and troops == 0:
            return "has only one peep and no troops"
        return None

    def _eliminate(self, s: PeepWarState, p: str, why: str, ev: list[Event]) -> PeepWarState:
        pieces = {}
        for cell, who in s.pieces.items():
            rest = {k: v for k, v in who.items() if k != p}
            if rest:
                pieces[cell] = rest
        ev.append(Event("out", f"{p} is out of the game: {p} {why}; {p}'s pieces leave the table",
                        {"player": p, "reason": why}))
        s = replace(s, pieces=pieces, out=(*s.out, p))
        left = s.in_game()
        if len(left) == 1:
            return self._win(s, left[0], "is the last player in the game", ev)
        return s

    def _win(self, s: PeepWarState, p: str, how: str, ev: list[Event]) -> PeepWarState:
        ev.append(Event("victory", f"{p} wins: {p} {how}", {"player": p}))
        return replace(s, phase=Phase.OVER, winner=p, current=None, combat=None)

    def _next_player(self, s: PeepWarState, after: str) -> str:
        i = s.players.index(after)
        for step in range(1, len(s.players) + 1):
            p = s.players[(i + step) % len(s.players)]
            if p not in s.out:
                return p
        return after

    def _begin_turn(self, s: PeepWarState, p: str, ev: list[Event]) -> PeepWarState:
        # Only this turn's arrivals are barred from moving again.
        pieces = {
            cell: {k: replace(v, moved=0, peep_moved=False) for k, v in who.items()}
            for cell, who in s.pieces.items()
        }
        s = replace(s, pieces=pieces, current=p, produced=frozenset(), combat=None)
        why = self._elimination(s, p)
        if why:
            s = self._eliminate(s, p, why, ev)
            if s.phase is Phase.OVER:
                return s
            return self._begin_turn(s, self._next_player(s, p), ev)
        s = replace(s, turn=s.turn + 1)
        extra_troops, extra_peeps = self._excess(s, p)
        ev.append(Event("turn", f"turn {s.turn}: {p} to play", {"player": p, "turn": s.turn}))
        if extra_troops or extra_peeps:
            ev.append(Event(
                "upkeep",
                f"{p}'s Supply Centers cannot support everything: {p} must remove "
                f"{_pieces_text(extra_troops, 0) if extra_troops else ''}"
                f"{' and ' if extra_troops and extra_peeps else ''}"
                f"{_plural(extra_peeps, 'peep') if extra_peeps else ''}",
                {"player": p, "troops": extra_troops, "peeps": extra_peeps},
            ))
            return replace(s, phase=Phase.UPKEEP)
        return replace(s, phase=Phase.MOVEMENT)

    def _do_remove(self, s: PeepWarState, a: Remove, ev: list[Event]) -> PeepWarState:
        cell = str(parse_cell(a.cell))
        here = s.stack(cell, a.player)
        s = _put(s, cell, a.player, replace(
            here, troops=here.troops - a.troops, moved=max(0, here.moved - a.troops),
            peep=0 if a.peep else here.peep))
        what = " and ".join(x for x in (_plural(a.troops, "troop") if a.troops else "",
                                         "the peep" if a.peep else "") if x)
        ev.append(Event("remove", f"{a.player} removes {what} from {cell}",
                        {"player": a.player, "cell": cell, "troops": a.troops, "peep": a.peep}))
        if any(self._excess(s, a.player)) and s.controlled(a.player):
            return s
        why = self._elimination(s, a.player)
        if why:
            s = self._eliminate(s, a.player, why, ev)
            if s.phase is Phase.OVER:
                return s
            return self._begin_turn(s, self._next_player(s, a.player), ev)
        return replace(s, phase=Phase.MOVEMENT)

    def _do_move(self, s: PeepWarState, a: Move, ev: list[Event]) -> PeepWarState:
        src, dst = str(parse_cell(a.src)), str(parse_cell(a.dst))
        here, there = s.stack(src, a.player), s.stack(dst, a.player)
        peep = here.peep if a.peep else 0
        s = _put(s, src, a.player, replace(
            here, troops=here.troops - a.troops, peep=0 if a.peep else here.peep,
            peep_moved=False if a.peep else here.peep_moved))
        s = _put(s, dst, a.player, replace(
            there, troops=there.troops + a.troops, moved=there.moved + a.troops,
            peep=peep or there.peep, peep_moved=True if a.peep else there.peep_moved))
        text = f"{a.player} moves {_pieces_text(a.troops, peep)} from {src} to {dst}"
        enemies = [o for o in s.occupants(dst) if o != a.player]
        if enemies:
            text += f": a fight with {enemies[0]}"
        ev.append(Event("move", text, {"player": a.player, "src": src, "dst": dst,
                                       "troops": a.troops, "peep": a.peep}))
        if src in s.supply_centers and a.player not in s.occupants(src):
            ev.append(Event("give_up", f"{a.player} gives up the Supply Center at {src}",
                            {"player": a.player, "cell": src}))
        return s

    def _do_end_movement(self, s: PeepWarState, a: EndMovement, ev: list[Event]) -> PeepWarState:
        ev.append(Event("end_movement", f"{a.player} ends movement", {"player": a.player}))
        return self._next_fight_or_production(s, ev)

    def _next_fight_or_production(self, s: PeepWarState, ev: list[Event]) -> PeepWarState:
        # Fights are independent, so their order changes nothing: take them in board order.
        contested = s.contested()
        if contested:
            return self._start_combat(s, contested[0], ev)
        s = replace(s, phase=Phase.PRODUCTION, combat=None)
        assert s.current is not None
        held = len(s.controlled(s.current))
        if held >= self.needed():
            return self._win(s, s.current, f"controls {held} of {len(s.supply_centers)} "
                             f"Supply Centers ({self.needed()} needed)", ev)
        ev.append(Event("production", f"{s.current}'s production", {"player": s.current}))
        return s

    def _start_combat(self, s: PeepWarState, cell: str, ev: list[Event]) -> PeepWarState:
        attacker = s.current
        assert attacker is not None
        defender = next(o for o in s.occupants(cell) if o != attacker)
        troops = {p: s.stack(cell, p).troops for p in (attacker, defender)}
        peeps = {p: s.stack(cell, p).peep for p in (attacker, defender)}
        if s.edition == 2005:
            beans, undecided = dict(peeps), ()
        else:
            beans = {attacker: 0, defender: 0}
            undecided = tuple(p for p in (attacker, defender) if peeps[p])
        pieces = {**s.pieces, cell: {p: replace(st, troops=0, moved=0)
                                     for p, st in s.pieces[cell].items()}}
        combat = Combat(cell=cell, attacker=attacker, defender=defender, troops=troops,
                        peep_beans=beans, undecided=undecided, drawer=defender)
        ev.append(Event(
            "combat",
            f"fight at {cell}: {attacker} ({_pieces_text(troops[attacker], peeps[attacker])}) "
            f"attacks {defender} ({_pieces_text(troops[defender], peeps[defender])}); "
            f"{defender} draws first",
            {"cell": cell, "attacker": attacker, "defender": defender,
             "troops": troops, "peeps": peeps},
        ))
        s = replace(s, phase=Phase.COMBAT, combat=combat, pieces=pieces)
        return self._after_round(s, ev)

    def _do_peep_beans(self, s: PeepWarState, a: PeepBeans, ev: list[Event]) -> PeepWarState:
        c = s.combat
        assert c is not None
        health = s.stack(c.cell, a.player).peep
        if a.commit:
            c = replace(c, peep_beans={**c.peep_beans, a.player: health}, undecided=c.undecided[1:])
            text = f"{a.player} puts {_plural(health, 'peep bean')} in the egg"
        else:
            c = replace(c, kept_out=(*c.kept_out, a.player), undecided=c.undecided[1:])
            text = f"{a.player} keeps the peep's beans out; the peep is lost if {a.player} loses"
        ev.append(Event("peep_beans", text, {"player": a.player, "commit": a.commit,
                                             "cell": c.cell}))
        return self._after_round(replace(s, combat=c), ev)

    def _do_draw(self, s: PeepWarState, a: Draw, ev: list[Event]) -> PeepWarState:
        c = s.combat
        assert c is not None
        loser = c.other(a.owner)
        c = replace(c, victor=a.owner, rounds=c.rounds + 1)
        ev.append(Event("draw", f"{a.player} draws a bean of {a.owner}: {a.owner} wins the round",
                        {"player": a.player, "owner": a.owner, "cell": c.cell,
                         "round": c.rounds}))
        s = replace(s, combat=c)
        has_troops, has_peep = c.troops.get(loser, 0) > 0, c.peep_beans.get(loser, 0) > 0
        if has_troops and has_peep:
            return s  # the victor chooses
        return self._eat(s, "troop" if has_troops else "peep", ev)

    def _do_eat(self, s: PeepWarState, a: Eat, ev: list[Event]) -> PeepWarState:
        return self._eat(s, a.what, ev)

    def _eat(self, s: PeepWarState, what: str, ev: list[Event]) -> PeepWarState:
        c = s.combat
        assert c is not None and c.victor is not None
        victor, loser = c.victor, c.other(c.victor)
        if what == "troop":
            c = replace(c, troops={**c.troops, loser: c.troops[loser] - 1})
            ev.append(Event("eat", f"{victor} eats a troop bean of {loser}",
                            {"player": victor, "loser": loser, "what": "troop", "cell": c.cell}))
        else:
            health = c.peep_beans[loser]
            c = replace(c, peep_beans={**c.peep_beans, loser: health - 1})
            # Written directly: the loser stays in the fight even with its peep gone.
            here = s.stack(c.cell, loser)
            fighting = {**s.pieces.get(c.cell, {}), loser: replace(here, peep=health - 1)}
            s = replace(s, pieces={**s.pieces, c.cell: fighting})
            left = f"{health - 1} health left" if health > 1 else "the peep is eaten"
            ev.append(Event("eat", f"{victor} eats a peep bean of {loser} and the peep's "
                            f"{SEGMENTS[health]}: {left}",
                            {"player": victor, "loser": loser, "what": "peep", "cell": c.cell,
                             "health": health - 1}))
        # "The Victor shakes the container and the other player draws."
        c = replace(c, victor=None, drawer=loser)
        return self._after_round(replace(s, combat=c), ev)

    def _after_round(self, s: PeepWarState, ev: list[Event]) -> PeepWarState:
        c = s.combat
        assert c is not None
        if c.undecided:
            return s
        alive = [p for p in c.sides if c.beans(p) > 0]
        if len(alive) == 2:
            return s
        winner = alive[0] if alive else c.defender
        loser = c.other(winner)
        cell = dict(s.pieces.get(c.cell, {}))
        lost = cell.pop(loser, Stack())
        kept = cell.get(winner, Stack())
        troops = c.troops[winner]
        peep = c.peep_beans[winner] if winner not in c.kept_out else kept.peep
        if troops or peep:
            cell[winner] = Stack(troops=troops, peep=peep)
        else:
            cell.pop(winner, None)
        pieces = {**s.pieces, c.cell: cell}
        if not cell:
            del pieces[c.cell]
        one = (troops == 1 and not peep) or (troops == 0 and peep)
        text = (f"{winner} wins the fight at {c.cell}: {_pieces_text(troops, peep)} "
                f"{'remains' if one else 'remain'}")
        if loser in c.kept_out and lost.peep:
            text += f"; {loser}'s peep, kept out of the egg, is lost with the fight"
        ev.append(Event("combat_over", text, {"cell": c.cell, "winner": winner, "loser": loser,
                                               "troops": troops, "peep": peep}))
        s = replace(s, pieces=pieces, combat=None)
        return self._next_fight_or_production(s, ev)

    def _do_produce(self, s: PeepWarState, a: Produce, ev: list[Event]) -> PeepWarState:
        cell = str(parse_cell(a.cell))
        here = s.stack(cell, a.player)
        if a.what == "troop":
            new = replace(here, troops=here.troops + 1)
            text = f"{a.player} produces a troop at {cell}"
        else:
            new = replace(here, troops=here.troops - 3, peep=PEEP_HEALTH)
            text = f"{a.player} turns three troops into a peep at {cell} (Peep Growth Jelly)"
        s = replace(_put(s, cell, a.player, new), produced=s.produced | {cell})
        ev.append(Event("produce", text, {"player": a.player, "cell": cell, "what": a.what}))
        return s

    def _do_end_turn(self, s: PeepWarState, a: EndTurn, ev: list[Event]) -> PeepWarState:
        ev.append(Event("end_turn", f"{a.player} ends the turn", {"player": a.player}))
        return self._begin_turn(s, self._next_player(s, a.player), ev)

    # --- reading ---------------------------------------------------------------------------

    def tally(self, state: PeepWarState) -> Tally:
        s = state
        standings = []
        for p in s.players:
            troops, peeps = s.totals(p)
            held = s.controlled(p)
            standings.append(Standing(
                player=p, score=len(held), out=p in s.out,
                details={"supply_centers": held, "troops": troops, "peeps": peeps},
            ))
        needed = self.needed()
        total = len(s.supply_centers)
        if s.winner:
            headline = f"{s.winner} has won"
        elif s.phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY):
            headline = f"setup: {_PHASE_WORDS[s.phase]}; {needed} Supply Centers win"
        else:
            best = max(standings, key=lambda x: x.score)
            headline = (f"{best.player} holds {best.score} of {total} Supply Centers; "
                        f"{needed} needed to win")
        reason = ""
        if s.winner:
            held = len(s.controlled(s.winner))
            reason = (f"{s.winner} holds {held} Supply Centers ({needed} win)" if held >= needed
                      else f"{s.winner} is the last player in the game")
        return Tally(standings=standings, needed=needed, winners=(s.winner,) if s.winner else (),
                     reason=reason, headline=headline, over=s.phase is Phase.OVER)

    def state_to_dict(self, state: PeepWarState) -> dict[str, Any]:
        s = state
        cells: dict[str, Any] = {}
        for cell in sorted(set(s.pieces) | set(s.supply_centers), key=cell_order):
            entry: dict[str, Any] = {"supply_center": cell in s.supply_centers, "pieces": {
                p: {"troops": st.troops, "peep": bool(st.peep), "peep_health": st.peep}
                for p, st in sorted(s.pieces.get(cell, {}).items())
            }}
            if cell in s.supply_centers:
                entry["controller"] = s.controller(cell)
            cells[cell] = entry
        c = s.combat
        return {
            "game": self.name,
            "edition": s.edition,
            "players": list(s.players),
            "phase": s.phase.value,
            "current": s.current,
            "to_act": self.to_act(s),
            "turn": s.turn,
            "tiles": [
                {"q": q, "r": r, "owner": owner} for (q, r), owner in sorted(s.tiles.items())
            ],
            "cells": cells,
            "combat": None if c is None else {
                "cell": c.cell, "attacker": c.attacker, "defender": c.defender,
                "troops": dict(c.troops), "peep_beans": dict(c.peep_beans),
                "undecided": list(c.undecided), "kept_out": list(c.kept_out),
                "drawer": c.drawer, "victor": c.victor, "rounds": c.rounds,
            },
            "produced": sorted(s.produced, key=cell_order),
            "out": list(s.out),
            "winner": s.winner,
            "needed": self.needed(),
        }


def _put(s: PeepWarState, cell: str, player: str, stack: Stack) -> PeepWarState:
    """A copy of ``s`` with ``player``'s pieces in ``cell`` replaced (removed when empty)."""
    who = dict(s.pieces.get(cell, {}))
    if stack.empty:
        who.pop(player, None)
    else:
        who[player] = stack
    pieces = dict(s.pieces)
    if who:
        pieces[cell] = who
    else:
        pieces.pop(cell, None)
    return replace(s, pieces=pieces)


_CHECKS = {
    PlaceTile: PeepWar._check_place_tile,
    PlaceSupplyCenter: PeepWar._check_place_supply,
    Remove: PeepWar._check_remove,
    Move: PeepWar._check_move,
    EndMovement: PeepWar._check_end_movement,
    PeepBeans: PeepWar._check_peep_beans,
    Draw: PeepWar._check_draw,
    Eat: PeepWar._check_eat,
    Produce: PeepWar._check_produce,
    EndTurn: PeepWar._check_end_turn,
}
_APPLY = {
    PlaceTile: PeepWar._do_place_tile,
    PlaceSupplyCenter: PeepWar._do_place_supply,
    Remove: PeepWar._do_remove,
    Move: PeepWar._do_move,
    EndMovement: PeepWar._do_end_movement,
    PeepBeans: PeepWar._do_peep_beans,
    Draw: PeepWar._do_draw,
    Eat: PeepWar._do_eat,
    Produce: PeepWar._do_produce,
    EndTurn: PeepWar._do_end_turn,
}
_CANDIDATES = {
    Phase.SETUP_TILES: PeepWar._gen_tiles,
    Phase.SETUP_SUPPLY: PeepWar._gen_supply,
    Phase.UPKEEP: PeepWar._gen_upkeep,
    Phase.MOVEMENT: PeepWar._gen_movement,
    Phase.COMBAT: PeepWar._gen_combat,
    Phase.PRODUCTION: PeepWar._gen_production,
}
