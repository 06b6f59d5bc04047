"""Which mosaic pixels are pieces, and whose: white balance, foreground, colour classes.

The tile paper is the white reference. Its median colour over the bright,
unprinted paper gives per-channel gains (the lamp's colour and the exposure);
a smooth field of the paper's local brightness gives lightness relative to the
paper nearby, so a bean under a cast shadow keeps its lightness. Pixels are
described by calibration's three features (``calibration.colour.features``).

A pixel is *foreground* when it is coloured (its channels spread beyond the
paper's noise), dim and a little coloured (a near-black bean), or clearly darker
than paper where nothing dark is printed; these tests run on 8-bit images. Pixels
a little darker and a little coloured (a dark bean's pale speckles) are added
where they continue a piece and a player's colour is near them. Only
foreground pixels are classified, which is what keeps an empty table cheap: each
goes to the nearest player model (bean or peep, Mahalanobis distance, looked up
in a per-model table over quantised features) or to *unknown* (a hand, a
sleeve, an egg of another colour) when no model is near.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.colour import ColourModel
from calibration.profile import Profile
from vision.errors import VisionError
from vision.peepwar.mask_shapes import disk, fill_holes_below
from vision.peepwar.mosaic import Mosaic
from vision.srgb import SRGB_TO_LINEAR, to_srgb

SPREAD_FG = 28  # max - min of white-balanced sRGB: beyond paper, print and noise
INK_SPREAD_FG = 60  # over printed ink, where JPEG leaves coloured fringes
SAT_FG = 0.12  # the same spread relative to the pixel's brightness
DARK_FG = 0.57  # brightness relative to the paper nearby below which paper is not paper
UNKNOWN_DISTANCE = 5.0  # farther than this from every model: not a player's piece
DIM_FG = 0.7  # below this brightness (relative to the paper) ...
DIM_SPREAD_FG = 10  # ... a smaller spread is colour already
DIM_SAT = 0.5  # ... and a smaller saturation (share of the paper's floor)
FAINT_DARK = 0.75  # beside a piece, this much darker than the paper nearby ...
FAINT_SPREAD = (4, 28)  # ... and a little coloured (not a grey shadow, not a rim) is piece
FAINT_GROW_PX = 4  # ... within this many pixels of what is surely a piece
FAINT_EDGE_MM = 3.75  # ... and not this near a tile's edge (the dark table blurs it darker)
PRINT_HIDDEN = 0.54  # solid print brighter than this share of the paper nearby is covered
SHADED = 0.8  # darker than this share of the paper: no bare paper (ink, pieces, a hand)
WHITE_BLOCK_MM = 8.0
CLEAR_MM = 2.0  # paper this close to something else is left out of the white field
HOLE_MM2 = 60.0  # paper-looking holes this small inside a piece are its highlights
# Added to every model's spread when reading: one piece on the card shows one lamp's
# shading; on the table the lamp, the tilt and the piece's turn shade it otherwise.
READ_SPREAD = np.array([0.04, 0.04, 0.09])
_EPS = 1e-4
# Model distances are looked up in tables over quantised features: r/S and b/S in
# CHROMA_STEPS steps (0.027 in calibration's 3 r/S - 1), lightness up to LIGHT_MAX in
# LIGHT_STEPS, each distance stored in tenths (to 25.5) -- a small fraction of a model's spread.
CHROMA_STEPS = 112
LIGHT_STEPS = 56
LIGHT_MAX = 1.4
DIST_SCALE = 10.0
LUT_CLOSE = 9  # tenths: a bean-or-peep call closer than this is made on exact distances
UNKNOWN = 255
NONE = 254


@dataclass
class PixelClasses:
    """Per-pixel results over the mosaic."""

    fg: np.ndarray  # bool: not paper or ink
    label: np.ndarray  # uint8: player index, UNKNOWN (foreground, no model near) or NONE
    margin: np.ndarray  # float32: distance to the second-best player minus the best (fg only)
    runner_up: np.ndarray  # uint8: the second-best player (fg only)
    peepish: np.ndarray  # bool: the best player's peep model fits better than their bean's
    players: list[str]
    print_hidden: np.ndarray  # bool: solid print no darker than PRINT_HIDDEN of the paper, no piece
    shaded: np.ndarray  # bool: darker than SHADED of the paper nearby
    balanced: np.ndarray  # BGR uint8: the mosaic white-balanced (sRGB)
    white: np.ndarray  # float32: the paper's brightness nearby (sRGB 0..255 of the top channel)


def _paper_white(image: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Linear BGR of the paper: the median of the brighter unprinted paper pixels."""
    # A sample is enough for a median: every other paper pixel of every third row and column
    # (flat indices: indexing a strided view by a mask would copy it first).
    sub = paper[::3, ::3]
    at = np.flatnonzero(sub)[::2]
    if len(at) < 50:
        return np.ones(3, np.float32)
    r, c = np.divmod(at, sub.shape[1])
    px = np.take(image.reshape(-1, image.shape[2]), 3 * r * image.shape[1] + 3 * c, axis=0)[:, :3]
    lum = np.maximum(np.maximum(px[:, 0], px[:, 1]), px[:, 2])
    counts = np.bincount(lum, minlength=256)
    lo, hi = _percentile_of_counts(counts, 55), _percentile_of_counts(counts, 97)
    sel = px[(lum >= lo) & (lum <= hi)]
    if not len(sel):
        sel = px
    srgb = np.array([_percentile_of_counts(np.bincount(sel[:, k], minlength=256), 50)
                     for k in range(3)])
    return SRGB_TO_LINEAR[np.clip(np.round(srgb), 1, 255).astype(np.uint8)].astype(np.float32)


