"""Players' colour models from a photo of the calibration card.

The card's white patches give a per-channel gain (white balance and exposure in
one); after it, white paper reads (1, 1, 1) whatever the lamp. Colours are then
described by three light-robust features of linear RGB (S = R + G + B):

    3 R/S - 1, 3 B/S - 1   chromaticity: unchanged by shadows and exposure
    Y^(1/3)                lightness relative to white: tells white beans from black

A player's bean (and peep) colour is the mean and covariance of those features
over the piece's pixels. Calibration refuses when two players' models are too
close to be told apart, or when a slot has no piece on it. A card with every peep
spot empty is a card of pegs or marbles (Petri): its profile holds one colour per
player, the piece on the bean spot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import cv2
import numpy as np

from vision.card_art import (
    BEAN_SPOT_R_MM,
    MAX_PLAYERS,
    PEEP_SPOT_AXES_MM,
    SPOT_GREY,
    CardLayout,
    Rect,
    card_layout,
)
from vision.kit_layout import CARD_MARKER_IDS
from vision.markers import detect_markers
from vision.srgb import to_linear

CARD_PX_PER_MM = 4.0
MIN_SEPARATION = 2.5  # Mahalanobis distance between two players models
MIN_GREY_SHARE = 0.04  # of a bean's spot left bare (a bean covers about 60% of it)
MIN_PAPER_SHARE = 0.85  # of a spot that is plain paper where the card has no slot
MIN_COVERAGE = 0.3  # share of a piece's expected area that must differ from the empty spot
BEAN_AREA_MM2 = math.pi * 10.0 * 6.5
PEEP_AREA_MM2 = math.pi * 30.0 * 17.5
FEATURE_FLOOR = np.array([0.03, 0.03, 0.03])  # std floor: noise and print variation
_EPS = 1e-4


class CalibrationError(ValueError):
    """The photo cannot give a usable profile; the message says what to change."""


@dataclass(frozen=True)
class ColourModel:
    """A colour as mean and covariance of (3R/S - 1, 3B/S - 1, Y^1/3) after white balance."""

    mean: np.ndarray
    cov: np.ndarray
    pixels: int

    def distance(self, feats: np.ndarray) -> np.ndarray:
        """Mahalanobis distance of feature rows from this model."""
        d = np.atleast_2d(feats) - self.mean
        inv = np.linalg.inv(self.cov)
        return np.sqrt(np.einsum("ni,ij,nj->n", d, inv, d))

    def to_json(self) -> dict:
        return {"mean": self.mean.round(5).tolist(), "cov": self.cov.round(7).tolist(),
                "pixels": self.pixels}

    @staticmethod
    def from_json(data: dict) -> ColourModel:
        try:
            mean = np.asarray(data["mean"], float)
            cov = np.asarray(data["cov"], float)
        except OverflowError:  # an integer past the float range
            raise ValueError("a colour model holds a number too large") from None
        if mean.shape != (3,) or cov.shape != (3, 3):
            raise ValueError("a colour model needs a 3-vector mean and a 3x3 covariance")
        # Every reader measures colours against the model through the covariance's inverse:
        # NaN, or a spread that is zero or negative in some direction, would make every
        # distance meaningless, and the frame would read "no pieces" rather than fail here.
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
            raise ValueError("a colour model holds NaN or Infinity")
        if not np.all(np.linalg.eigvalsh((cov + cov.T) / 2) > 0):
            raise ValueError("a colour model's covariance is not a spread (not positive "
                             "definite)")
        try:
            pixels = int(data.get("pixels", 0))
        except OverflowError:  # Infinity, which json reads as a float
            raise ValueError("a colour model's pixels must be a whole number") from None
        return ColourModel(mean, cov, pixels)


def separation(a: ColourModel, b: ColourModel) -> float:
    """Mahalanobis distance between two models' means under their pooled covariance."""
    d = a.mean - b.mean
    pooled = (a.cov + b.cov) / 2
    return float(np.sqrt(d @ np.linalg.solve(pooled, d)))


@dataclass(frozen=True)
class PlayerColours:
    bean: ColourModel
    peep: ColourModel | None  # None: calibrated with pegs or marbles, no peeps


@dataclass(frozen=True)
class CardCalibration:
    """What a photo of the loaded card gives: players' models, warnings, and the card's
    white (linear BGR), which tells a reader with no white in view the lamp's colour."""

    models: dict[str, PlayerColours]
    warnings: list[str]
    white: np.ndarray


