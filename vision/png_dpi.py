"""PNG files that state their print resolution (the pHYs chunk), so a printer or an
image viewer prints them at the physical size they were drawn for."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np


def png_bytes(image: np.ndarray, dpi: float) -> bytes:
    """``image`` encoded as PNG with a pHYs chunk of ``dpi`` pixels per inch."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("the image could not be encoded as PNG")
    data = buf.tobytes()
    ppm = round(dpi / 0.0254)  # PNG stores pixels per metre
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def write_png(path: str | Path, image: np.ndarray, dpi: float) -> None:
    Path(path).write_bytes(png_bytes(image, dpi))


def read_png_dpi(data: bytes) -> float | None:
    """The dpi a PNG's pHYs chunk states, or None when it has none."""
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            x, _, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            return x * 0.0254 if unit == 1 else None
        if kind == b"IDAT":
            return None
        pos += 12 + length
    return None
