"""Finding a tile whose markers are all touched or half covered (beans, peeps, a hand).

The marker detector needs a marker's whole black frame: a bean lying against it
joins the frame and the square is lost. Once the other tiles fix the table's
homography, though, an empty lattice position next to a found tile says where
a tile's six vertex markers would lie, give or take the few mm and degrees a
tile sits off its lattice position. Those six squares are the same for every
turn of the print (each marker's own "down" points at the tile's centre), so
each is resampled square-on, its black frame found by correlation within two
modules, and its 25 bits read where they show: a bit under a coloured piece, or
too grey to call, is left unknown. The six are then read together against the
codes of every tile not yet found, in all six turns. A tile is kept when its
codes match the bits shown with at most one error in twenty and no other tile
or turn comes within four errors of it; or, as a hand over part of every marker
costs more bits than that, when two squares match its codes outright, no other
tile or turn matches a single square, and no square that shows most of its
bits contradicts it. Its matching markers then join the ordinary fit as if the
detector had found them.

Where a lattice position lies is the caller's to say (``place``): it fits the
lattice to all the placed tiles (see ``vision.peepwar.lattice``), so a Neutral
tile turned a few degrees off the others does not turn the search with it.

Cheap when nothing is missing: an empty position is only searched when one of
its six squares shows black print on paper.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import cv2
import numpy as np

from companion.rules.peepwar.board import DIRECTIONS, Hex, tile_centre_mm
from vision.geometry import Pose2D
from vision.kit_layout import MARKER_BITS, MARKERS_PER_TILE, MAX_TILES, marker_bits, tile_slots
from vision.markers import (
    MIN_CONTRAST,
    SOFT_MIN_LLR,
    SOFT_MIN_R2,
    MarkerHits,
    colourfulness,
    soft_prepare,
    soft_ranking,
    soft_residuals,
    to_gray,
)

ToImage = Callable[[np.ndarray], np.ndarray]  # (N, 2) mm -> (N, 2) frame pixels
Place = Callable[[Hex], Pose2D]  # lattice position -> an upright tile's pose there (mm)

MODULE_PX = 4  # resampled pixels per marker module
MARGIN = 3  # modules of table round each square searched: tiles sit up to ~9 mm off
_SIDE = MARKER_BITS + 2  # modules across a marker, its black frame included
PATCH = (_SIDE + 2 * MARGIN) * MODULE_PX
PRINT_SHARE = 0.2  # of a square's modules paper, and as many black, to search a position
INK_LEVEL = 0.65  # darker than this share of the paper round it: print
CHROMA_TOLERANCE = 25.0  # colourfulness (max - min channel) off the paper's: not print
MAX_READS = 3  # positions read a frame, most printed squares first
MIN_BITS = 20  # bits shown, over all six squares, to name a tile
MAX_ERROR_RATE = 0.05
MIN_LEAD = 4  # bit errors between the best tile-and-turn and the next
MIN_SQUARE_BITS = 12  # bits shown for one square to count as matching its code
MIN_FRAME_DARK = 0.6  # of a located frame's modules dark: else no marker is there
# Errors on a square showing most of its bits that refute a tile: a wrong code has 12 of
# 25 wrong on average, a square the edge of a hand or a bean lies over a few.
CONTRADICTED = 6
SOFT_TILE_LLR = 2 * SOFT_MIN_LLR  # a tile read softly: its lead over every other tile and turn
SOFT_LONE_LLR = 20.0  # one square alone: its lead over every other code of the dictionary
SOFT_LONE_R2 = 0.75  # and the share of it its code's picture explains


def covered_tile_hits(
    frame: np.ndarray, to_image: ToImage, placed: list[Hex], found_ids: set[int],
    place: Place | None = None, soft_read: set[int] | None = None,
) -> MarkerHits:
    """Markers of tiles next to ``placed`` ones that the detector could not find.

    ``to_image`` maps table mm to frame pixels; ``place`` gives where an upright
    tile at a lattice position lies in table mm (by default the ideal lattice:
    tile (q, r) centred at ``tile_centre_mm((q, r))``); ``found_ids`` are the tile
    ids already seen, which are not looked for again. Returns hits as
    :func:`vision.markers.detect_markers` does; the ids of tiles named by the soft
    decoder (:func:`_soft_choice`) rather than by their bits are added to ``soft_read``.
    """
    place = place or _ideal_place
    empty = _empty_neighbours(placed)
    if not empty or len(found_ids) >= MAX_TILES:
        return MarkerHits(np.zeros(0, int), np.zeros((0, 4, 2)))
    ids: list[int] = []
    corners: list[np.ndarray] = []
    # Reading a position costs 1-3 ms: a frame reads the likeliest few, and a covered
    # tile left over is looked for again in the next frame.
    for hx in _printed(frame, to_image, placed, empty, place)[:MAX_READS]:
        found = _read_position(frame, to_image, place(hx), found_ids)
        if found is None:
            continue
        tile_id, hits, soft = found
        found_ids = found_ids | {tile_id}
        if soft and soft_read is not None:
            soft_read.add(tile_id)
        for mid, quad in hits:
            ids.append(mid)
            corners.append(quad)
    if not ids:
        return MarkerHits(np.zeros(0, int), np.zeros((0, 4, 2)))
    return MarkerHits(np.array(ids, int), np.array(corners))


def prepare() -> None:
    """Build the code and template tables now (a service's start), not on a frame."""
    _codes()
    soft_prepare()
    _frame_template()
    _patch_mm()
    _square_points()


def _ideal_place(hx: Hex) -> Pose2D:
    return Pose2D(*tile_centre_mm(hx), 0.0)


def _empty_neighbours(placed: list[Hex]) -> list[Hex]:
    taken = set(placed)
    out: list[Hex] = []
    for q, r in placed:
        for dq, dr in DIRECTIONS:
            hx = (q + dq, r + dr)
            if hx not in taken and hx not in out:
                out.append(hx)
    return out


@cache
def _square_points() -> np.ndarray:
    """(6 * 25, 2) points spread over the six vertex marker squares, in tile mm."""
    u = (np.arange(5) + 1.0) / 6
    x, y = np.meshgrid(u, u)
    unit = np.stack([x.ravel(), y.ravel()], axis=1)
    return np.concatenate([_unit_to_mm(s.corners_mm, unit) for s in tile_slots()[:6]])


def _samples(frame: np.ndarray, to_image: ToImage, hexes: list[Hex], place: Place
             ) -> tuple[np.ndarray, np.ndarray]:
    """Brightness (as cv2's BGR to gray; NaN outside the frame) and colourfulness (max -
    min channel) at the vertex squares' sample points: (len(hexes), 6, 25) each."""
    pts = _square_points()
    px = to_image(np.concatenate([place(hx).apply(pts) for hx in hexes]))
    h, w = frame.shape[:2]
    x = np.floor(px[:, 0] + 0.5).astype(np.intp)
    y = np.floor(px[:, 1] + 0.5).astype(np.intp)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    v = frame[np.where(inside, y, 0), np.where(inside, x, 0)]  # no copy of the frame
    if v.ndim == 1:
        gray = v.astype(np.float32)
    else:
        gray = v[:, :3].astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)
    chroma = colourfulness(v[:, None]).ravel().astype(np.float32)
    gray[~inside] = np.nan
    return gray.reshape(len(hexes), 6, -1), chroma.reshape(len(hexes), 6, -1)


