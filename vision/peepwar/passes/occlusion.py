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

from vision.peepwar import hand_net
from vision.peepwar.mask_shapes import disk
from vision.peepwar.occlusion import find_occluders_and_reach

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

# A hand over this share of a cell (the hand grown by 2 mm) occludes it; at 0.004 a hand
# beside a cell, none of it over the cell, occluded it (tuned: docs/vision.md).
OCCLUDED_MIN_SHARE = 0.006
# A cell with more than this share of it outside the frame is not fully seen: occluded.
OUTSIDE_MAX_SHARE = 0.01
# The hand net's chance of a hand over a cell: under CLEAR_BELOW the rules' hands there are
# none; at HAND_ABOVE or more the cell is occluded; between, the rules say, in doubt.
CLEAR_BELOW = 0.2
HAND_ABOVE = 0.6
DOUBT_CONFIDENCE = 0.7


def find_hands(st: FrameState) -> None:
    """The occluders over the mosaic (its Supply Centers' discs found), added to
    ``st.occluder``; then each cell judged by the hand net, where it is shipped: the rules'
    hand pixels in a cell it calls clear are no hand's (the pieces there are read)."""
    found, reached = find_occluders_and_reach(st.m, st.px, st.egg)
    st.occluder |= found
    if not hand_net.available():
        return
    st.hand_p = hand_net.hand_probabilities(st)
    st.hand_kept = np.zeros_like(st.occluder)
    if not st.occluder.any():
        return
    # A hand is one thing: a region of the rules' hands that reaches a cell the net calls a
    # hand's, or that the rules followed in from past the board's edge (which the net's
    # window does not show), is kept whole (a fingertip over the next cell is the hand's
    # too); the rest of the rules' hands is dropped from the cells the net calls clear.
    n, regions = cv2.connectedComponents(st.occluder, connectivity=8)
    cells = st.m.cell_map
    index = {name: i for i, name in enumerate(st.m.cell_names)}
    handed = [index[c] for c, p in st.hand_p.items() if p >= HAND_ABOVE]
    clear = [index[c] for c, p in st.hand_p.items() if p < CLEAR_BELOW]
    kept = np.unique(regions[(np.isin(cells, handed) | (reached > 0)) & (st.occluder > 0)])
    st.hand_kept = (np.isin(regions, kept[kept > 0]) & (st.occluder > 0)).view(np.uint8)
    st.occluder[np.isin(cells, clear) & (st.hand_kept == 0)] = 0


def cell_shares(st: FrameState, hands: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per cell of the mosaic (its order): the share a hand covers (``hands``, by default
    the occluders, grown by 2 mm), and the share the frame does not show."""
    hands = st.occluder if hands is None else hands
    occ = cv2.dilate(hands, disk(2.0 * st.s)).view(bool)  # 0/1: found faster
    cm = st.m.cell_map
    n_cells = len(st.m.cell_names)

    def per_cell(mask: np.ndarray) -> np.ndarray:
        # Pixels off the tiles (-1) are counted in bin 0 and dropped.
        at = cm.ravel()[np.flatnonzero(mask)].astype(np.intp)
        return np.bincount(at + 1, minlength=n_cells + 1)[1:]

    covered = per_cell(occ)
    outside = per_cell(st.m.on_tiles & ~st.m.in_frame)
    if not (covered.any() or outside.any()):
        return np.zeros(n_cells), np.zeros(n_cells)
    # Cell areas, from a histogram of the cell map (shifted so off the tiles is bin 0).
    shifted = (cm + np.int16(1)).view(np.uint16)
    area = cv2.calcHist([shifted], [0], None, [n_cells + 1], [0, n_cells + 1]).ravel()[1:]
    area = np.maximum(area, 1.0)
    return covered / area, outside / area


def mark_occluded(st: FrameState) -> None:
    """Every cell the frame does not fully show is occluded; so is every cell a hand
    covers: by the hand net, where it judged (HAND_ABOVE; between CLEAR_BELOW and that,
    the rules decide and the cell is doubtful), else by the rules (OCCLUDED_MIN_SHARE of
    it under the hands found). Its confidence is lower the less of it is covered."""
    covered, outside = cell_shares(st)
    # In a cell the net calls clear, only a hand it saw next door reaches in.
    if st.hand_p is None:
        kept = covered
    elif st.hand_kept.any():  # (most frames have no hand: no second dilation)
        kept = cell_shares(st, st.hand_kept)[0]
    else:
        kept = np.zeros_like(covered)
    for i, name in enumerate(st.m.cell_names):
        share = covered[i]
        c = st.cells[name]
        p = st.hand_p.get(name) if st.hand_p is not None else None
        if outside[i] > OUTSIDE_MAX_SHARE:
            hand = True
        elif p is None:
            hand = share >= OCCLUDED_MIN_SHARE
        elif p >= HAND_ABOVE:
            hand, share = True, max(share, p)
        elif p < CLEAR_BELOW:
            hand = kept[i] >= OCCLUDED_MIN_SHARE
        else:
            hand = share >= OCCLUDED_MIN_SHARE
            if p >= CLEAR_BELOW:
                c.lower(DOUBT_CONFIDENCE)
        if hand:
            c.occluded = True
            c.lower(min(1.0, 0.5 + share))
