"""``legal_actions`` and ``why_not`` agree.

Two directions: every generated action passes ``why_not`` (and no action is generated
twice), and every action of a broad candidate set that ``why_not`` accepts is
generated. The candidate set is built here, independently of the engine's own
generators: every action kind, every player (and a stranger), every cell of the table
and some off it, piece counts 0..6, peep or not.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from companion.rules.base import Action
from companion.rules.peepwar import (
    Draw,
    Eat,
    EndMovement,
    EndTurn,
    Move,
    PeepBeans,
    PeepWar,
    PeepWarState,
    Phase,
    PlaceSupplyCenter,
    PlaceTile,
    Produce,
    Remove,
)
from companion.rules.peepwar.board import cells_of, parse_cell, tile_neighbours
from companion.rules.peepwar.bot import Bot

from .conftest import SEATS, play, position, setup_actions


def candidates(state: PeepWarState) -> Iterator[Action]:
    cells = [c for t in sorted(state.tiles) for c in cells_of(t)] + ["9,9/c", "0,0/7"]
    # Move targets: every cell of the source's hex, of the hexes round it that are on the
    # table, and of one round it that is not (cells farther off meet the same "do not
    # touch" test as the non-adjacent cells here).
    near: dict[str, list[str]] = {c: [] for c in cells}
    for c in cells[:-2]:
        tile = parse_cell(c).tile
        around = list(tile_neighbours(tile))
        off = [t for t in around if t not in state.tiles][:1]
        hexes = [tile, *(t for t in around if t in state.tiles), *off]
        near[c] = [x for t in hexes for x in cells_of(t)]
    for p in (*state.players, "gray"):
        yield EndMovement(p)
        yield EndTurn(p)
        for commit in (True, False):
            yield PeepBeans(p, commit)
        for owner in (*state.players, "gray"):
            yield Draw(p, owner)
        for what in ("troop", "peep", "cake"):
            yield Eat(p, what)
        for q in range(-4, 5):
            for r in range(-4, 5):
                yield PlaceTile(p, q, r)
                yield PlaceSupplyCenter(p, q, r)
        for cell in cells:
            for what in ("troop", "peep", "cake"):
                yield Produce(p, cell, what)
            for troops in range(7):
                for peep in (False, True):
                    yield Remove(p, cell, troops, peep)
                    if state.phase is Phase.MOVEMENT and p == state.current:  # the costly kind
                        for dst in near[cell]:
                            yield Move(p, cell, dst, troops, peep)


def check_agreement(rules: PeepWar, state: PeepWarState, *, complete: bool = True) -> int:
    generated = list(rules.legal_actions(state))
    assert len(generated) == len(set(generated)), "an action is generated twice"
    for action in generated:
        assert rules.why_not(state, action) is None, action
    if complete:
        gen = set(generated)
        for action in candidates(state):
            if rules.why_not(state, action) is None:
                assert action in gen, f"legal but not generated: {action}"
    return len(generated)


def _combat(rules: PeepWar, red: object, blue: object) -> PeepWarState:
    pieces = {"1,0/c": {"red": (2, 3)}, "-1,0/c": {"blue": (2, 3)},
              "0,0/c": {"blue": blue, "red": red}}
    state, _ = play(rules, position(rules, pieces), "end")
    return state


def _positions(rules: PeepWar) -> dict[str, PeepWarState]:
    home = {"1,0/c": {"red": (2, 3)}, "-1,0/c": {"blue": (2, 3)}}
    states = {"new": rules.new_state()}
    state = rules.new_state()
    for i, action in enumerate(setup_actions(rules)):
        if i in (1, 4, 7):
            states[f"setup-{i}"] = state
        state, _ = rules.apply(state, action)
    states["turn-1"] = state
    states["movement-busy"] = position(rules, {
        **home,
        "1,0/0": {"red": (5, 2)},
        "1,0/3": {"red": 1},
        "0,0/c": {"blue": (1, 3)},
        "0,0/0": {"red": (3, 3)},
        "2,0/c": {"red": 4},
    })
    moved, _ = play(rules, states["movement-busy"], "move 2 1,0/0 1,0/1",
                    "move 1 1,0/3 1,0/2", "move peep 0,0/0 0,0/5")
    states["movement-after-moves"] = moved
    upkeep = position(rules, {"1,0/c": {"red": (5, 3)}, "1,0/1": {"red": (3, 2)},
                              "-1,0/c": {"blue": (2, 3)}}, current="blue",
                      phase=Phase.PRODUCTION)
    states["upkeep"], _ = play(rules, upkeep, "end")
    assert states["upkeep"].phase is Phase.UPKEEP
    states["combat-draw"] = _combat(rules, 3, 2)
    states["combat-peep"] = _combat(rules, 2, (2, 3))
    states["combat-victor"], _ = play(rules, states["combat-peep"],
                                      *(["in"] if rules.edition == 2001 else []), "draw red")
    states["production"] = position(rules, {
        **home, "2,0/c": {"red": (4, 0)}, "0,0/c": {"red": (5, 1)}}, phase=Phase.PRODUCTION)
    over, _ = play(rules, position(rules, {c: {"red": 1} for c in
                                           ("1,0/c", "2,0/c", "0,0/c", "-1,0/c")}), "end")
    states["over"] = over
    return states


POSITION_NAMES = ["new", "setup-1", "setup-4", "setup-7", "turn-1", "movement-busy",
                  "movement-after-moves", "upkeep", "combat-draw", "combat-peep", "combat-victor",
                  "production", "over"]


@pytest.mark.parametrize("name", POSITION_NAMES)
def test_legal_actions_agree_with_why_not(game: PeepWar, name: str) -> None:
    state = _positions(game)[name]
    n = check_agreement(game, state)
    assert (n == 0) == (name == "over")


def test_six_player_2001_setup_respects_the_neutral_reserve() -> None:
    rules = PeepWar(players=SEATS, edition=2001)
    state, _ = play(rules, rules.new_state(), "hex 1,0")
    check_agreement(rules, state)
    legal = {(a.q, a.r) for a in rules.legal_actions(state) if isinstance(a, PlaceTile)}
    # Red's second hex: next to 1,0 but off the Neutral Territory's sides.
    assert legal == {(2, 0), (1, 1), (2, -1)}


def test_hemmed_in_setup_generates_every_hex_touching_the_table(game: PeepWar) -> None:
    tiles = {(0, 0): None, (1, 0): "red", (2, 0): "blue", (1, 1): "blue", (0, 1): "blue",
             (1, -1): "blue", (2, -1): "blue"}
    state = replace(game.new_state(), tiles=tiles, current="red")
    n = check_agreement(game, state)
    free = {n for t in tiles for n in tile_neighbours(t)} - set(tiles)
    assert n == len(free) == 12


def check_invariants(state: PeepWarState) -> None:
    """What must hold in every reachable state, whatever the players do."""
    for cell, who in state.pieces.items():
        fighting = state.combat is not None and state.combat.cell == cell
        for stack in who.values():
            assert 0 <= stack.troops <= 5 and 0 <= stack.peep <= 3, (cell, stack)
            assert fighting or not stack.empty, (cell, who)
        if state.phase not in (Phase.MOVEMENT, Phase.COMBAT):
            assert len(who) == 1, (state.phase, cell, who)
        if state.edition == 2001:
            assert sum(1 for st in who.values() if st.peep) <= 1, (cell, who)
    c = state.combat
    if c is not None and not c.undecided:
        assert c.beans(c.attacker) > 0 and c.beans(c.defender) > 0


@pytest.mark.parametrize("seed", range(4))
def test_playouts_only_generate_legal_actions(edition: int, seed: int) -> None:
    """Seeded games (the plain bot with a tenth of the actions random) to the end.

    At every step each generated action passes ``why_not`` and the invariants hold;
    now and then (outside movement, where it is costly) the candidate check runs too.
    """
    rules = PeepWar(players=SEATS[: 2 + seed % 3], edition=edition)
    rng = random.Random(seed)
    bot = Bot(rules, seed)
    state = rules.new_state()
    seen = set()
    for step in range(800):
        if rules.is_over(state):
            break
        check_invariants(state)
        seen.add("victor" if state.combat and state.combat.victor else state.phase)
        actions = list(rules.legal_actions(state))
        assert actions, f"no legal action in {state.phase} at step {step}"
        for action in actions:
            assert rules.why_not(state, action) is None, action
        if step % 25 == 0 and state.phase is not Phase.MOVEMENT:
            check_agreement(rules, state)
        action = rng.choice(actions) if rng.random() < 0.1 else bot.choose(state)
        state, _ = rules.apply(state, action)
    assert rules.is_over(state)
    assert {Phase.SETUP_TILES, Phase.SETUP_SUPPLY, Phase.MOVEMENT, Phase.COMBAT,
            Phase.PRODUCTION} <= seen
