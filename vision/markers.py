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

from dataclasses import dataclass
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

    def __len__(self) -> int:
        return len(self.ids)

    def with_new(self, other: MarkerHits) -> MarkerHits:
        """These hits and those of ``other`` whose ids are not among them."""
        new = ~np.isin(other.ids, self.ids)
        return MarkerHits(np.concatenate([self.ids, other.ids[new]]),
                          np.concatenate([self.corners.reshape(-1, 4, 2),
                                          other.corners[new].reshape(-1, 4, 2)]))


@cache
def _candidate_finder(min_perimeter_rate: float) -> cv2.aruco.ArucoDetector:
    """OpenCV's square finder with one threshold window; scale passes cover marker sizes."""
    base = dictionary()
    decoy = cv2.aruco.Dictionary(base.bytesList[_DECOY_ID:_DECOY_ID + 1].copy(), MARKER_BITS, 0)
    p = cv2.aruco.DetectorParameters()
    p.adaptiveThreshWinSizeMin = THRESHOLD_WINDOW
    p.adaptiveThreshWinSizeMax = THRESHOLD_WINDOW
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
def _sample_offsets() -> np.ndarray:
    """Canonical (u, v) sample points: a small patch in the middle of every module, row-major."""
    cells = np.arange(_GRID) + 0.5
    du, dv = np.meshgrid(_SUB, _SUB)
    pts = []
    for j in cells:
        for i in cells:
            pts.append(np.stack([i + du.ravel(), j + dv.ravel()], axis=1))
    return np.concatenate(pts) / _GRID  # (49 * samples, 2) in the unit square


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
    if len(quads) == 0:
        return np.zeros(0, int), np.zeros((0, 4, 2))
    quads = np.asarray(quads, np.float64)
    # Make every quad clockwise on screen (y down), as the printed corner order is.
    d1 = quads[:, 1] - quads[:, 0]
    d2 = quads[:, 2] - quads[:, 0]
    ccw = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] < 0
    quads[ccw] = quads[ccw][:, ::-1]

    hs = _homographies(quads)
    uv = _sample_offsets()
    hom = np.concatenate([uv, np.ones((len(uv), 1))], axis=1)
    img = np.matmul(hom[None, :, :], hs.transpose(0, 2, 1))
    xy = (img[:, :, :2] / img[:, :, 2:3]).astype(np.float32)
    samples = cv2.remap(gray, xy[:, :, 0], xy[:, :, 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    modules = samples.reshape(len(quads), _GRID * _GRID, len(_SUB) ** 2).mean(axis=2)
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
        return np.zeros(0, int), np.zeros((0, 4, 2))
    order = (np.arange(4)[None, :] + np.array(turns)[:, None]) % 4
    return np.array(ids, int), quads[np.array(rows)[:, None], order]


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
    return cv2.resize(gray, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)


def _search(
    gray: np.ndarray, small: np.ndarray, min_perimeter_rate: float
) -> tuple[np.ndarray, np.ndarray]:
    """Markers found in ``small`` (``gray`` shrunk), in ``gray``'s pixels."""
    h, w = gray.shape
    _, _, rejected = _candidate_finder(min_perimeter_rate).detectMarkers(small)
    quads = np.asarray(rejected, np.float64).reshape(-1, 4, 2)
    ids, corners = identify(small, quads)
    if len(ids) and small is not gray:
        corners = (corners + 0.5) * (w / small.shape[1], h / small.shape[0]) - 0.5
    return ids, corners


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
    ids_a, corners_a = _search(gray, fine, 0.025)
    # The coarse pass is for markers the fine threshold window hollows out: big ones only.
    # Halving the fine image (averaging whole pixel pairs, for even sizes) costs a fifth of
    # shrinking gray again.
    ids_b, corners_b = _search(gray, _shrunk(fine, fine.shape[1] // 2), 0.08)
    found = MarkerHits(ids_a, corners_a).with_new(MarkerHits(ids_b, corners_b))
    ids, corners = found.ids, found.corners
    if len(ids) == 0:
        return MarkerHits(np.zeros(0, int), np.zeros((0, 4, 2)))
    # Refinement window: about a third of a module, at least 2 px.
    side = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1)
    win = int(np.clip(np.median(side) / _GRID / 3, 2, 6))
    return MarkerHits(ids, _refine(gray, corners, win))
