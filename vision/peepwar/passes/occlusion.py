"""Pass 2 of the piece reader, and the one before the last: what hands cover.

Hands, arms and sleeves (:func:`vision.peepwar.occlusion.find_occluders`) are found once
the Supply Centers are set aside, before the peeps: what they cover is no pieces'. Once
every piece is read, the cells they touch are reported ``occluded``, never empty; so are
cells the camera does not fully see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.peepwar.mask_shapes import disk
from vision.peepwar.occlusion import find_occluders

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

# A hand over this share of a cell (the hand grown by 2 mm) occludes it; at 0.004 a hand
# beside a cell, none of it over the cell, occluded it (tuned: docs/vision.md).
OCCLUDED_MIN_SHARE = 0.006
# A cell with more than this share of it outside the frame is not fully seen: occluded.
OUTSIDE_MAX_SHARE = 0.01


def find_hands(st: FrameState) -> None:
    """The occluders over the mosaic (its Supply Centers' discs found), added to
    ``st.occluder``."""
    st.occluder |= find_occluders(st.m, st.px, st.egg)


def mark_occluded(st: FrameState) -> None:
    """Every cell a hand covers (OCCLUDED_MIN_SHARE of it), or the frame does not fully
    show, is occluded; its confidence is lower the less of it is covered."""
    occ = cv2.dilate(st.occluder, disk(2.0 * st.s)).view(bool)  # 0/1: found faster
    cm = st.m.cell_map
    n_cells = len(st.m.cell_names)

    def per_cell(mask: np.ndarray) -> np.ndarray:
        # Pixels off the tiles (-1) are counted in bin 0 and dropped.
        at = cm.ravel()[np.flatnonzero(mask)].astype(np.intp)
        return np.bincount(at + 1, minlength=n_cells + 1)[1:]

    covered = per_cell(occ)
    outside = per_cell(st.m.on_tiles & ~st.m.in_frame)
    if not (covered.any() or outside.any()):
        return
    # Cell areas, from a histogram of the cell map (shifted so off the tiles is bin 0).
    shifted = (cm + np.int16(1)).view(np.uint16)
    area = cv2.calcHist([shifted], [0], None, [n_cells + 1], [0, n_cells + 1]).ravel()[1:]
    for i, name in enumerate(st.m.cell_names):
        if area[i] == 0:
            continue
        share = covered[i] / area[i]
        if share >= OCCLUDED_MIN_SHARE or outside[i] / area[i] > OUTSIDE_MAX_SHARE:
            c = st.cells[name]
            c.occluded = True
            c.lower(min(1.0, 0.5 + share))
