"""Move inference: observations explained as legal actions, undo offers, problems."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.rules.peepwar import (
    EndMovement,
    Move,
    PeepWar,
    PeepWarState,
    Phase,
    PlaceTile,
    Produce,
    Remove,
)
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.inference import differences, expected_observation, infer
from companion.rules.peepwar.observation import CellReading, PeepWarObservation, Pieces, TileSeen

VISIBLE = (PlaceTile, Move, Remove, Produce)


def _batches(rules: PeepWar, seed: int, limit: int = 400):
    """(state before, state after) around each run of camera-visible actions of one phase."""
    state = rules.new_state()
    bot = Bot(rules, seed)
    start, run = state, []
    for action in bot.play(state, limit):
        visible = isinstance(action, Move | Remove | Produce)
        # The camera sees the table settle between phases (hands leave it), so a batch is
        # one phase's actions.
        if run and (not visible or type(action) is not type(run[-1])):
            yield start, state, run
            run = []
        if visible:
            if not run:
                start = state
            run.append(action)
        elif run:
            run = []
        state, _ = rules.apply(state, action)


@pytest.mark.parametrize(("players", "edition", "seed"),
                         [(2, 2005, 1), (3, 2001, 2), (4, 2005, 3)])
def test_every_batch_of_moves_removals_and_production_is_explained(players, edition, seed):
    rules = PeepWar(players=[f"p{i}" for i in range(players)], edition=edition)
    explained = 0
    for before, after, run in _batches(rules, seed):
        seen = expected_observation(after)
        result = infer(rules, before, seen)
        assert result.verdict == "actions", (run, result)
        state = before
        for a in result.actions:
            state, _ = rules.apply(state, a)
        assert not differences(state, seen)
        assert state.phase == after.phase
        explained += 1
    assert explained > 20


def test_setup_is_read_from_the_table():
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state = rules.new_state()
    # Two hexes laid between two stable frames: red's, then blue's.
    seen = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(1, 1, 0),
                                                TileSeen(2, -1, 0)))
    result = infer(rules, state, seen)
    assert result.verdict == "actions"
    assert set(result.actions) == {PlaceTile("red", 1, 0), PlaceTile("blue", -1, 0)} or set(
        result.actions) == {PlaceTile("red", -1, 0), PlaceTile("blue", 1, 0)}
    assert result.alternatives == 1  # who laid which cannot be seen


def _midgame(seed: int = 3) -> tuple[PeepWar, PeepWarState]:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    bot = Bot(rules, seed)
    state = rules.new_state()
    while not (state.phase is Phase.MOVEMENT and state.turn >= 5):
        state, _ = rules.apply(state, bot.choose(state))
    return rules, state


def test_a_two_step_move_is_a_problem_not_an_action():
    rules, state = _midgame()
    p = state.current
    cell = next(c for c, who in state.pieces.items() if p in who and who[p].troops)
    # Teleport one troop to a cell two steps away.
    seen = expected_observation(state)
    far = next(c for c in state.all_cells()
               if c != cell and c not in state.pieces and not _touch(state, cell, c))
    cells = dict(seen.cells)
    st = state.stack(cell, p)
    cells[cell] = replace(seen.reading(cell), pieces={
        **seen.reading(cell).pieces, p: Pieces(st.troops - 1, bool(st.peep))})
    cells[far] = CellReading(pieces={p: Pieces(1, False)})
    result = infer(rules, state, replace(seen, cells=cells))
    assert result.verdict == "problem"
    assert any(far in text for text in result.problems)


def _touch(state, a, b):
    from companion.rules.peepwar.board import cells_touch
    return cells_touch(a, b, state.tiles)


def test_returning_to_an_earlier_position_is_offered_as_undo():
    rules, state = _midgame()
    p = state.current
    history = [state]
    move = next(a for a in rules.legal_actions(state) if isinstance(a, Move) and a.troops)
    after, _ = rules.apply(state, move)
    # The player puts the troops back where they were: the engine cannot move them back.
    result = infer(rules, after, expected_observation(state), history=history)
    assert result.verdict == "undo" and result.undo == 1
    assert p == after.current


def test_an_occluded_cell_is_unknown_not_empty():
    rules, state = _midgame()
    seen = expected_observation(state)
    cell = next(iter(state.pieces))
    cells = {**seen.cells, cell: CellReading(occluded=True)}
    assert infer(rules, state, replace(seen, cells=cells)).verdict == "same"


def test_another_players_pieces_changing_is_a_problem():
    rules, state = _midgame()
    other = next(p for p in state.players if p != state.current)
    cell = next(c for c, who in state.pieces.items() if other in who)
    seen = expected_observation(state)
    cells = {**seen.cells, cell: replace(seen.reading(cell), pieces={
        other: Pieces(seen.reading(cell).pieces[other].troops + 1, False)})}
    result = infer(rules, state, replace(seen, cells=cells))
    assert result.verdict == "problem"
    assert any(cell in p and other in p for p in result.problems)


def test_end_movement_is_not_guessed_from_the_table():
    rules, state = _midgame()
    result = infer(rules, state, expected_observation(state))
    assert result.verdict == "same"
    assert EndMovement(state.current) not in result.actions


def test_whole_setup_read_from_the_table_one_placement_at_a_time():
    rules = PeepWar(players=("red", "blue", "green"), edition=2001)
    state = rules.new_state()
    bot = Bot(rules, 5)
    while state.phase in (Phase.SETUP_TILES, Phase.SETUP_SUPPLY):
        action = bot.choose(state)
        table, _ = rules.apply(state, action)
        result = infer(rules, state, expected_observation(table))
        assert result.actions == (action,), result
        state = table
    assert state.phase is Phase.MOVEMENT and "0,0/c" in state.supply_centers


def test_many_hexes_and_one_misread_give_up_quickly_as_a_problem():
    import time

    rules = PeepWar(players=[f"p{i}" for i in range(6)], edition=2005)
    state = rules.new_state()
    bot = Bot(rules, 2)
    table = state
    for _ in range(16):
        table, _ = rules.apply(table, bot.choose(table))
    seen = expected_observation(table)
    seen = replace(seen, tiles=(*seen.tiles, TileSeen(99, 9, 9)))
    t = time.perf_counter()
    result = infer(rules, state, seen)
    assert time.perf_counter() - t < 5
    assert result.verdict == "problem"


def test_several_peeps_moving_together_are_not_auto_accepted():
    rules, state = _midgame()
    p = state.current
    peeps = [(c, who[p]) for c, who in state.pieces.items() if p in who and who[p].peep]
    moves = []
    s = state
    for cell, _st in peeps:
        for a in rules.legal_actions(s):
            if isinstance(a, Move) and a.src == cell and a.peep and not a.troops:
                moves.append(a)
                s, _ = rules.apply(s, a)
                break
    if len(moves) < 2:
        pytest.skip("this position has fewer than two peeps free to move")
    result = infer(rules, state, expected_observation(s))
    assert result.verdict == "actions" and not result.certain


def test_a_correction_naming_a_runaway_player_is_echoed_cut_on_one_line() -> None:
    # The page's correction repeated the player's name whole: 5,000 characters in one error.
    from companion.rules.peepwar.game import GAME

    rules = PeepWar(players=("red", "blue"))
    with pytest.raises(ValueError) as refused:
        GAME.correction(rules, rules.new_state(),
                        {"cell": "0,0/c", "pieces": {"x" * 5000: {"troops": 1}}})
    assert str(refused.value) == (f"pieces: there is no player '{'x' * 59}…' at this table "
                                  "(red, blue)")
