"""Draw detection: a bean at the egg's mouth makes the colour sensor's clear channel rise.

The sensor faces across the mouth with its white LED on. With nothing there
it sees little light (the ``baseline``: it follows a darker reading at once
and a brighter one slowly, so a change of room light or LED ageing does not
count); a bean reflects the LED into it. A bean
is present once the clear count has stood above ``max(baseline x rise,
baseline + min_counts)`` for ``settle`` readings in a row, and the reading
reported is the average of those. It counts as gone once clear falls back
below half way, so a bean rocking at the threshold is one draw, not several.
The first reading after power-up becomes the baseline, so a bean already at
the mouth then is not a draw; the baseline drops to the dark level the
moment it is taken out.
"""


class DrawDetector:
    def __init__(self, rise=3.0, min_counts=300, settle=3):
        self.rise = rise
        self.min_counts = min_counts
        self.settle = settle
        self.baseline = None
        self.present = False
        self._run = []

    def threshold(self) -> float:
        return max(self.baseline * self.rise, self.baseline + self.min_counts)

    def feed(self, r: int, g: int, b: int, c: int):
        """One reading; returns the averaged ``(r, g, b, c)`` once when a bean arrives."""
        if self.baseline is None:
            self.baseline = float(c)
            return None
        high = self.threshold()
        if self.present:
            if c < (self.baseline + high) / 2:
                self.present = False
            return None
        if c < high:
            self._run = []
            if c < self.baseline:
                self.baseline = float(c)
            else:
                self.baseline += (c - self.baseline) / 16
            return None
        self._run.append((r, g, b, c))
        if len(self._run) < self.settle:
            return None
        n = len(self._run)
        mean = tuple(round(sum(s[i] for s in self._run) / n) for i in range(4))
        self._run = []
        self.present = True
        return mean
