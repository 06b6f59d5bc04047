"""Finding the kit's ArUco markers in a frame, fast enough for a live camera.

OpenCV's ArUco detector finds candidate squares quickly, but its identification
step compares every candidate with every dictionary entry, which for the kit's
~800 markers costs tens of milliseconds per frame. So OpenCV is asked only for
candidates (through a one-entry decoy dictionary, whose failures it returns as
"rejected"), and identification happens here: all candidates are sampled in one
vectorised pass, thresholded, and looked up in a hash table of the kit's codes.

Large frames are searched at about 1280 pixels across and the corners refined
on the full-resolution image, so 4K costs little more than 720p.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

from vision.kit_layout import (
    CARD_MARKER_IDS,
    MARKER_BITS,
    MARKERS_PER_TILE,
    MAX_TILES,
    PELOPONNESIAN_MARKER_IDS,
    PETRI_MARKER_IDS,
    dictionary,
)

SEARCH_WIDTH = 1280  # frames wider than this are searched downscaled
THRESHOLD_WINDOW = 9  # px; a second pass at half size sees large markers with a 2x window
_DECOY_ID = 999  # never printed; only there so OpenCV rejects every real candidate to us
_GRID = MARKER_BITS + 2
_SUB = np.array([-0.2, 0.2])  # 2 x 2 samples per module, inside its middle half
MAX_BIT_ERRORS = 1  # the 5x5 codes are >= 5 bits apart; one error keeps phantoms rare
MAX_BORDER_ERRORS = 1
MIN_CONTRAST = 18.0  # grey levels between a marker's black and white modules


@dataclass(frozen=True)
class MarkerHits:
    """Markers found in one frame: ids (N,) and corners (N, 4, 2) in frame pixels.

    Corners are the marker's own top-left, top-right, bottom-right, bottom-left,
    in OpenCV pixel coordinates (pixel centres at integers).
    """

    ids: np.ndarray
    corners: np.ndarray
    # Candidate squares the square finder returned that no code read (frame pixels), for
    # the soft decoder (:func:`soft_markers`) to look at when something is missing.
    unread: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 2)))

    def __len__(self) -> int:
        return len(self.ids)

    def with_new(self, other: MarkerHits) -> MarkerHits:
        """These hits and those of ``other`` whose ids are not among them."""
        new = ~np.isin(other.ids, self.ids)
        return MarkerHits(np.concatenate([self.ids, other.ids[new]]),
                          np.concatenate([self.corners.reshape(-1, 4, 2),
                                          other.corners[new].reshape(-1, 4, 2)]),
                          np.concatenate([self.unread.reshape(-1, 4, 2),
                                          other.unread.reshape(-1, 4, 2)]))


@cache
def _candidate_finder(min_perimeter_rate: float, window: int = THRESHOLD_WINDOW,
                      approx: float = 0.03, constant: float = 7.0) -> cv2.aruco.ArucoDetector:
    """OpenCV's square finder with one threshold window; scale passes cover marker sizes."""
    base = dictionary()
    decoy = cv2.aruco.Dictionary(base.bytesList[_DECOY_ID:_DECOY_ID + 1].copy(), MARKER_BITS, 0)
    p = cv2.aruco.DetectorParameters()
    p.adaptiveThreshWinSizeMin = window
    p.adaptiveThreshWinSizeMax = window
    p.adaptiveThreshConstant = constant
    p.polygonalApproxAccuracyRate = approx
    p.minMarkerPerimeterRate = min_perimeter_rate
    p.maxErroneousBitsInBorderRate = 0.5
    p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    # Every candidate is read by identify(), so OpenCV's own read of each is wasted: a
    # candidate whose contrast is under minOtsuStdDev is read as uniform (all black fails the
    # decoy's code, all white the border check), and at one pixel a module the warp it reads
    # from is smallest. Same candidates, in the same order (but for a printed decoy, which
    # OpenCV would have kept back and identify() now drops); 0.2-0.3 ms a frame less.
    p.minOtsuStdDev = 1e9
    p.perspectiveRemovePixelPerCell = 1
    return cv2.aruco.ArucoDetector(decoy, p)


def kit_marker_ids() -> np.ndarray:
    return np.concatenate([np.arange(MAX_TILES * MARKERS_PER_TILE), np.array(PETRI_MARKER_IDS),
                           np.array(PELOPONNESIAN_MARKER_IDS), np.array(CARD_MARKER_IDS)])


