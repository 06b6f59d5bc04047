"""The fields of the egg's messages: exactly the forms firmware/PROTOCOL.md allows, nothing else."""

from __future__ import annotations

import pytest

from companion.inputs.egg_colours import ColourReading
from companion.inputs.egg_fields import (
    Button,
    Draw,
    Error,
    FieldError,
    Heartbeat,
    Hello,
    Pong,
    Shake,
    parse,
)

DRAW = ["4", "4228", "1915", "1691", "7676", "4", "48.0"]


def test_the_documented_examples_read_as_typed_messages() -> None:
    assert parse("HELLO", ["1", "1.1.0", "1000", "lis3dh+tcs34725+button+led"]) == Hello(
        1, "1.1.0", 1000, ("lis3dh", "tcs34725", "button", "led"))
    assert parse("HB", ["0", "A-"]) == Heartbeat(0, "A-")
    assert parse("SHAKE", ["1180", "2710", "13"]) == Shake(1180, 2710, 13)
    assert parse("DRAW", DRAW) == Draw(4, ColourReading(4228, 1915, 1691, 7676, 4, 48.0))
    assert parse("BTN", ["240"]) == Button(240)
    assert parse("ERR", ["NOCOLOUR", "no TCS34725 answers: draws are off"]) == Error(
        "NOCOLOUR", "no TCS34725 answers: draws are off")
    assert parse("ERR", ["I2C", ""]) == Error("I2C", "")
    assert parse("PONG", [""]) == Pong("")


def test_later_fields_and_unknown_types_are_left_for_newer_firmware() -> None:
    assert parse("BTN", ["240", "extra", "more"]) == Button(240)
    assert parse("NEWTYPE", ["1"]) is None


def with_field(index: int, value: str) -> list[str]:
    fields = list(DRAW)
    fields[index] = value
    return fields


@pytest.mark.parametrize(
    ("kind", "fields", "why"),
    [
        ("DRAW", with_field(1, "12.0"),
         "r count '12.0' is not a whole number; counts are written as digits only"),
        ("DRAW", with_field(4, "-5"), "c count '-5' is negative; counts are never below 0"),
        ("SHAKE", ["-400", "2000", "4"], "duration '-400' is negative"),
        ("SHAKE", ["1180", "4294967295", "13"],
         "peak acceleration 4294967295 is outside 0..50000"),
        ("SHAKE", ["1180", "2710", "4294967295"], "jolts 4294967295 is outside 0..6000"),
        ("BTN", ["-1.5"], "held time '-1.5' is negative"),
        ("BTN", ["4294967295"], "held time 4294967295 is outside 0..60000"),
        ("HB", ["4294967295", "AC"], "uptime 4294967295 is outside 0..315360000"),
        ("DRAW", with_field(2, "+12"), "g count '+12' is not written as plain digits 0-9"),
        ("DRAW", with_field(3, " 12"), "b count ' 12' is not written as plain digits"),
        ("DRAW", with_field(3, "1e3"), "b count '1e3' is not written as plain digits"),
        ("DRAW", with_field(1, ""), "r count '' is empty"),
        ("DRAW", with_field(1, "65536"), "r count 65536 is outside 0..65535"),
        ("DRAW", with_field(0, "12345678901"), "draw number '12345678901' is more than 10 digits"),
        ("DRAW", with_field(5, "5"), "gain 5 is not one of 1, 4, 16, 60"),
        ("DRAW", with_field(6, "48"), "integration time '48' is not written as digits, a point"),
        ("DRAW", with_field(6, "48.00"), "integration time '48.00' is not written"),
        ("DRAW", with_field(6, "999.9"), "integration time 999.9 is outside 2.4..614.4"),
        ("DRAW", DRAW[:6], "DRAW has 6 field(s); it needs 7 (draw number, r count"),
        ("HB", ["12", "AX"], "sensor flags 'AX' are not two characters: A or -, then C or -"),
        ("HB", ["12"], "HB has 1 field(s); it needs 2"),
        ("HELLO", ["1", "1.1.0", "0", "led"], "heartbeat period 0 is outside 10..60000"),
        ("HELLO", ["1", "1.1.0", "1000", "LED"], "capabilities 'LED' are not lower-case names"),
        ("HELLO", ["1", "1.1.0", "1000", "led++button"], "capabilities 'led++button'"),
        ("HELLO", ["1", "v 1", "1000", "led"], "firmware version 'v 1' is not 1-16 letters"),
        ("ERR", ["no colour", "x"], "error code 'no colour' is not 1-8 upper-case"),
        ("ERR", ["CRASH"], "ERR has 1 field(s); it needs 2 (code, text)"),
        ("PONG", [], "PONG has 0 field(s); it needs 1 (token)"),
    ],
)
def test_what_the_protocol_does_not_allow_is_refused_with_the_reason(kind, fields, why) -> None:
    with pytest.raises(FieldError) as refused:
        parse(kind, fields)
    assert str(refused.value).startswith(why)
