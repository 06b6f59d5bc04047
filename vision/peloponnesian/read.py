"""Reading the printed map of A Peloponnesian War from one frame.

1. The map: its ArUco markers give the homography from the sheet (mm) to the
   frame; the frame is warped to a top-down picture of the sheet, RECT_PPM
   pixels per mm, where every area is the same box.
2. Each area's box is read against its own paper: the box's bright pixels give
   its white (so a lamp's colour, a gradient or a shadow across the map matter
   little), then every pixel is compared with it:

   - counters: pixels of a city's printed colour (saturated, of that city's hue
     in linear light); a spot whose ring is mostly that colour holds a counter,
     and colour off the spots is counted by its area, with a low confidence. A
     thick counter's top is seen beyond its spot, away from a tilted camera:
     each frame is fitted to one thickness for its counters
     (:func:`counter_height`), and the rings are moved by it;
   - chits: dark squares the size of a chit's code; the 3 x 3 modules inside
     name the chit (one misread module is corrected, more is refused); the
     code's centre says whose side of the area it lies on (Sparta left, Thebes
     middle, Athens right). Where blur has left only pieces of a code dark
     enough, and the area would be occluded for them, the code is found by
     its mean darkness instead (:func:`_blurred_codes`);
   - anything else that is neither paper nor print (a hand, a sleeve, a cup,
     a code that cannot be read) makes the area occluded: the reader says it
     cannot see that area rather than guess;
   - so does a name that cannot be seen (something as pale as paper over it),
     judged against the contrast the name's print should keep at that scale in
     this frame (:func:`hidden_names`).

An area partly out of the frame is occluded too; a frame without the map gives
an observation with no areas and a warning saying what to fix.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from vision.markers import detect_markers
from vision.peloponnesian.art import (
    CODE_GRID,
    CODES,
    PLAYER_BGR,
    chit_types,
    code_bits,
    map_image,
)
from vision.peloponnesian.layout import (
    CODE_MM,
    COUNTER_MM,
    COUNTER_ROW_Y,
    COUNTER_XS,
    NAME_BAND_MM,
    MapLayout,
)
from vision.viewpoint import CameraAbove, camera_above

RECT_PPM = 2.0  # px per mm of the top-down picture
PLAYERS = ("sparta", "athens", "thebes")
MIN_MARKERS = 2
SAT_PLAYER = 0.28  # saturation (max - min) / max above which a pixel may be a counter's
# A city's colour is told by hue, which blur keeps: a far, blurred counter mixes its colour
# with its paper, its border and its white letter, all neutral, so its saturation and
# brightness fall but its hue stays. Hue is taken in linear light, balanced on the paper's
# white (white balance is a linear-light operation; done on sRGB values a warm lamp turns
# Thebes' green 30 degrees towards yellow). Windows are a little under half the gap to the
# next city; Sparta's stops short of skin and wood (10-50 degrees).
HUE_WINDOW = {"sparta": (-20.0, 8.0), "athens": (-45.0, 45.0), "thebes": (-45.0, 45.0)}
SAT_FOREIGN = 0.15  # ... above which a pixel is not paper (skin, a sleeve, a cup)
DARK = 0.45  # brightness (of the box's white) under which a pixel is ink or a chit's code
SPECKLE_PX = 2.5  # frame pixels of speckle a hand is wider than
BLEED_PX = 4.0  # frame pixels round a counter its colour may bleed into (JPEG, blur)
FOREIGN_MM2 = 12.0  # unexplained paper this large makes an area occluded
PAPER_HUE = 0.035  # a box whose white differs more in chromaticity from the map's is covered
PAPER_DARK = 0.4  # ... or whose white is darker than this share of the map's
# A name shows when it keeps this share of the contrast expected of it. The expectation
# (expected_name_contrast) is scaled by the frame's own ratio of seen to expected contrast,
# over all its areas: JPEG, focus and a slightly-off homography soften every name alike.
NAME_KEEPS = 0.35
NAME_SHIFT_MM = 2.0
CAMERA_BLUR_PX = 1.0
COUNT_DOUBT = 0.3  # a count this unsure is reported with a low confidence
# Counters' thicknesses (mm) a frame is fitted to: printed paper, card, wood or plastic tokens.
COUNTER_HEIGHTS_MM = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0)
RING_MM = (3.2, 5.2)  # a spot's ring: this far from its centre (mm, square distance)
SPOT_FULL = 0.45  # share of a spot's ring in a city's colour: a counter of that city
SPOT_EMPTY = 0.15  # ... at most this: no counter (between the two: doubtful)
OFF_SPOT = 0.35  # a city's colour off the spots, in counters' areas: a counter off its spot
CODE_SIDE = (0.75, 1.3)  # a code's side, as a share of the printed CODE_MM
CODE_MEAN = 0.7  # mean brightness (of the paper's) over a code-sized window holding a code
NO_MAP = ("no map found: the printed map's markers are not in view (put the whole map in "
          "the picture, lit evenly)")
PART_OUT = "part of the map is out of view: the areas outside are reported occluded"
TOO_SMALL = ("part of the map is seen at under 1 pixel per mm: bring the camera closer or tilt "
             "it less (areas read there may be reported occluded)")
SMALL_SCALE = 1.0  # frame pixels per mm under which the chits' modules are 3 pixels or fewer


def _hue_deg(bgr: tuple[int, int, int]) -> float:
    """A colour's hue in degrees (0 red, 120 green, 240 blue).

    >>> round(_hue_deg((0, 0, 255))), round(_hue_deg((0, 255, 0))), round(_hue_deg((255, 0, 0)))
    (0, 120, 240)
    """
    b, g, r = (float(c) for c in bgr)
    return float(np.degrees(np.arctan2(np.sqrt(3) * (g - b), 2 * r - g - b)) % 360)


def _linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB values 0-255 to linear light 0-1."""
    x = np.asarray(srgb, np.float64) / 255
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


