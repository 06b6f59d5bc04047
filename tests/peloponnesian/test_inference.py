"""Move inference: camera readings of the map explained as the turn's changes, checked by rules."""

from __future__ import annotations

import json

import pytest

from companion.observation import BadObservation
from companion.referee import Referee
from companion.rules.peloponnesian import PeloponnesianWar, Place, Resolve
from companion.rules.peloponnesian.game import GAME
from companion.rules.peloponnesian.inference import expected_observation, infer
from companion.rules.peloponnesian.mapdata import DEFAULT_MAP
from companion.rules.peloponnesian.observation import AreaReading, PeloObservation
from companion.rules.peloponnesian.state import PLAY, REVEAL

from .conftest import CITIES, deal, play, set_up

HANDS = {"sparta": ["military", "coup", "void", "influence"],
         "athens": ["military", "coup", "void", "influence"],
         "thebes": ["military", "coup", "void", "influence"]}


def _revealed(rules: PeloponnesianWar):
    s, _ = deal(rules, set_up(rules), HANDS)
    assert s.phase == PLAY
    s, _ = play(rules, s, "athens play military boeotia", "sparta play void arcadia",
                "thebes play void locris",
                "athens play void attica", "sparta play military arcadia",
                "thebes play influence phocis",
                "athens play coup euboea", "sparta play coup messenia",
                "thebes play coup boeotia")
    assert s.phase == REVEAL
    return s


def test_a_second_counter_at_set_up_is_placed(rules: PeloponnesianWar) -> None:
    s = rules.new_state()
    who = sorted(rules.waiting_for(s))[0]
    seen = expected_observation(rules, s).with_readings({"euboea": AreaReading({who: 1})})
    assert infer(rules, s, seen).actions == (Place(who, "euboea"),)


def test_a_counter_where_the_rules_refuse_it_is_a_problem_not_applied(
        rules: PeloponnesianWar) -> None:
    s = rules.new_state()
    who = sorted(rules.waiting_for(s))[0]
    other = next(p for p in rules.players if p != who)
    home = rules.map.homes[other]
    seen = expected_observation(rules, s).with_readings({home: AreaReading({other: 1, who: 1})})
    result = infer(rules, s, seen)
    assert result.verdict == "problem" and "oriented to" in result.problems[0]


