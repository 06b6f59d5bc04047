"""Shake detection: the size of the acceleration, with hysteresis and a refractory time.

At rest the accelerometer reads 1 g whichever way the egg lies, so a shake is
the magnitude straying from 1 g. A jolt starts when it strays by more than
``high_mg`` and ends when it comes back within ``low_mg`` (the gap between the
two stops noise near one threshold counting as many jolts). Jolts closer than
``quiet_ms`` belong to one shake; a shake needs ``min_jolts`` of them, so one
knock on the table is not a shake; after a shake, ``refractory_ms`` of
settling (putting the egg down) cannot start another. A shake still going on after
``max_ms`` ends there, so its duration never passes what the protocol allows.
"""

import math

from eggproto import MAX_JOLTS, MAX_PEAK_MG, MAX_SHAKE_MS


class ShakeDetector:
    def __init__(self, high_mg=800, low_mg=300, quiet_ms=250, refractory_ms=600, min_jolts=3,
                 max_ms=MAX_SHAKE_MS):
        self.high_mg = high_mg
        self.low_mg = low_mg
        self.quiet_ms = quiet_ms
        self.refractory_ms = refractory_ms
        self.min_jolts = min_jolts
        self.max_ms = max_ms
        self._active = False
        self._above = False
        self._ready_at = 0
        self._start = 0
        self._last = 0
        self._peak = 0.0
        self._jolts = 0

    def feed(self, now_ms: int, x: float, y: float, z: float):
        """One sample in milli-g; returns ``(duration_ms, peak_mg, jolts)`` when a shake ends."""
        size = math.sqrt(x * x + y * y + z * z)
        stray = abs(size - 1000.0)
        if not self._active:
            if stray > self.high_mg and now_ms >= self._ready_at:
                self._active = True
                self._above = True
                self._start = self._last = now_ms
                self._peak = size
                self._jolts = 1
            return None
        if size > self._peak:
            self._peak = size
        if stray > self.low_mg:
            self._last = now_ms
        if self._above:
            if stray < self.low_mg:
                self._above = False
        elif stray > self.high_mg:
            self._above = True
            self._jolts += 1
        if now_ms - self._last < self.quiet_ms and now_ms - self._start < self.max_ms:
            return None
        self._active = False
        if self._jolts < self.min_jolts:
            return None
        self._ready_at = now_ms + self.refractory_ms
        # Never more than the protocol allows (eggproto): a glitched reading's peak is
        # sent as the ceiling, since the shake itself happened.
        return (min(self._last - self._start, self.max_ms), int(min(self._peak, MAX_PEAK_MG)),
                min(self._jolts, MAX_JOLTS))
