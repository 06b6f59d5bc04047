"""Whose bean is it? Matching the egg's colour-sensor readings to players.

The egg's TCS34725 sees a bean under its own white LED, through no lens, at
a few millimetres: nothing like the camera's view, so the egg keeps its own
reference per player. A reference is a chromaticity ``(r/c, g/c, b/c)``:
dividing by the clear channel takes out how bright the bean looked (how
close it sat, the gain, the integration time), leaving its colour.

References live in the colour profile JSON under one key, which this
module alone reads and writes (the rest of the profile is the vision
side's)::

    "egg": {"players": {"red": [0.55, 0.25, 0.22], "blue": [[0.2, 0.3, 0.5], [0.25, 0.3, 0.45]]},
            "max_distance": 0.06}

A player may have several references (e.g. troop beans and differently
coloured peep beans); the nearest one counts.
"""

from __future__ import annotations

import itertools
import math
import queue
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import UserError, clipped, json_kind, quoted
from companion.inputs.events import BEAN, InputEvent
from companion.profile_file import read_profile_json

EGG_KEY = "egg"
DEFAULT_MAX_DISTANCE = 0.06  # chromaticity distance beyond which a reading is nobody's
AMBIGUOUS_RATIO = 0.7  # nearest / second-nearest player above this: too close to call
MIN_CLEAR = 200  # fewer clear counts than this: nothing (or too little) at the mouth
MIN_SEPARATION = 0.03  # calibration refuses players whose beans look closer than this
SEPARATION_PER_SPREAD = 2.5  # ... or closer than this many times their samples' own scatter
CYCLE_MS = 2.4  # TCS34725 integration cycle

Chroma = tuple[float, float, float]


@dataclass(frozen=True)
class ColourReading:
    """One raw TCS34725 reading as the egg reported it."""

    r: int
    g: int
    b: int
    c: int
    gain: int
    integration_ms: float

    @property
    def max_count(self) -> int:
        return min(65535, round(self.integration_ms / CYCLE_MS) * 1024)

    @property
    def saturated(self) -> bool:
        top = 0.98 * self.max_count
        return max(self.r, self.g, self.b, self.c) >= top

    def chromaticity(self) -> Chroma:
        c = max(self.c, 1)
        return self.r / c, self.g / c, self.b / c

    def to_dict(self) -> dict[str, Any]:
        return {"r": self.r, "g": self.g, "b": self.b, "c": self.c, "gain": self.gain,
                "integration_ms": self.integration_ms}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ColourReading:
        return cls(int(data["r"]), int(data["g"]), int(data["b"]), int(data["c"]),
                   int(data["gain"]), float(data["integration_ms"]))


@dataclass(frozen=True)
class EggMatch:
    """The player a reading belongs to (None when unknown), how sure, and why."""

    player: str | None
    confidence: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "confidence": round(self.confidence, 3),
                "reason": self.reason}


@dataclass(frozen=True)
class EggColours:
    """Each player's reference chromaticities, and how near a reading must come to one."""

    players: Mapping[str, tuple[Chroma, ...]]
    max_distance: float = DEFAULT_MAX_DISTANCE
    ambiguous_ratio: float = field(default=AMBIGUOUS_RATIO)

    def match(self, reading: ColourReading) -> EggMatch:
        """The player whose reference is nearest, if near enough and clearly nearest."""
        if reading.c < MIN_CLEAR:
            return EggMatch(None, 0.0, f"too dark (clear {reading.c}): is a bean at the mouth?")
        if reading.saturated:
            return EggMatch(None, 0.0, "too bright: the sensor saturated; lower its gain")
        if not self.players:
            return EggMatch(None, 0.0,
                            "the egg has no colour references: run companion calibrate-egg")
        chroma = reading.chromaticity()
        ranked = sorted((min(math.dist(chroma, ref) for ref in refs), player)
                        for player, refs in self.players.items())
        d1, best = ranked[0]
        if d1 > self.max_distance:
            return EggMatch(None, 0.0, f"no player's beans look like that "
                                       f"(nearest is {best} at {d1:.3f})")
        confidence = 1 - d1 / self.max_distance
        if len(ranked) > 1:
            d2, second = ranked[1]
            if d2 == 0 or d1 / d2 > self.ambiguous_ratio:
                return EggMatch(None, 0.0, f"could be {best} or {second}")
            confidence *= 1 - d1 / d2
        return EggMatch(best, confidence, f"nearest to {best} at {d1:.3f}")


