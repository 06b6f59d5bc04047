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
    are found."""
    m, px = st.m, st.px
    cm = m.cell_map
    h, w = cm.shape
    n_cells = len(m.cell_names)
    at = cm.ravel().astype(np.intp)
    on = at >= 0
    area = np.bincount(at[on], minlength=n_cells).astype(np.float64)
    ys, xs = np.divmod(np.flatnonzero(on), w)
    cx = np.bincount(at[on], xs, minlength=n_cells) / np.maximum(area, 1)
    cy = np.bincount(at[on], ys, minlength=n_cells) / np.maximum(area, 1)
    planes = np.zeros((h, w, CHANNELS), np.float32)
    per_white = 1.0 / np.maximum(px.white, 1.0)
    planes[..., :3] = np.clip(px.balanced * per_white[..., None] - 1.0, -1.0, 0.6)
    planes[..., 3] = px.label < len(px.players)
    planes[..., 4] = px.fg
    planes[..., 5] = st.occluder > 0
    planes[..., 6] = st.egg > 0
    planes[..., 7] = ~(m.on_tiles & m.in_frame)
    s = m.px_per_mm
    half = int(round(WINDOW_MM * s / 2))
    pad = np.zeros((h + 2 * half, w + 2 * half, CHANNELS), np.float32)
    pad[..., 7] = 1.0  # beyond the mosaic: off the tiles
    pad[half:half + h, half:half + w] = planes
    names, out = [], []
    for i, name in enumerate(m.cell_names):
        if area[i] == 0:
            continue
        x, y = int(round(cx[i])), int(round(cy[i]))
        win = pad[y:y + 2 * half, x:x + 2 * half].copy()
        win[..., 8] = pad_cell(cm, i, x, y, half)
        out.append(cv2.resize(win, (SIZE, SIZE), interpolation=cv2.INTER_AREA))
        names.append(name)
    if not out:
        return [], np.zeros((0, CHANNELS, SIZE, SIZE), np.float32)
    return names, np.ascontiguousarray(np.stack(out).transpose(0, 3, 1, 2))


def pad_cell(cell_map: np.ndarray, index: int, x: int, y: int, half: int) -> np.ndarray:
    """Cell ``index``'s mask in the window of half-size ``half`` centred on (x, y)."""
    h, w = cell_map.shape
    out = np.zeros((2 * half, 2 * half), np.float32)
    x0, y0 = x - half, y - half
    sx0, sy0 = max(x0, 0), max(y0, 0)
    sx1, sy1 = min(x0 + 2 * half, w), min(y0 + 2 * half, h)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = cell_map[sy0:sy1, sx0:sx1] == index
    return out


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