@cache
def _code_table() -> tuple[dict[int, tuple[int, int]], np.ndarray, np.ndarray]:
    """Exact lookup code -> (marker id, rotation), plus arrays for near-miss search."""
    bits = cv2.aruco.Dictionary_getBitsFromByteList
    base = dictionary()
    exact: dict[int, tuple[int, int]] = {}
    codes, owners = [], []
    weights = 1 << np.arange(MARKER_BITS * MARKER_BITS, dtype=np.int64)[::-1]
    for mid in kit_marker_ids():
        canon = bits(base.bytesList[int(mid):int(mid) + 1], MARKER_BITS)
        for k in range(4):
            # A candidate sampled with its corners rolled by k reads as canon rotated by -k.
            code = int((np.rot90(canon, -k).reshape(-1) * weights).sum())
            exact[code] = (int(mid), k)
            codes.append(code)
            owners.append((int(mid), k))
    return exact, np.array(codes, np.int64), np.array(owners, np.int64)


@cache
def _sample_offsets(margin: int = 0) -> np.ndarray:
    """Canonical (u, v) sample points: a small patch in the middle of every module, row-major
    (with ``margin``, as many modules of the paper round the marker as well)."""
    cells = np.arange(-margin, _GRID + margin) + 0.5
    du, dv = np.meshgrid(_SUB, _SUB)
    pts = []
    for j in cells:
        for i in cells:
            pts.append(np.stack([i + du.ravel(), j + dv.ravel()], axis=1))
    return np.concatenate(pts) / _GRID  # (49 * samples, 2) in the unit square


def _module_means(gray: np.ndarray, quads: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Mean brightness of every module of every quad, (N, modules): ``uv`` are the
    unit-square sample points, 4 a module, module by module."""
    hom = np.concatenate([uv, np.ones((len(uv), 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # a degenerate quad: see below
        hs = _homographies(quads)
        img = np.matmul(hom[None, :, :], hs.transpose(0, 2, 1))
        xy = (img[:, :, :2] / img[:, :, 2:3]).astype(np.float32)
    bad = ~np.isfinite(xy).all(axis=(1, 2))
    xy[bad] = 0  # a quad with three corners in a line has no inside: read as blank
    samples = cv2.remap(gray, xy[:, :, 0], xy[:, :, 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return samples.reshape(len(quads), -1, len(_SUB) ** 2).mean(axis=2)


def _homographies(quads: np.ndarray) -> np.ndarray:
    """Unit square -> each quad, batched (N, 3, 3), in closed form (Heckbert's square to
    quadrilateral: a tenth of the cost of solving each 8 x 8 system).

    >>> quad = np.array([[[10.0, 20.0], [50.0, 22.0], [47.0, 61.0], [8.0, 55.0]]])
    >>> h = _homographies(quad)[0]
    >>> uv = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float) @ h.T
    >>> np.allclose(uv[:, :2] / uv[:, 2:], quad[0])
    True
    """
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = (quads[:, k].T for k in range(4))
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    den = dx1 * dy2 - dx2 * dy1
    g = (sx * dy2 - dx2 * sy) / den
    h = (dx1 * sy - sx * dy1) / den
    one = np.ones_like(g)
    return np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0,
                     y1 - y0 + g * y1, y3 - y0 + h * y3, y0,
                     g, h, one], axis=1).reshape(-1, 3, 3)


def _otsu_split(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row Otsu threshold and the gap between the two class means."""
    v = np.sort(values, axis=1)
    n = v.shape[1]
    csum = np.cumsum(v, axis=1)
    total = csum[:, -1:]
    k = np.arange(1, n)
    m0 = csum[:, :-1] / k
    m1 = (total - csum[:, :-1]) / (n - k)
    score = k * (n - k) * (m1 - m0) ** 2
    best = np.argmax(score, axis=1)
    rows = np.arange(len(v))
    thr = (v[rows, best] + v[rows, best + 1]) / 2
    return thr, m1[rows, best] - m0[rows, best]


