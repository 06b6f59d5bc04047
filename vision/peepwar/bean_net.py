"""Bean centres found by a small convolutional net (``bean_net.onnx``, run by ONNX Runtime).

Counting touching beans by their outlines fails where beans heap, lie side by
side, hide half under a peep or show only their reflections; a net trained on
rendered tables learns those looks from examples. It sees the table-frame
mosaic at ``NET_PX_PER_MM`` (a bean is 20 x 13 px wherever the camera stood) and
what the reader already knows, as ``CHANNELS`` planes:

0-2. each channel's brightness relative to the paper nearby, less one (paper 0);
3.   pixels nearest some player's colour model (their beans or peeps);
4.   peeps found; 5. egg halves and tokens, occluders, off the tiles; 6. printed ink.

It answers, every ``STRIDE`` pixels, how likely a bean's centre lies there
(a heat map) and where in that square (two offsets), as CenterNet does. A bean
is a local peak of the heat above ``THRESHOLD``; whose bean it is, is read off
the pixels' players round its centre, not by the net, so the same net serves
every colour a profile calibrates.

The net is trained by ``python -m vision.peepwar.training.train_bean_net`` (needs the
``train`` extra: torch) on scenes the benchmark never reads, and shipped
quantised to 8 bits (its heat within 0.05 of the float net's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from vision.errors import ModelError
from vision.peepwar.mosaic import PX_PER_MM

MODEL = Path(__file__).with_name("bean_net.onnx")
NET_PX_PER_MM = PX_PER_MM  # the net reads the mosaic as it is built
STRIDE = 4
CHANNELS = 7
CONTEXT_MM = 10.0  # seen round a region of pieces: a bean cut by its box is judged whole
THRESHOLD = 0.5  # heat at a bean's centre
DOUBT_LOW = 0.25  # a peak this hot but under THRESHOLD may be a bean: the cell is doubtful
DOUBT_HIGH = 0.7  # a bean found at a peak cooler than this is doubtful too
BATCH_STEP = 8  # inputs are padded to multiples of this, so that boxes share shapes
# In a frame whose beans run cool (frame_threshold under THRESHOLD), a box with a peak
# between DOUBT_LOW and DOUBT_HIGH is looked at again in its three mirror images (a table
# has no left or right, no top or bottom), and the four answers averaged.
FLIPS = ((3,), (2,), (2, 3))
# Peaks down to this heat describe what is no bean in a frame, for the frame's threshold.
MIXTURE_FLOOR = 0.1
MIXTURE_MIN_PEAKS = 6  # fewer peaks in a frame: THRESHOLD
MIXTURE_SPREAD_FLOOR = 0.3  # (logit units) the least spread of a kind: few peaks, no spikes
MIXTURE_MIN_PART = 1.0  # (logit units) kinds' centres nearer than this are one kind


@dataclass(frozen=True)
class Planes:
    """The mosaic-sized maps the net's planes are made from (see the module's list)."""

    balanced: np.ndarray  # BGR uint8, white-balanced
    white: np.ndarray  # float32, the paper's brightness nearby (0..255)
    coloured: np.ndarray  # bool
    peeps: np.ndarray  # bool or uint8
    blocked: np.ndarray  # bool
    ink: np.ndarray  # bool


def input_shape(box: tuple[int, int, int, int], step: int = STRIDE) -> tuple[int, int, int]:
    """The shape of :func:`net_input`'s answer for ``box`` and ``step``.

    >>> input_shape((10, 0, 60, 38), 8)
    (7, 40, 56)
    """
    h, w = box[3] - box[1], box[2] - box[0]
    return CHANNELS, h + (-h % step), w + (-w % step)


def net_input(planes: Planes, box: tuple[int, int, int, int], step: int = STRIDE,
              out: np.ndarray | None = None) -> np.ndarray:
    """The net's input (CHANNELS x H x W float32, H and W padded to multiples of ``step``,
    itself a multiple of STRIDE) over the box ``(x0, y0, x1, y1)`` of planes at
    ``NET_PX_PER_MM`` (the mosaic's own scale): input pixel (x, y) is plane pixel
    (x0 + x, y0 + y). ``out``: an array of zeros of :func:`input_shape` to write it in (a
    batch's slot), else a new one.

    >>> colour = np.full((40, 60, 3), 200, np.uint8); colour[:, 30:] = (50, 100, 200)
    >>> coloured = np.zeros((40, 60), bool); coloured[:, 30:] = True
    >>> p = Planes(colour, np.full((40, 60), 200, np.float32), coloured,
    ...            *(np.zeros((40, 60), bool) for _ in range(3)))
    >>> x = net_input(p, (10, 0, 60, 38), 8)
    >>> x.shape
    (7, 40, 56)
    >>> x[:4, 5, 5].round(2).tolist(), x[:4, 5, 30].round(2).tolist()  # paper, a red bean
    ([0.0, 0.0, 0.0, 0.0], [-0.75, -0.5, 0.0, 1.0])
    >>> float(np.abs(x[:, 38:]).max()), float(np.abs(x[:, :, 50:]).max())  # padding: paper
    (0.0, 0.0)
    """
    x0, y0, x1, y1 = box
    sl = (slice(y0, y1), slice(x0, x1))
    h, w = y1 - y0, x1 - x0
    # Padding reads as bare paper: every plane is 0 there.
    if out is None:
        out = np.zeros(input_shape(box, step), np.float32)
    inside = out[:, :h, :w]
    per_white = 1.0 / np.maximum(planes.white[sl], 1.0)
    for c in range(3):
        np.multiply(planes.balanced[sl][..., c], per_white, out=inside[c])
    np.subtract(inside[:3], 1.0, out=inside[:3])
    np.clip(inside[:3], -1.0, 0.6, out=inside[:3])
    for c, mask in enumerate((planes.coloured[sl], planes.peeps[sl] > 0, planes.blocked[sl],
                              planes.ink[sl]), 3):
        inside[c] = mask
    return out


@dataclass(frozen=True)
class Peak:
    """A local maximum of the heat: where (input pixels) and how hot."""

    x: float
    y: float
    heat: float


def peaks(out: np.ndarray, floor: float = DOUBT_LOW) -> list[Peak]:
    """Local maxima of the net's heat (``out``: 3 x h x w, heat logits then offsets) hotter
    than ``floor``, hottest first, at their places in input pixels.

    >>> out = np.full((3, 4, 5), -9.0, np.float32); out[1:] = 0.0
    >>> out[0, 2, 3] = 2.0; out[1, 2, 3] = 0.25; out[0, 0, 0] = 0.0
    >>> [(p.x, p.y, round(p.heat, 2)) for p in peaks(out)]
    [(14.5, 9.5, 0.88), (1.5, 1.5, 0.5)]

    Two equal neighbours are one peak (the first in row order), however sure and
    however large the map:

    >>> out[0, 2, 3] = out[0, 2, 4] = 40.0
    >>> [(p.x, p.y) for p in peaks(out)]
    [(14.5, 9.5), (1.5, 1.5)]
    >>> big = np.full((3, 100, 150), -9.0, np.float32); big[1:] = 0.0
    >>> big[0, 60, 70:72] = 5.0; big[0, 61, 70] = 5.0
    >>> [(p.x, p.y) for p in peaks(big)]
    [(281.5, 241.5)]
    """
    return peaks_of_batch(out[None], floor)[0]


def peaks_of_batch(outs: Sequence[np.ndarray] | np.ndarray, floor: float = DOUBT_LOW
                   ) -> list[list[Peak]]:
    """:func:`peaks` of each of the net's answers ``outs`` (3 x h x w each, of any sizes; or
    one N x 3 x h x w array), found together: a frame's boxes cost one search, not one each.
    Read as float32, as the net gives them.

    >>> outs = np.full((2, 3, 4, 5), -9.0, np.float32); outs[:, 1:] = 0.0
    >>> outs[0, 0, 3, 4] = outs[1, 0, 0, 0] = 3.0  # a corner apiece: each map its own
    >>> [[(p.x, p.y) for p in one] for one in peaks_of_batch(outs)]
    [[(17.5, 13.5)], [(1.5, 1.5)]]
    >>> wide = np.zeros((3, 2, 9), np.float32); wide[0] = -9.0; wide[0, 1, 8] = 3.0
    >>> [[(p.x, p.y) for p in one] for one in peaks_of_batch([outs[0], wide, outs[1]])]
    [[(17.5, 13.5)], [(33.5, 5.5)], [(1.5, 1.5)]]
    """
    if not len(outs):
        return []
    # Every map ringed by -inf and stacked, left-aligned, into one image (rows of -inf
    # between, -inf right of narrower maps): one dilation finds the maxima of all, and no
    # map's edge sees the next map.
    sizes = np.array([o.shape[1:] for o in outs])
    starts = np.concatenate([[0], np.cumsum(sizes[:, 0] + 2)])  # each map's first row, ring's
    width = int(sizes[:, 1].max()) + 2
    pad = np.full((int(starts[-1]), width), -np.inf, np.float32)
    shift = np.zeros((2, int(starts[-1]), width), np.float32)
    for k, o in enumerate(outs):
        rows, cols = slice(starts[k] + 1, starts[k] + 1 + o.shape[1]), slice(1, 1 + o.shape[2])
        pad[rows, cols] = o[0]
        shift[:, rows, cols] = o[1:]
    logit = pad[1:-1, 1:-1]
    top = cv2.dilate(pad, np.ones((3, 3), np.uint8))[1:-1, 1:-1]
    # Maxima of the logits (the heat itself is 1.0 over a whole sure plateau); of equal
    # neighbours only the first in row order, so a plateau is one peak.
    earlier = np.maximum(np.maximum(pad[1:-1, :-2], pad[:-2, :-2]),
                         np.maximum(pad[:-2, 1:-1], pad[:-2, 2:]))
    floor_logit = float(np.log(floor / (1.0 - floor)))
    ys, xs = np.nonzero((logit >= top) & (logit > earlier) & (logit > floor_logit))
    ks = np.searchsorted(starts, ys + 1, side="right") - 1
    value = logit[ys, xs]
    dx, dy = shift[0, ys + 1, xs + 1], shift[1, ys + 1, xs + 1]
    ys = ys - starts[ks]  # row within its map
    order = np.lexsort((-value, ks))  # by map, hottest first (row order among equals)
    ks, ys, xs, value, dx, dy = ks[order], ys[order], xs[order], value[order], dx[order], dy[order]
    half = (STRIDE - 1) / 2
    px = STRIDE * (xs + dx) + half
    py = STRIDE * (ys + dy) + half
    heat = 1.0 / (1.0 + np.exp(-np.clip(value, -30.0, 30.0)))
    found: list[list[Peak]] = [[] for _ in range(len(outs))]
    for k, x, y, hh in zip(ks.tolist(), px.tolist(), py.tolist(), heat.tolist(), strict=True):
        found[k].append(Peak(x, y, hh))
    return found


def frame_threshold(heats: Sequence[float] | np.ndarray, low: float = DOUBT_LOW,
                    high: float = THRESHOLD) -> float:
    """The heat from which a peak is a bean in one frame: where a mixture of two kinds of
    peak (beans, and the rest), fitted to the frame's ``heats`` (logits, two normal
    components, by expectation-maximisation), finds a peak as likely of the one kind as of
    the other, whatever their shares (a frame with few peaks that are no beans is no
    likelier to hold cool beans); within ``low`` .. ``high``, and ``high`` when the two
    kinds do not part (less than MIXTURE_MIN_PART logits between their centres) or the
    hotter kind's centre lies under ``high`` (no beans, only faint peaks).

    The net was trained to put a bean's centre at 1 and the rest at 0, and THRESHOLD sits
    between them for the tables it learnt from. On a table that looks unlike them (another
    light, another camera, other beans) every bean's peak may run cooler, and a fixed
    threshold drops the coolest of them; the frame's own peaks say where its beans and its
    other peaks part. It never rises above ``high``: the net's own answer stands where the
    beans run hot.

    >>> rng = np.random.default_rng(1)
    >>> sig = lambda z: 1 / (1 + np.exp(-z))
    >>> cool = np.concatenate([sig(rng.normal(-2.0, 0.6, 40)), sig(rng.normal(0.6, 0.4, 30))])
    >>> 0.25 < frame_threshold(cool) < 0.45  # beans round heat 0.65: they part from the rest lower
    True
    >>> hot = np.concatenate([sig(rng.normal(-2.0, 0.6, 40)), sig(rng.normal(2.5, 0.5, 30))])
    >>> frame_threshold(hot)  # beans round 0.92: the net's threshold stands
    0.5
    >>> frame_threshold([0.9, 0.2])  # too few peaks to tell
    0.5
    >>> frame_threshold([0.3] * 20), frame_threshold([0.1, 0.2, 0.3, 0.35, 0.4, 0.45] * 2)
    (0.5, 0.5)
    >>> few_weak = [0.15, 0.2, 0.3] + list(sig(rng.normal(2.5, 0.5, 30)))
    >>> frame_threshold(few_weak)  # hot beans, few weak peaks: the net's threshold stands
    0.5
    """
    h = np.asarray(heats, np.float64)
    h = np.clip(h[np.isfinite(h)], 1e-4, 1 - 1e-4)
    if len(h) < MIXTURE_MIN_PEAKS:
        return high
    x = np.log(h / (1 - h))[:, None]  # one column: each kind is a column beside it
    mu = np.array([-1.4, 1.4])  # heat 0.2 and 0.8
    sd = np.ones(2)
    share = np.full(2, 0.5)
    for _ in range(50):
        lik = share * np.exp(-0.5 * ((x - mu) / sd) ** 2) / sd
        r = lik / np.maximum(lik.sum(axis=1, keepdims=True), 1e-300)
        n = r.sum(axis=0) + 1e-9
        was = share, mu, sd
        share = n / n.sum()
        mu = (r * x).sum(axis=0) / n
        sd = np.maximum(np.sqrt((r * (x - mu) ** 2).sum(axis=0) / n), MIXTURE_SPREAD_FLOOR)
        if all(np.array_equal(a, b) for a, b in zip(was, (share, mu, sd), strict=True)):
            break  # a fixed point to the last bit: further rounds change nothing
    if mu[1] - mu[0] < MIXTURE_MIN_PART or mu[1] < np.log(high / (1.0 - high)):
        # One kind; or the hotter kind's centre under ``high``: those peaks are no beans the
        # net sees, and the net's threshold stands.
        return high
    grid = np.linspace(mu[0], mu[1], 200)
    lik = np.exp(-0.5 * ((grid[:, None] - mu) / sd) ** 2) / sd  # equal shares
    beans = lik[:, 1] >= lik[:, 0]
    if not beans.any():
        return high
    t = float(grid[np.argmax(beans)])
    return float(np.clip(1.0 / (1.0 + np.exp(-t)), low, high))


@cache
def load() -> ort.InferenceSession:
    """The net, read once; a ModelError saying what to do if its file is missing or broken.
    A service calls this at start, so that it fails there and not on its first frame.

    It runs on as many threads as OpenCV may use (``cv2.setNumThreads``), so one
    setting bounds the whole reader. The net is shipped in 8-bit integers
    (:mod:`vision.peepwar.training.quantise_bean_net`): 34 ns per input pixel on one core,
    against 65 for the float net it is made from and 150 for that in OpenCV's dnn.
    """
    fix = ("reinstall the package (pip install -e .), or make it again with "
           "python -m vision.peepwar.training.quantise_bean_net (or train one with "
           "python -m vision.peepwar.training.train_bean_net)")
    if not MODEL.is_file():
        raise ModelError(f"the bean net {MODEL} is missing: {fix}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, cv2.getNumThreads())
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: its warnings are for model authors
    # Box shapes change from frame to frame: memory plans kept per shape would only grow.
    options.enable_mem_pattern = False
    # Its threads would otherwise spin between runs, taking the CPU from the camera, the
    # serial line and the page that share a Pi with it.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(MODEL), options, providers=["CPUExecutionProvider"])
    except Exception as e:  # ONNX Runtime's load errors share no narrower base class
        reason = str(e).split(" : ")[-1].strip()
        raise ModelError(f"the bean net {MODEL} cannot be read ({reason}): {fix}") from None


def run(inputs: np.ndarray) -> np.ndarray:
    """The net's answer (N x 3 x H/STRIDE x W/STRIDE) for inputs N x CHANNELS x H x W."""
    session = load()
    x = np.ascontiguousarray(inputs, np.float32)
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def run_mirrored(inputs: np.ndarray, first: np.ndarray | None = None) -> np.ndarray:
    """The net's answer averaged over ``inputs`` and their three mirror images (FLIPS),
    each mirrored back: the heat as a chance (returned as its logit), the offsets with
    their sign turned where mirrored. ``first``: the answer to ``inputs`` themselves, if
    known. H and W must be multiples of STRIDE, so that mirroring maps the net's cells
    onto one another.

    A net learns no exact symmetry; where it is unsure of a bean, its four looks disagree
    in the small ways a different table would, and their mean is steadier than any one.
    """
    if inputs.shape[2] % STRIDE or inputs.shape[3] % STRIDE:
        raise ValueError(f"input {inputs.shape[2:]} is not a multiple of {STRIDE}")
    outs = [run(inputs) if first is None else first]
    # The three mirror images in one run (each image's answer is its own, whatever the
    # batch: the net's scales are fixed): one call, not three.
    n = len(inputs)
    flipped = run(np.concatenate([np.flip(inputs, axes) for axes in FLIPS]))
    for k, axes in enumerate(FLIPS):
        out = np.flip(flipped[k * n:(k + 1) * n], axes).copy()
        if 3 in axes:
            out[:, 1] *= -1.0  # x offsets
        if 2 in axes:
            out[:, 2] *= -1.0  # y offsets
        outs.append(out)
    stack = np.stack(outs)
    mean = stack.mean(axis=0)
    heat = (1.0 / (1.0 + np.exp(-np.clip(stack[:, :, 0], -30.0, 30.0)))).mean(axis=0)
    heat = np.clip(heat, 1e-7, 1 - 1e-7)
    mean[:, 0] = np.log(heat / (1.0 - heat))
    return mean.astype(np.float32)