def _percentile_of_counts(counts: np.ndarray, q: float) -> float:
    """``np.percentile(values, q)`` (linear method) of the integers whose counts
    (``np.bincount``) are ``counts``, at least one: 8-bit samples are counted faster than
    sorted.

    >>> values = np.array([3, 9, 9, 4, 250, 0, 17])
    >>> [bool(_percentile_of_counts(np.bincount(values), q) == np.percentile(values, q))
    ...  for q in (0, 50, 55, 97, 100)]
    [True, True, True, True, True]
    """
    cum = np.cumsum(counts)
    n = int(cum[-1])
    pos = q / 100 * (n - 1)
    f = int(pos)
    t = pos - f
    a = int(np.searchsorted(cum, f, side="right"))
    b = int(np.searchsorted(cum, min(f + 1, n - 1), side="right"))
    # numpy's own lerp, so that the result is the same to the last bit
    return a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t)


def _balance_lut(gains: np.ndarray) -> np.ndarray:
    """A 256x1x3 table applying per-channel gains in linear light to sRGB values."""
    lin = SRGB_TO_LINEAR[:, None] * gains[None, :]
    return to_srgb(np.clip(lin, 0, 1)).reshape(256, 1, 3)


def _local_white(value: np.ndarray, paper: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Smooth brightness (sRGB 0..255) of the paper around each pixel.

    Normalised averaging over blocks of about WHITE_BLOCK_MM, blocks with no
    paper filled from their neighbours, so a cast shadow lowers it locally.
    """
    h, w = value.shape
    block = max(2, int(round(WHITE_BLOCK_MM * px_per_mm)))
    # Padded to whole blocks (as no paper): shrinking by a whole factor is a fast block mean.
    gw, gh = -(-w // block), -(-h // block)
    num = np.zeros((gh * block, gw * block), np.float32)
    den = np.zeros_like(num)
    cv2.multiply(value, paper.view(np.uint8), dst=num[:h, :w], dtype=cv2.CV_32F)
    den[:h, :w] = paper
    num = cv2.resize(num, (gw, gh), interpolation=cv2.INTER_AREA)
    den = cv2.resize(den, (gw, gh), interpolation=cv2.INTER_AREA)
    for _ in range(4):
        num = np.where(den > 0.05, num, cv2.blur(num, (3, 3)))
        den = np.where(den > 0.05, den, cv2.blur(den, (3, 3)))
    field = np.where(den > 1e-3, num / np.maximum(den, 1e-3), 255.0).astype(np.float32)
    field = cv2.GaussianBlur(field, (0, 0), 0.7)
    return cv2.resize(field, (gw * block, gh * block), interpolation=cv2.INTER_LINEAR)[:h, :w]


def components(mask: np.ndarray, connectivity: int = 8
               ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` with 16-bit labels (twice as fast as 32-bit)."""
    return cv2.connectedComponentsWithStats(mask, connectivity=connectivity, ltype=cv2.CV_16U)


def _mode_filter(label: np.ndarray, fg: np.ndarray, n_players: int, px_per_mm: float
                 ) -> np.ndarray:
    """Each foreground pixel takes the commonest label around it (players and unknown).

    A bean's shaded rim and its shadow side can sit nearer another player's model
    than its own; a majority over about 2.5 mm gives them back to the bean. Votes
    are counted only where the neighbourhood is mixed: elsewhere the majority is
    the pixel's own label.
    """
    k = max(3, int(round(2.5 * px_per_mm)) | 1)
    # Only around the pieces: most of the table is paper.
    bx, by, bw, bh = cv2.boundingRect(fg.view(np.uint8))
    if bw == 0:
        return label
    fy0, fx0 = max(by - k, 0), max(bx - k, 0)
    near = (slice(fy0, by + bh + k), slice(fx0, bx + bw + k))
    voting = label[near]  # NONE wherever fg is not
    kernel = np.ones((k, k), np.uint8)
    mixed = fg[near] & (cv2.dilate(voting, kernel) != cv2.erode(voting, kernel))
    at = np.flatnonzero(mixed)
    if len(at) == 0:
        return label
    ys, xs = np.divmod(at, mixed.shape[1])
    ys, xs = ys + fy0, xs + fx0
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    h = k // 2
    box = (slice(max(y0 - h, 0), y1 + h), slice(max(x0 - h, 0), x1 + h))
    sub = label[box]
    flat = (ys - box[0].start) * sub.shape[1] + (xs - box[1].start)
    classes = list(range(n_players)) + [UNKNOWN]
    # Counts of 255s (cv2.compare's true), at most k * k * 255: within 16 bits.
    # The commonest class, the first of equals (as np.argmax over every class's votes would
    # give it, without stacking them).
    best = np.full(len(flat), classes[0], np.uint8)
    most = None
    for c in classes:
        votes = cv2.boxFilter(cv2.compare(sub, c, cv2.CMP_EQ), cv2.CV_16U, (k, k),
                              normalize=False).ravel()[flat]
        if most is None:
            most = votes
            continue
        best[votes > most] = c
        np.maximum(most, votes, out=most)
    out = label.copy()
    out.ravel()[ys * out.shape[1] + xs] = best
    return out


def _models(profile: Profile) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Players, and per model (bean, peep, bean, ...): mean and inverse covariance."""
    players = list(profile.players) or list(profile.colours)
    if any(profile.colours[p].peep is None for p in players):
        raise VisionError("the profile has no peep colours (it was made with pegs or marbles): "
                          "run companion calibrate with a bean and a peep on every slot")
    models = [m for p in players for m in (profile.colours[p].bean, profile.colours[p].peep)]
    assert all(isinstance(m, ColourModel) for m in models)
    if not models:
        return players, np.zeros((0, 3), np.float32), np.zeros((0, 3, 3), np.float32)
    # One batched inverse: a dozen separate calls cost more than the rest of this.
    invs = np.linalg.inv(np.stack([m.cov for m in models]) + np.diag(READ_SPREAD**2))
    return players, np.array([m.mean for m in models], np.float32), invs.astype(np.float32)


def prepare(profile: Profile) -> None:
    """Build the colour tables ``profile``'s players are read with (a few tens of ms a
    model), so that the first frame read with it does not pay for them."""
    _, means, invs = _models(profile)
    if len(means):
        _distance_table(means.tobytes(), invs.tobytes())


def classify(mosaic: Mosaic, profile: Profile) -> PixelClasses:
    """Foreground and per-pixel player of every mosaic pixel on the tiles.

    The foreground test runs on whole 8-bit images (white-balanced by lookup
    table); the float features and model distances only on foreground pixels.
    """
    on = mosaic.on_tiles & mosaic.in_frame
    paper = on & ~mosaic.ink
    gains = 1.0 / np.maximum(_paper_white(mosaic.image, paper), _EPS)
    wb = cv2.LUT(mosaic.image, _balance_lut(gains))
    b, g, r = cv2.split(wb)
    hi = cv2.max(cv2.max(b, g), r)
    spread = cv2.subtract(hi, cv2.min(cv2.min(b, g), r))
    spread = cv2.blur(spread, (3, 3))  # sensor noise and JPEG chroma blocks
    # Only paper well clear of anything on it: a piece's blurred rim would pull the paper's
    # brightness down around dark pieces, and then they would no longer look dark.
    clear = (paper & (spread < SPREAD_FG // 2) & (hi > 120)).astype(np.uint8)
    clear = cv2.erode(clear, disk(CLEAR_MM * mosaic.px_per_mm)) > 0
    white = _local_white(hi, clear, mosaic.px_per_mm)
    # The tests below run on 8-bit images (0/255 masks): "brightness under a share of the
    # paper's" is hi < share * white, "saturation over f" is spread > f * hi, thresholds
    # rounded up or down so that the integer tests match the real-valued ones.

    def darker(share: float) -> np.ndarray:
        return cv2.compare(hi, cv2.convertScaleAbs(white, alpha=share, beta=0.5), cv2.CMP_LT)

    def more_colour(f: float) -> np.ndarray:
        return cv2.compare(spread, cv2.convertScaleAbs(hi, alpha=f, beta=-0.5), cv2.CMP_GT)

    ink = mosaic.ink.view(np.uint8) * np.uint8(255)
    # Over printed ink JPEG leaves coloured fringes: ask for more colour there, unless the
    # pixel is too bright to be ink (something lies on it).
    inky = cv2.bitwise_and(ink, darker(0.7))
    # Saturation (spread over brightness) beyond what the bare paper shows in this frame:
    # a warm lamp or a dark corner amplifies one channel's noise. Only paper as bright as
    # paper nearby: a dark hand over half the tiles is not paper, and its colour must not
    # raise the floor until nothing in the frame is coloured.
    lit = paper & (cv2.compare(hi, cv2.convertScaleAbs(white, alpha=SHADED, beta=-0.5),
                               cv2.CMP_GT) > 0)
    some = np.flatnonzero(lit)[::11]
    sample = spread.ravel()[some] / np.maximum(hi.ravel()[some], 1.0)
    sat_floor = max(SAT_FG, 3.0 * float(np.median(sample))) if sample.size > 50 else SAT_FG
    # A clipped channel makes bright paper look coloured after white balance.
    clipped = cv2.bitwise_not(cv2.inRange(mosaic.image, (0, 0, 0), (249, 249, 249)))
    glare = cv2.bitwise_and(cv2.bitwise_and(clipped, cv2.bitwise_not(darker(0.8))),
                            cv2.bitwise_not(more_colour(1.5 * sat_floor)))
    spread_ok = cv2.bitwise_or(cv2.compare(spread, INK_SPREAD_FG, cv2.CMP_GT),
                               cv2.bitwise_and(cv2.compare(spread, SPREAD_FG, cv2.CMP_GT),
                                               cv2.bitwise_not(inky)))
    coloured = cv2.bitwise_and(cv2.bitwise_and(spread_ok, more_colour(sat_floor)),
                               cv2.bitwise_and(cv2.bitwise_not(darker(0.25)),
                                               cv2.bitwise_not(glare)))
    # Dim pieces (a near-black bean) show little colour, but more than a neutral shadow does.
    dim = cv2.bitwise_and(cv2.bitwise_and(darker(DIM_FG), more_colour(DIM_SAT * sat_floor)),
                          cv2.bitwise_and(cv2.compare(spread, DIM_SPREAD_FG, cv2.CMP_GT),
                                          cv2.bitwise_not(inky)))
    dark = cv2.bitwise_and(darker(DARK_FG), cv2.bitwise_not(ink))
    fg = cv2.bitwise_or(cv2.bitwise_or(coloured, dim), dark)
    fg = cv2.bitwise_and(fg, on.view(np.uint8) * np.uint8(255)) // 255
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    # A dark bean's paler parts (speckles, the lamp's reflection) are only a little darker
    # than paper and a little coloured: taken where they continue what is surely a piece.
    inside = cv2.erode(on.view(np.uint8), disk(FAINT_EDGE_MM * mosaic.px_per_mm))
    weak = cv2.bitwise_and(cv2.bitwise_and(darker(FAINT_DARK), cv2.bitwise_not(ink)),
                           cv2.inRange(spread, FAINT_SPREAD[0] + 1, FAINT_SPREAD[1]))
    weak = cv2.bitwise_and(weak // 255, inside)
    strong = fg
    for _ in range(FAINT_GROW_PX):
        fg = cv2.bitwise_or(cv2.bitwise_and(cv2.dilate(fg, np.ones((3, 3), np.uint8)), weak),
                            strong)
    # (Read as bool: numpy finds the nonzero bytes of a uint8 array several times slower.)
    faint_at = np.flatnonzero(cv2.subtract(fg, strong).view(bool))
    # A glossy bean's highlight can look like paper: small holes inside a piece are piece.
    fg = fill_holes_below(fg, int(HOLE_MM2 * mosaic.px_per_mm**2)) > 0
    # Edge pixels mix a piece with the paper: classify the inside, then hand labels outwards.
    core = cv2.erode(fg.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0

    players, means, invs = _models(profile)
    label = np.full(fg.shape, NONE, np.uint8)
    margin = np.zeros(fg.shape, np.float32)
    runner_up = np.zeros(fg.shape, np.uint8)
    peepish = np.zeros(fg.shape, bool)
    # Flat indices throughout: two-dimensional np.nonzero costs three times as much.
    idx = np.flatnonzero(core)
    flat_label, flat_margin = label.ravel(), margin.ravel()
    if len(idx) and len(players):
        nearest = _nearest_models(*_pixel_features(wb, white, idx), means, invs)
        flat_label[idx], flat_margin[idx], runner_up.ravel()[idx], peepish.ravel()[idx] = nearest
    elif len(idx):
        flat_label[idx] = UNKNOWN
    edge = fg & ~core
    if edge.any():
        # Player k as k + 1, nothing and unknown as 0 (players win ties): a saturating add
        # takes UNKNOWN (255) and NONE (254) to 255, then 255 goes to 0.
        code = cv2.threshold(cv2.add(label, 1), 254, 0, cv2.THRESH_TOZERO_INV)[1]
        grown = cv2.dilate(code, np.ones((3, 3), np.uint8))
        unk = cv2.dilate(cv2.compare(label, UNKNOWN, cv2.CMP_EQ), np.ones((3, 3), np.uint8))
        at = np.flatnonzero(edge)
        near = grown.ravel()[at]
        player = near > 0
        flat_label[at[player]] = near[player] - 1
        flat_label[at[~player & (unk.ravel()[at] > 0)]] = UNKNOWN
    # ... unless no player's colour is near them (a shadow beside a piece).
    drop = faint_at[flat_label[faint_at] == UNKNOWN]
    fg.ravel()[drop] = False
    flat_label[drop] = NONE
    label = _mode_filter(label, fg, len(players), mosaic.px_per_mm)
    solid = (mosaic.solid & on).view(np.uint8) * np.uint8(255)
    hidden = cv2.bitwise_and(cv2.bitwise_and(solid, cv2.bitwise_not(darker(PRINT_HIDDEN))),
                             cv2.bitwise_not(fg.view(np.uint8) * np.uint8(255))) > 0
    return PixelClasses(fg, label, margin, runner_up, peepish, players, hidden,
                        darker(SHADED) > 0, wb, white)


def _nearest_models(lin: np.ndarray, white_lin: np.ndarray, cell: np.ndarray,
                    means: np.ndarray, invs: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel (:func:`_pixel_features`' rows): its player (UNKNOWN when no model is
    near), the margin to the runner-up (99 with one player), the runner-up, and whether
    the player's peep model fits better than their bean's.

    Player by player along whole rows (one row per model): a few players' minimum
    across each pixel's short row costs several times as much.
    """
    n_players, n_px = len(means) // 2, len(cell)
    # Distances (tenths) to every model: bean, peep, bean, ... one row each.
    # (np.take and OpenCV's transpose: twice as fast as fancy indexing and numpy's copy.)
    both = cv2.transpose(np.take(_distance_table(means.tobytes(), invs.tobytes()), cell, axis=0))
    per_player = np.minimum(both[0::2], both[1::2])  # the nearer of bean and peep
    best = np.zeros(n_px, np.intp)  # the first of equals, as np.argmin
    best_d = per_player[0].copy()
    for p in range(1, n_players):
        best[per_player[p] < best_d] = p
        np.minimum(best_d, per_player[p], out=best_d)
    label = np.where(best_d <= UNKNOWN_DISTANCE * DIST_SCALE, best, UNKNOWN).astype(np.uint8)
    if n_players > 1:
        # The runner-up: np.argmin of the row with the best's own distance made 255.
        second = np.zeros(n_px, np.intp)
        second_d = np.where(best == 0, np.uint8(255), per_player[0])
        for p in range(1, n_players):
            d = np.where(best == p, np.uint8(255), per_player[p])
            second[d < second_d] = p
            np.minimum(second_d, d, out=second_d)
        margin = (second_d.astype(np.float32) - best_d) / DIST_SCALE
        runner_up = second.astype(np.uint8)
    else:
        margin, runner_up = np.full(n_px, 99.0, np.float32), np.zeros(n_px, np.uint8)
    # Bean or peep is often a close call (a pale bean near its peep's colour): where the
    # tables cannot tell (they are within a tenth or two), decide on exact distances.
    at = 2 * best * n_px + np.arange(n_px)  # the best player's bean model in ``both``
    bd, pd = both.ravel()[at].astype(np.int16), both.ravel()[at + n_px].astype(np.int16)
    peep = pd < bd
    close = np.flatnonzero(np.abs(pd - bd) <= LUT_CLOSE)  # (indices: rows gathered faster)
    if len(close):
        peep[close] = _peep_nearer(np.take(lin, close, axis=0), white_lin[close], best[close],
                                   means, invs)
    return label, margin, runner_up, peep


