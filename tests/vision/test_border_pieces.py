"""A piece on the border between two cells (``FrameState.on_border``): it may be either
cell's, so both are asked about, and each says why."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.peepwar.cell_warnings import Warned
from vision.peepwar.passes.assembly import CellRead
from vision.peepwar.passes.state import BORDER_WARN_MM, FrameState

UNSURE = 0.8  # Peep War's doubtful_below: a cell read under it is asked about


def _strip() -> SimpleNamespace:
    """Two cells side by side at 2 px a millimetre, the line between them at x = 80."""
    cells = np.zeros((60, 160), np.int16)
    cells[:, 80:] = 1
    said: list[str] = []
    st = SimpleNamespace(m=SimpleNamespace(cell_map=cells, cell_names=["0,0/1", "0,0/2"],
                                           px_per_mm=2.0),
                         cells={"0,0/1": CellRead(), "0,0/2": CellRead()}, warnings=said)
    st.kinds = []
    st.warn = lambda cell, text, kind: (said.append(f"cell {cell}: {text}"), st.kinds.append(kind))
    return st


def test_a_piece_on_the_border_has_both_cells_asked_about() -> None:
    st = _strip()
    foot = (80 - BORDER_WARN_MM * 2.0 + 1, 30.0)  # in the first cell, under 1.5 mm from the second
    FrameState.on_border(st, 0, foot, "a red bean")
    assert st.cells["0,0/1"].confidence < UNSURE
    assert st.cells["0,0/2"].confidence < UNSURE  # read without the bean, it may hold it
    assert st.warnings == ["cell 0,0/1: a red bean on the border with 0,0/2",
                           "cell 0,0/2: a red bean on the border with 0,0/1, read there"]
    assert st.kinds == [Warned.ON_BORDER, Warned.ON_BORDER]


def test_a_piece_clear_of_the_border_leaves_both_cells_sure() -> None:
    st = _strip()
    FrameState.on_border(st, 0, (60.0, 30.0), "red's peep")  # 10 mm from the line
    assert st.cells["0,0/1"].confidence == st.cells["0,0/2"].confidence == 1.0
    assert st.warnings == []
