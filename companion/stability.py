"""Stable frames: never read the table while hands move over it.

A cheap motion measure on a small grey thumbnail, then a latch: a view is
handed on only when the table has been still for ``still_s`` seconds, and only
once per still period, so a resting table is read once, not every frame.

>>> import numpy as np
>>> latch = StillnessLatch(still_s=1.0, threshold=3.0)
>>> frame = np.zeros((48, 64, 3), np.uint8)
>>> [latch.update(frame, t) for t in (0.0, 0.5, 1.1, 1.5)]
[False, False, True, False]
"""

from __future__ import annotations

import cv2
import numpy as np

THUMB_WIDTH = 160


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """A small blurred grey copy: noise and JPEG grain do not count as motion."""
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (THUMB_WIDTH, max(1, round(h * THUMB_WIDTH / w))),
                       interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    return cv2.GaussianBlur(grey, (5, 5), 0).astype(np.int16)


def motion(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference of two thumbnails (0-255)."""
    if a.shape != b.shape:
        return 255.0
    return float(np.abs(a - b).mean())


class StillnessLatch:
    """Says True once per still period, after ``still_s`` seconds without motion."""

    def __init__(self, still_s: float = 1.0, threshold: float = 3.0) -> None:
        self.still_s = still_s
        self.threshold = threshold
        self._last: np.ndarray | None = None
        self._still_since: float | None = None
        self._fired = False
        self.last_motion = 0.0

    def update(self, frame: np.ndarray, now: float) -> bool:
        thumb = thumbnail(frame)
        moving = True
        if self._last is not None:
            self.last_motion = motion(thumb, self._last)
            moving = self.last_motion > self.threshold
        self._last = thumb
        if moving:
            self._still_since = now
            self._fired = False
            return False
        if self._still_since is None:
            self._still_since = now
        if not self._fired and now - self._still_since >= self.still_s:
            self._fired = True
            return True
        return False

    def again(self) -> None:
        """Say True once more in this still period: what the table was read for changed."""
        self._fired = False

    @property
    def moving(self) -> bool:
        return self._still_since is None or not self._fired