def nearest_bean(px: PixelClasses, profile: Profile, flat: np.ndarray) -> tuple[int, float]:
    """The player whose *bean* model most of the pixels at flat mosaic indices ``flat`` are
    nearest, and the median distance to it: a bean read as a whole when no pixel of it is
    near any model on its own (a glossy near-black bean: highlights like paper, body like
    shadow). (-1, inf) without pixels or players."""
    players, means, invs = _models(profile)
    if not len(flat) or not len(means):
        return -1, math.inf
    bean_d = _distances(_pixel_features(px.balanced, px.white, flat)[2], means, invs)[0]
    best = np.argmin(bean_d, axis=1)
    pi = int(np.bincount(best, minlength=len(players)).argmax())
    return pi, float(np.median(bean_d[best == pi, pi])) / DIST_SCALE


def pixel_features(px: PixelClasses, flat: np.ndarray) -> np.ndarray:
    """Calibration's three features (``calibration.colour.features``) of the mosaic pixels at
    flat indices ``flat``, lightness relative to the paper nearby as the models are read:
    what a player's model is compared with, and what corrections teach it (N x 3)."""
    lin, white_lin, _ = _pixel_features(px.balanced, px.white, flat)
    b, g, r = (np.maximum(lin[:, i].astype(np.float64), _EPS) for i in range(3))
    total = b + g + r
    light = np.cbrt((0.0722 * b + 0.7152 * g + 0.2126 * r) / np.maximum(white_lin, _EPS))
    return np.stack([3 * r / total - 1, 3 * b / total - 1, light], axis=1)