_LINEAR = _linear(np.arange(256)).astype(np.float32)
PLAYER_HUE = {p: _hue_deg(tuple(_linear(np.array(c)))) for p, c in PLAYER_BGR.items()}


def _square_px(mm: float) -> np.ndarray:
    """A square structuring element about ``mm`` wide in the top-down picture (odd pixels)."""
    n = max(3, 2 * round(mm * RECT_PPM / 2) + 1)
    return np.ones((n, n), np.uint8)


@dataclass
class MapView:
    homography: np.ndarray  # sheet mm -> frame px
    markers: int


@dataclass
class Reading:
    data: dict[str, Any]
    view: MapView | None
    states: dict[str, str] = field(default_factory=dict)  # area -> "ok", "occluded"


def find_map(frame: np.ndarray, lay: MapLayout) -> MapView | None:
    """The sheet mm -> frame homography from the map's markers (None: not enough seen)."""
    hits = detect_markers(frame)
    src, dst = [], []
    for mid, corners in zip(hits.ids, hits.corners, strict=True):
        if int(mid) in lay.markers:
            src.append(lay.markers[int(mid)])
            dst.append(corners)
    if len(src) < MIN_MARKERS:
        return None
    h, _ = cv2.findHomography(np.vstack(src).astype(np.float32),
                              np.vstack(dst).astype(np.float32), cv2.RANSAC, 4.0)
    if h is None:
        return None
    return MapView(h / h[2, 2], len(src))


@dataclass(frozen=True)
class PrintInk:
    """What the sheet itself prints, top-down at RECT_PPM: where it is marked (names, lines;
    a little wider), where its names are printed exactly, and its grey picture."""

    marked: np.ndarray
    names: np.ndarray
    gray: np.ndarray
    expected: dict[tuple[tuple[int, int, int, int], int], float] = field(default_factory=dict)


_INK: dict[int, tuple[MapLayout, PrintInk]] = {}