def _printed(frame: np.ndarray, to_image: ToImage, placed: list[Hex], hexes: list[Hex],
             place: Place | None = None) -> list[Hex]:
    """The positions where a vertex-marker square shows black print on paper like the
    placed tiles' (a few mm or degrees off does not matter to these shares; a hand, a
    shadow's edge or the table's grain seldom has both), those with most such squares
    first."""
    gray, chroma = _samples(frame, to_image, placed + hexes, place or _ideal_place)
    ref, ref_chroma = gray[:len(placed)], chroma[:len(placed)]
    gray, chroma = gray[len(placed):], chroma[len(placed):]
    seen = ~np.isnan(ref)
    if not seen.any():
        return []
    bright, paper = np.percentile(ref[seen], [70, 80])
    paper_chroma = float(np.median(ref_chroma[seen & (ref >= bright)]))
    with np.errstate(invalid="ignore"):  # NaN outside the frame compares False
        seen = ~np.isnan(gray)
        n = np.maximum(seen.sum(axis=2), 1)
        white = (gray >= 0.5 * paper) & (np.abs(chroma - paper_chroma) < CHROMA_TOLERANCE)
        level = np.where(white, gray, 0).sum(axis=2) / np.maximum(white.sum(axis=2), 1)
        ink = (gray < INK_LEVEL * level[..., None]) & (chroma < paper_chroma + CHROMA_TOLERANCE)
    printed = ((seen.sum(axis=2) >= gray.shape[2] // 2) & (white.sum(axis=2) >= PRINT_SHARE * n)
               & (ink.sum(axis=2) >= PRINT_SHARE * n))
    squares = printed.sum(axis=1)
    order = np.argsort(-squares, kind="stable")
    return [hexes[i] for i in order if squares[i]]


@cache
def _codes() -> np.ndarray:
    """(MAX_TILES, 6, 25) data bits of every tile's six vertex markers (1 = white)."""
    return np.array([
        [marker_bits(t * MARKERS_PER_TILE + s)[1:-1, 1:-1].ravel() for s in range(6)]
        for t in range(MAX_TILES)
    ], np.int8)


@cache
def _frame_template() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A marker's black frame and one module of paper round it (zero-mean weights, with
    nothing on the data bits), and masks of the black frame and of the paper round it."""
    n = (_SIDE + 2) * MODULE_PX
    module = np.arange(n) // MODULE_PX
    mu, mv = np.meshgrid(module, module)
    edge = np.minimum(np.minimum(mu, mv), np.minimum(_SIDE + 1 - mu, _SIDE + 1 - mv))
    paper, black_frame = edge == 0, edge == 1
    t = np.zeros((n, n), np.float32)
    t[paper] = 1.0 / paper.sum()
    t[black_frame] = -1.0 / black_frame.sum()
    return t, black_frame, paper


@cache
def _patch_mm() -> np.ndarray:
    """Tile mm of the six squares' patch pixel centres, stacked (a tile at the origin)."""
    u = ((np.arange(PATCH) + 0.5) / MODULE_PX - MARGIN) / _SIDE  # 0..1 across the frame
    x, y = np.meshgrid(u, u)
    unit = np.stack([x.ravel(), y.ravel()], axis=1)
    return np.concatenate([_unit_to_mm(s.corners_mm, unit) for s in tile_slots()[:6]])