def _pixel_features(balanced: np.ndarray, white: np.ndarray, flat: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At flat mosaic indices ``flat``: white-balanced linear BGR, the paper's linear
    brightness nearby, and each pixel's cell in the quantised feature grid."""
    lin = _linear(np.take(balanced.reshape(-1, 3), flat, axis=0))
    white_lin = SRGB_TO_LINEAR[np.clip(white.ravel()[flat], 0, 255).astype(np.uint8)]
    return lin, white_lin, _feature_cells(lin, white_lin)


def _linear(srgb: np.ndarray) -> np.ndarray:
    """Linear light (float32) of 8-bit sRGB rows (N x 3): SRGB_TO_LINEAR looked up by OpenCV,
    a third of the time numpy's indexing takes.

    >>> v = np.array([[0, 128, 255]], np.uint8)
    >>> bool(np.array_equal(_linear(v), SRGB_TO_LINEAR[v]))
    True
    """
    if not srgb.size:
        return SRGB_TO_LINEAR[srgb]
    return cv2.LUT(srgb, _LINEAR_LUT)


_LINEAR_LUT = SRGB_TO_LINEAR.astype(np.float32).reshape(256, 1)


def _distances(cell: np.ndarray, means: np.ndarray, invs: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Distance (tenths) of each feature cell to every player's bean model and to every
    player's peep model: two arrays, one column per player."""
    both = _distance_table(means.tobytes(), invs.tobytes())[cell]
    return both[:, 0::2], both[:, 1::2]


@lru_cache(maxsize=2)  # a game's profile, and one being calibrated (7 MB for six players)
def _distance_table(means: bytes, invs: bytes) -> np.ndarray:
    """Every model's distance (:func:`_distance_lut`) side by side, one row per feature
    cell: a pixel's distances are one read from memory, not one per model."""
    m = np.frombuffer(means, np.float32).reshape(-1, 3)
    a = np.frombuffer(invs, np.float32).reshape(-1, 3, 3)
    return np.ascontiguousarray(np.stack(
        [_distance_lut(m[k].tobytes(), a[k].tobytes()) for k in range(len(m))], axis=1))


def _peep_nearer(lin_bgr: np.ndarray, white_y: np.ndarray, best: np.ndarray,
                 means: np.ndarray, invs: np.ndarray) -> np.ndarray:
    """Per row: is the row's player's peep model nearer than their bean model (exactly)?"""
    b, g, r = (np.maximum(lin_bgr[:, i], _EPS) for i in range(3))
    total = b + g + r
    light = np.cbrt((0.0722 * b + 0.7152 * g + 0.2126 * r) / np.maximum(white_y, _EPS))
    weight = np.minimum(np.maximum(light / 0.6, 0.35), 1.0)  # np.clip, with less overhead
    f0, f1 = 3 * r / total - 1, 3 * b / total - 1
    # Per model: mean, then the quadratic form's six coefficients (inverse is symmetric).
    coef = np.stack([means[:, 0], means[:, 1], means[:, 2], invs[:, 0, 0], invs[:, 1, 1],
                     invs[:, 2, 2], 2 * invs[:, 0, 1], 2 * invs[:, 0, 2], 2 * invs[:, 1, 2]])
    d2 = []
    for kind in (0, 1):  # bean, peep: each row's own player's model
        c = coef[:, 2 * best + kind]
        d0, d1, dl = (f0 - c[0]) * weight, (f1 - c[1]) * weight, light - c[2]
        d2.append(c[3] * d0 * d0 + c[4] * d1 * d1 + c[5] * dl * dl
                  + c[6] * d0 * d1 + c[7] * d0 * dl + c[8] * d1 * dl)
    return d2[1] < d2[0]


def _feature_cells(lin_bgr: np.ndarray, white_y: np.ndarray) -> np.ndarray:
    """Index of each white-balanced linear BGR row in the quantised feature grid."""
    px = np.maximum(lin_bgr, _EPS)
    b, g, r = px[:, 0], px[:, 1], px[:, 2]
    # (b + g) + r is the order numpy's sum over each row of three takes, so the cells are
    # the same; adding whole columns costs a third of that sum.
    total = b + g + r
    y = px @ np.array([0.0722, 0.7152, 0.2126], np.float32)
    light = np.cbrt(y / np.maximum(white_y, _EPS))
    i = np.minimum((r / total * CHROMA_STEPS).astype(np.int32), CHROMA_STEPS - 1)
    j = np.minimum((b / total * CHROMA_STEPS).astype(np.int32), CHROMA_STEPS - 1)
    k = np.minimum((light * (LIGHT_STEPS / LIGHT_MAX)).astype(np.int32), LIGHT_STEPS - 1)
    return (i * CHROMA_STEPS + j) * LIGHT_STEPS + k


@lru_cache(maxsize=12)  # the models of one profile: its table is what is kept
def _distance_lut(mean: bytes, inv: bytes) -> np.ndarray:
    """One model's distance (tenths, uint8) at every cell of the quantised feature grid.

    Dark pixels' colour differences weigh less (down to a third for near-black
    beans): their chromaticity is mostly noise, a few sensor levels per channel.
    Built once per model (a few tens of ms) and kept.
    """
    m = np.frombuffer(mean, np.float32)
    a = np.frombuffer(inv, np.float32).reshape(3, 3)
    c = (np.arange(CHROMA_STEPS, dtype=np.float32) + 0.5) / CHROMA_STEPS
    lv = (np.arange(LIGHT_STEPS, dtype=np.float32) + 0.5) * (LIGHT_MAX / LIGHT_STEPS)
    w = np.clip(lv / 0.6, 0.35, 1.0)
    d0 = (3 * c - 1 - m[0])[:, None, None] * w[None, None, :]
    d1 = (3 * c - 1 - m[1])[None, :, None] * w[None, None, :]
    d2 = (lv - m[2])[None, None, :]
    q = (a[0, 0] * d0 * d0 + a[1, 1] * d1 * d1 + a[2, 2] * d2 * d2
         + 2 * a[0, 1] * d0 * d1 + 2 * a[0, 2] * d0 * d2 + 2 * a[1, 2] * d1 * d2)
    dist = np.sqrt(np.maximum(q, 0)) * DIST_SCALE
    return np.minimum(np.round(dist), 255).astype(np.uint8).ravel()
