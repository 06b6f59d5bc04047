"""Reading image files with one clear error for every way they can be bad.

OpenCV returns None for unreadable files and, for a truncated JPEG, silently
returns a half-grey picture after printing a libjpeg warning; both are caught
here first so the user hears what is wrong instead.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


class ImageError(ValueError):
    """An image file that cannot be used; the message says what to do."""


def _truncated(data: bytes) -> bool:
    if data[:3] == b"\xff\xd8\xff":  # JPEG: must end with the end-of-image marker
        return b"\xff\xd9" not in data[-1024:]
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return b"IEND" not in data[-64:]
    return False


def read_image(path: str | Path) -> np.ndarray:
    """The image at ``path`` as BGR uint8."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"image {p} not found: check the path") from None
    except IsADirectoryError:
        raise ImageError(f"{p} is a folder, not an image file") from None
    except OSError as e:
        raise ImageError(f"image {p} cannot be read ({e.strerror})") from None
    if not data:
        raise ImageError(f"image {p} is empty (0 bytes): take or copy the photo again")
    if _truncated(data):
        raise ImageError(
            f"image {p} is truncated (the file ends before the picture does): copy it again"
        )
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageError(f"{p} is not an image OpenCV can read: use a JPEG or PNG photo")
    return image


def frame_warnings(frame: np.ndarray) -> list[str]:
    """Plain problems with a frame's exposure, worth telling the user about."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    mean = float(gray.mean())
    out = []
    if mean < 12:
        out.append("the frame is almost black: check the lens cap and the light")
    elif mean > 245:
        out.append("the frame is almost white: the camera is overexposed")
    elif float(gray.std()) < 4:
        out.append("the frame is nearly uniform: is the camera pointed at the table?")
    return out
