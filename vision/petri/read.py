"""Reading a Petri board from one frame: where the board is, then what each hole holds.

The board is found by the printed sheet's markers (:func:`find_printed`) or, on a
commercial board, by fitting the star's lattice to holes and pieces
(:mod:`vision.petri.lattice_fit`). Either way the result is a homography from
lattice coordinates (q, r) to frame pixels; the frame is then warped to a small
top-down picture with RECT_PITCH pixels between holes, where every hole is the
same patch:

- a piece: most of the patch's middle is one player's colour (the profile);
- empty: the patch looks like the frame's own empty holes (their median patch,
  normalised cross-correlation), which fits dark drilled holes and printed rings;
- otherwise hidden (a hand, or something of no player's colour): reported as
  occluded, never guessed. A hole partly of a player's colour is reported with
  a low confidence and a warning.

These rules' measures of every hole, and its neighbours', are then weighed together by
the hole model (:mod:`vision.petri.hole_model`), whose reading is taken; where the
rules were sure of another, theirs stands, doubtfully.

A commercial board looks the same from six sides. Which tip is home k comes from
the game's own board when the reader is given it, the players' homes and where
their pieces are, or the turn accepted in an earlier frame
(:mod:`vision.petri.turn`); when none of them tells, every piece is reported
doubtful and a warning says why.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.geometry import apply_h
from vision.markers import detect_markers
from vision.petri import hole_model
from vision.petri.colours import PieceColours, colour_table, pixel_features, player_map
from vision.petri.hole_model import NEIGHBOURS, HoleMeasures, evidence, judge
from vision.petri.holes import HOLE_NAMES, HOLE_QR, lattice_to_mm, rotate
from vision.petri.lattice_fit import DETECT_WIDTH, candidate_points, fit_lattice
from vision.petri.print_board import board_layout
from vision.petri.turn import DOUBT_CONFIDENCE, Turn, board_homography, decide
from vision.srgb import SRGB_TO_LINEAR

RECT_PITCH = 20  # px between holes in the top-down picture
PIECE_SHARE = 0.3  # share of a hole's middle in one player's colour: a piece
DOUBT_SHARE = 0.15  # ... at least this much: a doubtful piece (low confidence, warning)
EMPTY_NCC = 0.5  # correlation with the frame's empty holes above which a hole is empty
EMPTY_GROUP = 20  # the group of holes the frame's empty-hole colour starts from, less one
LOOKS_EMPTY = 3.0  # distance from the frame's empty holes' colour within which a hole is like them
EMPTY_DOUBT = 0.4  # top confidence of a hole whose colour is a player's and also an empty hole's
PLACEMENT_LEAD = 3  # holes more on the star than at the next placement for the names to be sure
_LOOK_WEIGHT = np.array([1.0, 1.0, 0.5])  # lightness counts half: a lamp's falloff, a dish's shade
_LOOK_FLOOR = np.array([0.03, 0.03, 0.06])  # least spread of the empty holes' colour


@dataclass
class BoardView:
    """The board found in a frame: lattice (q, r) -> frame pixels."""

    homography: np.ndarray
    kind: str  # "print" or "plain"
    turn_known: bool
    warnings: list[str] = field(default_factory=list)
    turn_from: str = "print"  # how the turn was told (vision.petri.turn)


@dataclass
class Reading:
    data: dict[str, Any]
    view: BoardView | None
    states: dict[str, str] = field(default_factory=dict)  # hole -> player / "" / "?"
    measures: HoleMeasures | None = None  # in the fitted lattice's order, before the turn


def _rect_matrix() -> tuple[np.ndarray, tuple[int, int]]:
    """Lattice (q, r) -> top-down picture pixels, and the picture's size."""
    s = RECT_PITCH
    w, h = 2 * round(7.93 * s), 2 * round(7.0 * s)
    m = lattice_to_mm(s)
    m[0, 2], m[1, 2] = w / 2, h / 2
    return m, (w, h)


def _disc_offsets(radius: float) -> np.ndarray:
    r = int(math.ceil(radius))
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    keep = xs**2 + ys**2 <= radius * radius
    return np.stack([xs[keep], ys[keep]], axis=1)