def _print_ink(lay: MapLayout) -> PrintInk:
    got = _INK.get(id(lay))
    if got is not None and got[0] is lay:
        return got[1]
    img = map_image(lay, RECT_PPM * 2)
    size = (round(lay.width_mm * RECT_PPM), round(lay.height_mm * RECT_PPM))
    gray = cv2.cvtColor(cv2.resize(img, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    ink = PrintInk(cv2.dilate((gray < 215).astype(np.uint8), _square_px(2.0)),
                   (gray < 140).astype(np.uint8), gray.astype(np.float32))
    _INK[id(lay)] = (lay, ink)
    return ink


def name_contrast(v: np.ndarray, name: np.ndarray) -> float:
    """How much darker a name's darkest tenth is than the paper round it (0: not seen)."""
    k = int(np.count_nonzero(name)) // 10
    paper = float(np.median(v[~name]))
    if k == 0 or paper <= 0:
        return 0.0
    return max(0.0, 1 - float(np.partition(v[name], k)[k]) / paper)


def expected_name_contrast(ink: PrintInk, box_px: tuple[int, int, int, int],
                           scale: float) -> float:
    """The contrast a name's print keeps when seen at ``scale`` frame pixels per mm: the
    printed grey, blurred by one frame pixel of a camera's blur plus the pixel's own width.
    (Scales are taken in steps of 4 %, so a camera that stays put reuses its answers.)"""
    step = round(float(np.log(max(scale, 0.1)) / np.log(1.04)))
    key = (box_px, step)
    got = ink.expected.get(key)
    if got is None:
        got = ink.expected[key] = _blurred_contrast(ink, box_px, 1.04 ** step)
    return got


def _blurred_contrast(ink: PrintInk, box_px: tuple[int, int, int, int], scale: float) -> float:
    x0, y0, x1, y1 = box_px
    band = slice(y0, y0 + round(NAME_BAND_MM * RECT_PPM))
    sigma = float(np.hypot(CAMERA_BLUR_PX, 0.3)) / scale * RECT_PPM
    pad = int(3 * sigma) + 1
    sub = ink.gray[max(0, band.start - pad):band.stop + pad, max(0, x0 - pad):x1 + pad]
    blurred = cv2.GaussianBlur(sub, (0, 0), sigma)
    oy, ox = band.start - max(0, band.start - pad), x0 - max(0, x0 - pad)
    blurred = blurred[oy:oy + band.stop - band.start, ox:ox + x1 - x0]
    return name_contrast(blurred, ink.names[band, x0:x1].astype(bool))


def _rectify(frame: np.ndarray, view: MapView, lay: MapLayout) -> np.ndarray:
    """The sheet top-down."""
    size = (round(lay.width_mm * RECT_PPM), round(lay.height_mm * RECT_PPM))
    to_mm = np.array([[1 / RECT_PPM, 0, 0.5 / RECT_PPM], [0, 1 / RECT_PPM, 0.5 / RECT_PPM],
                      [0, 0, 1]])
    m = view.homography @ to_mm
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return cv2.warpPerspective(frame, m, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)


def in_frame(view: MapView, box: tuple[float, float, float, float],
             size: tuple[int, int]) -> bool:
    """Whether the whole of a box (mm) is inside the frame (``size``: width, height)."""
    x0, y0, x1, y1 = box
    pts = cv2.perspectiveTransform(np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]],
                                            np.float64), view.homography)[0]
    w, h = size
    return bool((pts[:, 0] >= 0).all() and (pts[:, 0] <= w - 1).all()
                and (pts[:, 1] >= 0).all() and (pts[:, 1] <= h - 1).all())


def _code_table() -> tuple[np.ndarray, tuple[str, ...]]:
    return np.array([code_bits(c).ravel() for c in CODES], np.uint8), chit_types()


_CODES, _TYPES = _code_table()
_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
# The 3 x 3 modules' sample points (2 x 2 each) and the border's, in the unit square.
_g = np.array([0.35, 0.65])
_MOD = np.array([[(i + 1 + u) / CODE_GRID, (j + 1 + v) / CODE_GRID]
                 for j in range(3) for i in range(3) for v in _g for u in _g], np.float32)
_BORDER = np.array([[(i + 0.5) / CODE_GRID, (j + 0.5) / CODE_GRID]
                    for j in range(CODE_GRID) for i in range(CODE_GRID)
                    if i in (0, CODE_GRID - 1) or j in (0, CODE_GRID - 1)], np.float32)


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners as TL, TR, BR, BL of the top-down picture (a chit lies the right way up)."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # clockwise on screen from the left-most angle
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -start, axis=0)


def read_code(norm: np.ndarray, quad: np.ndarray) -> tuple[str | None, int]:
    """The chit a code square shows (None: unreadable), and the modules corrected."""
    q = _order(quad.astype(np.float32))
    m = cv2.getPerspectiveTransform(_UNIT, q)
    pts = cv2.perspectiveTransform(np.concatenate([_MOD, _BORDER])[None], m)[0]
    xs, ys = pts[:, 0], pts[:, 1]
    vals = cv2.remap(norm, xs[None].astype(np.float32), ys[None].astype(np.float32),
                     cv2.INTER_LINEAR)[0]
    mods = vals[:len(_MOD)].reshape(9, 4).mean(axis=1)
    black = float(np.median(vals[len(_MOD):]))
    white = max(float(mods.max()), black + 0.2)
    bits = (mods < (black + white) / 2).astype(np.uint8)
    if bits.all():  # no white module: not a code (every code has some)
        return None, 0
    if (vals[len(_MOD):] >= (black + white) / 2).any():  # a code's border is dark all round
        return None, 0
    dist = np.count_nonzero(bits[None] != _CODES, axis=1)
    best = int(np.argmin(dist))
    if dist[best] > 1:
        return None, int(dist[best])
    return _TYPES[best], int(dist[best])


