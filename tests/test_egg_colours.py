"""Matching the egg's colour readings to players, the profile's egg key, and egg calibration."""

from __future__ import annotations

import json
import math
import queue
from pathlib import Path

import pytest

from companion.errors import UserError
from companion.inputs.egg_colours import (
    ColourReading,
    EggColours,
    bean_readings,
    calibrate_egg,
    egg_colours_from_profile,
    load_egg_colours,
    with_egg_colours,
)
from companion.inputs.events import InputEvent

COLOURS = EggColours({"red": ((0.55, 0.25, 0.22),), "orange": ((0.50, 0.33, 0.17),),
                      "blue": ((0.20, 0.32, 0.50), (0.24, 0.30, 0.46))})


def reading(chroma: tuple[float, float, float], c: int = 8000) -> ColourReading:
    r, g, b = (round(v * c) for v in chroma)
    return ColourReading(r, g, b, c, gain=4, integration_ms=48.0)


def test_a_reading_near_a_reference_is_that_player() -> None:
    m = COLOURS.match(reading((0.552, 0.248, 0.221)))
    assert m.player == "red"
    assert m.confidence > 0.8
    # brightness does not matter, only colour
    assert COLOURS.match(reading((0.552, 0.248, 0.221), c=1500)).player == "red"


def test_any_of_a_players_references_counts() -> None:
    assert COLOURS.match(reading((0.24, 0.30, 0.46))).player == "blue"


def test_a_colour_nobody_has_is_unknown() -> None:
    m = COLOURS.match(reading((0.25, 0.55, 0.20)))
    assert m.player is None and m.confidence == 0
    assert m.reason.startswith("no player's beans look like that (nearest is ")


def test_halfway_between_two_players_is_too_close_to_call() -> None:
    m = COLOURS.match(reading((0.525, 0.29, 0.195)))
    assert m.player is None
    assert m.reason in ("could be red or orange", "could be orange or red")


def test_confidence_falls_as_the_reading_drifts() -> None:
    near = COLOURS.match(reading((0.55, 0.25, 0.22))).confidence
    off = COLOURS.match(reading((0.58, 0.22, 0.22))).confidence
    assert near > off > 0


def test_dark_and_saturated_readings_are_refused() -> None:
    dark = COLOURS.match(reading((0.55, 0.25, 0.22), c=120))
    assert dark.player is None and "too dark" in dark.reason
    top = ColourReading(20480, 9000, 8000, 20480, 4, 48.0)  # 20 cycles x 1024 counts
    assert top.max_count == 20480 and top.saturated
    assert "saturated" in COLOURS.match(top).reason
    assert "calibrate" in EggColours({}).match(reading((0.5, 0.3, 0.2))).reason


def test_profile_egg_key_round_trips_and_leaves_the_rest_alone() -> None:
    profile = {"players": {"red": {"hue": 3}}, "card": {"w": 1}}
    written = with_egg_colours(profile, COLOURS)
    assert written["players"] == profile["players"] and written["card"] == {"w": 1}
    assert "egg" not in profile  # the caller's dict is not changed
    assert written["egg"]["players"]["red"] == [0.55, 0.25, 0.22]  # one reference: flat
    assert written["egg"]["players"]["blue"] == [[0.20, 0.32, 0.50], [0.24, 0.30, 0.46]]
    assert egg_colours_from_profile(written) == COLOURS


@pytest.mark.parametrize(
    ("profile", "why"),
    [
        ({}, "no egg colours"),
        ({"egg": {}}, "malformed"),
        ({"egg": {"players": {"red": [0.5, 0.3]}}}, "malformed"),
        ({"egg": {"players": {"red": []}}}, "malformed"),
        ({"egg": {"players": {"red": "pink"}}}, "malformed"),
    ],
)
def test_a_bad_egg_key_is_a_user_error(profile, why) -> None:
    with pytest.raises(UserError, match=why):
        egg_colours_from_profile(profile)


def scripted(readings: list[ColourReading | None]):
    it = iter(readings)
    return lambda timeout: next(it)


def test_calibration_reads_one_bean_per_player_in_order() -> None:
    said: list[str] = []
    colours = calibrate_egg(["red", "blue"],
                            scripted([reading((0.55, 0.25, 0.22)), reading((0.2, 0.32, 0.5))]),
                            said.append)
    assert colours.players == {"red": ((0.55, 0.25, 0.22),), "blue": ((0.2, 0.32, 0.5),)}
    assert said[0].startswith("Put one red bean") and said[2].startswith("Put one blue bean")
    assert said[1] == "red: r/c 0.550, g/c 0.250, b/c 0.220"


def test_calibration_refuses_lookalikes_timeouts_and_bad_readings() -> None:
    with pytest.raises(UserError, match="red and pink beans look alike"):
        calibrate_egg(["red", "pink"], scripted([reading((0.55, 0.25, 0.22)),
                                                 reading((0.56, 0.25, 0.21))]), print)
    with pytest.raises(UserError, match="no bean was read for blue within 5 s"):
        calibrate_egg(["red", "blue"], scripted([reading((0.55, 0.25, 0.22)), None]),
                      lambda s: None, timeout=5)
    with pytest.raises(UserError, match="read too dark"):
        calibrate_egg(["red"], scripted([reading((0.55, 0.25, 0.22), c=50)]), lambda s: None)
    with pytest.raises(UserError, match="saturated"):
        calibrate_egg(["red"], scripted([ColourReading(20480, 1, 1, 20480, 4, 48.0)]),
                      lambda s: None)


