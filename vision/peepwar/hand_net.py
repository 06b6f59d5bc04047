"""Which cells a hand covers, judged by a small convolutional net (``hand_net.onnx``).

The occlusion rules (:mod:`vision.peepwar.occlusion`) find hands by size, thickness,
colour and the print they hide, with limits measured on one renderer's hands and heaps;
heaps of beans against peeps on a path-traced table pass the same limits, and a hand
under a lamp's glare may pass none. The net sees what the rules saw and more, round
every cell, and says how likely a hand covers it. It reads a window of WINDOW_MM round
the cell's middle, at MM_PER_PX, as ``CHANNELS`` planes:

0-2. each channel's brightness relative to the paper nearby, less one (paper 0);
3.   pixels nearest some player's colour model; 4. foreground (not paper, not ink);
5.   what the occlusion rules took for a hand; 6. Supply Centers' discs;
7.   off the tiles or out of the frame; 8. the cell judged.

It is trained by ``python -m vision.peepwar.training.train_hand_net`` (needs the
``train`` extra) on both generators' scenes that no benchmark reads.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import onnxruntime as ort

from vision.errors import ModelError
from vision.peepwar.cells import cell_sums

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

MODEL = Path(__file__).with_name("hand_net.onnx")
CHANNELS = 9
WINDOW_MM = 96.0  # a cell is about 50 mm across: the window shows its neighbours' edges
MM_PER_PX = 2.0
SIZE = int(WINDOW_MM / MM_PER_PX)  # the net's input is SIZE x SIZE


def cell_inputs(st: FrameState) -> tuple[list[str], np.ndarray]:
    """The cells of ``st``'s mosaic (those it shows) and the net's input for each
    (N x CHANNELS x SIZE x SIZE float32), once the Supply Centers and the rules' hands
    are found.

    Every plane is brought to the net's scale once and windows are cut from that: the
    mosaic's colours and masks averaged over MM_PER_PX squares (a mask becomes a share),
    the cells' map sampled at their middles."""
    m, px = st.m, st.px
    h, w = m.cell_map.shape
    step = max(int(round(MM_PER_PX * m.px_per_mm)), 1)
    hs, ws = max(h // step, 1), max(w // step, 1)
    half = SIZE // 2

    def down(a: np.ndarray, how: int = cv2.INTER_AREA) -> np.ndarray:
        # (A whole number of pixels to one: OpenCV's fast path, five times faster.)
        return cv2.resize(a[:hs * step, :ws * step], (ws, hs), interpolation=how)

    cells = np.full((hs + 2 * half, ws + 2 * half), -1, np.int16)
    inner_cells = down(m.cell_map, cv2.INTER_NEAREST)
    cells[half:half + hs, half:half + ws] = inner_cells
    n_cells = len(m.cell_names)
    # Areas and middles counted over the unpadded map (the padding is off the tiles, bin 0):
    # sums of whole coordinates are exact, so the padding's offset is added after.
    at = inner_cells.astype(np.intp) + 1  # off the tiles (-1) counts in bin 0
    area, x_sum, y_sum = (v[1:] for v in cell_sums(at, n_cells + 1))
    hp, wp = cells.shape
    cx = (x_sum + half * area) / np.maximum(area, 1)
    cy = (y_sum + half * area) / np.maximum(area, 1)

    # The planes, padded with zeros (only the border is cleared: the inside is written).
    small = np.empty((8, hp, wp), np.float32)
    small[:, :half] = 0
    small[:, half + hs:] = 0
    small[:, half:half + hs, :half] = 0
    small[:, half:half + hs, half + ws:] = 0
    inner = small[:, half:half + hs, half:half + ws]
    white = np.maximum(down(px.white.astype(np.float32, copy=False)), 1.0)
    # The three channels in one call each. The division writes float32, so it reads the bytes
    # as float32, the same values as converting them first and with no copy.
    colour = inner[:3]
    np.divide(down(px.balanced).transpose(2, 0, 1), white, out=colour)
    np.subtract(colour, 1.0, out=colour)
    np.clip(colour, -1.0, 0.6, out=colour)
    # Four masks to a picture (OpenCV's area resize takes four channels at most). The last
    # plane is "on the board" until the windows are cut, so that the padding, 0 in every
    # plane, reads as off the tiles.
    # (Each mask made 0/255 as it is found: scaling the merged picture after costs four.)
    four = cv2.merge([cv2.compare(px.label, len(px.players), cv2.CMP_LT),
                      px.fg.view(np.uint8) * np.uint8(255),
                      cv2.compare(st.occluder, 0, cv2.CMP_GT), cv2.compare(st.egg, 0, cv2.CMP_GT)])
    for c, plane in enumerate(cv2.split(down(four)), 3):
        np.multiply(plane, np.float32(1 / 255), out=inner[c])
    inner[7] = down((m.on_tiles & m.in_frame).view(np.uint8) * np.uint8(255)) * (1 / 255)

    names, out = [], np.empty((n_cells, CHANNELS, SIZE, SIZE), np.float32)
    for i, name in enumerate(m.cell_names):
        if area[i] == 0:
            continue
        # The window's top-left corner in the padded planes: the cell's middle, less half.
        x = min(max(int(round(cx[i])) - half, 0), wp - SIZE)
        y = min(max(int(round(cy[i])) - half, 0), hp - SIZE)
        k = len(names)
        out[k, :8] = small[:, y:y + SIZE, x:x + SIZE]
        out[k, 8] = cells[y:y + SIZE, x:x + SIZE] == i
        names.append(name)
    out = out[:len(names)]
    out[:, 7] = 1.0 - out[:, 7]
    return names, out


@cache
def _session() -> ort.InferenceSession:
    if not MODEL.is_file():
        raise ModelError(f"the hand net {MODEL} is missing: reinstall the package, or train "
                         "it (python -m vision.peepwar.training.train_hand_net)")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(MODEL), opts, providers=["CPUExecutionProvider"])


def available() -> bool:
    """Whether the net is shipped (the reader falls back on its rules without it)."""
    return MODEL.is_file()


def hand_probabilities(st: FrameState) -> dict[str, float]:
    """Each cell's chance that a hand covers it."""
    names, x = cell_inputs(st)
    if not names:
        return {}
    logits = _session().run(None, {"cells": x})[0].reshape(-1)
    p = 1.0 / (1.0 + np.exp(-logits.astype(np.float64)))
    return dict(zip(names, p.tolist(), strict=True))
