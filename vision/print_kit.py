"""The print-ready kit: tile, card and ChArUco pages at exact physical size.

Each page carries a 100 mm scale bar so the user can check with a ruler that the
printer did not scale the page ("fit to page" must be off), and vector cut lines
at the exact outline of each piece.
"""

from __future__ import annotations

import numpy as np

from calibration.charuco import board_image, board_size_mm
from companion.rules.peepwar.board import R_MM, hexagon_mm
from vision.card_art import card_image, card_layout
from vision.pdf_pages import PAPER_MM, Page
from vision.peepwar.tile_art import tile_image

SCALE_BAR_MM = 100.0


def _scale_bar(page: Page, x: float, y: float, vertical: bool) -> None:
    """A 100 mm bar with 10 mm ticks starting at (x, y), and its caption."""
    if vertical:
        page.polyline([(x, y), (x, y + SCALE_BAR_MM)], 0.5, closed=False)
        for i in range(11):
            t = 3.0 if i % 5 == 0 else 1.5
            page.polyline([(x, y + 10 * i), (x + t, y + 10 * i)], 0.3, closed=False)
        page.text("100 mm", x - 2, y - 3, 3.0)
        page.text("check with", x - 2, y + SCALE_BAR_MM + 5, 2.5)
        page.text("a ruler", x - 2, y + SCALE_BAR_MM + 8.5, 2.5)
    else:
        page.polyline([(x, y), (x + SCALE_BAR_MM, y)], 0.5, closed=False)
        for i in range(11):
            t = 3.0 if i % 5 == 0 else 1.5
            page.polyline([(x + 10 * i, y), (x + 10 * i, y - t)], 0.3, closed=False)
        page.text("100 mm: check with a ruler that the printer did not scale this page",
                  x, y + 4, 2.8)


def _paper(paper: str, landscape: bool) -> tuple[float, float]:
    if paper not in PAPER_MM:
        raise ValueError(f"unknown paper {paper!r}: use a4 or letter")
    w, h = PAPER_MM[paper]
    return (h, w) if landscape else (w, h)


def tile_page(tile_id: int, paper: str, dpi: float = 300.0) -> Page:
    """One tile on a landscape page, centred, with its cut line and a scale bar beside it."""
    w, h = _paper(paper, landscape=True)
    page = Page(w, h)
    img = tile_image(tile_id, dpi / 25.4)
    iw, ih = img.shape[1] * 25.4 / dpi, img.shape[0] * 25.4 / dpi
    page.image(img, (w - iw) / 2, (h - ih) / 2, iw, ih)
    page.polyline(hexagon_mm((w / 2, h / 2), R_MM), 0.25, closed=True)
    _scale_bar(page, 12.0, (h - SCALE_BAR_MM) / 2, vertical=True)
    page.text(f"Peep War tile {tile_id}", 5.0, 20.0, 3.5)
    page.text("cut along the hexagon", 5.0, 25.0, 2.5)
    return page


def card_page(players: int, paper: str, dpi: float = 300.0) -> Page:
    layout = card_layout(players)
    w, h = _paper(paper, landscape=False)
    page = Page(w, h)
    x0 = (w - layout.width_mm) / 2
    y0 = 12.0
    page.image(card_image(players, dpi / 25.4), x0, y0, layout.width_mm, layout.height_mm)
    rect = np.array([[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm],
                     [0, layout.height_mm]]) + (x0, y0)
    page.polyline(rect, 0.25, closed=True)
    bar_y = y0 + layout.height_mm + 8
    if bar_y + 8 < h:
        _scale_bar(page, (w - SCALE_BAR_MM) / 2, bar_y, vertical=False)
    else:
        _scale_bar(page, 5.0, y0 + 20, vertical=True)
    return page


def charuco_page(paper: str, dpi: float = 300.0) -> Page:
    w, h = _paper(paper, landscape=False)
    bw, bh = board_size_mm()
    page = Page(w, h)
    x0, y0 = (w - bw) / 2, 15.0
    page.image(board_image(dpi / 25.4), x0, y0, bw, bh)
    _scale_bar(page, (w - SCALE_BAR_MM) / 2, y0 + bh + 10, vertical=False)
    page.text("Camera calibration board: lay it flat and photograph it from several angles",
              x0, y0 - 4, 3.0)
    return page


def kit_pages(paper: str, players: int, dpi: float = 300.0) -> list[Page]:
    """The Neutral tile and three tiles per player, the colour card and the ChArUco board."""
    pages = [tile_page(i, paper, dpi) for i in range(3 * players + 1)]
    pages.append(card_page(players, paper, dpi))
    pages.append(charuco_page(paper, dpi))
    return pages