@dataclass
class CardReading:
    """The card found in a photo: a top-down image at CARD_PX_PER_MM and its references."""

    layout: CardLayout
    rectified: np.ndarray  # BGR uint8
    white: np.ndarray  # linear BGR of the white patches
    grey: np.ndarray
    warnings: list[str] = field(default_factory=list)

    def gains(self) -> np.ndarray:
        return 1.0 / np.maximum(self.white, _EPS)


def linear(bgr: np.ndarray) -> np.ndarray:
    """uint8 sRGB -> float32 linear light."""
    return to_linear(np.asarray(bgr, np.uint8))


def features(lin_bgr: np.ndarray) -> np.ndarray:
    """(N, 3) features of white-balanced linear BGR pixels (N, 3)."""
    px = np.maximum(lin_bgr.reshape(-1, 3).astype(np.float64), _EPS)
    b, g, r = px[:, 0], px[:, 1], px[:, 2]
    total = b + g + r
    y = 0.0722 * b + 0.7152 * g + 0.2126 * r
    return np.stack([3 * r / total - 1, 3 * b / total - 1, np.cbrt(y)], axis=1)


def _rect_pixels(img: np.ndarray, rect: Rect, inset_mm: float) -> np.ndarray:
    s = CARD_PX_PER_MM
    x0, y0 = round((rect.x + inset_mm) * s), round((rect.y + inset_mm) * s)
    x1, y1 = round((rect.x + rect.w - inset_mm) * s), round((rect.y + rect.h - inset_mm) * s)
    return img[y0:y1, x0:x1].reshape(-1, 3)


