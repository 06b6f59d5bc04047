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


MAX_PIXELS = 80_000_000  # a 50 MP camera's photo fits; a decompression bomb does not
# The smallest side any reader can use. A kit marker is 7 modules across and needs about
# 3 px a module to be read, and a tile carries several markers; the marker search also
# halves the frame for its coarse pass. Below 64 px a side no reader finds anything, and
# a side of 1 shrinks to 0 in that search, which OpenCV refuses with a traceback.
MIN_SIDE = 64


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, without decoding; None if not found.

    >>> header_size(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(4) + b"IHDR" + (640).to_bytes(4, "big")
    ...             + (480).to_bytes(4, "big"))
    (640, 480)
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = int.from_bytes(data[i + 2:i + 4], "big")
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                return (int.from_bytes(data[i + 7:i + 9], "big"),
                        int.from_bytes(data[i + 5:i + 7], "big"))
            i += 2 + length
    return None


def decode_image(data: bytes, name: str) -> np.ndarray:
    """Image bytes as BGR uint8, or one :class:`ImageError` saying what is wrong."""
    if not data:
        raise ImageError(f"image {name} is empty (0 bytes): take or copy the photo again")
    if _truncated(data):
        raise ImageError(
            f"image {name} is truncated (the file ends before the picture does): copy it again")
    size = header_size(data)
    if size and size[0] * size[1] > MAX_PIXELS:
        raise ImageError(f"image {name} is {size[0]}x{size[1]}, more than "
                         f"{MAX_PIXELS // 1_000_000} megapixels: use a smaller photo")
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        raise ImageError(f"{name} is not an image OpenCV can read: use a JPEG or PNG photo")
    _check_small(image.shape[1], image.shape[0], name)
    return image


def _check_small(width: int, height: int, name: str) -> None:
    if min(width, height) < MIN_SIDE:
        raise ImageError(f"image {name} is {width}x{height}, too small to read: "
                         f"use a photo at least {MIN_SIDE} pixels a side")


def _truncated(data: bytes) -> bool:
    # The file's own structure is walked to where the picture ends, rather than looking
    # for an end marker near the end of the file: phones append data after the picture
    # (a motion photo's video, maker trailers), and such photos are whole.
    if data[:3] == b"\xff\xd8\xff":
        return not _jpeg_ends(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return not _png_ends(data)
    return False


def _jpeg_ends(data: bytes) -> bool:
    """Whether the JPEG's segments, walked from its start, reach the end-of-image marker.

    Segments are skipped by their length, so an EXIF thumbnail (inside APP1, with its
    own end marker) does not count as the end; after a start-of-scan header the
    compressed data runs to the next 0xFF that is neither a stuffed 0xFF00 nor a restart.
    """
    n = len(data)
    i = 2
    while True:
        i = data.find(b"\xff", i)
        if i < 0:
            return False
        while i < n and data[i] == 0xFF:  # a marker may be preceded by fill bytes
            i += 1
        if i >= n:
            return False
        marker = data[i]
        i += 1
        if marker == 0xD9:
            return True
        if marker in (0x00, 0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # no length follows
            continue
        if i + 2 > n:
            return False
        i += int.from_bytes(data[i:i + 2], "big")
        if marker != 0xDA:
            continue
        while True:  # compressed data of the scan
            j = data.find(b"\xff", i)
            if j < 0 or j + 1 >= n:
                return False
            after = data[j + 1]
            if after == 0x00 or 0xD0 <= after <= 0xD7 or after == 0xFF:
                i = j + 1
                continue
            i = j
            break


def _png_ends(data: bytes) -> bool:
    """Whether the PNG's chunks (length, type, data, CRC), walked from its start, reach IEND
    whole."""
    n = len(data)
    i = 8
    while i + 8 <= n:
        end = i + 12 + int.from_bytes(data[i:i + 4], "big")
        if end > n:
            return False
        if data[i + 4:i + 8] == b"IEND":
            return True
        i = end
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
    return decode_image(data, str(p))


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
