"""The colour-calibration card: one bean spot and one peep spot per player slot,
white and grey reference patches, and four corner markers to find it.

The spots are printed in the same grey as the grey patches, so an empty spot
looks exactly like a grey patch and anything else on it is the player's piece.
Two pairs of patches (top and bottom) let calibration average out a light
gradient across the card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.kit_layout import CARD_MARKER_IDS, square_corners
from vision.kit_sizes import MAX_PLAYERS  # noqa: F401  (re-exported: the card's limit)
from vision.mm_canvas import MmCanvas, blank

SPOT_GREY = 128  # sRGB value of the spots and the grey patches
MARKER_MM = 18.0
EDGE_MM = 6.0  # card edge to marker
SLOT_W_MM = 72.0
SLOT_H_MM = 66.0
BEAN_SPOT_R_MM = 12.0
PEEP_SPOT_AXES_MM = (19.0, 31.0)  # semi-axes, x and y: the peep lies along the card
PATCH_W_MM = 36.0


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def corners(self) -> np.ndarray:
        return np.array([[self.x, self.y], [self.x + self.w, self.y],
                         [self.x + self.w, self.y + self.h], [self.x, self.y + self.h]])


@dataclass(frozen=True)
class CardSlot:
    slot: int
    bean_mm: tuple[float, float]
    peep_mm: tuple[float, float]


@dataclass(frozen=True)
class CardLayout:
    """Everything on the card, in mm from its top-left corner (x right, y down)."""

    width_mm: float
    height_mm: float
    slots: tuple[CardSlot, ...]
    white_patches: tuple[Rect, ...]
    grey_patches: tuple[Rect, ...]
    marker_corners: tuple[np.ndarray, ...]  # per CARD_MARKER_IDS, (4, 2) mm

    def to_json(self) -> dict:
        """The JSON of the table standard, section 5."""
        return {
            "width_mm": self.width_mm,
            "height_mm": self.height_mm,
            "slots": [
                {"slot": s.slot, "bean_mm": list(s.bean_mm), "peep_mm": list(s.peep_mm)}
                for s in self.slots
            ],
        }


def card_layout(players: int) -> CardLayout:
    """The card for ``players`` slots (2..MAX_PLAYERS), two slots per row."""
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"the card has room for 1 to {MAX_PLAYERS} players, not {players}")
    rows = math.ceil(players / 2)
    width = 2 * EDGE_MM + 2 + 2 * SLOT_W_MM + 4 + 2
    top = EDGE_MM + MARKER_MM + 6
    height = top + rows * SLOT_H_MM + 4 + MARKER_MM + EDGE_MM
    slots = []
    for i in range(players):
        sx = EDGE_MM + 2 + (i % 2) * (SLOT_W_MM + 4)
        sy = top + (i // 2) * SLOT_H_MM
        bean = (sx + 16.0, sy + 24.0)
        peep = (sx + 50.0, sy + 33.0)
        slots.append(CardSlot(i + 1, bean, peep))
    mid = width / 2
    y_top = EDGE_MM
    y_bottom = height - EDGE_MM - MARKER_MM
    patch_h = MARKER_MM
    whites = (Rect(mid - PATCH_W_MM - 2, y_top, PATCH_W_MM, patch_h),
              Rect(mid + 2, y_bottom, PATCH_W_MM, patch_h))
    greys = (Rect(mid + 2, y_top, PATCH_W_MM, patch_h),
             Rect(mid - PATCH_W_MM - 2, y_bottom, PATCH_W_MM, patch_h))
    h = MARKER_MM / 2
    centres = [(EDGE_MM + h, EDGE_MM + h), (width - EDGE_MM - h, EDGE_MM + h),
               (width - EDGE_MM - h, height - EDGE_MM - h), (EDGE_MM + h, height - EDGE_MM - h)]
    markers = tuple(square_corners(c, MARKER_MM, 90.0) for c in centres)
    return CardLayout(width, height, tuple(slots), whites, greys, markers)


def card_image(players: int, px_per_mm: float) -> np.ndarray:
    """The printable card as a BGR image that is exactly the card, edge to edge."""
    layout = card_layout(players)
    w = round(layout.width_mm * px_per_mm)
    h = round(layout.height_mm * px_per_mm)
    canvas = MmCanvas(blank(w, h), px_per_mm, (0.0, 0.0))
    grey = (SPOT_GREY, SPOT_GREY, SPOT_GREY)
    outline = (60, 60, 60)
    for r in layout.grey_patches:
        canvas.fill_polygon(r.corners(), grey)
    for r in layout.white_patches:
        canvas.polyline(r.corners(), (200, 200, 200), 0.3)
    for s in layout.slots:
        canvas.circle(s.bean_mm, BEAN_SPOT_R_MM, grey, None)
        canvas.circle(s.bean_mm, BEAN_SPOT_R_MM, outline, 0.6)
        canvas.fill_ellipse(s.peep_mm, PEEP_SPOT_AXES_MM, grey)
        canvas.ellipse(s.peep_mm, PEEP_SPOT_AXES_MM, outline, 0.6)
        canvas.text(str(s.slot), (s.bean_mm[0], s.bean_mm[1] - BEAN_SPOT_R_MM - 6), 6.0,
                    (30, 30, 30), 1.0)
        canvas.text("bean", (s.bean_mm[0], s.bean_mm[1] + BEAN_SPOT_R_MM + 4), 2.5, outline)
    for mid, corners in zip(CARD_MARKER_IDS, layout.marker_corners, strict=True):
        canvas.marker(mid, corners, quiet_modules=1.0)
    canvas.text("Table Companion colour card", (layout.width_mm / 2, EDGE_MM + MARKER_MM + 3),
                2.5, outline)
    canvas.polyline(Rect(0, 0, layout.width_mm, layout.height_mm).corners(), (0, 0, 0), 0.3)
    return canvas.image
