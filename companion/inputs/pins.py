"""Which GPIO pin each Raspberry Pi button and LED is on, and the default pins.

Kept apart from :mod:`companion.inputs.buttons`, which loads gpiozero: checking the
settings file reads the defaults here without loading it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from companion.errors import UserError, clipped, quoted

ROLES = ("end_turn", "undo", "confirm", "next_phase", "draw")
LABELS = {"end_turn": "end turn", "undo": "undo", "confirm": "confirm",
          "next_phase": "next phase", "draw": "draw", "led_waiting": "waiting LED",
          "led_problem": "problem LED"}
MAX_BCM = 27  # GPIO0..GPIO27 are on the 40-pin header


@dataclass(frozen=True)
class ButtonPins:
    """BCM GPIO numbers for each button and LED; None leaves it out.

    The defaults keep clear of I2C (GPIO2/3), the UART (GPIO14/15) and SPI
    (GPIO7-11), so they can share a Pi with other hats; see docs/hardware.md.
    """

    end_turn: int | None = 17
    undo: int | None = 27
    confirm: int | None = 22
    next_phase: int | None = 23
    draw: int | None = 24
    led_waiting: int | None = 5
    led_problem: int | None = 6

    def __post_init__(self) -> None:
        seen: dict[int, str] = {}
        for f in fields(self):
            pin = getattr(self, f.name)
            if pin is None:
                continue
            if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= MAX_BCM:
                raise UserError(f"the {LABELS[f.name]} pin must be a BCM GPIO number 0..{MAX_BCM} "
                                f"or null, not {quoted(pin)}")
            if pin in seen:
                raise UserError(f"GPIO{pin} is given to both the {LABELS[seen[pin]]} and the "
                                f"{LABELS[f.name]}: give each its own pin")
            seen[pin] = f.name

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ButtonPins:
        """Pins from the settings file's ``buttons`` table; unknown names are refused."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(known))
        if unknown:
            # Names as the caller gave them: a runaway one (or thousands) is cut.
            names = clipped(", ".join(clipped(str(n), 40) for n in unknown), 120)
            raise UserError(f"unknown button setting(s) {names}; known: {', '.join(known)}")
        return cls(**dict(data))

    def buttons(self) -> dict[str, int]:
        return {role: pin for role in ROLES if (pin := getattr(self, role)) is not None}


def default_pins() -> dict[str, int | None]:
    """Each button's and LED's default pin, by its settings name."""
    return {f.name: f.default for f in fields(ButtonPins)}