def egg_colours_from_profile(profile: Any, source: str = "the colour profile"
                             ) -> EggColours:
    """The egg's references from a colour profile; UserError if absent or malformed.

    ``source`` names the profile in the message (e.g. ``profile games/colours.json``).
    """
    if not isinstance(profile, Mapping):
        raise UserError(f"{source} is not a colour profile (it holds {json_kind(profile)}, "
                        "not a JSON object): give the file companion calibrate wrote")
    egg = profile.get(EGG_KEY)
    if egg is None:
        raise UserError(f"{source} has no egg colours: run companion calibrate-egg "
                        "(one bean per player at the egg's mouth) first")
    try:
        players = {str(p): _references(refs) for p, refs in egg["players"].items()}
        max_distance = float(egg.get("max_distance", DEFAULT_MAX_DISTANCE))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UserError(f"{source}: the egg colours are malformed ({clipped(str(e), 120)}): "
                        "run companion calibrate-egg again") from e
    except OverflowError:  # an integer past the float range
        raise UserError(f"{source}: the egg colours hold a number too large: "
                        "run companion calibrate-egg again") from None
    # A distance of 0 (or NaN) would divide by zero, or match nothing, at every bean.
    if not (math.isfinite(max_distance) and max_distance > 0):
        raise UserError(f"{source}: the egg colours' max_distance must be a number above 0, "
                        f"not {max_distance}: run companion calibrate-egg again")
    return EggColours(players, max_distance)


def load_egg_colours(path: str | Path) -> EggColours:
    """The egg's references from the colour profile file at ``path``; UserError naming the
    file and what is wrong with it."""
    p = Path(path)
    data = read_profile_json(p, "run companion calibrate again to make a new one")
    return egg_colours_from_profile(data, f"profile {p}")


def with_egg_colours(profile: Mapping[str, Any], colours: EggColours) -> dict[str, Any]:
    """A copy of ``profile`` with its egg key replaced; every other key is left as it was."""
    players = {p: _write_refs(refs) for p, refs in colours.players.items()}
    return {**profile, EGG_KEY: {"players": players, "max_distance": colours.max_distance}}


def calibrate_egg(
    players: Sequence[str],
    next_reading: Callable[[float], ColourReading | None],
    say: Callable[[str], None],
    *,
    samples: int = 1,
    timeout: float = 60.0,
    max_distance: float = DEFAULT_MAX_DISTANCE,
) -> EggColours:
    """Read ``samples`` beans per player, players in order, and return the references.

    ``next_reading(timeout)`` gives the next bean the egg read (None on
    timeout); :func:`bean_readings` makes one from a queue fed by an EggLink.
    A player's reference is the average chromaticity of their samples.
    Refuses, with what to do, readings that are too dark or saturated, a
    player whose samples disagree, and players whose beans the sensor cannot
    tell apart (see :func:`check_separation`).
    """
    if samples < 1:
        raise ValueError("samples must be at least 1")
    readings: dict[str, list[ColourReading]] = {}
    for player in players:
        readings[player] = []
        for i in range(samples):
            count = f" (bean {i + 1} of {samples})" if samples > 1 else ""
            say(f"Put one {player} bean in the egg's mouth so the sensor reads it, then take "
                f"it out{count}.")
            reading = _sample(player, next_reading, timeout)
            readings[player].append(reading)
            r, g, b = reading.chromaticity()
            say(f"{player}: r/c {r:.3f}, g/c {g:.3f}, b/c {b:.3f}")
    refs = {p: (_mean([s.chromaticity() for s in got]),) for p, got in readings.items()}
    spread = {p: max(math.dist(s.chromaticity(), refs[p][0]) for s in got)
              for p, got in readings.items()}
    for player, d in spread.items():
        if d > max_distance / 2:
            raise UserError(
                f"the {player} beans read differently from one another (up to {d:.3f} from "
                "their average): check they are all one colour, that each sits right at the "
                "mouth, and that the mouth is shaded from room light")
    colours = EggColours(refs, max_distance)
    check_separation(colours, spread)
    return colours


