"""The one event type every input source emits (buttons, the serial egg, the page)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SOURCES = ("buttons", "egg", "page")

# What a player (or a device) did; the referee decides what it means in the game.
END_TURN = "end_turn"
UNDO = "undo"
UNDO_TURN = "undo_turn"  # a long press on undo: take back the whole turn
CONFIRM = "confirm"
NEXT_PHASE = "next_phase"
DRAW = "draw"  # a request to draw from the digital egg
SHAKE = "shake"  # the real egg was shaken: data "duration_ms", "peak_g", "jolts"
# A bean came out of the real egg: data "draw" (its number), "reading" (raw r, g, b, c, gain,
# integration_ms) and, once the egg has colour references, "player", "confidence", "match".
BEAN = "bean"
EGG_BUTTON = "egg_button"  # the egg's own button was released: data "held_ms", "long"
DEVICE_STATUS = "device_status"  # data: "state" (connected / disconnected / error), "message"
DEVICE_ERROR = "device_error"  # data: "code", "message"

KINDS = (END_TURN, UNDO, UNDO_TURN, CONFIRM, NEXT_PHASE, DRAW, SHAKE, BEAN, EGG_BUTTON,
         DEVICE_STATUS, DEVICE_ERROR)


@dataclass(frozen=True)
class InputEvent:
    """Something a player did on some input, with when it happened (wall-clock seconds)."""

    source: str  # "buttons" | "egg" | "page"
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "kind": self.kind, "data": dict(self.data), "at": self.at}