def identify(gray: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids and reordered corners of the candidate quads that are kit markers."""
    ids, corners, _ = _identify_rows(gray, quads)
    return ids, corners


def _identify_rows(gray: np.ndarray, quads: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`identify`, and which of ``quads`` each id was read from."""
    if len(quads) == 0:
        return np.zeros(0, int), np.zeros((0, 4, 2)), np.zeros(0, int)
    quads = np.asarray(quads, np.float64)
    # Make every quad clockwise on screen (y down), as the printed corner order is.
    d1 = quads[:, 1] - quads[:, 0]
    d2 = quads[:, 2] - quads[:, 0]
    ccw = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] < 0
    quads[ccw] = quads[ccw][:, ::-1]

    modules = _module_means(gray, quads, _sample_offsets())
    thr, contrast = _otsu_split(modules)
    white = (modules > thr[:, None]).reshape(-1, _GRID, _GRID)
    border = np.ones((_GRID, _GRID), bool)
    border[1:-1, 1:-1] = False
    border_errors = white[:, border].sum(axis=1)
    ok = (contrast >= MIN_CONTRAST) & (border_errors <= MAX_BORDER_ERRORS)

    exact, codes, owners = _code_table()
    weights = 1 << np.arange(MARKER_BITS * MARKER_BITS, dtype=np.int64)[::-1]
    inner = white[:, 1:-1, 1:-1].reshape(len(quads), -1).astype(np.int64)
    cand_codes = inner @ weights
    ids, rows, turns = [], [], []
    taken: set[int] = set()
    for n in np.nonzero(ok)[0].tolist():
        hit = exact.get(int(cand_codes[n]))
        if hit is None and MAX_BIT_ERRORS:
            dist = np.bitwise_count(codes ^ cand_codes[n])
            best = int(np.argmin(dist))
            if dist[best] <= MAX_BIT_ERRORS:
                hit = (int(owners[best, 0]), int(owners[best, 1]))
        if hit is None:
            continue
        mid, k = hit
        if mid in taken:  # the same marker found twice (two threshold passes): keep the first
            continue
        taken.add(mid)
        ids.append(mid)
        rows.append(n)
        turns.append(k)
    if not ids:
        return np.zeros(0, int), np.zeros((0, 4, 2)), np.zeros(0, int)
    order = (np.arange(4)[None, :] + np.array(turns)[:, None]) % 4
    return np.array(ids, int), quads[np.array(rows)[:, None], order], np.array(rows, int)


def to_gray(frame: np.ndarray, pale_colours: bool = False) -> np.ndarray:
    """The frame's brightness; with ``pale_colours``, plus its colourfulness (max - min
    channel), so that a coloured piece lying against a marker turns pale and does not
    join its black border (but coloured light costs the print contrast)."""
    if frame.ndim == 2:
        return frame
    gray = cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY if frame.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
    if not pale_colours:
        return gray
    return cv2.add(gray, colourfulness(frame))


def colourfulness(image: np.ndarray) -> np.ndarray:
    """Max - min channel of an 8-bit BGR(A) image (0 for a gray one), per pixel."""
    if image.ndim == 2:
        return np.zeros_like(image)
    b, g, r = cv2.split(image[..., :3])
    return cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))


def _refine(gray: np.ndarray, corners: np.ndarray, win: int) -> np.ndarray:
    """Sub-pixel corners; a refinement that wanders off by a whole window is dropped."""
    pts = corners.reshape(-1, 1, 2).astype(np.float32)
    refined = cv2.cornerSubPix(
        gray, pts.copy(), (win, win), (-1, -1),
        (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 15, 0.03),
    ).reshape(-1, 2)
    flat = corners.reshape(-1, 2).copy()
    good = np.linalg.norm(refined - flat, axis=1) < win
    flat[good] = refined[good]
    return flat.reshape(-1, 4, 2)


def _shrunk(gray: np.ndarray, width: int) -> np.ndarray:
    """``gray`` shrunk to ``width`` pixels across (itself if no wider)."""
    h, w = gray.shape
    if width >= w:
        return gray
    # At least 1 px each way: a thin frame's side would round to 0, which resize refuses.
    size = (max(1, width), max(1, round(h * width / w)))
    return cv2.resize(gray, size, interpolation=cv2.INTER_AREA)


