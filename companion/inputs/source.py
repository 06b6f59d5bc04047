"""What every input source offers the referee, whatever the hardware behind it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from companion.inputs.events import InputEvent

Emit = Callable[[InputEvent], None]

log = logging.getLogger(__name__)


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


class Unreachable:
    """Tells ``listener`` why a device cannot be reached once each time it is lost or not
    found, not at every retry: a terminal says why the service waits, then stays quiet
    until the device has been reached and lost again."""

    def __init__(self, listener: Callable[[str], None] | None = None) -> None:
        self.listener = listener
        self._told = False

    def tell(self, why: str) -> None:
        if self.listener is None or self._told:
            return
        self._told = True
        try:
            self.listener(why)
        except Exception:  # a broken terminal must not take the device's thread down
            log.exception("telling that a device is unreachable failed")

    def reached(self) -> None:
        self._told = False
