"""A small PDF writer for the print kit: raster images, vector lines and text at exact sizes.

PDF units are points (1/72 inch); the kit is laid out in millimetres, so every
position here is converted once, with y flipped (PDF's origin is bottom-left).
Images are embedded losslessly (Flate), text uses the built-in Helvetica.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

PT_PER_MM = 72 / 25.4
PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


def _num(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def _text_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


@dataclass
class Page:
    """One page, drawn in mm from its top-left corner."""

    width_mm: float
    height_mm: float
    ops: list[str] = field(default_factory=list)
    images: list[np.ndarray] = field(default_factory=list)

    def _xy(self, x: float, y: float) -> tuple[float, float]:
        return x * PT_PER_MM, (self.height_mm - y) * PT_PER_MM

    def image(self, img: np.ndarray, x_mm: float, y_mm: float, w_mm: float, h_mm: float) -> None:
        """Place a BGR image with its top-left corner at (x, y), stretched to w x h mm."""
        name = f"Im{len(self.images)}"
        self.images.append(img)
        x, y = self._xy(x_mm, y_mm + h_mm)
        self.ops.append(
            f"q {_num(w_mm * PT_PER_MM)} 0 0 {_num(h_mm * PT_PER_MM)} {_num(x)} {_num(y)} cm "
            f"/{name} Do Q"
        )

    def polyline(self, pts_mm, width_mm: float, grey: float = 0.0, closed: bool = True,
                 dash_mm: float | None = None) -> None:
        pts = [self._xy(float(px), float(py)) for px, py in pts_mm]
        path = [f"{_num(pts[0][0])} {_num(pts[0][1])} m"]
        path += [f"{_num(px)} {_num(py)} l" for px, py in pts[1:]]
        dash = f"[{_num(dash_mm * PT_PER_MM)}] 0 d " if dash_mm else "[] 0 d "
        self.ops.append(
            f"q {dash}{_num(grey)} G {_num(width_mm * PT_PER_MM)} w "
            + " ".join(path) + (" h S Q" if closed else " S Q")
        )

    def text(self, s: str, x_mm: float, y_mm: float, size_mm: float) -> None:
        """Text with its baseline starting at (x, y)."""
        x, y = self._xy(x_mm, y_mm)
        self.ops.append(
            f"BT /F1 {_num(size_mm * PT_PER_MM)} Tf {_num(x)} {_num(y)} Td "
            f"({_text_escape(s)}) Tj ET"
        )


def write_pdf(path: str | Path, pages: list[Page]) -> None:
    """Write ``pages`` as one PDF file."""
    Path(path).write_bytes(pdf_bytes(pages))


def pdf_bytes(pages: list[Page]) -> bytes:
    """``pages`` as the bytes of one PDF file."""
    objects: list[bytes] = []

    def add(obj: bytes) -> int:
        objects.append(obj)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    pages_id = len(objects) + 1
    objects.append(b"")  # the Pages object, filled in below
    kids = []
    for page in pages:
        xobjects = []
        for i, img in enumerate(page.images):
            rgb = np.ascontiguousarray(img[:, :, ::-1])
            data = zlib.compress(rgb.tobytes(), 6)
            head = (
                f"<< /Type /XObject /Subtype /Image /Width {img.shape[1]} /Height {img.shape[0]} "
                f"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode "
                f"/Length {len(data)} >>\nstream\n"
            ).encode()
            ref = add(head + data + b"\nendstream")
            xobjects.append(f"/Im{i} {ref} 0 R")
        content = zlib.compress("\n".join(page.ops).encode("latin-1"))
        stream = add(
            f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
            + content + b"\nendstream"
        )
        media = f"[0 0 {_num(page.width_mm * PT_PER_MM)} {_num(page.height_mm * PT_PER_MM)}]"
        kids.append(add(
            f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox {media} "
            f"/Resources << /Font << /F1 {font} 0 R >> /XObject << {' '.join(xobjects)} >> >> "
            f"/Contents {stream} 0 R >>".encode()
        ))
    objects[pages_id - 1] = (
        f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>"
    ).encode()
    catalog = add(f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode())

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)