def _search(
    gray: np.ndarray, small: np.ndarray, min_perimeter_rate: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Markers found in ``small`` (``gray`` shrunk), in ``gray``'s pixels, and the
    candidate squares no code read."""
    h, w = gray.shape
    _, _, rejected = _candidate_finder(min_perimeter_rate).detectMarkers(small)
    quads = np.asarray(rejected, np.float64).reshape(-1, 4, 2)
    ids, corners, rows = _identify_rows(small, quads)
    unread = np.delete(quads, rows, axis=0)
    if small is not gray:
        scale = (w / small.shape[1], h / small.shape[0])
        corners = (corners + 0.5) * scale - 0.5
        unread = (unread + 0.5) * scale - 0.5
    return ids, corners, unread


def detect_markers(frame: np.ndarray, pale_colours: bool = False) -> MarkerHits:
    """Every kit marker (tiles, the Petri board, the Peloponnesian map and the calibration
    card) in ``frame`` (BGR or gray); with
    ``pale_colours``, in the frame with coloured things made pale (see :func:`to_gray`).

    Two passes: at up to SEARCH_WIDTH pixels across for small markers, and at
    half that for large ones, whose modules a small threshold window would hollow
    out. A marker found by both keeps the finer pass's corners.
    """
    gray = to_gray(frame, pale_colours)
    w = gray.shape[1]
    fine = _shrunk(gray, min(w, SEARCH_WIDTH))
    ids_a, corners_a, unread_a = _search(gray, fine, 0.025)
    # The coarse pass is for markers the fine threshold window hollows out: big ones only.
    # Halving the fine image (averaging whole pixel pairs, for even sizes) costs a fifth of
    # shrinking gray again.
    ids_b, corners_b, unread_b = _search(gray, _shrunk(fine, fine.shape[1] // 2), 0.08)
    found = MarkerHits(ids_a, corners_a, unread_a).with_new(
        MarkerHits(ids_b, corners_b, unread_b))
    ids, corners = found.ids, found.corners
    if len(ids) == 0:
        return MarkerHits(np.zeros(0, int), np.zeros((0, 4, 2)), found.unread)
    return MarkerHits(ids, _refine(gray, corners, _refine_window(corners)), found.unread)


def _refine_window(corners: np.ndarray) -> int:
    """Corner refinement window: about a third of a module, at least 2 px."""
    side = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1)
    return int(np.clip(np.median(side) / _GRID / 3, 2, 6))


# --- The soft decoder -------------------------------------------------------------------
# Blur (defocus, motion), a quad found a fraction of a module off and a dim print all
# leave a marker's modules grey: thresholded, 3-5 bits come out wrong and the hard read
# above rightly refuses them. Read softly, each candidate's module brightnesses (its 7 x 7
# and a ring of paper round them) are compared with every code and turn of the whole
# dictionary as a camera would see it: the code's black-and-white pattern blurred by one
# of a few kernels (round ones of several widths for defocus, streaks of several lengths
# and four directions for motion), under an unknown black level and a positive contrast.
# Under Gaussian noise the best fit's likelihood rests on its correlation with the
# candidate; a code is read when its likelihood beats every other code and turn by a clear
# ratio. The kernels are few and physical (no negative weights, no free shape), so a code
# cannot be bent to fit another code's picture, nor a marker of another dictionary.
SOFT_MARGIN = 1  # modules of paper round the black border that the model sees
_SOFT_SIDE = _GRID + 2 * SOFT_MARGIN
_SOFT_PAD = 2  # modules of paper beyond those, for the kernels' reach
_SOFT_FINE = 8  # pixels a module when the kernels are applied
SOFT_DEFOCUS = (0.15, 0.3, 0.45, 0.6, 0.8, 1.0)  # Gaussian sigmas, in modules
SOFT_STREAKS = (0.6, 1.2, 1.8)  # motion streak lengths, in modules (over a 0.2 sigma)
SOFT_SHORTLIST = 64  # codes and turns a candidate is fitted to, by a linear first score
SOFT_MIN_LLR = 12.0  # log-likelihood ratio of the best code over the next
SOFT_MIN_R2 = 0.6  # share of the candidate's variance the best code's model explains


@dataclass(frozen=True)
class SoftReads:
    """The soft decoder's best reading of each candidate quad (not thresholded).

    ids (N,) dictionary ids, corners (N, 4, 2) reordered as the id says, llr (N,) log
    likelihood ratio of that reading over the best other code or turn, r2 (N,) share of
    the modules' variance its model explains, contrast (N,) fitted white minus black,
    misfit (N,) the RMS residual per module over that contrast.
    """

    ids: np.ndarray
    corners: np.ndarray
    llr: np.ndarray
    r2: np.ndarray
    contrast: np.ndarray
    misfit: np.ndarray

    def accepted(self, min_llr: float = SOFT_MIN_LLR, min_r2: float = SOFT_MIN_R2) -> np.ndarray:
        """Mask of the readings clear enough to name their marker."""
        return (self.llr >= min_llr) & (self.r2 >= min_r2) & (self.contrast >= MIN_CONTRAST)


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in float32 by OpenCV: numpy's BLAS threads spin for small products on a busy
    machine (ten times slower than one core)."""
    return cv2.gemm(np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32),
                    1.0, None, 0.0)


