"""The egg's push button, debounced by waiting for the level to hold still.

A contact chatters for a few milliseconds when pressed or released; a change
counts only once the new level has held for ``settle_ms``. A press held longer than
``max_held_ms`` is reported as that long, the longest the protocol allows.
"""

from eggproto import MAX_HELD_MS


class Debouncer:
    def __init__(self, settle_ms=30, max_held_ms=MAX_HELD_MS):
        self.settle_ms = settle_ms
        self.max_held_ms = max_held_ms
        self.pressed = False
        self._raw = False
        self._since = 0
        self._down_at = 0

    def feed(self, now_ms: int, pressed: bool):
        """The raw level now; returns ``("down", 0)`` or ``("up", held_ms)`` on a settled change."""
        if pressed != self._raw:
            self._raw = pressed
            self._since = now_ms
            return None
        if pressed == self.pressed or now_ms - self._since < self.settle_ms:
            return None
        self.pressed = pressed
        if pressed:
            self._down_at = self._since
            return "down", 0
        return "up", min(self._since - self._down_at, self.max_held_ms)