_RECT, _RECT_SIZE = _rect_matrix()
_CENTRES = np.round(apply_h(_RECT, HOLE_QR)).astype(int)  # (121, 2) in the picture
_CORE = _disc_offsets(0.18 * RECT_PITCH)  # a peg's head, a marble's middle
_RIM = _disc_offsets(0.46 * RECT_PITCH)
_RIM = _RIM[np.hypot(_RIM[:, 0], _RIM[:, 1]) >= 0.3 * RECT_PITCH]  # round a hole, not on it
FOREIGN_SHARE = 0.2  # share of the ring round a hole that is neither board nor piece: a hand
_HALF = round(0.4 * RECT_PITCH)  # the patch compared with empty holes: a disc this wide
_AX = np.arange(-_HALF, _HALF + 1)
_IN_DISC = (_AX[:, None] ** 2 + _AX[None, :] ** 2 <= _HALF**2).ravel()


def find_printed(frame: np.ndarray) -> tuple[np.ndarray | None, int]:
    """Lattice -> frame homography from the printed sheet's markers, and markers seen."""
    hits = detect_markers(frame)
    layout = board_layout()
    src, dst = [], []
    for mid, corners in zip(hits.ids, hits.corners, strict=True):
        if int(mid) in layout.markers:
            src.append(layout.markers[int(mid)])
            dst.append(corners)
    if len(src) < 2:
        return None, len(src)
    h_mm, _ = cv2.findHomography(np.vstack(src), np.vstack(dst), cv2.RANSAC, 4.0)
    if h_mm is None:
        return None, len(src)
    cx, cy = layout.centre_mm
    centre = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]], float)
    hq = h_mm @ centre @ lattice_to_mm(layout.pitch_mm)
    return hq / hq[2, 2], len(src)


def find_plain(frame: np.ndarray, table: np.ndarray | None, seed: int = 0
               ) -> tuple[np.ndarray | None, list[str], bool]:
    """Lattice -> frame homography of a board without markers (up to a turn), warnings,
    and whether where the holes lie on the star is in doubt."""
    h, w = frame.shape[:2]
    f = max(1.0, w / DETECT_WIDTH)
    small = cv2.resize(frame, (round(w / f), round(h / f)), interpolation=cv2.INTER_AREA) \
        if f > 1 else frame
    players = player_map(small, table) if table is not None else None
    pts = candidate_points(small, players)
    fit = fit_lattice(pts, np.random.default_rng(seed))
    if fit is None:
        return None, [], False
    warnings = []
    # A lead of a point or two over the next placement is a stray blob's worth: a hand over
    # the board's edge or a lens's bend leaves that much, and the names would then be off by
    # a hole.
    placed_in_doubt = fit.shift_margin < PLACEMENT_LEAD
    if placed_in_doubt:
        warnings.append("where the holes lie on the star is uncertain (too little of the "
                        "board's outline is in view): every hole is read doubtfully")
    scale = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
    hq = scale @ fit.homography
    return hq / hq[2, 2], warnings, placed_in_doubt


def _paper_gains(rect: np.ndarray) -> np.ndarray | None:
    """Per-channel gains making the printed sheet's paper white, from points between holes."""
    tri = apply_h(_RECT, HOLE_QR + [1 / 3, 1 / 3])
    xy = np.round(tri).astype(int)
    h, w = rect.shape[:2]
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    px = rect[xy[ok, 1], xy[ok, 0]].astype(np.float32)
    if len(px) < 10:
        return None
    bright = px[px.sum(axis=1) >= np.percentile(px.sum(axis=1), 50)]
    white = SRGB_TO_LINEAR[np.clip(np.median(bright, axis=0), 1, 255).astype(np.uint8)]
    return 1.0 / np.maximum(white, 1e-3)