def _soft_kernels() -> list[np.ndarray]:
    """The blur kernels, on the fine grid (_SOFT_FINE pixels a module)."""
    f = _SOFT_FINE
    size = 4 * f + 1
    kernels = []
    for sigma in SOFT_DEFOCUS:
        g = cv2.getGaussianKernel(size, sigma * f)
        kernels.append(g @ g.T)
    base = kernels[0]
    for length in SOFT_STREAKS:
        for angle in (0.0, 45.0, 90.0, 135.0):
            line = np.zeros((size, size), np.float64)
            c = size // 2
            dx, dy = np.cos(np.radians(angle)), np.sin(np.radians(angle))
            for t in np.linspace(-length * f / 2, length * f / 2, 4 * f + 1):
                line[int(round(c + t * dy)), int(round(c + t * dx))] += 1
            line = cv2.filter2D(line / line.sum(), -1, base, borderType=cv2.BORDER_CONSTANT)
            kernels.append(line / line.sum())
    return kernels


@cache
def _soft_models() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every dictionary code and turn (H = codes * 4, code ``mid`` turned ``k`` at
    4 * mid + k): its pattern as +-1 over the modules seen (H, 81), for the linear first
    score; its picture under every kernel, centred and of unit norm (H, kernels, 81); that
    picture's norm before scaling (H, kernels), which turns a correlation into a contrast;
    and the owners (H, 2): dictionary id and turn."""
    base = dictionary()
    bits = cv2.aruco.Dictionary_getBitsFromByteList
    pad = SOFT_MARGIN + _SOFT_PAD
    patterns, owners = [], []
    for mid in range(base.bytesList.shape[0]):
        canon = np.ones((_GRID, _GRID), np.float32)
        canon[1:-1, 1:-1] = bits(base.bytesList[mid:mid + 1], MARKER_BITS)
        canon[0, :] = canon[-1, :] = canon[:, 0] = canon[:, -1] = 0
        for k in range(4):
            patterns.append(np.pad(np.rot90(canon, -k), pad, constant_values=1))
            owners.append((mid, k))
    padded = np.array(patterns).reshape(len(patterns), -1)  # (H, P) modules, 1 = white
    side = _GRID + 2 * pad
    f = _SOFT_FINE
    # Where the decoder samples: 2 x 2 points a module of the 9 x 9 seen, on the fine grid.
    uv = _sample_offsets(SOFT_MARGIN) * _GRID  # in modules from the marker's corner
    xy = ((uv + pad) * f - 0.5).astype(np.float32)
    # Each module's picture through a kernel is the middle module's, shifted: sampled at
    # every sample point less every module's offset, it gives a (seen, P) linear map.
    mid = side // 2
    rows, cols = np.divmod(np.arange(side * side), side)
    shift = np.stack([cols - mid, rows - mid], axis=1).astype(np.float32) * f
    at = np.ascontiguousarray((xy[:, None, :] - shift[None, :, :]).transpose(1, 0, 2))
    pictures = []
    for kernel in _soft_kernels():
        delta = np.zeros((side * f, side * f), np.float32)
        delta[mid * f:(mid + 1) * f, mid * f:(mid + 1) * f] = 1
        blurred = cv2.filter2D(delta, -1, kernel.astype(np.float32),
                               borderType=cv2.BORDER_CONSTANT)
        seen = cv2.remap(blurred, at[..., 0], at[..., 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = seen.T.reshape(-1, len(_SUB) ** 2, side * side).mean(axis=1)
        pictures.append(_product(padded, a.T))  # (H, seen)
    t = np.stack(pictures, axis=1)  # (H, kernels, seen)
    t -= t.mean(axis=2, keepdims=True)
    norm = np.linalg.norm(t, axis=2)
    unit = t / np.maximum(norm, 1e-9)[..., None]
    inner = padded.reshape(len(padded), side, side)[:, pad - SOFT_MARGIN:side - pad + SOFT_MARGIN,
                                                    pad - SOFT_MARGIN:side - pad + SOFT_MARGIN]
    signs = 2 * inner.reshape(len(padded), -1) - 1
    return (signs.astype(np.float32), unit.astype(np.float32), norm.astype(np.float32),
            np.array(owners))


def soft_prepare() -> None:
    """Build the soft decoder's tables now (about a second; a service's start), not on the
    first frame that needs them."""
    _soft_models()
    _signs_t()


def _soft_fit(m: np.ndarray, hyps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Residual sum of squares (N, K) of each candidate's centred modules ``m`` (N, 81)
    under hypotheses ``hyps`` (N, K), at each one's best kernel and a positive contrast;
    and that contrast (N, K) in grey levels."""
    _, unit, norm, _ = _soft_models()
    u = unit[hyps]
    rho = np.matmul(u.reshape(len(m), -1, m.shape[1]), m[:, :, None]).reshape(u.shape[:3])
    kernel = np.argmax(rho, axis=2)
    best = np.take_along_axis(rho, kernel[..., None], axis=2)[..., 0]
    total = (m * m).sum(axis=1)[:, None]
    sse = np.maximum(total - np.maximum(best, 0) ** 2, 1e-6 * total + 1e-9)
    contrast = best / np.take_along_axis(norm[hyps], kernel[..., None], axis=2)[..., 0]
    return sse, contrast


