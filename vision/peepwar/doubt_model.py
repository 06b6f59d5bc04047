"""A last judge of every cell the rules read surely: do its measures, weighed together,
look like cells that were read wrongly?

Each rule of the piece reader lowers a cell's confidence for the one close call it
knows (a cool bean, a bean between two colours, a piece on a border). A cell that
passes every rule is reported sure, yet on a table unlike the ones the rules were
measured on some such cells are wrong: a heap whose colour covers more than its beans
explain, a frame whose cells are mostly in doubt, a cell far out under a steep camera.
This model takes a cell's measures at once (:data:`FEATURES`: the warnings given about
it, by kind; its confidence and what it holds; the bean net's heats; the hand net's
chance; colour areas; how steeply it is seen; how doubtful its frame is) and gives the
chance that the cell is read wrongly. A cell the rules read surely whose chance is
ASK_FROM or more is asked about (confidence DOUBT_CONFIDENCE, with a warning); no
reading is changed, and no cell the rules doubted is made sure: a confident wrong
reading is the worst outcome, and the model is only ever a reason to ask.

It is a small network (one hidden layer) run in NumPy from ``doubt_model.json``,
trained by ``python -m vision.peepwar.training.train_doubt_model`` on both scene
generators' training and development frames (never a benchmark's held-out range).
Without the file the rules alone decide.

>>> len(FEATURES)
34
>>> FEATURES[3], FEATURES[15]
('warned: doubtful bean', 'warned: other')
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.rules.peepwar.board import parse_cell
from vision.errors import ModelError
from vision.hidden_layer import HiddenLayerNet, checked_weights
from vision.peepwar.cell_warnings import Warned
from vision.peepwar.cells import cell_sums
from vision.peepwar.passes.assembly import DOUBT_CONFIDENCE

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

MODEL = Path(__file__).with_name("doubt_model.json")
# The confidence from which Peep War's referee rules on a cell (``doubtful_below`` in its
# game bundle): only cells read at least this surely are judged again.
SURE_FROM = 0.8
# A sure cell is asked about from this chance of being read wrongly: chosen by five-fold
# cross-validation on the model's training frames of both generators, and checked on the 2D
# development seeds 0-499 (docs/vision-log.md, "A last judge of sure cells").
ASK_FROM = 0.1
BEAN_MM2 = 200.0  # a bean's area seen from above, about: what a cell's count explains ...
PEEP_MM2 = 1500.0  # ... and a peep's
MIDDLE_STEP_MM = 4.0  # a cell's middle is found on the cells' map taken this often

# The kinds of warning about a cell weighed each on its own, in the model's order; the
# rest are weighed together as "other".
KINDS = (
    Warned.ONE_MORE_BEAN, Warned.END_TO_END, Warned.HALF_UNDER_PEEP, Warned.DOUBTFUL_BEAN,
    Warned.DARK_BEAN, Warned.BETWEEN_COLOURS, Warned.ON_BORDER, Warned.CENTRE_READ_AS_NOTHING,
    Warned.CENTRE_PRINT_HIDDEN, Warned.TOO_MANY_TROOPS, Warned.LONE_BEAN,
    Warned.PEEP_ACROSS_GAP, Warned.TWO_PEEPS, Warned.PEEP_IN_BEAN_COLOUR,
    Warned.HEAP_NOT_PEEP,
)
FEATURES = (*(f"warned: {kind}" for kind in KINDS), "warned: other",
            "confidence", "troops", "players", "peeps", "supply center",
            "least bean heat", "mean bean heat", "hand chance", "slant",
            "frame bean threshold", "frame warnings per cell",
            "colour mm2", "peep body mm2", "unknown colour mm2", "colour over explained",
            "central", "frame mean confidence", "tiles")


class DoubtModel(HiddenLayerNet):
    """The network's weights: inputs standardised, one hidden layer of ReLUs, a logistic
    output."""

    def chances(self, x: np.ndarray) -> np.ndarray:
        """(N,) the chance that each row of ``x`` (N x len(FEATURES)) is read wrongly."""
        logit = self.hidden(x) @ self.w2 + self.b2
        return 0.5 * (1.0 + np.tanh(0.5 * logit))  # the logistic, with no overflow

    def to_json(self) -> dict:
        return {"features": list(FEATURES), **self.weights_json()}

    @classmethod
    def from_json(cls, data: dict) -> DoubtModel:
        if list(data.get("features", [])) != list(FEATURES):
            raise ModelError("the doubt model was trained on other measures: train it again "
                             "(python -m vision.peepwar.training.train_doubt_model)")
        return cls(**checked_weights(data, np.float64, len(FEATURES), (), "the doubt model"))


@cache
def load(path: Path = MODEL) -> DoubtModel | None:
    """The shipped model, read once; None if there is none (the rules alone decide), a
    ModelError saying what to do if it is broken."""
    fix = "reinstall the package, or train it again (python -m vision.peepwar.training." \
          "train_doubt_model)"
    try:
        return DoubtModel.from_json(json.loads(path.read_text()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ModelError(f"the doubt model {path} cannot be read ({e}): {fix}") from None


def cell_measures(st: FrameState) -> tuple[list[str], np.ndarray]:
    """The cells of a finished reading that are not occluded, and each one's measures
    (N x len(FEATURES), in :data:`FEATURES` order)."""
    m, px = st.m, st.px
    n_players, n_cells = len(px.players), len(m.cell_names)
    # The cells' numbers, 0 off the tiles; in bytes while they fit (OpenCV's histogram of
    # bytes is several times faster than of 16-bit numbers).
    ids = (m.cell_map + 1).astype(np.uint8 if n_cells < 256 else np.uint16)
    # Areas by OpenCV's histogram of the cells' numbers under each mask: whole counts, and
    # several times faster than gathering the masked pixels' cells first.

    def per_cell(mask: np.ndarray) -> np.ndarray:
        counts = cv2.calcHist([ids], [0], mask, [n_cells + 1], [0, n_cells + 1]).ravel()
        return counts[1:].astype(np.float64) / (st.s * st.s)

    fg = px.fg.view(np.uint8)
    coloured = cv2.compare(px.label, n_players, cv2.CMP_LT)
    no_hand = cv2.compare(st.occluder, 0, cv2.CMP_EQ)
    free = cv2.bitwise_and(no_hand, cv2.compare(st.egg, 0, cv2.CMP_EQ))
    colour = per_cell(cv2.bitwise_and(cv2.bitwise_and(fg, coloured), free))
    body = per_cell(cv2.compare(st.body, 0, cv2.CMP_GT))
    unknown = per_cell(cv2.bitwise_and(cv2.bitwise_and(fg, cv2.bitwise_not(coloured)), no_hand))
    kinds: dict[str, list[float]] = {}
    index = {kind: k for k, kind in enumerate(KINDS)}
    for name, kind in st.cell_warnings():
        kinds.setdefault(name, [0.0] * (len(KINDS) + 1))[index.get(kind, len(KINDS))] += 1
    heats: dict[str, list[float]] = {}
    for bean in st.beans_counted:
        heats.setdefault(bean.cell, []).append(bean.heat)
    # Each cell's middle, from the cells' map taken at every MIDDLE_STEP_MM (enough for how
    # steeply it is seen, and a sixteenth of the work at 1 px/mm).
    step = max(int(round(MIDDLE_STEP_MM * st.s)), 1)
    coarse = ids[step // 2::step, step // 2::step].astype(np.intp)
    area, x_sum, y_sum = (v[1:] for v in cell_sums(coarse, n_cells + 1))
    cx = (x_sum / np.maximum(area, 1)) * step + step // 2
    cy = (y_sum / np.maximum(area, 1)) * step + step // 2
    cam = m.camera
    threshold = min(st.bean_threshold) if st.bean_threshold else 0.5
    warned = len(st.warnings) / max(n_cells, 1)
    mean_conf = (sum(c.confidence for c in st.cells.values()) / len(st.cells)
                 if st.cells else 1.0)
    unwarned = [0.0] * (len(KINDS) + 1)
    tiles = len(m.tile_centres_px)
    names, rows = [], []
    for ci, name in enumerate(m.cell_names):
        cell = st.cells[name]
        if cell.occluded:
            continue
        slant = (math.hypot(cx[ci] - cam.nadir[0], cy[ci] - cam.nadir[1]) / cam.height
                 if cam is not None else 0.0)
        h = heats.get(name, [])
        troops = sum(cell.troops.values())
        peeps = sum(1 for v in cell.peeps.values() if v)
        players = len({p for p, n in cell.troops.items() if n} | {p for p, n in
                                                                  cell.peeps.items() if n})
        rows.append([
            *kinds.get(name, unwarned),
            cell.confidence, troops, players, peeps, float(cell.supply_center),
            min(h) if h else 1.0, sum(h) / len(h) if h else 1.0,
            (st.hand_p or {}).get(name, 0.0), slant, threshold, warned,
            colour[ci], body[ci], unknown[ci],
            colour[ci] / (BEAN_MM2 * troops + PEEP_MM2 * peeps + 100.0),
            float(parse_cell(name).is_central), mean_conf, tiles])
        names.append(name)
    return names, np.array(rows, np.float64).reshape(-1, len(FEATURES))


def judge(st: FrameState) -> None:
    """Ask about every cell read surely whose measures make it likely wrong (see the
    module's doc); nothing read changes."""
    model = load()
    if model is None:
        return
    names, x = cell_measures(st)
    if not names:
        return
    for name, chance in zip(names, model.chances(x).tolist(), strict=True):
        cell = st.cells[name]
        if cell.confidence < SURE_FROM:
            continue
        if not math.isfinite(chance):  # a measure out of all bounds: no judgement is sure
            cell.lower(DOUBT_CONFIDENCE)
            st.warn(name, "read as it looks, but its measures are out of all bounds: check it",
                    Warned.DOUBTED)
        elif chance >= ASK_FROM:
            cell.lower(DOUBT_CONFIDENCE)
            st.warn(name, f"read as it looks, but the doubt model rates it likely misread "
                          f"({chance:.2f}): check it", Warned.DOUBTED)
