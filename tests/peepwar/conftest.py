"""Shared helpers for the Peep War rule tests: a tiny-position builder and a command player.

Most rules are easiest to check in a position of a few pieces. ``position`` starts
from a real, fully played setup (so tiles, Supply Centers and the turn counter are
what the engine itself produces) and then swaps in just the pieces a test needs with
``dataclasses.replace``. ``play`` feeds typed notation through ``rules.apply``, the
same path the terminal referee uses, so the tests exercise parsing and legality
together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import pytest

from companion.rules.base import Action, Event
from companion.rules.peepwar import (
    PeepWar,
    PeepWarState,
    Phase,
    PlaceSupplyCenter,
    PlaceTile,
    Stack,
    notation,
)
from companion.rules.peepwar.board import DIRECTIONS, Hex

EDITIONS = (2001, 2005)
SEATS = ("red", "blue", "green", "gold", "pink", "teal")


@pytest.fixture(params=EDITIONS, ids=lambda e: f"ed{e}")
def edition(request: pytest.FixtureRequest) -> int:
    """Every test that takes ``edition`` runs once per edition."""
    return request.param


@pytest.fixture
def game(edition: int) -> PeepWar:
    """A two-player table (red, blue) in the parametrized edition."""
    return PeepWar(players=("red", "blue"), edition=edition)


def _add(a: Hex, b: Hex) -> Hex:
    return a[0] + b[0], a[1] + b[1]


def territory(seat: int, players: int) -> list[Hex]:
    """Three hexes for the player in ``seat``: spread evenly round the Neutral Territory.

    The first touches the Neutral Territory; the other two lie in ring two, so no
    territory ever takes a second side of the Neutral Territory.
    """
    k = seat * 6 // players
    d, d_next = DIRECTIONS[k], DIRECTIONS[(k + 1) % 6]
    return [d, _add(d, d), _add(d, d_next)]


def setup_actions(rules: PeepWar) -> list[Action]:
    """A complete legal setup, in whatever order the edition asks for.

    Each player lays ``territory(seat)`` and puts Supply Centers on its first two hexes.
    """
    n = len(rules.players)
    hexes = {p: territory(i, n) for i, p in enumerate(rules.players)}
    supply = {p: list(hexes[p][:2]) for p in rules.players}
    state = rules.new_state()
    actions: list[Action] = []
    while state.phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY):
        p = rules.to_act(state)
        assert p is not None
        if state.phase is Phase.SETUP_TILES:
            action: Action = PlaceTile(p, *hexes[p].pop(0))
        else:
            action = PlaceSupplyCenter(p, *supply[p].pop(0))
        state, _ = rules.apply(state, action)
        actions.append(action)
    return actions


def after_setup(rules: PeepWar) -> PeepWarState:
    """The state right after a complete setup: turn 1, first player, movement."""
    state, _ = rules.replay(setup_actions(rules))
    return state


StackSpec = Stack | tuple[int, int] | int


def _stack(spec: StackSpec) -> Stack:
    if isinstance(spec, Stack):
        return spec
    if isinstance(spec, int):
        return Stack(troops=spec)
    troops, peep = spec
    return Stack(troops=troops, peep=peep)


def position(
    rules: PeepWar,
    pieces: Mapping[str, Mapping[str, StackSpec]],
    *,
    current: str | None = None,
    phase: Phase = Phase.MOVEMENT,
    tiles: Mapping[Hex, str | None] | None = None,
    supply_centers: Iterable[str] | None = None,
    out: Sequence[str] = (),
    produced: Iterable[str] = (),
) -> PeepWarState:
    """A state after setup with exactly the given pieces.

    ``pieces`` maps a cell to ``{player: spec}`` where spec is a troop count, a
    ``(troops, peep_health)`` pair or a :class:`Stack`. Tiles and Supply Centers
    default to the real setup's; pass them to override.
    """
    base = after_setup(rules)
    stacks = {
        cell: {p: _stack(spec) for p, spec in who.items()}
        for cell, who in pieces.items()
    }
    return replace(
        base,
        pieces=stacks,
        current=current or rules.players[0],
        phase=phase,
        tiles=dict(tiles) if tiles is not None else base.tiles,
        supply_centers=(
            frozenset(supply_centers) if supply_centers is not None else base.supply_centers
        ),
        out=tuple(out),
        produced=frozenset(produced),
        combat=None,
    )


def play(
    rules: PeepWar, state: PeepWarState, *commands: str
) -> tuple[PeepWarState, list[Event]]:
    """Apply typed commands in turn (each by whoever must act); return the state and events."""
    events: list[Event] = []
    for command in commands:
        action = notation.parse(command, rules, state)
        state, new = rules.apply(state, action)
        events.extend(new)
    return state, events


def refusal(rules: PeepWar, state: PeepWarState, command: str) -> str:
    """The refusal sentence for a typed command; fails the test if the command is legal."""
    reason = rules.why_not(state, notation.parse(command, rules, state))
    assert reason is not None, f"{command!r} was accepted"
    return reason


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]