def check_separation(colours: EggColours, spread: Mapping[str, float]) -> None:
    """UserError naming two players whose beans the egg's sensor cannot tell apart.

    Two players are told apart when their references are at least
    MIN_SEPARATION apart, and at least SEPARATION_PER_SPREAD times the larger
    scatter of their own samples (``spread``: the furthest sample from its
    reference). Then a bean reading as far off as any sample did is still
    well inside :data:`AMBIGUOUS_RATIO`: nearer its own player than 0.4 of the
    way to the other.
    """
    refs = {p: r[0] for p, r in colours.players.items()}
    for a, b in itertools.combinations(refs, 2):
        d = math.dist(refs[a], refs[b])
        need = max(MIN_SEPARATION, SEPARATION_PER_SPREAD * max(spread[a], spread[b]))
        if d < need:
            raise UserError(_lookalike(a, b, d, need))


def _lookalike(a: str, b: str, d: float, need: float) -> str:
    return (f"{a} and {b} beans look alike to the egg's sensor: their colours differ by "
            f"{d:.3f} and telling them apart needs {need:.3f}. Give one of these players beans "
            "of a clearly different colour (or leave one out and enter their draws on the "
            "page), then run companion calibrate-egg again")


def _sample(player: str, next_reading: Callable[[float], ColourReading | None],
            timeout: float) -> ColourReading:
    reading = next_reading(timeout)
    if reading is None:
        raise UserError(f"no bean was read for {player} within {timeout:.0f} s: check the "
                        "egg is connected and the bean sits right at the mouth")
    if reading.c < MIN_CLEAR:
        raise UserError(f"the {player} bean read too dark (clear {reading.c}): check the "
                        "sensor's LED is on and the bean sits right at the mouth")
    if reading.saturated:
        raise UserError(f"the {player} bean saturated the sensor: lower COLOUR_GAIN "
                        "in the egg's eggconfig.py")
    return reading


def _mean(chromas: Sequence[Chroma]) -> Chroma:
    n = len(chromas)
    r, g, b = (round(sum(c[i] for c in chromas) / n, 4) for i in range(3))
    return r, g, b


def bean_readings(events: queue.Queue[InputEvent],
                  other: Callable[[InputEvent], None] | None = None
                  ) -> Callable[[float], ColourReading | None]:
    """``next_reading`` for :func:`calibrate_egg` from a queue an EggLink emits into;
    ``other`` hears every event that is not a bean (the link's status, its errors)."""

    def next_reading(timeout: float) -> ColourReading | None:
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                event = events.get(timeout=left)
            except queue.Empty:
                return None
            if event.kind == BEAN:
                return ColourReading.from_dict(event.data["reading"])
            if other is not None:
                other(event)
        return None

    return next_reading


def _references(value: Any) -> tuple[Chroma, ...]:
    """``[r, g, b]`` or ``[[r, g, b], ...]`` as a tuple of triples."""
    if value and all(isinstance(v, int | float) for v in value):
        value = [value]
    refs = tuple(_triple(v) for v in value)
    if not refs:
        raise ValueError("a player has no reference")
    return refs


def _triple(v: Any) -> Chroma:
    if len(v) != 3:
        raise ValueError(f"a reference needs 3 numbers, not {quoted(v)}")
    r, g, b = (float(x) for x in v)
    # NaN is nearest to nothing and to everything: every bean would be this player's.
    if not all(math.isfinite(x) for x in (r, g, b)):
        raise ValueError(f"a reference must be 3 finite numbers, not {quoted(v)}")
    return r, g, b


def _write_refs(refs: Sequence[Chroma]) -> list[float] | list[list[float]]:
    if len(refs) == 1:
        return list(refs[0])
    return [list(r) for r in refs]