def _unit_to_mm(corners_mm: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Unit-square points to mm on a marker square (TL, TR, BR, BL corners)."""
    tl, tr, _, bl = corners_mm
    return tl + unit[:, :1] * (tr - tl) + unit[:, 1:] * (bl - tl)


def _read_position(
    frame: np.ndarray, to_image: ToImage, at: Pose2D, found_ids: set[int]
) -> tuple[int, list[tuple[int, np.ndarray]], bool] | None:
    """The tile lying upright at ``at`` (a lattice position) and its markers, if its codes
    say so clearly."""
    squares = [at.apply(s.corners_mm) for s in tile_slots()[:6]]
    px = to_image(at.apply(_patch_mm())).astype(np.float32).reshape(6 * PATCH, PATCH, 2)
    patches = cv2.remap(frame, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    gray, chroma = to_gray(patches), colourfulness(patches)
    h, w = frame.shape[:2]
    # Off the frame the patch is black, which is no bit: mark it as colourful as can be.
    off = (px[..., 0] < 0) | (px[..., 0] > w - 1) | (px[..., 1] < 0) | (px[..., 1] > h - 1)
    chroma[off] = 255
    bits = np.zeros((6, MARKER_BITS * MARKER_BITS), np.int8)
    shown = np.zeros((6, MARKER_BITS * MARKER_BITS), bool)
    warps = np.zeros((6, 2, 3), np.float32)
    grids = np.zeros((6, (_SIDE + 2) ** 2), np.float32)
    framed = np.zeros(6, bool)
    for i in range(6):
        rows = slice(i * PATCH, (i + 1) * PATCH)
        read = _read_square(gray[rows], chroma[rows])
        if read is not None:
            bits[i], shown[i], warps[i], grids[i] = read
            framed[i] = True
    codes = _codes()
    candidates = np.array([t for t in range(MAX_TILES) if t not in found_ids])
    if not len(candidates):
        return None
    choice = _hard_choice(bits, shown, candidates) if shown.sum() >= MIN_BITS else None
    if choice is None and framed.sum() < 2:
        return None
    if choice is not None:
        k, turn = choice
        tile_id = int(candidates[k])
        wrong = np.array([((codes[tile_id, (i - turn) % 6] != bits[i]) & shown[i]).sum()
                          for i in range(6)])
        use = (shown.sum(axis=1) >= MIN_SQUARE_BITS) & (wrong <= 1)
    else:
        soft = _soft_choice(grids, framed, candidates)
        if soft is None:
            return None
        k, turn, use = soft
        tile_id = int(candidates[k])
    hits = []
    for i in np.nonzero(use)[0]:
        slot = (i - int(turn)) % 6
        quad = to_image(_unit_to_mm(squares[i], _frame_corners(warps[i])))
        if ((quad < 0) | (quad > (w - 1, h - 1))).any():  # cut by the frame's edge
            continue
        hits.append((tile_id * MARKERS_PER_TILE + slot, quad))
    if not hits:
        return None
    return tile_id, hits, choice is None


def _hard_choice(bits: np.ndarray, shown: np.ndarray, candidates: np.ndarray
                 ) -> tuple[int, int] | None:
    """The candidate (index into ``candidates``) and turn whose codes the bits shown
    match clearly, or None."""
    codes = _codes()
    # Errors per (candidate tile, turn, square): the codes each hypothesis puts where.
    per_square = np.stack([
        ((codes[candidates][:, [(i - turn) % 6 for i in range(6)]] != bits) & shown).sum(2)
        for turn in range(6)
    ], axis=1)
    errors = per_square.sum(axis=2)
    # A square matches when enough of it shows and at most one bit disagrees.
    good = ((per_square <= 1) & (shown.sum(axis=1) >= MIN_SQUARE_BITS)).sum(axis=2)
    order = np.argsort(errors, axis=None)
    best, second = errors.flat[order[0]], errors.flat[order[1]]
    if best <= MAX_ERROR_RATE * shown.sum() and second - best >= MIN_LEAD:
        k, turn = np.unravel_index(order[0], errors.shape)
        return int(k), int(turn)
    else:
        # A hand or a peep over part of a square costs more bits than that: two squares
        # matching outright, where no other tile or turn matches one, say it as clearly,
        # unless a square showing most of its bits says otherwise.
        ranked = np.argsort(-good, axis=None)
        if good.flat[ranked[0]] < 2 or good.flat[ranked[1]] > 0:
            return None
        k, turn = np.unravel_index(ranked[0], errors.shape)
        # A square under a hand reads nearly all black; the kit's codes never do.
        ones = (bits & shown).sum(axis=1) / np.maximum(shown.sum(axis=1), 1)
        telling = (shown.sum(axis=1) >= 20) & (ones >= 0.2)
        if (per_square[k, turn][telling] > CONTRADICTED).any():
            return None
        return int(k), int(turn)


def _soft_choice(grids: np.ndarray, framed: np.ndarray, candidates: np.ndarray
                 ) -> tuple[int, int, np.ndarray] | None:
    """The candidate and turn that the squares' brightness supports by the soft decoder's
    blur model (:func:`vision.markers.soft_residuals`), and which squares read as its codes.

    Blur leaves too many bits grey to call. Each square with a frame is fitted by every
    candidate code; a tile and turn are taken when their summed log-likelihood beats every
    other tile and turn by SOFT_TILE_LLR, and when at least two squares, each on its own,
    are explained better by the tile's code than by any code of the whole dictionary in
    any turn, the model explaining SOFT_MIN_R2 of the square: two markers agreeing where
    the lattice puts a tile (or one square that names it as clearly as SOFT_LONE_LLR and
    SOFT_LONE_R2 ask); and no square reads clearly as another code."""
    idx = np.nonzero(framed)[0]
    ranked, best_hyp, total = soft_ranking(grids[idx])
    # A tile is only taken where a square reads as one of its vertex codes, upright, better
    # than as any other code: without such a square, nothing to fit (the common case, and
    # the cheap one).
    code, turned = np.divmod(best_hyp, 4)
    tile, slot = np.divmod(code, MARKERS_PER_TILE)
    if not ((turned == 0) & (slot < 6) & np.isin(tile, candidates)
            & (1 - ranked[:, 0] / total >= SOFT_MIN_R2)).any():
        return None
    cols = 4 * (candidates[:, None] * MARKERS_PER_TILE + np.arange(6)[None, :]).ravel()
    sse = soft_residuals(grids[idx], cols)
    best_any = np.minimum(ranked[:, 0], sse.min(axis=1))
    sse = sse.reshape(len(idx), len(candidates), 6)
    ll = -0.5 * grids.shape[1] * np.log(sse)
    score = np.zeros((len(candidates), 6))
    for j, i in enumerate(idx):
        for turn in range(6):
            score[:, turn] += ll[j, :, (i - turn) % 6]
    order = np.argsort(-score, axis=None)
    if score.flat[order[0]] - score.flat[order[1]] < SOFT_TILE_LLR:
        return None
    k, turn = np.unravel_index(order[0], score.shape)
    own = sse[np.arange(len(idx)), k, (idx - turn) % 6]
    clear = (own <= best_any * (1 + 1e-4)) & (1 - own / total >= SOFT_MIN_R2)
    # A square that reads clearly as some other code refutes the tile (a hand or a bean
    # over a square explains it badly by every code, and says nothing).
    refutes = ((0.5 * grids.shape[1] * np.log(own / best_any) >= SOFT_MIN_LLR)
               & (1 - best_any / total >= SOFT_MIN_R2))
    if refutes.any():
        return None
    if clear.sum() < 2:
        # One square alone names the tile only as clearly as a lone soft marker must
        # (its lead over every other code and turn of the dictionary, and its fit).
        own_col = 4 * (candidates[k] * MARKERS_PER_TILE + (idx - turn) % 6)
        lead = 0.5 * grids.shape[1] * np.log(ranked[:, 1] / own)  # where own is the best
        sole = (clear & (best_hyp == own_col) & (lead >= SOFT_LONE_LLR)
                & (1 - own / total >= SOFT_LONE_R2))
        if clear.sum() != 1 or not sole.any():
            return None
    use = np.zeros(6, bool)
    use[idx[clear]] = True
    return int(k), int(turn), use


def _frame_corners(warp: np.ndarray) -> np.ndarray:
    """The black frame's outer corners (TL, TR, BR, BL), in the marker's unit square, of
    a frame the template found through ``warp``."""
    m = MODULE_PX
    corners = np.array([[m, m], [m + _SIDE * m, m], [m + _SIDE * m, m + _SIDE * m],
                        [m, m + _SIDE * m]], float) - 0.5
    patch = corners @ warp[:, :2].T + warp[:, 2]
    return ((patch + 0.5) / m - MARGIN) / _SIDE


def _read_square(
    gray: np.ndarray, chroma: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Bits (1 = white), which bits show, where the frame lies (a 2x3 map from the
    template's pixels to the patch's) and the mean brightness of its 9 x 9 modules (the
    marker and a module of paper round it) in one resampled square (brightness and
    colourfulness), or None when no marker frame is there."""
    g = gray.astype(np.float32)
    template, _, paper = _frame_template()
    n = template.shape[0]
    score = cv2.matchTemplate(g, template, cv2.TM_CCORR)
    _, _, _, (dx, dy) = cv2.minMaxLoc(score)
    start = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    if _modules(g[dy:dy + n, dx:dx + n]) is None:  # no frame there: not worth fitting
        return None
    paper_chroma = float(np.median(chroma[dy:dy + n, dx:dx + n][paper]))
    clear = ((chroma.astype(np.float32) - paper_chroma) < CHROMA_TOLERANCE).astype(np.uint8)
    warp = _aligned(g, clear, start)
    inverse = cv2.WARP_INVERSE_MAP
    win = cv2.warpAffine(g, warp, (n, n), flags=cv2.INTER_LINEAR | inverse)
    read = _modules(win)
    if read is None:
        return None
    data, thr, contrast = read
    win_clear = cv2.warpAffine(clear, warp, (n, n), flags=cv2.INTER_NEAREST | inverse)
    clear_bits = _module_means(win_clear.astype(np.float32))[1:-1, 1:-1].ravel() > 0.99
    shown = (np.abs(data - thr) > 0.15 * contrast) & clear_bits
    m = MODULE_PX
    core = slice(m // 4, m - m // 4)
    grid = win.reshape(_SIDE + 2, m, _SIDE + 2, m)[:, core, :, core].mean(axis=(1, 3))
    return (data > thr).astype(np.int8), shown, warp, grid.ravel()


def _module_means(win: np.ndarray) -> np.ndarray:
    """(7, 7) means over the middle half of each of a template-aligned window's modules."""
    m = MODULE_PX
    core = slice(m // 4, m - m // 4)
    return win[m:-m, m:-m].reshape(_SIDE, m, _SIDE, m)[:, core, :, core].mean(axis=(1, 3))


def _modules(win: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """The data modules' brightness, the black/white threshold and the contrast of a
    template-aligned window, or None if it shows no marker frame."""
    _, black_frame, paper = _frame_template()
    black = float(np.median(win[black_frame]))
    white = float(np.median(win[paper]))
    if white - black < MIN_CONTRAST:
        return None
    thr = (black + white) / 2
    grid = _module_means(win)
    frame_modules = np.concatenate([grid[0], grid[-1], grid[1:-1, 0], grid[1:-1, -1]])
    if np.mean(frame_modules < thr) < MIN_FRAME_DARK:
        return None
    return grid[1:-1, 1:-1].ravel(), thr, white - black


def _aligned(gray: np.ndarray, clear: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The frame's template fitted to the patch, turned and shifted (ECC on its black frame
    and paper paper, beside pieces only); ``start`` when the fit fails or wanders off."""
    _, black_frame, paper = _frame_template()
    ideal = np.where(paper, 255.0, 0.0).astype(np.float32)
    try:
        _, warp = cv2.findTransformECCWithMask(
            ideal, gray, (black_frame | paper).astype(np.uint8), clear, start.copy(),
            cv2.MOTION_EUCLIDEAN,
            (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 15, 1e-3), 1)
    except cv2.error:
        return start
    moved = np.hypot(*(warp[:, 2] - start[:, 2]))
    turned = abs(np.degrees(np.arctan2(warp[1, 0], warp[0, 0])))
    return warp if moved < MODULE_PX and turned < 12.0 else start
