"""Struggles (rules 4), the Star and Special chits (rules 2), and victory (rules 6)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.rules.peloponnesian import PeloponnesianWar, Play, Resolve
from companion.rules.peloponnesian.chits import load_chits
from companion.rules.peloponnesian.state import OVER, REVEAL, Placed
from companion.rules.peloponnesian.struggle import final_winners, needed, resolve_area
from tests.peloponnesian.conftest import CITIES, chits_everywhere, deal, play, set_up

MIX = load_chits(None)


def fight(chits: list[tuple[str, str]], counters: dict[str, int] | None = None,
          star_as: str = "") -> dict[str, int]:
    placed = [Placed(p, c, "megara", star_as if c == "star" else "") for p, c in chits]
    return resolve_area("megara", placed, counters or {}, MIX).counters


@pytest.mark.parametrize(("a", "b", "survivor"), [
    ("military", "military", None), ("military", "influence", "athens"),
    ("military", "coup", "sparta"), ("influence", "military", "sparta"),
    ("influence", "influence", None), ("influence", "coup", "athens"),
    ("coup", "military", "athens"), ("coup", "influence", "sparta"), ("coup", "coup", None),
])
def test_the_grid_decides_which_chit_survives(a: str, b: str, survivor: str | None) -> None:
    # Sparta plays a, Athens plays b in neutral Megara: the survivor orients it.
    after = fight([("sparta", a), ("athens", b)])
    assert after == ({survivor: 1} if survivor else {})


def test_a_void_has_no_value() -> None:
    assert fight([("sparta", "void"), ("athens", "coup")]) == {"athens": 1}
    assert fight([("sparta", "military"), ("athens", "void")]) == {"sparta": 1}
    assert fight([("sparta", "void"), ("athens", "void")]) == {}
    assert fight([("sparta", "void")]) == {}  # alone it does nothing either


def test_number_counts_the_extra_chit_survives() -> None:
    assert fight([("sparta", "coup"), ("athens", "coup"), ("sparta", "coup")]) == {"sparta": 1}


def test_a_single_chit_wins_against_a_single_counter_and_the_area_turns_neutral() -> None:
    assert fight([("sparta", "coup")], {"athens": 1}) == {}


def test_two_winning_chits_remove_the_counter_then_orient_the_area() -> None:
    assert fight([("sparta", "coup"), ("sparta", "military")], {"athens": 1}) == {"sparta": 1}


def test_one_winning_chit_retires_only_one_of_two_enemy_counters() -> None:
    assert fight([("sparta", "coup")], {"athens": 2}) == {"athens": 1}


def test_a_friendly_counter_gets_a_second_but_never_a_third() -> None:
    assert fight([("athens", "influence")], {"athens": 1}) == {"athens": 2}
    assert fight([("athens", "influence"), ("athens", "coup")], {"athens": 1}) == {"athens": 2}


def test_a_special_chit_works_for_the_city_it_favours_whoever_plays_it() -> None:
    # Sparta plays Pericles (Athens) against Thebes' coup in Theban Megara.
    assert fight([("sparta", "pericles"), ("thebes", "coup")], {"thebes": 1}) == {}
    assert fight([("sparta", "pericles")]) == {"athens": 1}
    assert fight([("sparta", "brasidas"), ("athens", "military")]) == {"sparta": 1}


def test_two_specials_draw_unless_they_favour_the_same_city() -> None:
    assert fight([("sparta", "brasidas"), ("athens", "pericles")]) == {}
    assert fight([("sparta", "brasidas"), ("athens", "lysander")]) == {"sparta": 2}


def test_the_star_counts_double_as_the_type_it_is_played_as() -> None:
    # The first half beats the coup, the second meets nothing: two survivors, two counters.
    assert fight([("sparta", "star"), ("athens", "coup")], star_as="military") == {"sparta": 2}
    assert fight([("sparta", "star")], {"athens": 1}, star_as="coup") == {"sparta": 1}
    assert fight([("sparta", "star"), ("athens", "influence"), ("athens", "influence")],
                 star_as="military") == {"athens": 2}


# --- a whole turn: chits back to the cup, Specials retired, the Star's three plays --------

def _turn(rules: PeloponnesianWar, s, lines: list[str]):
    s, _ = play(rules, s, *lines)
    return rules.apply(s, Resolve(rules.gods_support(s.turn)))


def test_chits_go_back_to_the_cup_and_specials_are_retired(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), {
        "sparta": ["coup", "void", "brasidas", "military"],
        "athens": ["coup", "void", "influence", "military"],
        "thebes": ["coup", "void", "influence", "military"]})
    total = chits_everywhere(s)
    s, events = _turn(rules, s, [
        "sparta play brasidas attica", "athens play coup attica", "thebes play coup phocis",
        "sparta play void arcadia", "athens play void euboea", "thebes play void boeotia",
        "sparta play coup elis", "athens play influence megara",
        "thebes play influence locris"])
    assert s.retired == ("brasidas",) and chits_everywhere(s) == total
    assert s.board == () and s.turn == 2
    assert s.counters_in("attica") == {}  # Brasidas beat the coup and took the counter
    assert s.counters_in("phocis") == {"thebes": 1}
    assert s.counters_in("locris") == {"thebes": 2}
    texts = [e.text for e in events if e.kind == "struggle"]
    assert ("Attica: sparta's Brasidas (for sparta) meets athens's coup: sparta's Brasidas "
            "(for sparta) wins; sparta removes a counter of athens") in texts


def test_the_star_is_retired_at_its_third_play(rules: PeloponnesianWar) -> None:
    s = set_up(rules)
    for turn in (1, 2, 3):
        extra = ["influence"] if turn == 1 else []  # one chit is kept: four on turn 1 only
        s, _ = deal(rules, s, {"athens": ["star", "void", "military", *extra],
                               "sparta": ["coup", "void", "military", *extra],
                               "thebes": ["coup", "void", "military", *extra]})
        s, _ = _turn(rules, s, [
            "athens play star ionia as void", "sparta play coup elis", "thebes play coup locris",
            "athens play void ionia", "sparta play void elis", "thebes play void locris",
            "athens play military attica", "sparta play military laconia",
            "thebes play military boeotia"])
        assert s.star_plays == turn
        assert ("star" in s.retired) == (turn == 3)
        assert s.in_cup("star") == (0 if turn == 3 else 1)


# --- victory --------------------------------------------------------------------------------

def test_seven_areas_win_eight_while_another_holds_your_city() -> None:
    assert needed("athens", None) == 7 and needed("athens", "athens") == 7
    assert needed("athens", "sparta") == 8


def _ending(rules: PeloponnesianWar, counters, turn: int = 1):
    """Resolve a turn with nothing on the map, the counters as given."""
    s, _ = deal(rules, set_up(rules), {p: ["coup", "void", "military", "influence"]
                                       for p in CITIES})
    s = replace(s, counters=tuple(sorted(counters)), turn=turn, phase=REVEAL)
    return rules.apply(s, Resolve(rules.gods_support(turn)))


def test_a_city_with_seven_areas_wins_at_the_end_of_the_turn(rules: PeloponnesianWar) -> None:
    held = ["laconia", "messenia", "arcadia", "elis", "achaea", "argos", "corinth"]
    s, events = _ending(rules, [(a, "sparta", 1) for a in held] + [("attica", "athens", 1)])
    assert s.phase == OVER and s.winners == ("sparta",)
    assert s.reason == "sparta orients 7 areas at the end of turn 1"
    assert rules.tally(s).winner == "sparta" and rules.waiting_for(s) == frozenset()
    assert "the game is over" in rules.why_not(s, Play("athens", "coup", "ionia"))


def test_seven_are_not_enough_while_another_holds_your_city(rules: PeloponnesianWar) -> None:
    held = ["messenia", "arcadia", "elis", "achaea", "argos", "corinth", "megara"]
    s, _ = _ending(rules, [(a, "sparta", 1) for a in held] + [("laconia", "athens", 1)])
    assert s.phase != OVER and rules.needed(s, "sparta") == 8


def test_after_turn_fifteen_the_most_areas_then_the_most_counters(
        rules: PeloponnesianWar) -> None:
    s, _ = _ending(rules, [("laconia", "sparta", 2), ("messenia", "sparta", 1),
                           ("attica", "athens", 1), ("boeotia", "thebes", 1)], turn=15)
    assert s.phase == OVER and s.winners == ("sparta",)
    assert s.reason == "the most areas after turn 15"
    s, _ = _ending(rules, [("laconia", "sparta", 2), ("messenia", "sparta", 1),
                           ("attica", "athens", 1), ("euboea", "athens", 1)], turn=15)
    assert s.winners == ("sparta",)
    assert s.reason == "the most counters after turn 15, areas being tied"


def test_no_result_before_turn_fifteen_without_seven_areas(rules: PeloponnesianWar) -> None:
    s, _ = _ending(rules, [("laconia", "sparta", 2)], turn=14)
    assert s.phase != OVER and s.turn == 15


def test_a_tie_after_turn_fifteen_has_several_winners(rules: PeloponnesianWar) -> None:
    s, _ = _ending(rules, [("attica", "athens", 1), ("boeotia", "thebes", 1),
                           ("laconia", "sparta", 1)], turn=15)
    assert s.winners == ("sparta", "athens", "thebes")
    assert s.reason == "the most counters after turn 15, areas being tied"
    assert rules.tally(s).winner is None and len(rules.tally(s).winners) == 3
    assert final_winners({"a": 2, "b": 2, "c": 1}, {"a": 3, "b": 2, "c": 9}) == ("a",)


def test_when_several_reach_their_number_the_most_areas_win(rules: PeloponnesianWar) -> None:
    sparta = ["laconia", "messenia", "arcadia", "elis", "achaea", "argos", "corinth", "megara"]
    athens = ["attica", "euboea", "aegina", "cyclades", "ionia", "lesbos", "thrace"]
    s, _ = _ending(rules, [(a, "sparta", 1) for a in sparta] + [(a, "athens", 1)
                                                                 for a in athens])
    assert s.winners == ("sparta",) and s.reason == "sparta orients 8 areas at the end of turn 1"
    s, _ = _ending(rules, [(a, "sparta", 1) for a in sparta[:7]] + [(a, "athens", 1)
                                                                     for a in athens])
    assert s.winners == ("sparta", "athens")
    assert s.reason == "sparta and athens orient 7 areas at the end of turn 1"
