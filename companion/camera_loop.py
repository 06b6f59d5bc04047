"""The camera loop: frames in, stable observations out to the referee.

It runs in its own thread. Every frame feeds the stillness latch and the live
view; only a still table is read (by the vision pipeline's ``detect``), and
each reading goes to the referee. A source's faults are shown as the camera's
status, never raised: the loop keeps asking, and recovers when frames return.
A table it could not read stays shown as the camera's error until a reading is
accepted, however many frames show nothing new in between, or until a new game
starts: the still table is then read again, for that game.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import cv2
import numpy as np

from companion.inputs.source import SourceStatus
from companion.observation import BadObservation, Observation
from companion.referee import Referee
from companion.stability import StillnessLatch

Detect = Callable[[np.ndarray], Observation]
Annotate = Callable[[np.ndarray, Observation | None], np.ndarray]
# A reader that learns from corrections: (frame, place, true reading) -> what it learned.
Learn = Callable[[np.ndarray, str, Any], str]
# A reader told the game's state (Referee.table) before each read.
Expect = Callable[[Mapping[str, Any]], None]
KEEP_FRAMES = 8
KEEP_LESSONS = 32  # corrections waiting for the camera thread (more in one frame's time: dropped)
log = logging.getLogger(__name__)


class _Fault(NamedTuple):
    """The loop's own error, shown in place of the source's status until a reading is
    accepted."""

    status: SourceStatus
    source_state: str | None  # the source's state word when it came
    game: int  # the referee's game it came in: a ruling on that game's table


class CameraLoop:
    """Reads a frame source, waits for stillness, detects, and tells the referee."""

    def __init__(self, source, detect: Detect, referee: Referee, *, fps: float = 10.0,
                 still_s: float = 1.0, threshold: float = 3.0,
                 annotate: Annotate | None = None) -> None:
        self.source = source
        self.detect = detect
        self.referee = referee
        self.period = 1.0 / max(fps, 0.1)
        self.latch = StillnessLatch(still_s, threshold)
        self.annotate = annotate
        self._jpeg: bytes | None = None
        self._recent: deque[tuple[float, bytes, dict | None]] = deque(maxlen=KEEP_FRAMES)
        self._recent_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.readings = 0
        self.errors = 0
        self.on_reading: Callable[[float], None] | None = None
        # Corrections made on the page, with the frame whose reading they correct: learned
        # from on the camera thread (the reader is used by that thread only).
        self.learn: Learn | None = None
        # Readings with their frames: the one the referee took last, and the one handed to
        # it and not yet ruled on. A correction is of the reading the referee holds, which
        # is either, depending on which thread got the referee first.
        self._read: tuple[Observation, np.ndarray] | None = None
        self._ruling: tuple[Observation, np.ndarray] | None = None
        self._lessons: deque[tuple[np.ndarray, str, Any]] = deque(maxlen=KEEP_LESSONS)
        self.learned: deque[str] = deque(maxlen=8)
        self.expect: Expect | None = None
        # The loop's own error (a frame it could not read, a reading the referee refused).
        # Once the table is still it is read only once, so the frames after show nothing new:
        # the error is shown in place of the source's status until a reading is accepted,
        # else the page would show it for one frame. A source in another state (lost,
        # reconnecting) shows that state instead.
        self._fault: _Fault | None = None
        self._source: SourceStatus | None = None  # the source's status at this frame

    @property
    def last_observation(self) -> Observation | None:
        """The last reading the referee accepted from this loop."""
        return None if self._read is None else self._read[0]

    def correction(self, place: str, truth: Any) -> None:
        """The referee's ``on_correction`` (called holding the referee's lock): ``place``
        truly holds ``truth`` in the frame of the reading the referee holds, to be learned
        from at the next step. A reading this loop did not make has no frame to learn from."""
        held = self.referee.last_observation
        # _ruling before _read: _rule_on sets _read before it clears _ruling.
        for read in (self._ruling, self._read):
            if read is not None and read[0] is held:
                if self.learn is not None:
                    self._lessons.append((read[1], place, truth))
                return

    def learn_corrections(self) -> None:
        """Teach the reader the corrections waiting; a failure is logged, never raised."""
        while self._lessons and self.learn is not None:
            frame, place, truth = self._lessons.popleft()
            try:
                said = self.learn(frame, place, truth)
            except Exception as e:  # a lesson that cannot be learned costs only itself
                log.exception("learning from a correction failed")
                said = f"could not learn from {place}: {e}"
            log.info("%s", said)
            self.learned.append(said)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        self.source.close()

    def latest_jpeg(self) -> bytes | None:
        return self._jpeg

    def debug_files(self) -> dict[str, bytes]:
        with self._recent_lock:
            recent = list(self._recent)
        files = {}
        for i, (at, jpeg, obs) in enumerate(recent):
            files[f"frames/{i:02d}-{at:.3f}.jpg"] = jpeg
            if obs is not None:
                files[f"frames/{i:02d}-{at:.3f}.json"] = json.dumps(obs, indent=2).encode()
        return files

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.step(started)
            except Exception as e:  # keep watching: show the fault, try the next frame
                if self._fail(SourceStatus("error", f"camera error: {e}")):
                    log.exception("camera step failed")  # once, not every frame it repeats
            if self.source.finished:
                self.referee.set_camera(self.source.status())
                return
            self._stop.wait(max(0.0, self.period - (time.monotonic() - started)))

    def _rule_on(self, obs: Observation, frame: np.ndarray) -> bool:
        """Hand ``obs`` to the referee; False when it refused it (another game's reading,
        a cell on no tile): that is the camera's error, and the game is left as it was."""
        # Set before the referee rules: a correction made once the page shows this reading
        # must be learned with this frame.
        self._ruling = obs, frame
        try:
            self.referee.observe(obs)
        except BadObservation as e:
            self._ruling = None  # the referee holds the reading before
            self._misread(e)
            return False
        self._read = obs, frame
        self._ruling = None
        self.readings += 1
        if self._fault is not None:
            self._fault = None
            self._show(self.source.status())
        return True

    def _misread(self, e: Exception) -> None:
        self._fail(SourceStatus("error", f"could not read the table: {e}"))

    def _fail(self, status: SourceStatus) -> bool:
        """Show ``status`` until a reading is accepted or a new game starts; False when it is
        the error already held."""
        self.errors += 1
        new = self._fault is None or self._fault.status != status
        self._fault = _Fault(status, self._source.state if self._source is not None else None,
                             self.referee.game.id)
        self.referee.set_camera(status)
        return new

    def _show(self, source: SourceStatus) -> None:
        """The camera's status: the loop's error while the source is as it was when the
        error came; else the source's own status."""
        self._source = source
        fault = self._fault
        if fault is not None and fault.source_state == source.state:
            source = fault.status
        self.referee.set_camera(source)

    def step(self, now: float) -> Observation | None:
        """One frame: returns the observation when the table was read."""
        self.learn_corrections()
        try:
            frame = self.source.read()
        except Exception as e:  # a driver fault must not end the loop
            self.errors += 1
            self.referee.set_camera(SourceStatus("error", f"camera error: {e}"))
            return None
        if self._fault is not None and self._fault.game != self.referee.game.id:
            # A new game: the error was a ruling on the game before (another game's reading
            # refused, say), so it goes, and the still table is read for this one.
            self._fault = None
            self.latch.again()
        self._show(self.source.status())
        if frame is None:
            return None
        read = self.latch.update(frame, now)
        obs = None
        if read:
            t0 = time.perf_counter()
            try:
                if self.expect is not None:
                    self.expect(self.referee.table())
                obs = self.detect(frame)
            except (BadObservation, ValueError, cv2.error) as e:
                self._misread(e)
            if obs is not None and self._rule_on(obs, frame) and self.on_reading:
                self.on_reading(time.perf_counter() - t0)
        view = self.annotate(frame, self.last_observation) if self.annotate else frame
        ok, buf = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if ok:
            self._jpeg = buf.tobytes()
            if read:
                with self._recent_lock:
                    self._recent.append((time.time(), self._jpeg,
                                         obs.to_dict() if obs is not None else None))
        return obs
