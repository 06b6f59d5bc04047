"""How the page's long-lived responses wait: the live stream of updates and the camera.

The page's server-sent events and its MJPEG camera view hold a connection open
for as long as a tab is showing. While they wait they must not pin a thread of
the server for nothing, and they must notice a tab that went away (a write to a
closed connection fails, so every stream writes at least every few seconds).
:class:`Waits` is how they wait with real threads; a server that runs streams
on greenlets (:mod:`companion.web_server`) hands the app its own.
"""

from __future__ import annotations

import functools
import queue
import threading
import time
from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")


class Changes(Protocol):
    """One viewer's subscription to the game's changes."""

    def wait(self, timeout: float) -> bool:
        """True when the game changed (all changes so far are then taken), False on timeout."""

    def close(self) -> None: ...


class _QueueChanges:
    def __init__(self, subscribe, unsubscribe) -> None:
        self._unsubscribe = unsubscribe
        self._q: queue.Queue = subscribe()

    def wait(self, timeout: float) -> bool:
        try:
            self._q.get(timeout=timeout)
        except queue.Empty:
            return False
        while not self._q.empty():  # coalesce a burst into one update
            self._q.get_nowait()
        return True

    def close(self) -> None:
        self._unsubscribe(self._q)


class Waits:
    """Waiting on real threads: each open stream has a server thread of its own."""

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()``, where it may block on the game's locks (here: this thread)."""
        return fn()

    def changes(self, referee) -> Changes:
        return _QueueChanges(referee.subscribe, referee.unsubscribe)


class Slots:
    """At most ``size`` streams of one kind open at once; each slot is given back once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = size
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self._free == 0:
                return False
            self._free -= 1
            return True

    def release_once(self):
        """A function that gives one slot back the first time it is called."""
        done = threading.Event()

        def release() -> None:
            if done.is_set():
                return
            done.set()
            with self._lock:
                self._free += 1
        return release

    @property
    def in_use(self) -> int:
        with self._lock:
            return self.size - self._free


@functools.cache
def no_camera_jpeg() -> bytes:
    """The picture the camera view shows while there is no camera frame to show."""
    import cv2  # only when a camera view is asked for: the rules commands start without it
    import numpy as np

    img = np.full((360, 640, 3), 60, np.uint8)
    for i, text in enumerate(("No camera picture", "(no camera, or none read yet)")):
        scale = 1.1 if i == 0 else 0.7
        (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(img, text, ((640 - w) // 2, 170 + 50 * i), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (220, 220, 220), 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return buf.tobytes()