@lru_cache(maxsize=8)
def _spot_pixels(shape: tuple[int, int]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per counter spot of a box's picture: its ring's pixels and the pixels where its
    counter may lie, each as (rows, columns), for a counter on the spot."""
    ys, xs = np.mgrid[0:shape[0], 0:shape[1]]
    out = []
    for x in COUNTER_XS:
        cx, cy = (x * RECT_PPM - 0.5), (COUNTER_ROW_Y * RECT_PPM - 0.5)
        d = np.maximum(np.abs(xs - cx), np.abs(ys - cy)) / RECT_PPM
        out.append((np.nonzero((d <= RING_MM[1]) & (d >= RING_MM[0])),
                    np.nonzero(d <= COUNTER_MM / 2 + 1.5)))
    return tuple(out)


@lru_cache(maxsize=4096)
def _moved(shape: tuple[int, int], spot: int, ring: bool, dx: int, dy: int) -> np.ndarray:
    """Flat indices of a spot's ring (or of where its counter may lie) moved by (dx, dy)
    pixels, less what that moves out of the box. (Kept: a frame's lifts vary slowly over
    the map, so areas and frames share them.)"""
    h, w = shape
    yx = _spot_pixels(shape)[spot][0 if ring else 1]
    ys, xs = yx[0] + dy, yx[1] + dx
    keep = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
    out = ys[keep] * w + xs[keep]
    out.flags.writeable = False
    return out


def _spot_rings(shape: tuple[int, int], lift: tuple[tuple[int, int], ...] = ((0, 0),) * 4,
                near: bool = True) -> tuple[tuple[np.ndarray, ...], np.ndarray | None]:
    """Each counter spot's ring in a box's picture (flat indices): the counter's border,
    clear of its letter (the letter's white washes out the middle once a frame is blurred);
    and, with ``near``, where any spot's counter may lie (a counter a little off its spot;
    neighbours overlap, so some indices come twice). ``lift``: where each spot's counter's
    top face is seen from its spot (whole box pixels, :func:`counter_lift`); what that moves
    out of the box is left out."""
    rings = tuple(_moved(shape, k, True, dx, dy) for k, (dx, dy) in enumerate(lift))
    if not near:
        return rings, None
    return rings, np.concatenate([_moved(shape, k, False, dx, dy)
                                  for k, (dx, dy) in enumerate(lift)])


def counter_lift(camera: CameraAbove | None, box_mm: tuple[float, float, float, float],
                 height_mm: float) -> tuple[tuple[int, int], ...]:
    """Where the top face of a counter ``height_mm`` thick on each of a box's spots is seen,
    from the spot, in whole pixels of the top-down picture: a tilted camera sees a thick
    counter's top beyond its spot, away from the camera.

    >>> cam = CameraAbove((0.0, 500.0), 400.0)  # the camera's nadir below the box
    >>> counter_lift(cam, (0.0, 0.0, 62.0, 42.0), 0.0)[0]
    (0, 0)
    >>> counter_lift(cam, (0.0, 0.0, 62.0, 42.0), 4.0)[0]  # 4.9 mm towards the top
    (0, -10)
    """
    return _lifts(camera, box_mm, (height_mm,))[0]


def _lifts(camera: CameraAbove | None, box_mm: tuple[float, float, float, float],
           heights: tuple[float, ...]) -> list[tuple[tuple[int, int], ...]]:
    """:func:`counter_lift` for each of ``heights``, computed together."""
    if camera is None:
        return [((0, 0),) * len(COUNTER_XS)] * len(heights)
    x0, y0 = box_mm[:2]
    spots = np.array([[x0 + x, y0 + COUNTER_ROW_Y] for x in COUNTER_XS])
    away = (spots - np.asarray(camera.nadir, float)) * RECT_PPM
    out = []
    for h in heights:
        if not 0.0 <= h < camera.height:
            raise ValueError(f"a counter {h} mm thick is not between the table and the camera")
        d = np.rint(away * (h / (camera.height - h))).astype(int)
        out.append(tuple((int(dx), int(dy)) for dx, dy in d))
    return out


def _counts(mask: np.ndarray, spots: tuple[tuple[np.ndarray, ...], np.ndarray],
            unit_px: float) -> tuple[int, float]:
    """Counters in a player's mask: the spots whose ring is mostly that colour, plus any
    blob off the spots by its area; and the doubt (0: sure)."""
    flat = mask.reshape(-1)
    total, doubt = 0, 0.0
    off = mask.copy()
    rings, near = spots
    for ring in rings:
        share = float(flat[ring].mean())
        if share >= SPOT_FULL:
            total += 1
        elif share > SPOT_EMPTY:
            total += share >= (SPOT_FULL + SPOT_EMPTY) / 2
            doubt = max(doubt, 0.5)
    off.reshape(-1)[near] = 0  # what lies off the spots
    left = float(off.sum())
    if left > OFF_SPOT * unit_px:
        total += max(1, round(left / (0.6 * unit_px)))
        doubt = max(doubt, 0.5)
    return total, doubt


def box_white(rect: np.ndarray, box_px: tuple[int, int, int, int]) -> np.ndarray:
    """A box's paper colour: the 75th percentile of each channel (the box is mostly paper)."""
    x0, y0, x1, y1 = box_px
    sub = rect[y0:y1:3, x0:x1:3].reshape(-1, 3)
    k = int(0.75 * (len(sub) - 1))
    return np.partition(sub, k, axis=0)[k].astype(np.float32) + 1.0


def paper_like(white: np.ndarray, paper: np.ndarray) -> bool:
    """Whether a box's white is the map's paper (not a hand or a sleeve lying over most of it):
    the same hue, and not much darker than a shadow makes it."""
    chroma = white / white.sum() - paper / paper.sum()
    return bool(np.abs(chroma).max() <= PAPER_HUE and white.sum() >= PAPER_DARK * paper.sum())


def frame_scale(view: MapView, at_mm: tuple[float, float]) -> float:
    """Frame pixels per mm of the sheet at ``at_mm`` (the homography's local scale)."""
    pts = np.array([[at_mm, (at_mm[0] + 1, at_mm[1]), (at_mm[0], at_mm[1] + 1)]], np.float64)
    p = cv2.perspectiveTransform(pts, view.homography)[0]
    (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
    return float(np.sqrt(abs(ax * by - ay * bx)))


@dataclass(frozen=True)
class AreaPixels:
    """An area's box read against its paper: brightness (``v``, of the paper's), saturation,
    the pixels of some colour, and each city's counters' colour (cleaned of specks; only
    cities with enough of it to hold a counter)."""

    v: np.ndarray
    sat: np.ndarray
    coloured: np.ndarray
    cities: dict[str, np.ndarray]


def area_pixels(rect: np.ndarray, box_px: tuple[int, int, int, int],
                white: np.ndarray) -> AreaPixels:
    """:class:`AreaPixels` of the box ``box_px`` of the top-down picture, whose paper is
    ``white``."""
    x0, y0, x1, y1 = box_px
    crop = rect[y0:y1, x0:x1].astype(np.float32)
    norm = crop * (1 / white)
    b, g, r = norm[:, :, 0], norm[:, :, 1], norm[:, :, 2]
    v = np.ascontiguousarray(np.maximum(np.maximum(b, g), r))
    lo = np.minimum(np.minimum(b, g), r)
    sat = (v - lo) / np.maximum(v, 1e-3)
    coloured = (sat > SAT_PLAYER) & (v > 0.25)
    kernel = np.ones((3, 3), np.uint8)
    unit = COUNTER_MM**2 * RECT_PPM**2
    cities = {}
    if np.count_nonzero(coloured) > 0.1 * unit:  # most boxes hold no counter
        at = np.nonzero(coloured)
        lin = _LINEAR[rect[y0:y1, x0:x1][at]] / _linear(np.minimum(white - 1, 255))
        cb, cg, cr = lin[:, 0], lin[:, 1], lin[:, 2]
        hue = np.degrees(np.arctan2(np.sqrt(3) * (cg - cb), 2 * cr - cg - cb))
        for p, (lo_deg, hi_deg) in HUE_WINDOW.items():
            off = (hue - PLAYER_HUE[p] + 180) % 360 - 180
            m = np.zeros(v.shape, np.uint8)
            m[at] = (off >= lo_deg) & (off <= hi_deg)
            if np.count_nonzero(m) < 0.1 * unit:
                continue
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
            cities[p] = cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel)
    return AreaPixels(v, sat, coloured, cities)


def counter_height(camera: CameraAbove | None, lay: MapLayout,
                   pixels: dict[str, AreaPixels]) -> float:
    """How thick this table's counters are (mm, one of COUNTER_HEIGHTS_MM), fitted to the
    whole frame: the height whose counters' tops, as a tilted camera sees them
    (:func:`counter_lift`), put the most of the cities' colour on the spots' rings. Every
    counter of a set is as thick as the others, so one height serves the frame; paper
    counters fit 0, where the rings are where they were printed. 0 without a camera pose
    (seen from straight above, height shifts nothing)."""
    if camera is None:
        return 0.0
    score = np.zeros(len(COUNTER_HEIGHTS_MM))
    for aid, px in pixels.items():
        if not px.cities:
            continue
        # Every height's rings at once: one gather per city, summed ring by ring.
        rings = [_moved(px.v.shape, k, True, dx, dy)
                 for lift in _lifts(camera, lay.areas[aid].box, COUNTER_HEIGHTS_MM)
                 for k, (dx, dy) in enumerate(lift)]
        sizes = np.array([len(r) for r in rings])
        at = np.concatenate(rings)
        # Each pixel counted for its ring (a ring lifted wholly out of the box has none).
        ring_of = np.repeat(np.arange(len(rings)), sizes)
        counts = np.stack([np.bincount(ring_of, weights=m.reshape(-1)[at], minlength=len(rings))
                           for m in px.cities.values()])
        shares = counts.max(axis=0) / np.maximum(sizes, 1)
        score += shares.reshape(len(COUNTER_HEIGHTS_MM), -1).sum(axis=1)
    # Ties go to the thinner: the first of the highest.
    return float(COUNTER_HEIGHTS_MM[int(np.argmax(score + 1e-9 * -np.arange(len(score))))])


def read_area(rect: np.ndarray, ink: PrintInk, box_px: tuple[int, int, int, int],
              lay: MapLayout, area: str, white: np.ndarray, scale: float = 2.0,
              lift: tuple[tuple[int, int], ...] = ((0, 0),) * 4,
              pixels: AreaPixels | None = None) -> dict[str, Any]:
    """One area's reading: counters and chits, or occluded. ``scale``: frame pixels per mm
    there (a coarse, far part of the frame smears a counter's colour wider); ``lift``: where
    counters' tops are seen from their spots (:func:`counter_lift`); ``pixels``: the box's
    :func:`area_pixels`, if known. Whether its name shows is decided over the whole frame
    (:func:`hidden_names`), before."""
    x0, y0, x1, y1 = box_px
    px = pixels if pixels is not None else area_pixels(rect, box_px, white)
    v, sat, coloured = px.v, px.sat, px.coloured
    ink_box = ink.marked[y0:y1, x0:x1]
    unit = COUNTER_MM**2 * RECT_PPM**2
    spots = _spot_rings(v.shape, lift)
    counters: dict[str, int] = {}
    doubt = 0.0
    explained = np.zeros(v.shape, np.uint8)
    for p, m8 in px.cities.items():
        n, worst = _counts(m8, spots, unit)
        if n:
            counters[p] = n
            doubt = max(doubt, worst)
            explained |= m8
    # JPEG keeps colour at half resolution: a counter's colour bleeds ~3 frame pixels round it.
    explained = cv2.dilate(explained, _square_px(2.0 + BLEED_PX / max(scale, 0.5)))
    dark = (v < DARK).astype(np.uint8)
    chits: list[dict[str, str]] = []
    unreadable = 0
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    side_px = CODE_MM * RECT_PPM
    judged = np.zeros_like(dark)  # the dark shapes large enough to be judged as codes
    for c in contours:
        area_px = cv2.contourArea(c)
        if area_px < (CODE_SIDE[0] * side_px) ** 2 * 0.8:
            continue
        cv2.drawContours(judged, [c], 0, 1, cv2.FILLED)
        rect_c = cv2.minAreaRect(c)
        w, h = rect_c[1]
        box = cv2.boxPoints(rect_c)
        # A code is a convex square: its hull fills its rectangle, even where blur lets a white
        # module run into the border and notch the dark outline.
        hull_px = cv2.contourArea(cv2.convexHull(c))
        if not (CODE_SIDE[0] * side_px <= min(w, h) and max(w, h) <= CODE_SIDE[1] * side_px
                and hull_px > 0.8 * w * h):
            unreadable += 1
            continue
        kind, fixed = read_code(v, box)
        # A notched outline is weaker evidence of a code (blur joins a white module to the
        # paper; so does a dark thing that only looks square): it must then read exactly.
        if kind is None or (fixed and area_px <= 0.8 * w * h):
            unreadable += 1
            continue
        cx = float(box[:, 0].mean()) / RECT_PPM + x0 / RECT_PPM
        chits.append({"type": kind, "player": lay.side_of(area, cx),
                      "_x": cx})
        cv2.fillPoly(explained, [np.round(box).astype(np.int32)], 1)
    limit = FOREIGN_MM2 * RECT_PPM**2
    foreign = _foreign(v, sat, explained, ink_box, scale)
    if not unreadable and int(foreign.sum()) > limit:
        # Dark pixels no code explains: perhaps codes that blur has made too pale to be
        # judged. Looked for only here, where the area would be occluded otherwise.
        for kind, box in _blurred_codes(v, judged, coloured.view(np.uint8)):
            cx = float(box[:, 0].mean()) / RECT_PPM + x0 / RECT_PPM
            chits.append({"type": kind, "player": lay.side_of(area, cx), "_x": cx})
            cv2.fillPoly(explained, [np.round(box).astype(np.int32)], 1)
            foreign = _foreign(v, sat, explained, ink_box, scale)
    if unreadable or int(foreign.sum()) > limit:
        return {"occluded": True}
    out: dict[str, Any] = {}
    if counters:
        out["counters"] = counters
    if chits:
        chits.sort(key=lambda ch: ch.pop("_x"))
        out["chits"] = chits
    if doubt > COUNT_DOUBT:
        out["confidence"] = round(max(0.0, 1 - 2 * doubt), 2)
    return out


def _foreign(v: np.ndarray, sat: np.ndarray, explained: np.ndarray, ink_box: np.ndarray,
             scale: float) -> np.ndarray:
    """An area's pixels that are neither paper, nor print, nor a piece read (``explained``)."""
    # A code's dark edge spreads by the frame's blur too: two frame pixels (twice its sigma).
    explained = cv2.dilate(explained, _square_px(2.0 + 2 * CAMERA_BLUR_PX / max(scale, 0.5)))
    foreign = ((sat > SAT_FOREIGN) & (v > 0.12)) | (v < DARK)
    foreign = foreign.astype(np.uint8) & (1 - explained) & (1 - ink_box)
    # Noise and JPEG speckle are a frame pixel or two wide: larger where the frame is coarse.
    return cv2.morphologyEx(foreign, cv2.MORPH_OPEN, _square_px(SPECKLE_PX / max(scale, 0.5)))


def _blurred_codes(v: np.ndarray, judged: np.ndarray, colour: np.ndarray
                   ) -> list[tuple[str, np.ndarray]]:
    """Codes that blur has made too pale for DARK: only parts of their outline fall under
    it, each too small to be judged as a code. A code is a square whose pixels are mostly
    dark whatever the blur (its border, and some of its modules): where the mean brightness
    over a code-sized window is under CODE_MEAN, the square is cut out of the window at
    half way between the darkest twentieth of the window and the paper (1), and read. No
    dark shape already judged may lie there, and only a code read exactly, with no module
    corrected, counts; what is not read stays what it was (unexplained). A code is black on
    white: ``colour`` (pixels of a counter's saturation) is never part of one, and a square
    that is much of it is none (a red counter's dark border round its white letter would
    otherwise read as a code with a white middle)."""
    side = round(CODE_MM * RECT_PPM)
    mean = cv2.blur(v, (side, side))
    found: list[tuple[str, np.ndarray]] = []
    taken = judged.copy()
    codes = np.zeros_like(judged)
    while True:
        lo, _, at, _ = cv2.minMaxLoc(np.where(taken > 0, 1.0, mean).astype(np.float32))
        if lo >= CODE_MEAN:
            return found
        cx, cy = at
        x0, y0 = max(cx - side, 0), max(cy - side, 0)
        win = v[y0:cy + side + 1, x0:cx + side + 1]
        cut = (win < (float(np.percentile(win, 5)) + 1.0) / 2).astype(np.uint8)
        cut[colour[y0:cy + side + 1, x0:cx + side + 1] > 0] = 0
        # Taken from the search whatever it turns out to be: each window is judged once.
        half = side // 2
        taken[max(cy - half, 0):cy + half + 1, max(cx - half, 0):cx + half + 1] = 1
        contours, _ = cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            continue
        c = max(contours, key=cv2.contourArea)
        rect_c = cv2.minAreaRect(c)
        cw, ch = rect_c[1]
        if not (CODE_SIDE[0] * side <= min(cw, ch) and max(cw, ch) <= CODE_SIDE[1] * side
                and cv2.contourArea(cv2.convexHull(c)) > 0.8 * cw * ch):
            continue
        box = cv2.boxPoints(rect_c) + np.array([x0, y0], np.float32)
        mine = np.zeros_like(judged)
        cv2.fillPoly(mine, [np.round(box).astype(np.int32)], 1)
        if (mine & (judged | codes)).any():  # a code judged already, or found here
            continue
        if np.count_nonzero(mine & colour) > 0.1 * np.count_nonzero(mine):
            continue
        kind, fixed = read_code(v, box)
        if kind is not None and not fixed:
            found.append((kind, box))
            codes |= mine
            # The windows round it see the same code: none of them is searched again.
            taken |= cv2.dilate(mine, _square_px(CODE_MM))


def hidden_names(rect: np.ndarray, ink: PrintInk, boxes: dict[str, tuple[int, int, int, int]],
                 whites: dict[str, np.ndarray], scales: dict[str, float]) -> set[str]:
    """The areas whose printed name does not show: something as pale as paper lies over it.

    A name is hidden when it keeps under NAME_KEEPS of the contrast expected of it at its
    scale, the expectation corrected by the median ratio of seen to expected contrast over
    the frame's areas (most are uncovered), so a soft frame does not hide every far name.
    """
    seen, expected = {}, {}
    for aid, (x0, y0, x1, y1) in boxes.items():
        band = slice(y0, y0 + round(NAME_BAND_MM * RECT_PPM))
        name = ink.names[band, x0:x1].astype(bool)
        if not name.any():
            continue
        v = (rect[band, x0:x1].astype(np.float32) / whites[aid]).max(axis=2)
        seen[aid] = name_contrast(v, name)
        expected[aid] = expected_name_contrast(ink, (x0, y0, x1, y1), scales[aid])
    ratios = [seen[a] / expected[a] for a in seen if expected[a] > 0]
    if not ratios:
        return set()
    softness = min(1.0, float(np.median(ratios)))
    return {a for a in seen if seen[a] < NAME_KEEPS * softness * expected[a]
            and _shifted_contrast(rect, ink, boxes[a], whites[a])
            < NAME_KEEPS * softness * expected[a]}


def _shifted_contrast(rect: np.ndarray, ink: PrintInk, box_px: tuple[int, int, int, int],
                      white: np.ndarray) -> float:
    """A name's best contrast with its print moved up to NAME_SHIFT_MM either way: far from
    the markers, a lens's distortion puts the sheet a millimetre or two off the homography."""
    x0, y0, x1, _ = box_px
    reach = round(NAME_SHIFT_MM * RECT_PPM)
    h = round(NAME_BAND_MM * RECT_PPM)
    ys, xs = np.nonzero(ink.names[y0:y0 + h, x0:x1])
    sy, sx = max(0, y0 - reach), max(0, x0 - reach)
    sub = (rect[sy:y0 + h + reach, sx:x1 + reach].astype(np.float32) / white).max(axis=2)
    best = 0.0
    for dy in range(-reach, reach + 1, 2):
        for dx in range(-reach, reach + 1, 2):
            yy, xx = ys + y0 - sy + dy, xs + x0 - sx + dx
            ok = (yy >= 0) & (yy < sub.shape[0]) & (xx >= 0) & (xx < sub.shape[1])
            mask = np.zeros(sub.shape, bool)
            mask[yy[ok], xx[ok]] = True
            best = max(best, name_contrast(sub, mask))
    return best


def read_map(frame: np.ndarray, lay: MapLayout) -> Reading:
    """The observation JSON (table standard, section 8) of one frame."""
    t0 = time.perf_counter()
    data: dict[str, Any] = {"game": "peloponnesian", "areas": {}, "warnings": []}
    # A map not seen says nothing of its areas: each is reported occluded, as those outside
    # a map partly in view are. Left out, an area would read empty (section 8), and every
    # piece on the table would be read gone, surely.
    unseen = {aid: {"occluded": True} for aid in lay.areas}
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
        data["warnings"].append("the frame is not a colour picture")
        data["areas"] = unseen
        return Reading(data, None)
    view = find_map(frame, lay)
    t1 = time.perf_counter()
    if view is None:
        data["warnings"].append(NO_MAP)
        data["areas"] = unseen
        data["timings_ms"] = {"map": round((t1 - t0) * 1000, 2), "areas": 0.0}
        return Reading(data, None)
    rect = _rectify(frame, view, lay)
    size = (frame.shape[1], frame.shape[0])
    ink = _print_ink(lay)
    states: dict[str, str] = {}
    out_of_view = 0
    small = False
    boxes = {aid: tuple(int(round(c * RECT_PPM)) for c in box.box)
             for aid, box in lay.areas.items() if in_frame(view, box.box, size)}
    whites = {aid: box_white(rect, bx) for aid, bx in boxes.items()}
    paper = np.median(np.array(list(whites.values())), axis=0) if whites else None
    scales = {aid: frame_scale(view, lay.areas[aid].centre) for aid in boxes}
    covered = {aid for aid in boxes if not paper_like(whites[aid], paper)}
    # The box's brightness, the map's colour: a hand over most of a box is not its paper.
    norms = {aid: paper * (whites[aid].sum() / paper.sum()) for aid in boxes if aid not in covered}
    covered |= hidden_names(rect, ink, {a: boxes[a] for a in norms}, norms, scales)
    pixels = {aid: area_pixels(rect, boxes[aid], norms[aid]) for aid in norms
              if aid not in covered}
    camera = camera_above(view.homography, size)
    if camera is not None and camera.height <= 10 * max(COUNTER_HEIGHTS_MM):
        camera = None  # a pose no camera over a table has: a degenerate homography
    height = counter_height(camera, lay, pixels)
    for aid in lay.areas:
        if aid not in boxes:
            data["areas"][aid] = {"occluded": True}
            states[aid] = "occluded"
            out_of_view += 1
            continue
        if aid in covered:
            data["areas"][aid] = {"occluded": True}
            states[aid] = "occluded"
            continue
        small = small or scales[aid] < SMALL_SCALE
        r = read_area(rect, ink, boxes[aid], lay, aid, norms[aid], scales[aid],
                      counter_lift(camera, lay.areas[aid].box, height), pixels[aid])
        states[aid] = "occluded" if r.get("occluded") else "ok"
        if r:
            data["areas"][aid] = r
    if out_of_view:
        data["warnings"].append(PART_OUT)
    if small:
        data["warnings"].append(TOO_SMALL)
    t2 = time.perf_counter()
    data["board"] = {"kind": "print", "markers": view.markers}
    data["timings_ms"] = {"map": round((t1 - t0) * 1000, 2),
                          "areas": round((t2 - t1) * 1000, 2)}
    return Reading(data, view, states)