def read_card(photo: np.ndarray, players: int) -> CardReading:
    """Find the card in ``photo`` and measure its white and grey patches."""
    layout = card_layout(players)
    hits = detect_markers(photo)
    seen = [(CARD_MARKER_IDS.index(int(mid)), corners)
            for mid, corners in zip(hits.ids, hits.corners, strict=True)
            if int(mid) in CARD_MARKER_IDS]
    if len(seen) < 2:
        raise CalibrationError(
            f"only {len(seen)} of the colour card's 4 corner markers are in view: photograph "
            "the whole card, flat, from above"
        )
    hom, misfit = _fit(layout, seen)
    _check_card_size(players, misfit, seen)
    w = round(layout.width_mm * CARD_PX_PER_MM)
    h = round(layout.height_mm * CARD_PX_PER_MM)
    s = CARD_PX_PER_MM
    to_mm = np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1]])
    rect = cv2.warpPerspective(photo, hom @ to_mm, (w, h),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    warnings = []
    whites = [np.median(_rect_pixels(rect, r, 3.0), axis=0) for r in layout.white_patches]
    greys = [np.median(_rect_pixels(rect, r, 3.0), axis=0) for r in layout.grey_patches]
    white_srgb = np.mean(whites, axis=0)
    grey_lin = np.mean([linear(g[None, None].astype(np.uint8))[0, 0] for g in greys], axis=0)
    white_lin = np.mean([linear(wt[None, None].astype(np.uint8))[0, 0] for wt in whites], axis=0)
    if white_srgb.min() < 25:
        raise CalibrationError(
            "the card's white patches are nearly black: light the card and take the photo again"
        )
    if white_srgb.max() >= 250:
        # Clipped white: scale up from the grey patches, printed at a known grey.
        nominal = linear(np.full((1, 1, 3), SPOT_GREY, np.uint8))[0, 0]
        white_lin = grey_lin / nominal
        warnings.append("the card's white patches are overexposed; colours come from the grey "
                        "patches (lower the exposure for better colours)")
    lum = [float(np.mean(w)) for w in whites]
    if max(lum) > 1.4 * min(lum):
        warnings.append("the light changes strongly across the card; light it more evenly")
    return CardReading(layout, rect, white_lin.astype(np.float64), grey_lin.astype(np.float64),
                       warnings)


def _fit(layout: CardLayout, seen: list[tuple[int, np.ndarray]]) -> tuple[np.ndarray, float]:
    """The card-to-photo homography, and how badly the markers fit it (in marker sizes)."""
    src = np.vstack([layout.marker_corners[i] for i, _ in seen]).astype(np.float64)
    dst = np.vstack([c.reshape(-1, 2) for _, c in seen]).astype(np.float64)
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        return np.eye(3), math.inf
    back = cv2.perspectiveTransform(src[None], hom)[0]
    side = float(np.mean([np.linalg.norm(c.reshape(-1, 2)[0] - c.reshape(-1, 2)[1])
                          for _, c in seen]))
    return hom, float(np.sqrt(np.mean(np.sum((back - dst) ** 2, axis=1)))) / max(side, 1.0)


def _check_card_size(players: int, misfit: float, seen: list[tuple[int, np.ndarray]]) -> None:
    """Refuse a card printed for fewer rows of slots than the players named (or more).

    Cards differ by their rows of slots (two a row): a homography maps any card's
    four corners onto any other's, but only the right card keeps its markers square.
    """
    rows = math.ceil(players / 2)
    fits = {r: _fit(card_layout(min(2 * r, MAX_PLAYERS)), seen)[1]
            for r in range(1, math.ceil(MAX_PLAYERS / 2) + 1)}
    best = min(fits, key=fits.__getitem__)
    if best == rows or misfit < 0.05 or fits[best] * 3 > misfit:
        return
    most = min(2 * best, MAX_PLAYERS)
    named = f"{players} player{'s' if players != 1 else ''}"
    if best < rows:
        raise CalibrationError(
            f"the card in the photo has {'two slots' if most == 2 else f'{most} slots'} "
            f"(room for {most} players), but --players names {named}: print a card for "
            f"{players} with 'companion print card --players {players}', or calibrate "
            f"{most} players at a time"
        )
    raise CalibrationError(
        f"the card in the photo is one for {2 * best - 1} to {most} players, but --players "
        f"names {named}: name every player whose beans are on the card"
    )


def _spot_mask(shape: tuple[int, int], centre_mm, axes_mm: tuple[float, float]) -> np.ndarray:
    s = CARD_PX_PER_MM
    mask = np.zeros(shape, np.uint8)
    c = (round((centre_mm[0]) * s * 16), round((centre_mm[1]) * s * 16))
    ax = (round(axes_mm[0] * s * 16), round(axes_mm[1] * s * 16))
    cv2.ellipse(mask, c, ax, 0, 0, 360, 255, -1, cv2.LINE_8, 4)
    return mask > 0


def _spot_and_empty(reading: CardReading, centre_mm, axes_mm: tuple[float, float]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The spot's mask, where the card looks like the empty grey spot, where it looks like
    blank paper (grey, but lighter than the spot), and every pixel's features."""
    img = reading.rectified
    spot = _spot_mask(img.shape[:2], centre_mm, (axes_mm[0] - 1.5, axes_mm[1] - 1.5))
    gains = reading.gains()
    lin = linear(img) * gains[None, None, :].astype(np.float32)
    feats = features(lin).reshape(img.shape[0], img.shape[1], 3)
    ref = features((reading.grey * gains)[None, :])[0]
    chroma = np.hypot(feats[:, :, 0] - ref[0], feats[:, :, 1] - ref[1])
    ratio = feats[:, :, 2] / max(ref[2], _EPS)  # lightness relative to the empty spot
    # The empty spot, or a shadow on it (darker but still grey), is not the piece.
    empty_like = (chroma < 0.12) & (ratio > 0.7) & (ratio < 1.12)
    paper_like = (chroma < 0.12) & (ratio >= 1.12)
    return spot, empty_like, paper_like, feats


def spot_is_blank_paper(reading: CardReading, centre_mm, axes_mm: tuple[float, float]
                        ) -> bool:
    """A spot the card was not printed with: no printed grey at all, and nearly all of it
    plain paper. A bean leaves some of its grey spot bare; a piece that covers its spot
    whole (a PeltaPeeps piece) is coloured, not paper."""
    spot, empty_like, paper_like, _ = _spot_and_empty(reading, centre_mm, axes_mm)
    area = max(int(spot.sum()), 1)
    return (float((spot & empty_like).sum()) / area < MIN_GREY_SHARE
            and float((spot & paper_like).sum()) / area > MIN_PAPER_SHARE)


def piece_features(
    reading: CardReading, centre_mm, axes_mm: tuple[float, float], area_mm2: float
) -> tuple[np.ndarray, float]:
    """Features of the piece lying on one spot, and how much of its expected area shows.

    Spot pixels that look like the empty spot (the grey patch's colour, or a
    shadow of it) are left out; what remains, cleaned of specks, is the piece.
    """
    spot, empty_like, _paper, feats = _spot_and_empty(reading, centre_mm, axes_mm)
    obj = (spot & ~empty_like).astype(np.uint8)
    obj = cv2.morphologyEx(obj, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(obj, connectivity=8)
    if n <= 1:
        return np.zeros((0, 3)), 0.0
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    piece = (labels == biggest).astype(np.uint8)
    coverage = float(piece.sum()) / (area_mm2 * CARD_PX_PER_MM**2)
    core = cv2.erode(piece, np.ones((3, 3), np.uint8)) > 0  # no edge pixels mixed with the spot
    pf = feats[core] if core.any() else feats[piece > 0]
    return pf, coverage


def fit_model(feats: np.ndarray) -> ColourModel:
    """Mean and covariance, leaving out highlights and the darkest crevices."""
    lum = feats[:, 2]
    lo, hi = np.percentile(lum, [3, 92])
    core = feats[(lum >= lo) & (lum <= hi)]
    if len(core) < 10:
        core = feats
    cov = np.cov(core, rowvar=False) + np.diag(FEATURE_FLOOR**2)
    return ColourModel(core.mean(axis=0), cov, len(core))


def _no_piece(slot: int, key: str, what: str) -> CalibrationError:
    spot = "small round" if what == "bean" else "large oval"
    return CalibrationError(f"slot {slot} ({key}) has no {what} on its {spot} spot: put one of "
                            f"{key}'s {what}s there and take the photo again")


def calibrate_colours(
    photo: np.ndarray, keys: list[str]
) -> tuple[dict[str, PlayerColours], list[str]]:
    """Each player's bean and peep colour from a photo of the loaded card.

    Slot i holds player ``keys[i - 1]``'s bean (small spot) and peep (large spot).
    """
    found = calibrate_card(photo, keys)
    return found.models, found.warnings


def calibrate_card(photo: np.ndarray, keys: list[str]) -> CardCalibration:
    """:func:`calibrate_colours` with the card's white; every peep spot empty gives a
    profile of pegs or marbles (peep None), one of several empty is refused."""
    reading = read_card(photo, len(keys))
    beans: dict[str, ColourModel] = {}
    peeps: dict[str, ColourModel | None] = {}
    for key, slot in zip(keys, reading.layout.slots, strict=True):
        if spot_is_blank_paper(reading, slot.bean_mm, (BEAN_SPOT_R_MM, BEAN_SPOT_R_MM)):
            # Cards for 3 and 4 players (5 and 6) have one size: only the print tells them apart.
            printed = slot.slot - 1
            raise CalibrationError(
                f"slot {slot.slot} ({key}) is not printed on the card in the photo: it is a "
                f"card for {printed} player{'s' if printed != 1 else ''}; name {printed} "
                f"players, or print a card for {len(keys)} with 'companion print card "
                f"--players {len(keys)}'"
            )
        feats, coverage = piece_features(reading, slot.bean_mm,
                                         (BEAN_SPOT_R_MM, BEAN_SPOT_R_MM), BEAN_AREA_MM2)
        if coverage < MIN_COVERAGE or len(feats) < 10:
            raise _no_piece(slot.slot, key, "bean")
        beans[key] = fit_model(feats)
        feats, coverage = piece_features(reading, slot.peep_mm, PEEP_SPOT_AXES_MM, PEEP_AREA_MM2)
        peeps[key] = fit_model(feats) if coverage >= MIN_COVERAGE and len(feats) >= 10 else None
    warnings = list(reading.warnings)
    missing = [(s.slot, k) for s, k in zip(reading.layout.slots, keys, strict=True)
               if peeps[k] is None]
    if missing and len(missing) < len(keys):
        raise _no_piece(missing[0][0], missing[0][1], "peep")
    if missing:
        warnings.append("no peeps on the card: the profile has one colour per player (pegs or "
                        "marbles, for Petri)")
    models = {k: PlayerColours(beans[k], peeps[k]) for k in keys}
    for what in ("bean", "peep"):
        for a, b in combinations(keys, 2):
            ma, mb = getattr(models[a], what), getattr(models[b], what)
            if ma is None or mb is None:
                continue
            d = separation(ma, mb)
            if d < MIN_SEPARATION:
                raise CalibrationError(
                    f"{a}'s and {b}'s {what}s look too alike to tell apart (separation "
                    f"{d:.1f}, need {MIN_SEPARATION}): give one player another colour"
                )
    return CardCalibration(models, warnings, reading.white)