def _shortlist(m: np.ndarray) -> np.ndarray:
    """(N, SOFT_SHORTLIST) hypotheses whose +-1 patterns correlate best with ``m``."""
    return np.argpartition(-_product(m, _signs_t()), SOFT_SHORTLIST, axis=1)[:, :SOFT_SHORTLIST]


@cache
def _signs_t() -> np.ndarray:
    return np.ascontiguousarray(_soft_models()[0].T)


def soft_identify(gray: np.ndarray, quads: np.ndarray) -> SoftReads:
    """The best code of the whole dictionary for each candidate quad, and how clearly."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if len(quads) == 0:
        z = np.zeros(0)
        return SoftReads(np.zeros(0, int), np.zeros((0, 4, 2)), z, z, z, z)
    quads = quads.copy()
    d1 = quads[:, 1] - quads[:, 0]
    d2 = quads[:, 2] - quads[:, 0]
    ccw = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] < 0
    quads[ccw] = quads[ccw][:, ::-1]
    m = _module_means(gray, quads, _sample_offsets(SOFT_MARGIN))
    m = m - m.mean(axis=1, keepdims=True)
    short = _shortlist(m)
    sse, contrast = _soft_fit(m, short)
    order = np.argsort(sse, axis=1)
    rows = np.arange(len(m))
    best, second = sse[rows, order[:, 0]], sse[rows, order[:, 1]]
    h = short[rows, order[:, 0]]
    llr = 0.5 * m.shape[1] * np.log(second / best)
    r2 = 1.0 - best / np.maximum((m * m).sum(axis=1), 1e-9)
    owners = _soft_models()[3]
    ids, turns = owners[h, 0], owners[h, 1]
    order4 = (np.arange(4)[None, :] + turns[:, None]) % 4
    corners = quads[rows[:, None], order4]
    contrast = contrast[rows, order[:, 0]]
    misfit = np.sqrt(best / m.shape[1]) / np.maximum(contrast, 1e-6)
    return SoftReads(ids.astype(int), corners, llr, r2, contrast, misfit)


# A second look for candidate squares, for frames that miss something: a wider threshold
# window and a lower threshold constant keep the border of a blurred marker (whose white
# modules have gone grey) apart from its paper, and a looser polygon fit keeps a
# motion-streaked square a square.
RESCUE_FINDER = (0.025, 15, 0.05, 3.0)  # min perimeter rate, window, polygon fit, constant


def soft_markers(
    frame: np.ndarray, hits: MarkerHits, wanted: Callable[[np.ndarray], np.ndarray],
    search_again: bool = False,
) -> tuple[MarkerHits, np.ndarray]:
    """Markers the hard read missed, read by the soft decoder from the candidate squares
    of ``hits`` (and, with ``search_again``, of a second search with looser settings):
    those whose reading is clear (:meth:`SoftReads.accepted`), whose id ``wanted`` (a mask
    over an id array) takes and that ``hits`` has not, one square each. Returns the hits,
    corners refined, and each one's log-likelihood ratio. Callers must corroborate them:
    a soft reading alone is a likelihood, not a certainty."""
    gray = to_gray(frame)
    quads = [hits.unread.reshape(-1, 4, 2)]
    if search_again:
        small = _shrunk(gray, min(gray.shape[1], SEARCH_WIDTH))
        _, _, rejected = _candidate_finder(*RESCUE_FINDER).detectMarkers(small)
        more = np.asarray(rejected, np.float64).reshape(-1, 4, 2)
        quads.append((more + 0.5) * (gray.shape[1] / small.shape[1]) - 0.5)
    quads = np.concatenate(quads)
    none = (MarkerHits(np.zeros(0, int), np.zeros((0, 4, 2))), np.zeros(0))
    if not len(quads):
        return none
    centres = quads.mean(axis=1)
    if len(hits):  # a square already read is not read again
        seen = hits.corners.reshape(-1, 4, 2)
        reach = 0.5 * np.linalg.norm(seen[:, 1] - seen[:, 0], axis=1)
        near = np.linalg.norm(centres[:, None] - seen.mean(axis=1)[None], axis=2)
        quads = quads[~(near < reach[None]).any(axis=1)]
    if not len(quads):
        return none
    reads = soft_identify(gray, quads)
    ok = reads.accepted() & np.isin(reads.ids, kit_marker_ids()) & ~np.isin(reads.ids, hits.ids)
    ok &= wanted(reads.ids)
    keep: list[int] = []
    for n in np.argsort(-reads.llr):  # clearest first: one id a square, one square an id
        if not ok[n]:
            continue
        c = reads.corners[n]
        side = np.linalg.norm(c[1] - c[0])
        if any(reads.ids[k] == reads.ids[n]
               or np.linalg.norm(reads.corners[k].mean(0) - c.mean(0)) < 0.5 * side
               for k in keep):
            continue
        keep.append(int(n))
    if not keep:
        return none
    corners = reads.corners[keep]
    return (MarkerHits(reads.ids[keep], _refine(gray, corners, _refine_window(corners))),
            reads.llr[keep])



def soft_ranking(modules: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The whole dictionary fitted to squares already resampled square-on: ``modules``
    (N, 81) are the mean brightness of each square's 9 x 9 modules (its 7 x 7 and one
    module of paper round them, row-major, the marker upright). Returns the residual sum
    of squares of the best hypothesis and of the best other code or turn (N, 2), the best
    hypothesis (N,; code ``mid`` turned ``k`` is ``4 * mid + k``) and each square's sum of
    squares about its mean (N,)."""
    m = _centred(modules)
    short = _shortlist(m)
    sse, _ = _soft_fit(m, short)
    order = np.argsort(sse, axis=1)
    rows = np.arange(len(m))
    ranked = np.stack([sse[rows, order[:, 0]], sse[rows, order[:, 1]]], axis=1)
    return ranked, short[rows, order[:, 0]], (m * m).sum(axis=1)


def soft_residuals(modules: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The residual sum of squares (N, len(columns)) of hypotheses ``columns`` fitted to
    each of the squares ``modules`` (as :func:`soft_ranking` takes them)."""
    m = _centred(modules)
    _, unit, _, _ = _soft_models()
    cols = np.asarray(columns, int)
    # The same hypotheses for every square: one matrix product.
    rho = _product(unit[cols].reshape(-1, m.shape[1]), m.T).reshape(len(cols), -1, len(m))
    rho = np.maximum(rho.max(axis=1).T, 0)  # (N, columns), best kernel
    total = (m * m).sum(axis=1)[:, None]
    return np.maximum(total - rho ** 2, 1e-6 * total + 1e-9)


def _centred(modules: np.ndarray) -> np.ndarray:
    m = np.asarray(modules, np.float32).reshape(len(modules), -1)
    return m - m.mean(axis=1, keepdims=True)
