"""Set-up and the sequence of play, sentence by sentence (rules 1.1, 2 and 3)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.rules.base import IllegalAction
from companion.rules.peloponnesian import (
    Draw,
    Keep,
    Pass,
    PeloponnesianWar,
    Place,
    Play,
    Resolve,
    Swap,
)
from companion.rules.peloponnesian.state import DELPHI, DRAW, PLAY, REDRAW, REVEAL
from tests.peloponnesian.conftest import (
    CITIES,
    chits_everywhere,
    deal,
    page_over_a_game,
    play,
    set_up,
)

HANDS = {"sparta": ["coup", "void", "influence", "military"],
         "athens": ["coup", "void", "influence", "military"],
         "thebes": ["coup", "void", "influence", "military"]}


# --- 1.1 set-up ---------------------------------------------------------------------------

def test_each_city_starts_with_a_counter_on_its_home(rules: PeloponnesianWar) -> None:
    s = rules.new_state()
    assert s.counters_in("laconia") == {"sparta": 1}
    assert s.counters_in("attica") == {"athens": 1}
    assert s.counters_in("boeotia") == {"thebes": 1}
    assert s.turn == 0 and rules.phase(s) == "setup"


@pytest.mark.parametrize("youngest", CITIES)
def test_the_youngest_places_the_second_counter_first(youngest: str) -> None:
    rules = PeloponnesianWar(list(CITIES), youngest=youngest)
    s = rules.new_state()
    assert rules.waiting_for(s) == {youngest}
    first = CITIES.index(youngest)
    assert s.to_place == CITIES[first:] + CITIES[:first]  # then on round the seats
    other = next(p for p in CITIES if p != youngest)
    assert "it is not" in rules.why_not(s, Place(other, "megara"))


def test_the_second_counter_goes_at_discretion_but_not_on_another_city(
        rules: PeloponnesianWar) -> None:
    s = rules.new_state()
    assert rules.why_not(s, Place("sparta", "attica")) == (
        "sparta cannot place a counter in Attica: it is oriented to athens")
    assert rules.why_not(s, Place("sparta", "laconia")) is None  # two at home is allowed
    assert "no area 'atlantis'" in rules.why_not(s, Place("sparta", "atlantis"))
    s, events = rules.apply(s, Place("sparta", "ionia"))
    assert events[0].text == "sparta places a counter in Ionia"


def test_after_set_up_turn_one_draws_four_each_round_the_table(
        rules: PeloponnesianWar) -> None:
    s = set_up(rules)
    assert s.turn == 1 and s.phase == DRAW
    assert rules.gods_support(1) == "athens"
    assert s.draws == ("athens", "sparta", "thebes") * 4
    chance = rules.chance(s)
    assert chance is not None and chance.total == 29 and chance.hidden


# --- 3 sequence of play ------------------------------------------------------------------

def test_draws_are_private_and_three_are_drawn_after_the_first_turn(
        rules: PeloponnesianWar) -> None:
    s, events = deal(rules, set_up(rules), HANDS)
    drawn = [e for e in events if e.kind == "draw"]
    assert len(drawn) == 12
    assert drawn[0].private_to == {"athens"} and drawn[0].text == "athens draws Coup!"
    assert drawn[0].seen_by("sparta").text == "athens draws a chit"
    assert drawn[0].seen_by(None).text == "athens draws a chit"
    assert s.phase == PLAY and s.hand("athens") == ("coup", "influence", "military", "void")
    s = _whole_turn(rules, s)
    assert s.turn == 2 and [len(h) for _, h in s.hands] == [1, 1, 1]
    assert s.draws == ("sparta", "thebes", "athens") * 3  # the Gods' Support draws first


def _whole_turn(rules: PeloponnesianWar, s):
    for _ in range(3):
        for p in rules.play_order(s.turn):
            chit = sorted(s.hand(p))[0]
            s, _ = rules.apply(s, Play(p, chit, rules.map.homes[p]) if chit != "star"
                               else Play(p, chit, rules.map.homes[p], "void"))
    assert s.phase == REVEAL
    s, _ = rules.apply(s, Resolve(rules.gods_support(s.turn)))
    return s


def test_gods_support_rotates_athens_sparta_thebes(rules: PeloponnesianWar) -> None:
    assert [rules.gods_support(t) for t in range(1, 8)] == [
        "athens", "sparta", "thebes", "athens", "sparta", "thebes", "athens"]
    assert rules.play_order(2) == ("sparta", "thebes", "athens")
    two = PeloponnesianWar(["sparta", "thebes"])
    assert [two.gods_support(t) for t in (1, 2, 3)] == ["sparta", "thebes", "sparta"]


def test_delphis_holder_may_swap_one_chit(rules: PeloponnesianWar) -> None:
    s = set_up(rules, {"sparta": "messenia", "athens": "euboea", "thebes": "phocis"})
    s, _ = deal(rules, s, HANDS, keep=False)
    assert s.phase == DELPHI and rules.waiting_for(s) == {"thebes"}
    assert "holds no star" in rules.why_not(s, Swap("thebes", "star"))
    assert "it is not sparta's move" in rules.why_not(s, Swap("sparta", "void"))
    before = chits_everywhere(s)
    s, events = rules.apply(s, Swap("thebes", "void"))
    assert events[0].seen_by("athens").text == "thebes holds Delphi and swaps a chit"
    assert s.phase == REDRAW and s.aside == "void" and chits_everywhere(s) == before
    voids = s.in_cup("void")
    s, _ = rules.apply(s, Draw("thebes", "pericles"))
    assert s.phase == PLAY and s.in_cup("void") == voids + 1  # back in the cup after the draw
    assert "pericles" in s.hand("thebes") and "void" not in s.hand("thebes")


def test_delphis_holder_may_keep_and_nobody_waits_when_delphi_is_neutral(
        rules: PeloponnesianWar) -> None:
    s = set_up(rules, {"sparta": "messenia", "athens": "euboea", "thebes": "phocis"})
    s, _ = deal(rules, s, HANDS, keep=False)
    s, events = rules.apply(s, Keep("thebes"))
    assert s.phase == PLAY and events[0].text == "thebes holds Delphi and keeps the hand"
    s, _ = deal(rules, set_up(rules), HANDS, keep=False)
    assert s.phase == PLAY  # Delphi (Phocis) is neutral: no swap


def test_a_round_is_simultaneous_one_chit_each(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    assert rules.waiting_for(s) == set(CITIES)
    s, _ = play(rules, s, "thebes play coup corinth")
    assert rules.waiting_for(s) == {"athens", "sparta"}
    assert rules.why_not(s, Play("thebes", "void", "corinth")) == (
        "thebes has played this round already; waiting for athens and sparta")
    s, _ = play(rules, s, "sparta play coup elis", "athens play coup ionia")
    assert s.round == 2 and rules.waiting_for(s) == set(CITIES)


def test_in_turn_order_follows_the_gods_support() -> None:
    rules = PeloponnesianWar(list(CITIES), order="in-turn")
    s, _ = deal(rules, set_up(rules), HANDS)
    assert rules.waiting_for(s) == {"athens"}
    assert "it is not sparta's move" in rules.why_not(s, Play("sparta", "coup", "elis"))
    s, _ = play(rules, s, "athens play coup ionia")
    assert rules.waiting_for(s) == {"sparta"}


def test_the_face_down_play_is_private_until_the_reveal(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    s, events = play(rules, s, "athens play military megara")
    assert events[0].seen_by("athens").text == "athens plays Military face down in Megara"
    assert events[0].seen_by("thebes").text == "athens plays a chit face down in Megara"
    assert rules.view(s, "thebes")["chits"]["megara"] == [{"player": "athens",
                                                            "type": "hidden"}]
    assert rules.view(s, "athens")["chits"]["megara"][0]["type"] == "military"
    s, events = play(rules, s, "sparta play void elis", "thebes play void locris",
                     *[f"{p} play {c} {a}" for p, c, a in [
                         ("athens", "void", "attica"), ("sparta", "coup", "laconia"),
                         ("thebes", "coup", "boeotia"), ("athens", "coup", "attica"),
                         ("sparta", "influence", "arcadia"),
                         ("thebes", "influence", "phocis")]])
    assert s.phase == REVEAL and events[-1].kind == "reveal" and events[-1].private_to is None
    assert "Megara: athens Military" in events[-1].text
    assert rules.view(s, None)["chits"]["megara"][0]["type"] == "military"


def test_military_goes_within_two_areas_of_ones_own(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    # Athens holds Attica and Euboea: Laconia is three links away from both.
    assert rules.why_not(s, Play("athens", "military", "corinth")) is None  # two away
    assert rules.why_not(s, Play("athens", "military", "attica")) is None  # its own
    assert rules.why_not(s, Play("athens", "military", "laconia")) == (
        "Laconia is out of range: a Military chit goes within 2 areas of an area "
        "oriented to athens")


def test_influence_goes_next_to_ones_own_and_the_option_allows_ones_own() -> None:
    rules = PeloponnesianWar(list(CITIES))
    s, _ = deal(rules, set_up(rules, {"sparta": "messenia", "athens": "ionia",
                                      "thebes": "locris"}), HANDS)
    assert rules.why_not(s, Play("athens", "influence", "megara")) is None
    assert "next to an area oriented to athens" in rules.why_not(
        s, Play("athens", "influence", "attica"))  # own, but not next to another own area
    assert rules.why_not(s, Play("athens", "influence", "corinth")) is not None
    wide = PeloponnesianWar(list(CITIES), influence="adjacent-or-own")
    s, _ = deal(wide, set_up(wide, {"sparta": "messenia", "athens": "ionia",
                                    "thebes": "locris"}), HANDS)
    assert wide.why_not(s, Play("athens", "influence", "attica")) is None


def test_coup_void_and_special_go_anywhere(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), {**HANDS, "athens": ["coup", "void", "pericles",
                                                           "military"]})
    for chit in ("coup", "void", "pericles"):
        assert rules.why_not(s, Play("athens", chit, "corcyra")) is None


def test_an_area_holds_chits_of_two_players_only(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    s, _ = play(rules, s, "sparta play coup megara", "thebes play coup megara")
    assert rules.why_not(s, Play("athens", "void", "megara")) == (
        "Megara holds chits of sparta and thebes: an area holds chits of two players only")
    assert all(a.area != "megara" for a in rules.plays(s, "athens"))


def test_one_chit_is_kept_and_pass_is_only_for_who_cannot_play(
        rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    assert "can still play a chit" in rules.why_not(s, Pass("athens"))
    s, _ = play(rules, s, *[f"{p} play coup {rules.map.homes[p]}" for p in CITIES],
                *[f"{p} play void {rules.map.homes[p]}" for p in CITIES],
                *[f"{p} play influence {n}" for p, n in
                  [("sparta", "arcadia"), ("athens", "megara"), ("thebes", "phocis")]])
    assert s.phase == REVEAL and all(len(h) == 1 for _, h in s.hands)


def test_a_player_with_only_ranged_chits_and_no_area_passes() -> None:
    rules = PeloponnesianWar(list(CITIES))
    s = set_up(rules)
    s = replace(s, counters=tuple(c for c in s.counters if c[1] != "thebes"))
    s, _ = deal(rules, s, {**HANDS, "thebes": ["military", "influence", "military",
                                               "influence"]})
    assert list(rules.plays(s, "thebes")) == []
    assert rules.why_not(s, Pass("thebes")) is None
    s, events = rules.apply(s, Pass("thebes"))
    assert events[0].text == "thebes cannot play a chit in round 1"


def test_the_star_says_what_it_is_played_as(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), {**HANDS, "athens": ["star", "void", "coup", "coup"]})
    assert rules.why_not(s, Play("athens", "star", "megara")) == (
        "say what the Star is played as: military, influence, coup, void")
    assert "only the Star" in rules.why_not(s, Play("athens", "coup", "megara", "military"))
    assert "out of range" in rules.why_not(s, Play("athens", "star", "laconia", "military"))
    assert rules.why_not(s, Play("athens", "star", "laconia", "coup")) is None


def test_every_refusal_says_why(rules: PeloponnesianWar) -> None:
    s, _ = deal(rules, set_up(rules), HANDS)
    assert rules.why_not(s, Place("athens", "megara")).startswith("athens cannot place now")
    assert rules.why_not(s, Play("corinth", "coup", "megara")).startswith("'corinth' is not")
    assert rules.why_not(s, Play("athens", "pericles", "megara")) == (
        "athens holds no pericles chit")
    with pytest.raises(IllegalAction, match="no area 'sparta'"):
        rules.apply(s, Play("athens", "coup", "sparta"))
    assert "no chit 'gold'" in rules.why_not(set_up(rules), Draw("athens", "gold"))


def _small_cup(**mix: int) -> dict:
    return {"mix": mix, "specials": []}


def test_a_dry_cup_loses_the_remaining_draws_and_the_last_chit_is_kept() -> None:
    rules = PeloponnesianWar(list(CITIES), chits=_small_cup(coup=5))
    s = set_up(rules)
    assert s.cup_size() == 5
    s, events = deal(rules, s, {"athens": ["coup", "coup"], "sparta": ["coup", "coup"],
                                "thebes": ["coup"]})
    assert "the cup is empty: the remaining draws are lost" in [e.text for e in events]
    assert s.phase == PLAY and s.hand("thebes") == ("coup",)
    assert rules.why_not(s, Play("thebes", "coup", "megara")) == (
        "thebes must keep their last chit: one chit is kept each turn")
    assert rules.why_not(s, Pass("thebes")) is None


def test_the_chit_set_is_data_and_travels_in_the_options() -> None:
    from companion.rules.peloponnesian.chits import BadChits, parse_chits
    from companion.rules.peloponnesian.game import GAME

    mine = {"mix": {"military": 2, "coup": 2, "void": 1},
            "specials": [{"id": "alcibiades", "name": "Alcibiades", "city": "athens"}]}
    rules = GAME.new_rules(list(CITIES), {"chits": mine})
    assert rules.chits.total == 6 and rules.new_state().in_cup("alcibiades") == 1
    assert GAME.new_rules(list(CITIES), {"chits": rules.options()["chits"]}).chits.total == 6
    with pytest.raises(BadChits, match="favours 'corinth'"):
        parse_chits({"mix": {}, "specials": [{"id": "x", "name": "X", "city": "corinth"}]}, "f")
    with pytest.raises(BadChits, match="unknown chit kind 'cavalry'"):
        parse_chits({"mix": {"cavalry": 2}}, "f")


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000 + "]" * 100_000, "is not a chit file (its JSON is nested too deep)"),
    ('{"mix": ' + "9" * 5000 + "}", "is not a chit file (it holds a number too long to read)"),
    ('{"mix": {"coup": 2}, "note": NaN}', "the chits hold NaN or Infinity"),
    # Valid JSON, but past the cap: refused without being read whole, as /dev/zero must be.
    (" " * 1_000_001 + "{}", "is too large to be a chit file (more than 1 MB)"),
])
def test_a_bad_chit_file_is_one_line_from_new_and_the_page(tmp_path, capsys, text: str,
                                                           message: str) -> None:

    from companion.cli import main
    from companion.rules.peloponnesian.chits import BadChits, load_chits

    path = tmp_path / "chits.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BadChits) as e:
        load_chits(str(path))
    assert message in str(e.value) and str(e.value).startswith(str(path))
    assert main(["new", "--game", "peloponnesian", "--chits", str(path),
                 "--log", str(tmp_path / "g.sqlite")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    with page_over_a_game(tmp_path / "page.sqlite", list(CITIES), tmp_path) as (referee, _,
                                                                                new_game):
        resp = new_game({"chits": str(path)})
        assert resp.status_code == 400 and message in resp.get_json()["error"]
        assert referee.game.id == 1  # the game in play stays
