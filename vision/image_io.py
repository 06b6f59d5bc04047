"""Reading image files with one clear error for every way they can be bad.

OpenCV returns None for unreadable files and, for a truncated JPEG, silently
returns a half-grey picture after printing a libjpeg warning; both are caught
here first so the user hears what is wrong instead.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.bounded_read import read_at_most
from companion.errors import PATH_ECHO, clipped


class ImageError(ValueError):
    """An image file that cannot be used; the message says what to do."""


MAX_PIXELS = 80_000_000  # a 50 MP camera's photo fits; a decompression bomb does not
# The most bytes a file read as an image may hold: an uncompressed 80 MP TIFF or BMP fits.
# Read with this ceiling, so that /dev/zero or a runaway file given as the image is
# refused, not read until memory runs out (devices report no size to check first).
MAX_IMAGE_BYTES = 3 * MAX_PIXELS + 16_000_000
# The smallest side any reader can use. A kit marker is 7 modules across and needs about
# 3 px a module to be read, and a tile carries several markers; the marker search also
# halves the frame for its coarse pass. Below 64 px a side no reader finds anything, and
# a side of 1 shrinks to 0 in that search, which OpenCV refuses with a traceback.
MIN_SIDE = 64


# The formats whose size header_size reads; any other is refused before decoding, since
# its size, and so the memory decoding it takes, cannot be known beforehand.
READ_FORMATS = "JPEG, PNG, TIFF, WebP, BMP or GIF"


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG, PNG, TIFF, WebP, BMP or GIF header, without decoding;
    None if not found.

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
    if data[:4] in (b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"):
        return _tiff_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:2] == b"BM" and len(data) >= 26:
        if int.from_bytes(data[14:18], "little") == 12:  # the old OS/2 header: 16-bit sides
            return int.from_bytes(data[18:20], "little"), int.from_bytes(data[20:22], "little")
        # A negative height means rows stored top-down.
        return (abs(int.from_bytes(data[18:22], "little", signed=True)),
                abs(int.from_bytes(data[22:26], "little", signed=True)))
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first image directory of a TIFF or BigTIFF (the page
    OpenCV decodes), in either byte order; None if the directory is not in the file."""
    order = "little" if data[:2] == b"II" else "big"
    big = data[2:4] in (b"+\0", b"\0+")

    def num(at: int, size: int) -> int:
        return int.from_bytes(data[at:at + size], order)

    if big:
        ifd, count_size, entry_size, value_size = num(8, 8), 8, 20, 8
    else:
        ifd, count_size, entry_size, value_size = num(4, 4), 2, 12, 4
    if ifd + count_size > len(data):
        return None
    sides: dict[int, int] = {}
    for k in range(num(ifd, count_size)):
        at = ifd + count_size + k * entry_size
        if at + entry_size > len(data):
            return None
        tag, kind = num(at, 2), num(at + 2, 2)
        if tag in (256, 257):  # ImageWidth, ImageLength: a SHORT, LONG or LONG8 value
            value_at = at + 4 + value_size
            sides[tag] = num(value_at, {3: 2, 4: 4, 16: 8}.get(kind, value_size))
    if 256 in sides and 257 in sides:
        return sides[256], sides[257]
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a WebP's first chunk: VP8X (extended), VP8L (lossless) or VP8
    (lossy)."""
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return (int.from_bytes(data[24:27], "little") + 1,
                int.from_bytes(data[27:30], "little") + 1)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        return (int.from_bytes(data[26:28], "little") & 0x3FFF,
                int.from_bytes(data[28:30], "little") & 0x3FFF)
    return None


def decode_image(data: bytes, name: str) -> np.ndarray:
    """Image bytes as BGR uint8, or one :class:`ImageError` saying what is wrong."""
    name = clipped(name, PATH_ECHO)  # a runaway path is named, not repeated whole
    if not data:
        raise ImageError(f"image {name} is empty (0 bytes): take or copy the photo again")
    if _truncated(data):
        raise ImageError(
            f"image {name} is truncated (the file ends before the picture does): copy it again")
    size = header_size(data)
    if size is None:
        raise ImageError(f"{name} is not an image this program reads ({READ_FORMATS}): "
                         "use a JPEG or PNG photo")
    if size[0] * size[1] > MAX_PIXELS:
        raise ImageError(f"image {name} is {size[0]}x{size[1]}, more than "
                         f"{MAX_PIXELS // 1_000_000} megapixels: use a smaller photo")
    _check_small(size[0], size[1], name)
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
    name = clipped(str(p), PATH_ECHO)  # a runaway path is named, not repeated whole
    try:
        data = read_at_most(p, MAX_IMAGE_BYTES)
    except FileNotFoundError:
        raise ImageError(f"image {name} not found: check the path") from None
    except IsADirectoryError:
        raise ImageError(f"{name} is a folder, not an image file") from None
    except OSError as e:
        raise ImageError(f"image {name} cannot be read ({e.strerror})") from None
    if data is None:
        raise ImageError(f"{name} is too large to be a photo (more than "
                         f"{MAX_IMAGE_BYTES // 1_000_000} MB): use a JPEG or PNG photo")
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
