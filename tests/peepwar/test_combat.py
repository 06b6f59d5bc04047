"""Combat resolution: the egg, who draws, what the victor eats, how a fight ends.

"Remove all Troops from the cell and place them in a plastic egg … If a Peep is
involved in the Combat, the controller of the Peep must [2005] / may [2001] place
additional … jellybeans in the container, one for each unit of Health." "The
defending player draws … The controller of the drawn bean is the Victor … The Victor
shakes the container and the other player draws a bean." docs/peepwar.md: 2001 peep
owners choose in/out before the first draw; a kept-out peep is lost if its side
loses, unharmed if it wins; a side with no beans loses at once.

Draws are given explicitly (``draw red`` = a bean of red's came out), as a person
reporting a real egg would, so every fight here is deterministic.
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules.peepwar import (
    Draw,
    Eat,
    Move,
    PeepBeans,
    PeepWar,
    PeepWarState,
    Phase,
    Stack,
)

from .conftest import SEATS, StackSpec, kinds, play, position, refusal

HOMES = {"1,0/c": {"red": (2, 3)}, "-1,0/c": {"blue": (2, 3)}}
CELL = "0,0/c"


def fight(rules: PeepWar, red: StackSpec, blue: StackSpec, cell: str = CELL) -> PeepWarState:
    """Red (to move) has attacked blue at ``cell``; red ends movement, the fight starts."""
    state = position(rules, {**HOMES, cell: {"blue": blue, "red": red}})
    state, _ = play(rules, state, "end")
    assert state.combat is not None and state.combat.cell == cell
    return state


def test_all_troops_go_in_the_egg_and_the_defender_draws_first(game: PeepWar) -> None:
    state = position(game, {**HOMES, "0,0/0": {"red": 3}, CELL: {"blue": 2}})
    state, events = play(game, state, "move 3 0,0/0 0,0/c", "end")
    assert events[-1].kind == "combat"
    assert events[-1].text == (
        "fight at 0,0/c: red (3 troops) attacks blue (2 troops); blue draws first")
    c = state.combat
    assert c is not None
    assert (c.attacker, c.defender, c.drawer) == ("red", "blue", "blue")
    assert dict(c.troops) == {"red": 3, "blue": 2}
    assert all(st.troops == 0 for st in state.pieces[CELL].values())  # out of the cell
    assert state.totals("red") == (5, 1) and state.totals("blue") == (4, 1)  # still in play
    assert game.to_act(state) == "blue"
    assert state.controller(CELL) is None


def test_2005_peep_beans_always_go_in_at_the_peeps_health() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state = fight(rules, red=(1, 2), blue=3)
    c = state.combat
    assert c is not None
    assert dict(c.peep_beans) == {"red": 2, "blue": 0}
    assert c.undecided == ()
    assert rules.to_act(state) == "blue"
    assert rules.why_not(state, PeepBeans("blue", False)) == (
        "blue cannot keep the peep's beans out: there is no choice about peep beans to make now")


def test_2001_peep_owner_chooses_before_the_first_draw() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = fight(rules, red=3, blue=(1, 2))
    c = state.combat
    assert c is not None and c.undecided == ("blue",) and dict(c.peep_beans) == {
        "red": 0, "blue": 0}
    assert rules.to_act(state) == "blue"
    assert refusal(rules, state, "draw red") == (
        "blue cannot draw a bean of red: first blue chooses whether the peep's beans go in the "
        "egg at 0,0/c")
    state, events = play(rules, state, "in")
    assert events[0].text == "blue puts 2 peep beans in the egg"
    c = state.combat
    assert c is not None and c.undecided == () and c.peep_beans["blue"] == 2
    assert rules.to_act(state) == "blue"  # the defender now draws
    assert refusal(rules, state, "in").endswith("there is no choice about peep beans to make now")


def test_2001_attacking_peep_owner_chooses_too() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = fight(rules, red=(2, 3), blue=2)
    assert state.combat is not None and state.combat.undecided == ("red",)
    assert rules.to_act(state) == "red"
    state, _ = play(rules, state, "out")
    assert state.combat is not None and state.combat.kept_out == ("red",)
    assert state.combat.beans("red") == 2


def test_2001_kept_out_peep_is_lost_when_its_side_loses() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = fight(rules, red=(1, 3), blue=1)
    state, events = play(rules, state, "out")
    assert events[0].text == (
        "red keeps the peep's beans out; the peep is lost if red loses")
    state, events = play(rules, state, "draw blue")  # blue wins the round, eats red's troop
    assert kinds(events) == ["draw", "eat", "combat_over", "production"]
    assert events[2].text == (
        "blue wins the fight at 0,0/c: 1 troop remains; red's peep, kept out of the egg, "
        "is lost with the fight")
    assert dict(state.pieces[CELL]) == {"blue": Stack(troops=1)}
    assert state.totals("red") == (2, 1)  # only the home garrison is left


def test_2001_kept_out_peep_is_unharmed_when_its_side_wins() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = fight(rules, red=(1, 2), blue=2)
    state, _ = play(rules, state, "out", "draw red", "draw red")
    assert state.combat is None and state.phase is Phase.PRODUCTION
    # Damaged before the fight, it keeps exactly that health: no segment was at risk.
    assert dict(state.pieces[CELL]) == {"red": Stack(troops=1, peep=2)}


def test_2001_side_with_no_beans_loses_at_once_attacker() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = fight(rules, red=(0, 3), blue=2)
    state, events = play(rules, state, "out")
    assert kinds(events) == ["peep_beans", "combat_over", "production"]
    assert events[1].data["winner"] == "blue"
    assert dict(state.pieces[CELL]) == {"blue": Stack(troops=2)}
    assert state.totals("red") == (2, 1)


def test_2001_side_with_no_beans_loses_at_once_defender() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2001)
    state = fight(rules, red=2, blue=(0, 3))
    state, events = play(rules, state, "out")
    assert events[1].text == (
        "red wins the fight at 0,0/c: 2 troops remain; blue's peep, kept out of the egg, "
        "is lost with the fight")
    assert dict(state.pieces[CELL]) == {"red": Stack(troops=2)}
    assert state.controller(CELL) == "red"


def test_2005_a_lone_peep_fights_with_its_beans() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state = fight(rules, red=(0, 3), blue=1)
    c = state.combat
    assert c is not None and c.beans("red") == 3 and state.phase is Phase.COMBAT
    state, events = play(rules, state, "draw red")
    assert kinds(events) == ["draw", "eat", "combat_over", "production"]
    assert dict(state.pieces[CELL]) == {"red": Stack(peep=3)}


def test_2005_peep_against_peep_both_sets_of_beans_are_in() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state = fight(rules, red=(0, 1), blue=(0, 2))
    state, events = play(rules, state, "draw blue")  # red's only bean is a peep bean: no choice
    assert events[1].text == "blue eats a peep bean of red and the peep's head: the peep is eaten"
    assert dict(state.pieces[CELL]) == {"blue": Stack(peep=2)}


def test_the_rounds_loser_draws_next(game: PeepWar) -> None:
    state = fight(game, red=3, blue=3)
    drawers = []
    for owner in ("red", "blue", "blue", "red"):
        c = state.combat
        assert c is not None
        drawers.append(c.drawer)
        state, events = play(game, state, f"draw {owner}")
        assert events[0].text == f"{c.drawer} draws a bean of {owner}: {owner} wins the round"
    # blue (defender) first; then the loser of each round: blue, red, red.
    assert drawers == ["blue", "blue", "red", "red"]
    c = state.combat
    assert c is not None and c.drawer == "blue" and dict(c.troops) == {"red": 1, "blue": 1}


def test_victor_chooses_only_when_the_loser_has_both_kinds(edition: int) -> None:
    rules = PeepWar(players=("red", "blue"), edition=edition)
    state = fight(rules, red=2, blue=(2, 3))
    if edition == 2001:
        state, _ = play(rules, state, "in")
    state, events = play(rules, state, "draw red")
    c = state.combat
    assert kinds(events) == ["draw"]  # nothing eaten yet: red must choose
    assert c is not None and c.victor == "red" and rules.to_act(state) == "red"
    assert refusal(rules, state, "draw red") == (
        "red cannot draw a bean of red: first red chooses which bean to eat at 0,0/c")
    assert refusal(rules, state, "eat cake").endswith("eat 'troop' or 'peep', not 'cake'")
    assert rules.why_not(state, Eat("blue", "troop")).endswith(
        "it is red's turn to act (red chooses which bean to eat at 0,0/c)")
    state, events = play(rules, state, "eat troop")
    assert events[0].text == "red eats a troop bean of blue"
    c = state.combat
    assert c is not None and dict(c.troops) == {"red": 2, "blue": 1} and c.peep_beans["blue"] == 3
    assert c.victor is None and c.drawer == "blue"


def test_victor_eats_automatically_when_the_loser_has_one_kind(game: PeepWar) -> None:
    state = fight(game, red=2, blue=2)
    state, events = play(game, state, "draw red")
    assert kinds(events) == ["draw", "eat"]
    assert events[1].text == "red eats a troop bean of blue"
    assert refusal(game, state, "eat troop").endswith("nobody has won a round that needs a choice")


def test_peep_loses_tail_body_head_and_dies_at_zero(edition: int) -> None:
    rules = PeepWar(players=("red", "blue"), edition=edition)
    state = fight(rules, red=3, blue=(1, 3))
    if edition == 2001:
        state, _ = play(rules, state, "in")
    texts, healths = [], []
    for _ in range(3):
        state, events = play(rules, state, "draw red", "eat peep")
        texts.append(events[-1].text)
        c = state.combat
        assert c is not None
        healths.append((c.peep_beans["blue"], state.stack(CELL, "blue").peep))
    # (The wording of the health left is the engine's; the segment order is the rule.)
    assert [t.split(":")[0] for t in texts] == [
        f"red eats a peep bean of blue and the peep's {part}" for part in ("tail", "body", "head")
    ]
    assert texts[2].endswith(": the peep is eaten")
    assert healths == [(2, 2), (1, 1), (0, 0)]
    # Blue's last troop: no choice left, the fight ends with red's three troops.
    state, events = play(rules, state, "draw red")
    assert kinds(events) == ["draw", "eat", "combat_over", "production"]
    assert dict(state.pieces[CELL]) == {"red": Stack(troops=3)}
    assert state.controller(CELL) == "red"


def test_survivors_return_to_the_cell_and_the_winners_peep_keeps_its_wounds(edition: int) -> None:
    rules = PeepWar(players=("red", "blue"), edition=edition)
    state = fight(rules, red=(2, 3), blue=2)
    if edition == 2001:
        state, _ = play(rules, state, "in")
    state, _ = play(rules, state, "draw red")  # blue has only troops: eaten at once
    state, _ = play(rules, state, "draw blue", "eat peep")  # blue wounds red's peep
    state, events = play(rules, state, "draw red")  # red eats blue's last troop
    assert events[-2].text == (
        "red wins the fight at 0,0/c: 2 troops and a peep (2 health) remain")
    assert events[-2].data == {"cell": CELL, "winner": "red", "loser": "blue", "troops": 2,
                               "peep": 2}
    assert dict(state.pieces[CELL]) == {"red": Stack(troops=2, peep=2)}
    assert state.phase is Phase.PRODUCTION and state.combat is None
    # The wound lasts into the next fight.
    assert state.totals("red") == (4, 2)


def test_the_defender_wins_and_keeps_the_cell(game: PeepWar) -> None:
    state = fight(game, red=1, blue=2)
    state, events = play(game, state, "draw blue")
    assert events[2].text == "blue wins the fight at 0,0/c: 2 troops remain"
    assert dict(state.pieces[CELL]) == {"blue": Stack(troops=2)}
    assert state.controller(CELL) == "blue"


def test_draw_refusals(game: PeepWar) -> None:
    state = fight(game, red=2, blue=2)
    assert game.why_not(state, Draw("red", "red")) == (
        "red cannot draw a bean of red: it is blue's turn to act (blue draws from the egg "
        "at 0,0/c)")
    assert refusal(game, state, "draw gray") == (
        "blue cannot draw a bean of gray: gray is not in the fight at 0,0/c")
    # Red, whose turn it is, must wait for blue's hand; blue may only draw.
    assert game.why_not(state, Move("red", "1,0/c", "1,0/0", 1)).endswith(
        "it is blue's turn to act (blue draws from the egg at 0,0/c)")
    assert refusal(game, state, "move 1 -1,0/c -1,0/0").endswith("it is the combat phase")
    assert refusal(game, state, "end").endswith("it is the combat phase")
    # The engine's guard for an emptied side (a real fight ends before this can be drawn).
    c = state.combat
    assert c is not None
    emptied = replace(state, combat=replace(c, troops={"red": 0, "blue": 2}))
    assert refusal(game, emptied, "draw red").endswith("none of red's beans are left in the egg")


def test_draw_with_no_fight_is_refused(game: PeepWar) -> None:
    state = position(game, HOMES)
    assert refusal(game, state, "draw blue") == (
        "red cannot draw a bean of blue: there is no fight going on")


def test_a_player_outside_the_fight_cannot_be_drawn(edition: int) -> None:
    rules = PeepWar(players=SEATS[:3], edition=edition)
    state = position(rules, {"1,0/c": {"red": (2, 3)}, "-1,1/c": {"blue": (2, 3)},
                             "0,-1/c": {"green": (2, 3)}, CELL: {"blue": 1, "red": 1}})
    state, _ = play(rules, state, "end")
    assert refusal(rules, state, "draw green") == (
        "blue cannot draw a bean of green: green is not in the fight at 0,0/c")


def test_several_fights_are_resolved_one_after_another_in_board_order(game: PeepWar) -> None:
    pieces = {**HOMES, "0,0/3": {"blue": 1, "red": 1}, "0,0/c": {"blue": 1, "red": 2},
              "-1,0/0": {"blue": 2, "red": 1}}
    state = position(game, pieces)
    state, events = play(game, state, "end")
    assert state.combat is not None and state.combat.cell == "-1,0/0"
    assert [e.data["cell"] for e in events if e.kind == "combat"] == ["-1,0/0"]
    state, events = play(game, state, "draw blue")
    assert kinds(events) == ["draw", "eat", "combat_over", "combat"]
    assert state.combat is not None and state.combat.cell == "0,0/c"
    state, events = play(game, state, "draw red")  # blue's only bean is eaten
    assert kinds(events) == ["draw", "eat", "combat_over", "combat"]
    assert state.combat is not None and state.combat.cell == "0,0/3"
    state, events = play(game, state, "draw red")
    assert kinds(events)[-2:] == ["combat_over", "production"]
    assert state.phase is Phase.PRODUCTION
    assert state.contested() == []
    assert {c: set(who) for c, who in state.pieces.items() if c.startswith(("0,0", "-1,0/0"))} \
        == {"-1,0/0": {"blue"}, "0,0/c": {"red"}, "0,0/3": {"red"}}


def test_a_contested_supply_center_belongs_to_nobody_until_the_fight_ends() -> None:
    rules = PeepWar(players=("red", "blue"), edition=2005)
    state = fight(rules, red=3, blue=(2, 1))
    state, _ = play(rules, state, "draw red", "eat peep")  # blue's peep dies; blue has 2 troops
    c = state.combat
    assert c is not None and c.beans("blue") == 2  # the fight goes on
    assert state.controller(CELL) is None
    assert CELL not in rules.tally(state).standings[0].details["supply_centers"]


def test_each_fight_has_its_own_defender_with_three_players(edition: int) -> None:
    rules = PeepWar(players=SEATS[:3], edition=edition)
    pieces = {"1,0/c": {"red": (2, 3)}, "-1,1/c": {"blue": (2, 3)}, "0,-1/c": {"green": (2, 3)},
              "0,0/1": {"blue": 1, "red": 1}, "0,0/4": {"green": 1, "red": 1}}
    state, _ = play(rules, position(rules, pieces), "end")
    c = state.combat
    assert c is not None and (c.cell, c.defender, rules.to_act(state)) == ("0,0/1", "blue", "blue")
    state, _ = play(rules, state, "draw red")
    c = state.combat
    assert c is not None and (c.cell, c.defender, rules.to_act(state)) == (
        "0,0/4", "green", "green")
    state, events = play(rules, state, "draw green")
    assert events[-2].data["winner"] == "green" and state.phase is Phase.PRODUCTION
    assert rules.to_act(state) == "red"
