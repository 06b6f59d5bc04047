"""Which mosaic pixels are pieces, and whose: white balance, foreground, colour classes.

The tile paper is the white reference. Its median colour over the bright,
unprinted paper gives per-channel gains (the lamp's colour and the exposure);
a smooth field of the paper's local brightness gives lightness relative to the
paper nearby, so a bean under a cast shadow keeps its lightness. Pixels are
described by calibration's three features (``calibration.colour.features``).

A pixel is *foreground* when it is coloured (its channels spread beyond the
paper's noise), or clearly darker than paper where nothing dark is printed. Only foreground
pixels are classified, which is what keeps an empty table cheap: each goes to
the nearest player model (bean or peep, Mahalanobis distance) or to *unknown*
(a hand, a sleeve, an egg of another colour) when no model is near.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.colour import ColourModel
from calibration.profile import Profile
from vision.mosaic import Mosaic
from vision.srgb import SRGB_TO_LINEAR, to_srgb

SPREAD_FG = 28  # max - min of white-balanced sRGB: beyond paper, print and noise
INK_SPREAD_FG = 60  # over printed ink, where JPEG leaves coloured fringes
SAT_FG = 0.12  # the same spread relative to the pixel's brightness
DARK_FG = 0.42  # brightness relative to the paper nearby below which paper is not paper
UNKNOWN_DISTANCE = 5.0  # farther than this from every model: not a player's piece
WHITE_BLOCK_MM = 8.0
HOLE_MM2 = 60.0  # paper-looking holes this small inside a piece are its highlights
# Added to every model's spread when reading: one piece on the card shows one lamp's
# shading; on the table the lamp, the tilt and the piece's turn shade it otherwise.
READ_SPREAD = np.array([0.04, 0.04, 0.09])
_EPS = 1e-4
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
    white: np.ndarray  # BGR gains used (1 / paper colour in linear light)


def _paper_white(image: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Linear BGR of the paper: the median of the brighter unprinted paper pixels."""
    px = image[paper][::7]
    if len(px) < 50:
        return np.ones(3, np.float32)
    lum = px.max(axis=1)
    lo, hi = np.percentile(lum, [55, 97])
    sel = px[(lum >= lo) & (lum <= hi)]
    srgb = np.median(sel if len(sel) else px, axis=0)
    return SRGB_TO_LINEAR[np.clip(np.round(srgb), 1, 255).astype(np.uint8)].astype(np.float32)


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
    gw, gh = max(1, w // block), max(1, h // block)
    wts = paper.astype(np.float32)
    num = cv2.resize(value.astype(np.float32) * wts, (gw, gh), interpolation=cv2.INTER_AREA)
    den = cv2.resize(wts, (gw, gh), interpolation=cv2.INTER_AREA)
    for _ in range(4):
        num = np.where(den > 0.05, num, cv2.blur(num, (3, 3)))
        den = np.where(den > 0.05, den, cv2.blur(den, (3, 3)))
    field = np.where(den > 1e-3, num / np.maximum(den, 1e-3), 255.0).astype(np.float32)
    field = cv2.GaussianBlur(field, (0, 0), 0.7)
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


def _fill_holes_below(mask: np.ndarray, max_px: int) -> np.ndarray:
    """``mask`` (uint8 0/1) with its enclosed holes of at most ``max_px`` pixels filled."""
    inv = (mask == 0).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
    if n <= 1:
        return mask
    h, w = mask.shape
    x, y, bw, bh, area = stats.T
    touches = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
    small = (area <= max_px) & ~touches
    small[0] = False
    out = mask.copy()
    out[small[lab]] = 1
    return out


def _mode_filter(label: np.ndarray, fg: np.ndarray, n_players: int, px_per_mm: float
                 ) -> np.ndarray:
    """Each foreground pixel takes the commonest label around it (players and unknown).

    A bean's shaded rim and its shadow side can sit nearer another player's model
    than its own; a majority over about 2.5 mm gives them back to the bean.
    """
    k = max(3, int(round(2.5 * px_per_mm)) | 1)
    classes = list(range(n_players)) + [UNKNOWN]
    votes = np.stack([cv2.boxFilter((label == c).astype(np.float32), -1, (k, k),
                                    normalize=False) for c in classes])
    best = np.asarray(classes, np.uint8)[np.argmax(votes, axis=0)]
    out = label.copy()
    out[fg] = best[fg]
    return out


def _models(profile: Profile) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Players, and per model: mean, inverse covariance, owner index (bean and peep each)."""
    players = list(profile.players) or list(profile.colours)
    means, invs, owner = [], [], []
    for i, p in enumerate(players):
        c = profile.colours[p]
        for m in (c.bean, c.peep):
            assert isinstance(m, ColourModel)
            means.append(m.mean)
            invs.append(np.linalg.inv(m.cov + np.diag(READ_SPREAD**2)))
            owner.append(i)
    return players, np.array(means, np.float32), np.array(invs, np.float32), np.array(owner)


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
    white = _local_white(hi, paper & (spread < SPREAD_FG // 2) & (hi > 120), mosaic.px_per_mm)
    rel = hi.astype(np.float32) / np.maximum(white, 1.0)
    # Over printed ink JPEG leaves coloured fringes: ask for more colour there, unless the
    # pixel is too bright to be ink (something lies on it).
    inky = mosaic.ink & (rel < 0.7)
    # Saturation (spread over brightness) beyond what the bare paper shows in this frame:
    # a warm lamp or a dark corner amplifies one channel's noise.
    sat = spread.astype(np.float32) / np.maximum(hi.astype(np.float32), 1.0)
    sample = sat[paper & (rel > 0.5)][::11]
    sat_floor = max(SAT_FG, 3.0 * float(np.median(sample))) if sample.size > 50 else SAT_FG
    # A clipped channel makes bright paper look coloured after white balance.
    clipped = cv2.max(cv2.max(mosaic.image[:, :, 0], mosaic.image[:, :, 1]),
                      mosaic.image[:, :, 2]) >= 250
    coloured = (spread > np.where(inky, INK_SPREAD_FG, SPREAD_FG)) & (sat > sat_floor) \
        & (rel > 0.25) & ~(clipped & (rel > 0.8) & (sat < 1.5 * sat_floor))
    fg = on & (coloured | ((rel < DARK_FG) & ~mosaic.ink))
    fg = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    # A glossy bean's highlight can look like paper: small holes inside a piece are piece.
    fg = _fill_holes_below(fg, int(HOLE_MM2 * mosaic.px_per_mm**2)) > 0
    # Edge pixels mix a piece with the paper: classify the inside, then hand labels outwards.
    core = cv2.erode(fg.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0

    players, means, invs, owner = _models(profile)
    label = np.full(fg.shape, NONE, np.uint8)
    margin = np.zeros(fg.shape, np.float32)
    runner_up = np.zeros(fg.shape, np.uint8)
    peepish = np.zeros(fg.shape, bool)
    idx = np.nonzero(core)
    if len(idx[0]) and len(players):
        lin = SRGB_TO_LINEAR[wb[idx]].astype(np.float32)
        white_lin = SRGB_TO_LINEAR[np.clip(white[idx], 0, 255).astype(np.uint8)]
        feats = features_of(lin, white_lin)
        per_player = np.full((len(feats), len(players)), np.inf, np.float32)
        kind_d = np.zeros((len(feats), len(players), 2), np.float32)
        # A dark pixel's chromaticity is mostly noise (a few sensor levels per channel):
        # its colour differences weigh less, down to a third for near-black beans.
        weight = np.clip(feats[:, 2:3] / 0.6, 0.35, 1.0)
        for k, o in enumerate(owner):
            d = feats - means[k]
            d[:, :2] *= weight
            dist = np.sqrt(np.einsum("ni,ni->n", d @ invs[k], d))
            kind_d[:, o, k % 2] = dist
            per_player[:, o] = np.minimum(per_player[:, o], dist)
        order = np.argsort(per_player, axis=1)
        rows = np.arange(len(feats))
        best = order[:, 0]
        best_d = per_player[rows, best]
        second = per_player[rows, order[:, 1]] if len(players) > 1 \
            else np.full(len(feats), np.inf, np.float32)
        label[idx] = np.where(best_d <= UNKNOWN_DISTANCE, best, UNKNOWN).astype(np.uint8)
        margin[idx] = np.minimum(second - best_d, 99.0)
        runner_up[idx] = order[:, 1] if len(players) > 1 else 0
        peepish[idx] = kind_d[rows, best, 1] < kind_d[rows, best, 0]
    elif len(idx[0]):
        label[idx] = UNKNOWN
    edge = fg & ~core
    if edge.any():
        code = np.where(label == NONE, 0, label.astype(np.int16) + 1)
        code = np.where(label == UNKNOWN, 0, code).astype(np.uint8)  # players win ties
        grown = cv2.dilate(code, np.ones((3, 3), np.uint8))
        unk = cv2.dilate((label == UNKNOWN).astype(np.uint8), np.ones((3, 3), np.uint8))
        label[edge & (grown > 0)] = grown[edge & (grown > 0)] - 1
        label[edge & (grown == 0) & (unk > 0)] = UNKNOWN
    label = _mode_filter(label, fg, len(players), mosaic.px_per_mm)
    return PixelClasses(fg, label, margin, runner_up, peepish, players, gains)


def features_of(lin_bgr: np.ndarray, white_y: np.ndarray) -> np.ndarray:
    """Calibration's features of white-balanced linear BGR rows, lightness against ``white_y``."""
    px = np.maximum(lin_bgr, _EPS)
    b, g, r = px[:, 0], px[:, 1], px[:, 2]
    total = b + g + r
    y = 0.0722 * b + 0.7152 * g + 0.2126 * r
    light = np.cbrt(y / np.maximum(white_y, _EPS))
    return np.stack([3 * r / total - 1, 3 * b / total - 1, light], axis=1).astype(np.float32)