def _in_view(hq: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Holes whose piece-sized disc lies inside the frame."""
    h, w = shape[:2]
    c = apply_h(hq, HOLE_QR)
    edge = apply_h(hq, HOLE_QR + [0.35, 0])
    r = np.linalg.norm(edge - c, axis=1)
    return (c[:, 0] - r >= 0) & (c[:, 1] - r >= 0) & (c[:, 0] + r < w) & (c[:, 1] + r < h)


def _surface(rect: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The board's own surface colour (mean and inverse covariance of the features) from the
    points between holes: a pixel nearer to it than to a player is not a piece."""
    pts = np.concatenate([apply_h(_RECT, HOLE_QR + [1 / 3, 1 / 3]),
                          apply_h(_RECT, HOLE_QR + [2 / 3, -1 / 3])])
    xy = np.round(pts).astype(int)
    h, w = rect.shape[:2]
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    if ok.sum() < 20:
        return None
    f = pixel_features(rect[xy[ok, 1], xy[ok, 0]], gains)
    med = np.median(f, axis=0)
    dev = np.abs(f - med)
    core = f[(dev <= 2.5 * np.median(dev, axis=0) + 1e-3).all(axis=1)]  # no hands, no pieces
    if len(core) < 10:
        return None
    # Chromaticity only: the rim of a hole and a piece's shadow are darker board, not a piece.
    cov = np.cov(core[:, :2], rowvar=False) + np.diag([0.03, 0.03]) ** 2
    return core[:, :2].mean(axis=0), np.linalg.inv(cov)


def _foreign(blurred: np.ndarray, colours: PieceColours, gains: np.ndarray,
             surface: tuple[np.ndarray, np.ndarray] | None, table: np.ndarray | None
             ) -> np.ndarray:
    """Per hole: the share of the ring round it that is neither the board's surface nor a
    player's colour (a hand, a sleeve). A hand over a peg leaves no peg to see, but its
    edge shows round the hole."""
    if surface is None:
        return np.zeros(len(HOLE_NAMES))
    pts = _CENTRES[:, None, :] + _RIM[None, :, :]
    px = blurred[pts[..., 1], pts[..., 0]]
    feats = pixel_features(px.reshape(-1, 3), gains)
    d = feats[:, :2] - surface[0]
    ds = np.sqrt(np.maximum(((d @ surface[1]) * d).sum(axis=1), 0))
    if table is not None:
        best = player_map(px, table).reshape(-1)
    else:
        best = colours.nearest(feats)[0] if colours.players else np.full(len(feats), -1)
    # Dark pixels (a hole, a shadow) have no reliable colour: never foreign.
    lit = feats[:, 2] > 0.45
    foreign = (ds > 5.0) & (best < 0) & lit
    return foreign.reshape(px.shape[:2]).mean(axis=1)


def _core(blurred: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each hole's middle: its pixels (121, M, 3) and their features (121 * M, 3)."""
    pts = _CENTRES[:, None, :] + _CORE[None, :, :]
    px = blurred[pts[..., 1], pts[..., 0]]
    return px, pixel_features(px.reshape(-1, 3), gains)


def _classify(px: np.ndarray, feats: np.ndarray, colours: PieceColours,
              table: np.ndarray | None, surface: tuple[np.ndarray, np.ndarray] | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per hole: best player index, its share of the hole's middle, the runner-up's share,
    and every player's share (121, players).

    A pixel counts for a player when it is within reach of the player's model and nearer
    to it than to the board's surface (a wooden board can be as orange as a marble's
    shaded side)."""
    n_p = len(colours.players)
    shares = np.zeros((len(HOLE_NAMES), max(n_p, 1)))
    if n_p:
        if table is not None:  # the reader's table is for exactly these gains
            best = player_map(px, table).reshape(-1).astype(int)
        else:
            best, _ = colours.nearest(feats)
        if surface is not None:
            d = feats[:, :2] - surface[0]
            ds = np.sqrt(np.maximum(((d @ surface[1]) * d).sum(axis=1), 0))
            safe = np.maximum(best, 0)
            dp = feats[:, :2] - colours.means[safe, :2]
            inv2 = np.linalg.inv(np.linalg.inv(colours.invs)[:, :2, :2])[safe]
            dpc = np.sqrt(np.maximum(np.einsum("ni,nij,nj->n", dp, inv2, dp), 0))
            best = np.where(dpc < ds, best, -1)
        best = best.reshape(px.shape[:2])
        for k in range(n_p):
            shares[:, k] = (best == k).mean(axis=1)
    order = np.argsort(-shares, axis=1)
    top = shares[np.arange(len(shares)), order[:, 0]]
    second = shares[np.arange(len(shares)), order[:, 1]] if n_p > 1 else np.zeros(len(shares))
    return order[:, 0], top, second, shares


def _hole_colours(feats: np.ndarray) -> np.ndarray:
    """(121, 3) the median features of each hole's middle (``feats`` from :func:`_core`)."""
    return np.median(feats.reshape(len(HOLE_NAMES), -1, 3), axis=1)


def _empty_look(cols: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The colour of this frame's empty holes (mean, inverse covariance of the features).

    A player has at most 15 pieces, so the tightest group of EMPTY_GROUP + 1 holes'
    colours is the board's own empty holes (a dish, a drilled hole, a printed ring); the
    group is then widened to every hole within LOOKS_EMPTY of it and refitted. None when
    fewer than three times EMPTY_GROUP holes are seen (a board mostly out of view or under
    a hand): there the tightest group may be one player's pieces and a few empty holes."""
    idx = np.nonzero(ok)[0]
    k = EMPTY_GROUP
    if len(idx) < 3 * k:  # the empty holes might not outnumber one player's pieces enough
        return None
    x = cols[idx]
    d = np.linalg.norm((x[:, None] - x[None]) * _LOOK_WEIGHT, axis=2)
    members = np.argsort(d[np.argmin(np.sort(d, axis=1)[:, k])])[:k + 1]
    mean, inv = x.mean(axis=0), np.eye(3)
    for _ in range(3):
        mean = x[members].mean(axis=0)
        inv = np.linalg.inv(np.cov(x[members], rowvar=False) + np.diag(_LOOK_FLOOR**2))
        dm = _mahalanobis(x, mean, inv)
        if (dm < LOOKS_EMPTY).sum() < k // 2:
            break
        members = np.nonzero(dm < LOOKS_EMPTY)[0]
    return mean, inv


_AROUND = np.array([[1, 1], [2, -1], [1, -2], [-1, -1], [-2, 1], [-1, 2]], float) / 3


def _surroundings(blurred: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """(121, 2) the median chromaticity of the board's surface round each hole: the six
    points midway between it and its neighbours' pairs, outside any piece's disc."""
    pts = np.round(apply_h(_RECT, (HOLE_QR[:, None, :] + _AROUND[None]).reshape(-1, 2)))
    h, w = blurred.shape[:2]
    xs = np.clip(pts[:, 0].astype(int), 0, w - 1)
    ys = np.clip(pts[:, 1].astype(int), 0, h - 1)
    f = pixel_features(blurred[ys, xs], gains)[:, :2].reshape(len(HOLE_QR), len(_AROUND), 2)
    return np.median(f, axis=1)


def _mahalanobis(x: np.ndarray, mean: np.ndarray, inv: np.ndarray) -> np.ndarray:
    d = x - mean
    return np.sqrt(np.maximum(np.einsum("ni,ij,nj->n", d, inv, d), 0))


def _detrender(half: int) -> np.ndarray:
    """The matrix removing a patch's mean and linear slope (a shadow's edge, the lamp's
    falloff), so that only the hole's own pattern is compared."""
    ax = np.arange(-half, half + 1, dtype=float)
    ys, xs = np.meshgrid(ax, ax, indexing="ij")
    a = np.stack([np.ones(xs.size), xs.ravel(), ys.ravel()], axis=1)[_IN_DISC]
    return (np.eye(len(a)) - a @ np.linalg.pinv(a)).astype(np.float32)


_DETREND = _detrender(_HALF)


def _patches(rect: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    ax = np.arange(-_HALF, _HALF + 1)
    ys = _CENTRES[:, 1, None, None] + ax[None, :, None]
    xs = _CENTRES[:, 0, None, None] + ax[None, None, :]
    p = gray[ys, xs].reshape(len(_CENTRES), -1)[:, _IN_DISC] @ _DETREND
    return p / np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-6)


def _contrast(rect: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    ax = np.arange(-_HALF, _HALF + 1)
    ys = _CENTRES[:, 1, None, None] + ax[None, :, None]
    xs = _CENTRES[:, 0, None, None] + ax[None, None, :]
    return gray[ys, xs].reshape(len(_CENTRES), -1)[:, _IN_DISC].std(axis=1)


def read_board(frame: np.ndarray, print_colours: PieceColours, card_white: np.ndarray | None,
               homes: Mapping[str, int], table: np.ndarray | None,
               plain_colours: PieceColours | None = None,
               game_board: Mapping[str, str] | None = None,
               carried: np.ndarray | None = None, by_rules_only: bool = False) -> Reading:
    """The observation JSON of one frame (table standard, section 7); ``print_colours``
    read the printed sheet (paper white), ``plain_colours`` a board with no white.
    ``game_board`` (the game's pieces) and ``carried`` (home 0's tip direction accepted
    before) say which way round a commercial board lies (:mod:`vision.petri.turn`).
    ``by_rules_only`` leaves out the hole model (:mod:`vision.petri.hole_model`): its
    training reads the rules' measures, with no model or an older one."""
    t0 = time.perf_counter()
    warnings: list[str] = []
    data: dict[str, Any] = {"game": "petri", "holes": {}, "warnings": warnings}
    # A board not seen says nothing of its holes: each is reported occluded, as the holes
    # of a board partly out of view are. Left out, a hole would read empty (section 7),
    # and every piece on the board would be read gone, surely.
    unseen = {name: {"occluded": True} for name in HOLE_NAMES}
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or min(frame.shape[:2]) < 64:
        warnings.append("not a colour camera frame: the board cannot be read")
        data["holes"] = unseen
        data["timings_ms"] = {"total": 0.0}
        return Reading(data, None)
    hq, seen = find_printed(frame)
    kind = "print"
    placed_in_doubt = False
    if hq is None:
        kind = "plain"
        if seen == 1:
            warnings.append("only one of the printed board's markers is in view")
        hq, more, placed_in_doubt = find_plain(frame, table)
        warnings += more
    t1 = time.perf_counter()
    if hq is None:
        warnings.append("no Petri board found: put the whole board in view, lit and in focus")
        data["holes"] = unseen
        data["timings_ms"] = {"board": round((t1 - t0) * 1000, 2),
                              "total": round((t1 - t0) * 1000, 2)}
        return Reading(data, None)
    colours = print_colours if kind == "print" else (plain_colours or print_colours)
    rect = cv2.warpPerspective(frame, hq @ np.linalg.inv(_RECT), _RECT_SIZE,
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    gains = _paper_gains(rect) if kind == "print" else None
    if gains is None:
        if card_white is not None:
            gains = 1.0 / np.maximum(card_white, 1e-3)
        else:
            gains = np.ones(3)
            warnings.append("the profile has no card white (calibrate again): colours are read "
                            "without white balance")
    view = _in_view(hq, frame.shape)
    # Averaged over 3 x 3 pixels: a dark hole's noise (raised by a warm lamp's blue gain)
    # would otherwise lend single pixels any colour.
    blurred = cv2.blur(rect, (3, 3))
    surface = _surface(rect, gains)
    table = None if kind == "print" else table  # the table is for the card's white
    core_px, core_feats = _core(blurred, gains)
    best, top, second, shares = _classify(core_px, core_feats, colours, table, surface)
    foreign = _foreign(blurred, colours, gains, surface, table)
    states = ["?"] * len(HOLE_NAMES)
    conf = np.zeros(len(HOLE_NAMES))
    piece = view & (top >= PIECE_SHARE)
    for i in np.nonzero(piece)[0]:
        states[i] = colours.players[best[i]]
        conf[i] = float(np.clip((top[i] - second[i]) / 0.5, 0.0, 1.0))
    patches = _patches(rect)
    contrast = _contrast(rect)
    # The frame's empty holes: those with least of any player's colour (a dark hole's
    # noisy pixels lend it a little of some colour), at least a quarter of the holes seen.
    plain = view & (top <= max(0.1, float(np.percentile(top[view], 25)) if view.any() else 0))
    ncc = np.zeros(len(HOLE_NAMES))
    usual_contrast = float(np.median(contrast[plain])) if plain.any() else 1.0
    if plain.sum() >= 5:
        template = np.median(patches[plain], axis=0)
        template /= max(float(np.linalg.norm(template)), 1e-6)
        ncc = patches @ template
        floor = 0.25 * usual_contrast
        empty = (view & ~piece & (ncc >= EMPTY_NCC) & (contrast >= floor)
                 & (foreign < FOREIGN_SHARE))
        for i in np.nonzero(empty)[0]:
            states[i] = ""
            conf[i] = float(np.clip((ncc[i] - 0.3) / 0.4, 0.0, 1.0))
    # A hole of a player's colour that is also the colour of this frame's empty holes
    # (varnished wood under a warm lamp, a home's coloured plastic) is no confident piece:
    # empty (doubtfully) when its pattern is an empty hole's, else the piece, doubtfully.
    cols = _hole_colours(core_feats)
    look = _empty_look(cols, view & (foreign < FOREIGN_SHARE))
    like_empty: set[int] = set()
    # How far each hole's colour lies from the board's surface round it.
    like_surface = (_mahalanobis(cols[:, :2] - _surroundings(blurred, gains), np.zeros(2),
                                 surface[1]) if surface is not None else None)
    if look is not None and plain.sum() >= 5:
        like = _mahalanobis(cols, *look) < LOOKS_EMPTY
        if like_surface is not None:
            like |= like_surface < LOOKS_EMPTY
        like &= view & (top >= DOUBT_SHARE)
        for i in np.nonzero(like)[0]:
            if ncc[i] >= EMPTY_NCC and contrast[i] >= floor and foreign[i] < FOREIGN_SHARE:
                states[i] = ""
                conf[i] = min(float(np.clip((ncc[i] - 0.3) / 0.4, 0.0, 1.0)), EMPTY_DOUBT)
            else:
                conf[i] = min(conf[i], EMPTY_DOUBT)
                like_empty.add(i)  # still the player's, doubtfully: named in a warning
    measures = HoleMeasures(
        shares=shares, colour=cols, player_means=colours.means, player_invs=colours.invs,
        empty_look=look, ncc=ncc,
        contrast=contrast / max(usual_contrast, 1e-6),
        foreign=foreign,
        like_surface=like_surface,
        view=view, state=list(states), confidence=conf.copy(),
        doubted_as_empty=np.isin(np.arange(len(HOLE_NAMES)), list(like_empty)),
        printed=kind == "print", placed_in_doubt=placed_in_doubt, homography=hq)
    if colours.players and not by_rules_only:
        states, conf = judge(hole_model.load().chances(evidence(measures)), measures,
                             colours.players)
    t2 = time.perf_counter()

    turn_known = kind == "print"
    decided = Turn(0, "print")
    if not turn_known:
        decided = decide(hq, states, homes, game_board, carried)
        turn_known = decided.how in ("game", "homes", "carried")
        if decided.note:
            warnings.append(decided.note)
    turn = decided.turn
    # Board names: the fitted (q, r) turned ``turn`` times; the homography follows.
    names = [f"{a},{b}" for a, b in (rotate(int(q), int(r), turn) for q, r in HOLE_QR)]
    hq_board = board_homography(hq, turn)
    cap = DOUBT_CONFIDENCE if decided.how == "doubt" else 1.0
    # Holes placed on the star one step off would each carry a neighbour's name: every
    # reading, empty holes too, is only as sure as the placement.
    placement_cap = DOUBT_CONFIDENCE if placed_in_doubt else 1.0
    cap = min(cap, placement_cap)

    holes: dict[str, Any] = {}
    hidden, strangers, doubtful = [], [], []
    for i, name in enumerate(names):
        s = states[i]
        if not view[i] or s == "?":
            holes[name] = {"occluded": True}
            if view[i]:
                hidden.append(i)
            continue
        c = round(float(min(conf[i], cap if s else placement_cap)), 2)
        if s:
            holes[name] = {"player": s, "confidence": c}
        elif c < 0.5:
            holes[name] = {"confidence": c}  # empty, doubtfully
        # Doubtful by its own reading; holes doubted only with the turn or the placement
        # are named by the warning that says why.
        if conf[i] < 0.5:
            doubtful.append(name)
    out = int((~view).sum())
    if out:
        warnings.append(f"{out} of the 121 holes are out of view")
    # A hidden hole whose neighbours are all seen holds something of no player's colour.
    hidden_set = set(hidden)
    for i in hidden:
        nb = [int(j) for j in NEIGHBOURS[i] if j >= 0]
        if nb and not any(j in hidden_set for j in nb):
            strangers.append(names[i])
    if strangers:
        warnings.append(f"hole{'s' if len(strangers) > 1 else ''} {', '.join(strangers)} "
                        "hold something of no player's colour (reported occluded)")
    if doubtful:
        warnings.append(f"doubtful reading of {', '.join(doubtful[:8])}"
                        f"{' and more' if len(doubtful) > 8 else ''}: check these holes")
    t3 = time.perf_counter()
    data["holes"] = holes
    data["board"] = {"kind": kind, "holes_in_view": int(view.sum()),
                     "hidden": len(hidden), "turn_known": turn_known, "turn_from": decided.how}
    data["timings_ms"] = {"board": round((t1 - t0) * 1000, 2),
                          "holes": round((t2 - t1) * 1000, 2),
                          "total": round((t3 - t0) * 1000, 2)}
    board_states = {names[i]: states[i] for i in range(len(names))}
    return Reading(data, BoardView(hq_board, kind, turn_known, list(warnings), decided.how),
                   board_states, measures)


def prepare_table(colours: PieceColours, card_white: np.ndarray | None) -> np.ndarray | None:
    """The colour lookup table used to find pieces on a board without markers."""
    if not colours.players:
        return None
    gains = 1.0 / np.maximum(card_white, 1e-3) if card_white is not None else np.ones(3)
    return colour_table(colours, gains)
