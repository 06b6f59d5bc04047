"""The fields of each message from the egg, read exactly as firmware/PROTOCOL.md writes them.

The framing (checksum, sequence number, type) is ``firmware/eggproto.py``'s
job; this module reads what is inside a well-framed message. Anything the
protocol does not allow (``12.0`` for a count, ``-3``, ``+3``, `` 3``, a
gain of 5, too few fields) raises :class:`FieldError`, whose text says
which field and why, so the link can show it rather than guess.
Fields past the documented ones are ignored: later firmware may add them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from companion.inputs.egg_colours import ColourReading
from firmware import eggproto

U16 = 65535
U32 = 4294967295
GAINS = (1, 4, 16, 60)
INTEGRATION_MS = (2.4, 614.4)  # TCS34725: 1 to 256 cycles of 2.4 ms
HEARTBEAT_MS = (10, 60000)

_DIGITS = re.compile(r"[0-9]{1,10}")
_TENTHS = re.compile(r"[0-9]{1,3}\.[0-9]")
_FLAGS = re.compile(r"[A-][C-]")
_CAPABILITY = re.compile(r"[a-z0-9]+")
_CODE = re.compile(r"[A-Z][A-Z0-9]{0,7}")
_VERSION = re.compile(r"[0-9A-Za-z.+-]{1,16}")


class FieldError(ValueError):
    """A message whose fields break the protocol; ``str()`` names the field and the fault."""


@dataclass(frozen=True)
class Hello:
    protocol: int
    firmware: str
    heartbeat_ms: int
    capabilities: tuple[str, ...]


@dataclass(frozen=True)
class Heartbeat:
    uptime_s: int
    flags: str  # "AC", "A-", "-C" or "--"


@dataclass(frozen=True)
class Shake:
    duration_ms: int
    peak_mg: int
    jolts: int


@dataclass(frozen=True)
class Draw:
    number: int
    reading: ColourReading


@dataclass(frozen=True)
class Button:
    held_ms: int


@dataclass(frozen=True)
class Error:
    code: str
    text: str


@dataclass(frozen=True)
class Pong:
    token: str


Message = Hello | Heartbeat | Shake | Draw | Button | Error | Pong

# How many fields each type needs (more are allowed and ignored), and their names.
FIELDS: dict[str, tuple[str, ...]] = {
    eggproto.HELLO: ("protocol version", "firmware version", "heartbeat period",
                     "capabilities"),
    eggproto.HEARTBEAT: ("uptime", "sensor flags"),
    eggproto.SHAKE: ("duration", "peak acceleration", "jolts"),
    eggproto.DRAW: ("draw number", "r count", "g count", "b count", "c count", "gain",
                    "integration time"),
    eggproto.BUTTON: ("held time",),
    eggproto.ERROR: ("code", "text"),
    eggproto.PONG: ("token",),
}


def parse(kind: str, fields: Sequence[str]) -> Message | None:
    """The typed message, None for a type this host does not know; FieldError if malformed."""
    names = FIELDS.get(kind)
    if names is None:
        return None
    if len(fields) < len(names):
        raise FieldError(f"{kind} has {len(fields)} field(s); it needs {len(names)} "
                         f"({', '.join(names)})")
    f = fields
    if kind == eggproto.HELLO:
        caps = f[3].split("+")
        if not all(_CAPABILITY.fullmatch(c) for c in caps):
            raise FieldError(f"capabilities {f[3]!r} are not lower-case names joined by '+'")
        if not _VERSION.fullmatch(f[1]):
            raise FieldError(f"firmware version {f[1]!r} is not 1-16 letters, digits or . + -")
        return Hello(whole("protocol version", f[0], U16), f[1],
                     whole("heartbeat period", f[2], HEARTBEAT_MS[1], low=HEARTBEAT_MS[0]),
                     tuple(caps))
    if kind == eggproto.HEARTBEAT:
        if not _FLAGS.fullmatch(f[1]):
            raise FieldError(f"sensor flags {f[1]!r} are not two characters: A or -, then C or -")
        return Heartbeat(whole("uptime", f[0], eggproto.MAX_UPTIME_S), f[1])
    if kind == eggproto.SHAKE:
        return Shake(whole("duration", f[0], eggproto.MAX_SHAKE_MS),
                     whole("peak acceleration", f[1], eggproto.MAX_PEAK_MG),
                     whole("jolts", f[2], eggproto.MAX_JOLTS))
    if kind == eggproto.DRAW:
        gain = whole("gain", f[5], U16)
        if gain not in GAINS:
            raise FieldError(f"gain {gain} is not one of {', '.join(map(str, GAINS))}")
        counts = [whole(name, value, U16) for name, value in zip(names[1:5], f[1:5], strict=True)]
        reading = ColourReading(*counts, gain, tenths("integration time", f[6], *INTEGRATION_MS))
        return Draw(whole("draw number", f[0], U32), reading)
    if kind == eggproto.BUTTON:
        return Button(whole("held time", f[0], eggproto.MAX_HELD_MS))
    if kind == eggproto.ERROR:
        if not _CODE.fullmatch(f[0]):
            raise FieldError(f"error code {f[0]!r} is not 1-8 upper-case letters and digits")
        return Error(f[0], f[1])
    return Pong(f[0])


def whole(name: str, text: str, high: int, *, low: int = 0) -> int:
    """A whole number written as 1-10 plain digits, within ``low``..``high``."""
    if not _DIGITS.fullmatch(text):
        raise FieldError(f"{name} {text!r} is {_not_digits(text)}")
    value = int(text)
    if not low <= value <= high:
        raise FieldError(f"{name} {value} is outside {low}..{high}")
    return value


def tenths(name: str, text: str, low: float, high: float) -> float:
    """A number written with exactly one decimal place (``48.0``), within ``low``..``high``."""
    if not _TENTHS.fullmatch(text):
        raise FieldError(f"{name} {text!r} is not written as digits, a point and one digit "
                         "(e.g. 48.0)")
    value = float(text)
    if not low <= value <= high:
        raise FieldError(f"{name} {value} is outside {low}..{high}")
    return value


def _not_digits(text: str) -> str:
    if not text:
        return "empty"
    if text.startswith("-") and text[1:].replace(".", "", 1).isdecimal():
        return "negative; counts are never below 0"
    if "." in text and text.replace(".", "", 1).isdecimal():
        return "not a whole number; counts are written as digits only"
    if text.isdecimal():
        return "more than 10 digits long"
    return "not written as plain digits 0-9 (no sign, space or point)"
