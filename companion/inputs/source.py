"""What every input source offers the referee, whatever the hardware behind it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from companion.inputs.events import InputEvent

Emit = Callable[[InputEvent], None]


@dataclass(frozen=True)
class SourceStatus:
    """A source's state in one word (e.g. "on", "off", "connected", "lost") and in a sentence."""

    state: str
    message: str


class InputSource(Protocol):
    """Buttons, the serial egg and the page all look like this to the referee.

    ``emit`` may be called from the source's own thread; it must be quick and
    thread-safe (putting the event on a queue is the usual answer).
    """

    def start(self, emit: Emit) -> None: ...

    def stop(self) -> None: ...

    def status(self) -> SourceStatus: ...