def test_a_chit_put_face_down_waits_for_its_player(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    seen = expected_observation(rules, s).with_readings(
        {"boeotia": AreaReading(s.counters_in("boeotia"), (("hidden", "athens"),))})
    assert infer(rules, s, seen).verdict == "same"
    face_up = seen.with_readings({"boeotia": AreaReading(s.counters_in("boeotia"),
                                                         (("military", "athens"),))})
    result = infer(rules, s, face_up)
    assert result.verdict == "problem" and "Boeotia" in result.problems[0]


def test_counters_moved_as_the_struggles_say_resolve_the_turn(rules: PeloponnesianWar) -> None:
    s = _revealed(rules)
    assert infer(rules, s, expected_observation(rules, s)).verdict == "same"
    after, _ = rules.apply(s, Resolve("athens"))
    moved = PeloObservation("peloponnesian", {a: r for a, r in expected_observation(
        rules, after).areas.items()})
    result = infer(rules, s, moved)
    assert result.verdict == "actions" and result.actions == (Resolve("athens"),)


def test_counters_moved_otherwise_are_shown_never_applied(rules: PeloponnesianWar) -> None:
    s = _revealed(rules)
    after, _ = rules.apply(s, Resolve("athens"))
    wrong = expected_observation(rules, after).with_readings(
        {"attica": AreaReading({"athens": 2})})
    assert after.counters_in("attica") != {"athens": 2}
    result = infer(rules, s, wrong)
    assert result.verdict == "problem"
    assert any(p.startswith("Attica: the camera sees athens 2; the struggles give")
               for p in result.problems)


def test_problems_never_name_a_face_down_chit(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    s, _ = play(rules, s, "athens play military boeotia")
    seen = expected_observation(rules, s).with_readings({"boeotia": AreaReading(
        s.counters_in("boeotia"))})  # the chit is not seen
    result = infer(rules, s, seen)
    assert result.verdict == "problem"
    assert "face down" in result.problems[0] and "military" not in " ".join(result.problems)


def test_an_occluded_area_is_not_compared(rules: PeloponnesianWar) -> None:
    s = rules.new_state()
    home = rules.map.homes["athens"]
    seen = expected_observation(rules, s).with_readings({home: AreaReading(occluded=True)})
    assert infer(rules, s, seen).verdict == "same"


def test_the_table_as_it_was_is_an_undo(rules: PeloponnesianWar) -> None:
    s = rules.new_state()
    who = sorted(rules.waiting_for(s))[0]
    s2, _ = rules.apply(s, Place(who, "euboea" if who == "athens" else rules.map.homes[who]))
    assert infer(rules, s2, expected_observation(rules, s), [s]).undo == 1


def test_the_bundle_parses_checks_and_corrects() -> None:
    rules = GAME.new_rules(["sparta", "athens", "thebes"])
    s = rules.new_state()
    obs = GAME.parse_observation({"game": "peloponnesian", "areas": {
        "attica": {"counters": {"athens": 1}}, "megara": {"occluded": True}}})
    assert GAME.infer(rules, s, obs, []).verdict in ("same", "problem")
    with pytest.raises(BadObservation, match="areas"):
        GAME.parse_observation({"game": "peloponnesian", "areas": []})
    assert GAME.correction(rules, s, {"area": "attica", "counters": {"athens": 2}}) == (
        "attica", AreaReading({"athens": 2}))
    with pytest.raises(ValueError, match="there is no area 'atlantis' on the map"):
        GAME.correction(rules, s, {"area": "atlantis"})
    with pytest.raises(ValueError, match="area must name"):
        GAME.correction(rules, s, {"area": 3})
    with pytest.raises(ValueError, match="0, 1 or 2"):
        GAME.correction(rules, s, {"area": "attica", "counters": {"athens": 3}})


@pytest.mark.parametrize(("data", "echo"), [
    ({"area": ["x" * 5000]}, f"\"attica\", not ['{'x' * 57}…"),
    ({"area": "attica", "counters": {"x" * 5000: 1}}, f"'{'x' * 59}…' is not at this table"),
    ({"area": "attica", "counters": {"athens": "x" * 5000}}, f"0, 1 or 2, not '{'x' * 59}…'"),
])
def test_a_runaway_correction_is_echoed_cut_on_one_line(data: dict, echo: str) -> None:
    # The page's correction fields were repeated whole: 5,000 characters in one error.
    rules = GAME.new_rules(["sparta", "athens", "thebes"])
    with pytest.raises(ValueError) as refused:
        GAME.correction(rules, rules.new_state(), data)
    assert echo in str(refused.value) and len(str(refused.value)) < 200


def test_a_runaway_area_is_quoted_cut_before_the_map_s_areas() -> None:
    # It was cut at 57 with "..." outside the quote, unlike every other echo.
    rules = GAME.new_rules(["sparta", "athens", "thebes"])
    with pytest.raises(ValueError) as refused:
        GAME.correction(rules, rules.new_state(), {"area": "q" * 5000})
    areas = ", ".join(rules.map.areas)
    assert str(refused.value) == f"there is no area '{'q' * 59}…' on the map ({areas})"


@pytest.mark.parametrize("areas, message", [
    ({"atica": {"counters": {"athens": 1}}},
     "there is no area 'atica' on the map: did you mean attica?"),
    ({"attica": {"counters": {"athens": 1}}, "Boeotia": {"occluded": True},
      "atlantis": {}},
     "there is no area 'Boeotia' on the map: did you mean boeotia? (and 1 more unknown area)"),
    ({"Attica": {}, "Boeotia": {}, "atlantis": {}},
     "there is no area 'Attica' on the map: did you mean attica? (and 2 more unknown areas)"),
])
def test_an_area_not_on_the_map_is_refused_by_name_and_changes_nothing(
        game_log, areas: dict, message: str) -> None:
    """Left out of the reading, the area's counters would count as not on the table."""
    referee = Referee(game_log, game_log.new_game(GAME.new_rules(list(CITIES))))
    obs = GAME.parse_observation({"game": "peloponnesian", "areas": areas})
    state, entries = referee.state, game_log.entries(referee.game.id)
    with pytest.raises(BadObservation) as refused:
        referee.observe(obs)
    assert str(refused.value) == message
    assert referee.state == state and game_log.entries(referee.game.id) == entries
    assert referee.last_observation is None and referee.problems == []


def test_an_area_far_from_every_name_is_refused_with_the_maps_areas(game_log) -> None:
    referee = Referee(game_log, game_log.new_game(GAME.new_rules(list(CITIES))))
    with pytest.raises(BadObservation, match=r"^there is no area 'xyz' on the map \(macedonia, "):
        referee.observe(GAME.parse_observation({"game": "peloponnesian", "areas": {"xyz": {}}}))


def test_a_new_game_on_another_map_forgets_a_reading_of_the_old_maps_areas(game_log) -> None:
    """The last reading named an area the new map has not: kept, it refused every correction
    of the new game ("there is no area 'cythera'") until the camera read the table again."""
    bigger = json.loads(DEFAULT_MAP.read_text(encoding="utf-8"))
    bigger["areas"]["cythera"] = {"name": "Cythera", "at": [150, 292], "island": True}
    bigger["links"].append(["cythera", "laconia", "sea"])
    referee = Referee(game_log, game_log.new_game(GAME.new_rules(list(CITIES), {"map": bigger})))
    referee.observe(GAME.parse_observation(
        {"game": "peloponnesian", "areas": {"cythera": {"counters": {"sparta": 1}}}}))
    referee.new_game(list(CITIES), {})  # the shipped map: no Cythera
    assert referee.last_observation is None
    assert referee.correct({"area": "attica", "counters": {"athens": 1}}) == "attica"
    assert referee.overrides == {"attica": AreaReading({"athens": 1})}


def test_a_new_game_on_the_same_map_keeps_the_last_reading(game_log) -> None:
    """The table is the one the camera last read: a correction is ruled on that reading."""
    referee = Referee(game_log, game_log.new_game(GAME.new_rules(list(CITIES))))
    seen = GAME.parse_observation({"game": "peloponnesian", "areas": {}})
    referee.observe(seen)
    referee.new_game(list(CITIES), {})
    assert referee.last_observation is seen
