"""Frame sources: a webcam, a stream, a video file, a folder of images.

Each source reports its own faults instead of raising them into the camera
loop: an unplugged camera, the end of a file, an unreadable image. A camera
that goes away is retried, so the service recovers when it comes back.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from companion.errors import PATH_ECHO, UserError, clipped, quoted
from companion.inputs.source import SourceStatus, Unreachable
from vision.image_io import ImageError, read_image

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mjpeg", ".mjpg"}


class FrameSource(Protocol):
    """Gives frames (BGR arrays) one at a time; ``read`` returns None when there is none now."""

    name: str

    def read(self) -> np.ndarray | None: ...

    def status(self) -> SourceStatus: ...

    @property
    def finished(self) -> bool: ...

    def close(self) -> None: ...


class CaptureSource:
    """A webcam (index or device path), a stream URL or a video file, through OpenCV.

    Cameras and streams are reopened after a fault (every ``retry_s``); a file
    ends, or starts again when ``loop`` is set. ``on_unreachable`` is told why a camera
    or stream cannot be read, once each time it cannot be opened or is lost (not at every
    retry), for a terminal to say so.
    """

    def __init__(self, spec: str | int, *, loop: bool = False, retry_s: float = 2.0,
                 opener: Callable[[str | int], cv2.VideoCapture] = cv2.VideoCapture,
                 on_unreachable: Callable[[str], None] | None = None) -> None:
        self.spec = spec
        self.name = str(spec)
        self.is_file = isinstance(spec, str) and Path(spec).suffix.lower() in VIDEO_SUFFIXES
        self.loop = loop
        self.retry_s = retry_s
        self._opener = opener
        self._cap: cv2.VideoCapture | None = None
        self._status = SourceStatus("connecting", f"opening {self.name}")
        self._next_try = 0.0
        self._finished = False
        self.faults = 0
        self.unreachable = Unreachable(on_unreachable)

    @property
    def finished(self) -> bool:
        return self._finished

    def status(self) -> SourceStatus:
        return self._status

    def _open(self) -> bool:
        now = time.monotonic()
        if now < self._next_try:
            return False
        cap = self._opener(self.spec)
        if cap is None or not cap.isOpened():
            self._next_try = now + self.retry_s
            self._status = SourceStatus("lost", f"cannot open the camera {self.name}; "
                                        f"retrying every {self.retry_s:g} s")
            if self.is_file:
                self._finished = True
                self._status = SourceStatus("error", f"cannot read the video {self.name}")
            else:
                self.unreachable.tell(self._status.message)
            return False
        self._cap = cap
        self._status = SourceStatus("on", f"reading {self.name}")
        self.unreachable.reached()
        return True

    def read(self) -> np.ndarray | None:
        if self._finished:
            return None
        if self._cap is None and not self._open():
            return None
        assert self._cap is not None
        ok, frame = self._cap.read()
        if ok and frame is not None and frame.size:
            return frame
        self._cap.release()
        self._cap = None
        if self.is_file:
            if self.loop:
                return self.read()
            self._finished = True
            self._status = SourceStatus("ended", f"end of {self.name}")
            return None
        self.faults += 1
        self._next_try = time.monotonic() + self.retry_s
        self._status = SourceStatus("lost", f"the camera {self.name} stopped sending frames "
                                    "(unplugged?); retrying")
        self.unreachable.tell(self._status.message)
        return None

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FolderSource:
    """The images of a folder in name order (again from the start when ``loop`` is set)."""

    def __init__(self, folder: str | Path, *, loop: bool = False) -> None:
        self.folder = Path(folder)
        self.name = str(self.folder)
        self.loop = loop
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise UserError(f"{self.folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._i = 0
        self._finished = False
        self._status = SourceStatus("on", f"reading {len(self.files)} images from {self.name}")
        self.faults = 0

    @property
    def finished(self) -> bool:
        return self._finished

    def status(self) -> SourceStatus:
        return self._status

    def read(self) -> np.ndarray | None:
        if self._finished:
            return None
        if self._i >= len(self.files):
            if not self.loop:
                self._finished = True
                self._status = SourceStatus("ended", f"all images of {self.name} read")
                return None
            self._i = 0
        path = self.files[self._i]
        self._i += 1
        # The image module's reader, not cv2.imread: it refuses a decompression bomb or a
        # photo too small to read before OpenCV gets to it, as for photos given by name.
        try:
            frame = read_image(path)
        except ImageError as e:
            self.faults += 1
            self._status = SourceStatus("on", f"skipped {path.name}: {e}")
            return None
        self._status = SourceStatus("on", f"image {self._i} of {len(self.files)}: {path.name}")
        return frame

    def close(self) -> None:
        self._finished = True


# A webcam index is a few digits: int() refuses one of more than 4,300 in Python's words
# ("use sys.set_int_max_str_digits()"), and isdigit() takes '²', which int() does not.
_INDEX = re.compile(r"[0-9]{1,4}")


def _holds(test: Callable[[], bool]) -> bool:
    """A path's test (is_dir, exists), False for a name no file can have: a name too long
    for the system raises OSError there instead of answering no."""
    try:
        return test()
    except OSError:
        return False


def open_source(spec: str, *, loop: bool = False) -> FrameSource:
    """The source a ``--camera`` value names: an index, device, URL, video file or folder."""
    spec = spec.strip()
    if not spec:
        raise UserError("no camera given: use --camera 0, /dev/video0, a URL, a video or a folder")
    if _INDEX.fullmatch(spec):
        return CaptureSource(int(spec))
    if "://" in spec:
        return CaptureSource(spec)
    path = Path(spec)
    if _holds(path.is_dir):
        return FolderSource(path, loop=loop)
    if path.suffix.lower() in VIDEO_SUFFIXES:
        if not _holds(path.exists):
            raise UserError(f"no video file at {clipped(str(path), PATH_ECHO)}")
        return CaptureSource(spec, loop=loop)
    if spec.startswith("/dev/"):
        return CaptureSource(spec)
    # The value as given, which names nothing here and may be any text: a runaway one is cut.
    raise UserError(f"--camera {quoted(spec)}: not a webcam index, device, URL, video file "
                    "or folder")