def test_bean_readings_skip_other_events_and_time_out() -> None:
    q: queue.Queue[InputEvent] = queue.Queue()
    r = reading((0.55, 0.25, 0.22))
    q.put(InputEvent("egg", "shake", {"jolts": 4}))
    q.put(InputEvent("egg", "bean", {"reading": r.to_dict(), "draw": 1}))
    next_reading = bean_readings(q)
    assert next_reading(1.0) == r
    assert next_reading(0.05) is None


def test_several_samples_are_averaged_into_one_reference() -> None:
    said: list[str] = []
    beans = [reading((0.54, 0.26, 0.22)), reading((0.56, 0.24, 0.22)),
             reading((0.2, 0.32, 0.5)), reading((0.2, 0.32, 0.5))]
    colours = calibrate_egg(["red", "blue"], scripted(beans), said.append, samples=2)
    assert colours.players == {"red": ((0.55, 0.25, 0.22),), "blue": ((0.2, 0.32, 0.5),)}
    assert [s for s in said if s.startswith("Put")][1].endswith("take it out (bean 2 of 2).")


def test_a_players_samples_that_disagree_are_refused() -> None:
    beans = [reading((0.55, 0.25, 0.22)), reading((0.2, 0.32, 0.5))]  # "red", then a blue bean
    with pytest.raises(UserError, match=r"the red beans read differently from one another "
                                        r"\(up to 0\.2\d\d from their average\)"):
        calibrate_egg(["red"], scripted(beans), lambda s: None, samples=2)


def test_players_closer_than_their_own_scatter_allows_cannot_be_told_apart() -> None:
    # 0.04 apart: enough for single readings (0.03), not for samples scattered 0.02 either side
    red = [reading((0.564, 0.236, 0.20)), reading((0.536, 0.264, 0.20))]
    orange = [reading((0.55, 0.29, 0.21)), reading((0.55, 0.29, 0.19))]
    with pytest.raises(UserError, match=r"red and orange beans look alike to the egg's sensor: "
                                        r"their colours differ by 0\.040 and telling them apart "
                                        r"needs 0\.0(49|50)\. Give one of these players"):
        calibrate_egg(["red", "orange"], scripted(red + orange), lambda s: None, samples=2)
    colours = calibrate_egg(["red", "orange"], scripted(red[:1] + orange[:1]), lambda s: None)
    assert set(colours.players) == {"red", "orange"}


@pytest.mark.parametrize(
    ("profile", "why"),
    [
        ([1], "is not a colour profile \\(it holds a list"),
        (None, "is not a colour profile \\(it holds null"),
        ({"egg": {"players": {"red": [math.nan] * 3}}}, "3 finite numbers"),
        ({"egg": {"players": {"red": [[0.5, 0.3, 0.2], [0.1, math.inf, 0.2]]}}},
         "3 finite numbers"),
        ({"egg": {"players": {"red": [0.5, 0.3, 0.2]}, "max_distance": 0}}, "above 0"),
        ({"egg": {"players": {"red": [0.5, 0.3, 0.2]}, "max_distance": -0.1}}, "above 0"),
        ({"egg": {"players": {"red": [0.5, 0.3, 0.2]}, "max_distance": math.nan}}, "above 0"),
        # Integers past the float range: once an OverflowError traceback from serve --egg.
        ({"egg": {"players": {"red": [10**400, 0.3, 0.2]}}}, "a number too large"),
        ({"egg": {"players": {"red": [0.5, 0.3, 0.2]}, "max_distance": 10**400}},
         "a number too large"),
    ],
)
def test_egg_colours_that_would_match_wrongly_are_refused_naming_the_file(profile, why) -> None:
    with pytest.raises(UserError, match=f"^profile p.json.*{why}"):
        egg_colours_from_profile(profile, "profile p.json")


@pytest.mark.parametrize(("text", "why"), [
    ("[" * 100_000 + "]" * 100_000, "is not valid JSON"),
    ('{"egg": {"players": {"red": [NaN, NaN, NaN]}}}', "3 finite numbers"),
    ("[1]", "not a colour profile"),
])
def test_load_egg_colours_names_the_file_and_what_is_wrong(tmp_path, text: str, why: str) -> None:
    path = tmp_path / "colours.json"
    path.write_text(text)
    with pytest.raises(UserError, match=f"^profile {path}.*{why}"):
        load_egg_colours(path)
    with pytest.raises(UserError, match="cannot be read"):
        load_egg_colours(tmp_path / "missing.json")


def test_written_egg_colours_load_from_their_file(tmp_path) -> None:
    path = tmp_path / "colours.json"
    path.write_text(json.dumps(with_egg_colours({"version": 1}, COLOURS)))
    assert load_egg_colours(path) == COLOURS


@pytest.mark.parametrize(("kind", "why"), [
    ("big", "is too large to be a calibration profile (more than 16 MB)"),
    ("zero", "is too large to be a calibration profile (more than 16 MB)"),
    ("latin-1", "is not a colour profile (not text)"),
])
def test_a_profile_too_large_or_not_text_is_one_user_error(tmp_path, kind: str, why: str) -> None:
    # /dev/zero as the egg's profile never ends: it is refused at the ceiling.
    path = Path("/dev/zero") if kind == "zero" else tmp_path / "colours.json"
    if kind == "big":
        path.write_text(" " * 16_000_001 + json.dumps(with_egg_colours({"version": 1}, COLOURS)))
    elif kind == "latin-1":
        path.write_bytes('{"notes": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(UserError) as refused:
        load_egg_colours(path)
    assert str(refused.value).startswith(f"profile {path} {why}")
