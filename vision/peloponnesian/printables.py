"""The sheets ``companion print`` makes for A Peloponnesian War (the game's bundle names them).

``print_map``: the A3 map as a PNG stating its dpi (``--paper a3``), or the same
map tiled on four A4 landscape pages as a PDF (``--paper a4``: each page holds
a quarter and a strip of its neighbours; cut along the dashed line and lay it
over the neighbour's overlap, lining up the crosses), and with ``--json`` the
areas' boxes in mm (table standard, section 8). ``print_pieces``: counters and
chits on an A4 PNG.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from vision.pdf_pages import Page, pdf_bytes
from vision.peloponnesian.art import map_image, pieces_image
from vision.peloponnesian.layout import map_layout
from vision.png_dpi import png_bytes
from vision.print_files import Printed, need_suffix

A4_LANDSCAPE = (297.0, 210.0)
PRINTABLE_MARGIN_MM = 8.0


def tile_pages(img: np.ndarray, px_per_mm: float, size_mm: tuple[float, float]) -> list[Page]:
    """The sheet ``img`` on 2 x 2 A4 landscape pages with overlaps, cut lines and crosses."""
    pw, ph = A4_LANDSCAPE
    m = PRINTABLE_MARGIN_MM
    tw, th = pw - 2 * m, ph - 2 * m - 8  # the part of the sheet each page shows
    w, h = size_mm
    xs, ys = (0.0, w - tw), (0.0, h - th)
    pages = []
    for r, y0 in enumerate(ys):
        for c, x0 in enumerate(xs):
            page = Page(pw, ph)
            crop = img[round(y0 * px_per_mm):round((y0 + th) * px_per_mm),
                       round(x0 * px_per_mm):round((x0 + tw) * px_per_mm)]
            page.image(crop, m, m, tw, th)
            # Where the neighbour's part begins: cut along it on the right and lower pages.
            if c == 1:
                cut = m + (w / 2 - x0)
                page.polyline([(cut, m), (cut, m + th)], 0.3, dash_mm=2.0, closed=False)
            if r == 1:
                cut = m + (h / 2 - y0)
                page.polyline([(m, cut), (m + tw, cut)], 0.3, dash_mm=2.0, closed=False)
            for cx, cy in ((w / 2, h / 2 - 40), (w / 2, h / 2 + 40), (w / 2 - 60, h / 2),
                           (w / 2 + 60, h / 2)):  # crosses to line the pages up
                px, py = m + cx - x0, m + cy - y0
                if m < px < m + tw and m < py < m + th:
                    page.polyline([(px - 4, py), (px + 4, py)], 0.25, closed=False)
                    page.polyline([(px, py - 4), (px, py + 4)], 0.25, closed=False)
            page.text(f"A Peloponnesian War map, page {2 * r + c + 1} of 4 (row {r + 1}, column "
                      f"{c + 1}); print at 100%; cut the right and lower pages along the dashed "
                      "line and lay them over the overlap, crosses on crosses", m, ph - m + 2,
                      2.6)
            pages.append(page)
    return pages


def print_map(args: argparse.Namespace) -> Printed:
    """The map (and its JSON), and the line saying what was written."""
    if not args.out:
        raise ValueError(f"print {args.kind} needs --out")
    paper = (args.paper or "a3").lower()
    if paper not in ("a3", "a4"):
        raise ValueError(f"--paper {args.paper} is unknown: use a3 (one sheet) or a4 (four "
                         "tiled pages)")
    if paper == "a3":
        need_suffix("--out", args.out, ".png",
                    "the map on one A3 sheet (--paper a3; a4 makes four pages as a PDF)")
    else:
        need_suffix("--out", args.out, ".pdf", "the map on four A4 pages (--paper a4)")
    if args.json:
        need_suffix("--json", args.json, ".json", "the map's layout")
    lay = map_layout(args.map or None)
    px_per_mm = args.dpi / 25.4
    img = map_image(lay, px_per_mm)
    if paper == "a3":
        files = [("the map", args.out, png_bytes(img, args.dpi))]
        what = f"{args.out} (A3, {img.shape[1]}x{img.shape[0]} px at {args.dpi:g} dpi)"
    else:
        pages = tile_pages(img, px_per_mm, (lay.width_mm, lay.height_mm))
        files = [("the map", args.out, pdf_bytes(pages))]
        what = f"{args.out} (four A4 pages to tape together)"
    if args.json:
        files.append(("the map's layout", args.json,
                      (json.dumps(lay.to_json(), indent=2) + "\n").encode()))
        what += f" and {args.json}"
    return Printed(f"the map of {len(lay.areas)} areas written to {what}; print at 100%",
                   tuple(files))


def print_pieces(args: argparse.Namespace) -> Printed:
    if not args.out:
        raise ValueError(f"print {args.kind} needs --out")
    need_suffix("--out", args.out, ".png", "the sheet of pieces")
    img = pieces_image(args.dpi / 25.4)
    return Printed(f"counters and chits written to {args.out} (A4 at {args.dpi:g} dpi); print at "
                   "100%, cut out, fold the chits",
                   (("the sheet of pieces", args.out, png_bytes(img, args.dpi)),))
