"""Finding every tile in a frame: its id, its pose on the table and its lattice position.

The table is a plane, so one homography H maps table millimetres to (ideal,
undistorted) image pixels; each printed tile lies on it with a rigid pose T_i.
A marker corner seen at pixel p obeys p = H T_i m, where m is the corner's
printed position on its tile. The Neutral tile fixes the table frame (T_0 = I).

The fit alternates: poses from H (back-project each tile's corners, fit a rigid
transform), then H from all corners of all tiles at once. Every marker corner of
every tile constrains H, so perspective is well determined even when the Neutral
tile shows a single marker. The lattice is then fitted to every tile's pose at
once (:mod:`vision.peepwar.lattice`), and each tile snapped to its nearest
position on it, which also tells how the print is turned (in sixths of a turn).

A frame smeared by a shaken camera is searched again in a copy with the streak undone
(:func:`_through_blur`, :mod:`vision.deblur`).

A live reader remembers where each tile lay (:data:`Layout`). When a hand or a cup
hides the Neutral tile, the table frame is taken from a tile seen before instead,
provided every remembered tile in view still lies where it did.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

from companion.rules.peepwar.board import Hex, tile_centre_mm
from vision.deblur import Streak, edge_width, motion_streaks, sharpen
from vision.geometry import Pose2D, apply_h, fit_rigid
from vision.kit_layout import MARKERS_PER_TILE, MAX_TILES, NEUTRAL_ID, tile_slots
from vision.lens import Intrinsics, distort_points, undistort_points
from vision.markers import MarkerHits, detect_markers, soft_markers, to_gray
from vision.peepwar.covered_tiles import covered_tile_hits
from vision.peepwar.lattice import Lattice, fit_lattice

# Farther than this from its position on the lattice fitted to all tiles: not placed, warned.
MAX_OFFSET_MM = 25.0
MAX_ANGLE_OFF_DEG = 15.0
COVERED_ROUNDS = 3  # rounds of looking for covered tiles beside those placed, a frame
# A tile read only from soft-decoded markers (vision.markers.soft_markers) stands when two
# of them agree on its pose; a lone one needs a clearer reading and a pose on the lattice
# the other tiles make.
SOFT_LONE_LLR = 20.0
SOFT_LONE_MM = 10.0
SOFT_LONE_DEG = 8.0
SOFT_AGREE = 0.15  # soft markers of one tile agree: centres within this share of a side
SOFT_AGREE_DEG = 20.0  # and each turned as the print says within this
# Markers' outer edges rising over more px than this (10-90%) mark a blurred frame: a
# sharp camera gives 2-2.5 px, a streak of 3 px or more 3.5 and up.
BLURRED_EDGE_PX = 3.0
BLUR_SEARCH_WIDTH = 1280  # px: frames wider are measured for blur shrunk to this width
# The frame's spectrum correlates this well or better with a streak's: motion-blurred
# frames score 0.6-0.95, defocused ones (round blur, no direction) 0.2-0.45.
MIN_STREAK_SCORE = 0.5
SOFT_CONFIDENCE = 0.5  # a tile placed by soft readings alone: its confidence scaled by this
# tile id -> (q, r, rotation) where a tile lay in an earlier frame (rotation in sixths)
Layout = Mapping[int, tuple[int, int, int]]


@dataclass(frozen=True)
class TileDetection:
    """One tile found in a frame."""

    tile_id: int
    q: int
    r: int
    rotation: int  # sixths of a turn the print lies turned from upright, 0..5
    pose: Pose2D  # the print's physical pose in the table frame
    offset_mm: float  # distance of its centre from its position on the fitted lattice
    angle_off_deg: float  # its angle from the fitted lattice's, after the sixths
    confidence: float  # 0..1
    markers_seen: tuple[int, ...]  # marker slots used in the fit
    rms_px: float  # marker-corner residual of the fit

    @property
    def hex(self) -> Hex:
        return (self.q, self.r)

    def cell_frame(self) -> Pose2D:
        """Pose taking lattice-standard tile coordinates (cells named by table side) to the table.

        In this frame the cell named ``"q,r/k"`` is exactly board's border cell k of
        a tile at the origin, whatever way the print is turned.
        """
        return Pose2D(self.pose.x, self.pose.y, self.pose.angle_deg - 60 * self.rotation)


@dataclass
class TableView:
    """What one frame says about the table's geometry."""

    frame_size: tuple[int, int]  # (width, height)
    tiles: list[TileDetection] = field(default_factory=list)
    homography: np.ndarray | None = None  # table mm -> ideal image pixels
    lattice: Lattice | None = None  # where the lattice lies in the table frame
    intrinsics: Intrinsics | None = None
    warnings: list[str] = field(default_factory=list)
    markers_found: int = 0
    # The motion streak (px) undone in a copy of the frame to find its tiles, if one was:
    # the frame is too blurred for its markers, and its pieces are read blurred.
    streak_px: float | None = None

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """Frame pixels (lens distortion included) of table points in mm."""
        if self.homography is None:
            raise ValueError("no table geometry in this frame (the Neutral tile was not found)")
        ideal = apply_h(self.homography, pts_mm)
        if self.intrinsics is None:
            return ideal
        return distort_points(ideal, self.intrinsics.camera_matrix, self.intrinsics.dist_coeffs)

    def to_table(self, pts_px: np.ndarray) -> np.ndarray:
        """Table mm of frame pixels (the inverse of :meth:`to_image`)."""
        if self.homography is None:
            raise ValueError("no table geometry in this frame (the Neutral tile was not found)")
        pts = np.asarray(pts_px, float).reshape(-1, 2)
        if self.intrinsics is not None:
            pts = undistort_points(pts, self.intrinsics.camera_matrix, self.intrinsics.dist_coeffs)
        return apply_h(np.linalg.inv(self.homography), pts)

    @property
    def confidence(self) -> float:
        if not self.tiles:
            return 0.0
        return round(float(np.mean([t.confidence for t in self.tiles])), 3)


@dataclass
class _Group:
    """The markers of one tile id: printed corner positions and where they were seen."""

    tile_id: int
    slots: list[int]
    local: np.ndarray  # (n, 4, 2) mm
    image: np.ndarray  # (n, 4, 2) ideal pixels
    pose: Pose2D | None = None

    def keep(self, mask: np.ndarray) -> None:
        self.slots = [s for s, k in zip(self.slots, mask, strict=True) if k]
        self.local = self.local[mask]
        self.image = self.image[mask]


def snap(pose: Pose2D) -> tuple[Hex, int, float, float]:
    """Nearest position on the ideal lattice (the Neutral tile's), the print's turn in
    sixths, distance (mm) and angle off (deg)."""
    return Lattice().snap(pose)


def _group_markers(hits: MarkerHits, ideal: np.ndarray) -> dict[int, _Group]:
    ids = np.asarray(hits.ids, int)
    keep = ids < MAX_TILES * MARKERS_PER_TILE
    tiles, slots = np.divmod(ids[keep], MARKERS_PER_TILE)
    ideal = ideal[keep]
    printed = _slot_corners()
    groups: dict[int, _Group] = {}
    for tile_id in np.unique(tiles):
        sel = tiles == tile_id
        groups[int(tile_id)] = _Group(
            int(tile_id), slots[sel].tolist(), printed[slots[sel]], ideal[sel]
        )
    return groups


@cache
def _slot_corners() -> np.ndarray:
    """(12, 4, 2) printed corner positions of every marker slot, in tile mm."""
    return np.stack([s.corners_mm for s in tile_slots()])


def _marker_rms(pred: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Per-marker RMS distance between predicted and seen corners, (n, 4, 2) each."""
    return np.sqrt(np.mean(np.sum((pred - seen) ** 2, axis=2), axis=1))


def dlt_homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares homography src -> dst by the normalised DLT (Hartley), 4+ points."""

    def normaliser(p: np.ndarray) -> np.ndarray:
        m = p.mean(axis=0)
        d = float(np.mean(np.linalg.norm(p - m, axis=1))) or 1.0
        k = math.sqrt(2) / d
        return np.array([[k, 0, -k * m[0]], [0, k, -k * m[1]], [0, 0, 1]])

    ts, td = normaliser(src), normaliser(dst)
    a = apply_h(ts, src)
    b = apply_h(td, dst)
    n = len(a)
    m = np.zeros((2 * n, 9))
    m[0::2, 0:2], m[0::2, 2] = a, 1
    m[0::2, 6:8] = -b[:, :1] * a
    m[0::2, 8] = -b[:, 0]
    m[1::2, 3:5], m[1::2, 5] = a, 1
    m[1::2, 6:8] = -b[:, 1:] * a
    m[1::2, 8] = -b[:, 1]
    # Only V is wanted: the full U (2n x 2n) costs milliseconds for a few dozen markers.
    _, _, vt = np.linalg.svd(m, full_matrices=2 * n < 9)
    h = np.linalg.inv(td) @ vt[-1].reshape(3, 3) @ ts
    return h / h[2, 2]


def _reference_homography(g: _Group) -> np.ndarray:
    """Reference tile mm -> image, dropping markers that disagree with the rest (misreads)."""
    if len(g.slots) == 1:
        src = g.local.reshape(-1, 2).astype(np.float32)
        return cv2.getPerspectiveTransform(src, g.image.reshape(-1, 2).astype(np.float32))
    h = dlt_homography(g.local.reshape(-1, 2), g.image.reshape(-1, 2))
    res = _marker_rms(apply_h(h, g.local.reshape(-1, 2)).reshape(-1, 4, 2), g.image)
    bad = res > max(3.0, 3 * float(np.median(res)))
    if bad.any() and (~bad).sum() >= 1:
        g.keep(~bad)
        return _reference_homography(g)
    return h


def _initial_poses(groups: list[_Group], hom: np.ndarray, ref: int) -> None:
    """Each tile's pose from its corners back-projected through ``hom``; misreads dropped."""
    inv = np.linalg.inv(hom)
    for g in groups:
        if g.tile_id == ref:
            g.pose = Pose2D(0.0, 0.0, 0.0)
            continue
        table = apply_h(inv, g.image.reshape(-1, 2))
        g.pose = fit_rigid(g.local.reshape(-1, 2), table)
        if len(g.slots) > 1:
            res = _marker_rms(g.pose.apply(g.local.reshape(-1, 2)).reshape(-1, 4, 2),
                              table.reshape(-1, 4, 2))
            bad = res > max(10.0, 3 * float(np.median(res)))
            if bad.any() and not bad.all():
                g.keep(~bad)
                g.pose = fit_rigid(g.local.reshape(-1, 2), table.reshape(-1, 4, 2)[~bad])


def _joint_refine(
    groups: list[_Group], hom: np.ndarray, ref: int, iterations: int = 12
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Levenberg-Marquardt over H (8 terms) and every non-Neutral pose (angle, x, y) at once.

    Alternating fits converge slowly when perspective and the tiles' poses trade
    off against each other; the joint step removes that drift in a few iterations.
    Poses are updated in place; returns the refined H and, per group, each
    marker's RMS corner residual in pixels.
    """
    movable = [g for g in groups if g.tile_id != ref]
    local = np.vstack([g.local.reshape(-1, 2) for g in groups])
    obs = np.vstack([g.image.reshape(-1, 2) for g in groups])
    owner = np.concatenate([np.full(g.local.shape[0] * 4, i) for i, g in enumerate(groups)])
    index = {id(g): i for i, g in enumerate(movable)}
    tile_col = np.array([index.get(id(g), -1) for g in groups])[owner]
    n_par = 8 + 3 * len(movable)

    def unpack(x: np.ndarray):
        h = np.append(x[:8], 1.0).reshape(3, 3)
        # One row of zeros stands for the reference tile's fixed pose.
        poses = np.vstack([x[8:].reshape(-1, 3), np.zeros((1, 3))])
        per_corner = poses[tile_col]  # tile_col -1 picks the zero row
        return h, per_corner[:, 0], per_corner[:, 1], per_corner[:, 2]

    def project(x: np.ndarray):
        h, ang, tx, ty = unpack(x)
        c, s = np.cos(ang), np.sin(ang)
        ux = c * local[:, 0] - s * local[:, 1] + tx
        uy = s * local[:, 0] + c * local[:, 1] + ty
        xx = h[0, 0] * ux + h[0, 1] * uy + h[0, 2]
        yy = h[1, 0] * ux + h[1, 1] * uy + h[1, 2]
        ww = h[2, 0] * ux + h[2, 1] * uy + 1.0
        return h, c, s, ux, uy, xx / ww, yy / ww, ww

    h0 = hom / hom[2, 2]
    x = np.concatenate([h0.ravel()[:8]] + [
        [math.radians(g.pose.angle_deg), g.pose.x, g.pose.y] for g in movable
    ])
    n = len(local)
    lam = 1e-3
    h, c, s, ux, uy, px, py, ww = project(x)
    cost = float(np.sum((px - obs[:, 0]) ** 2 + (py - obs[:, 1]) ** 2))
    for _ in range(iterations):
        prev_cost = cost
        jac = np.zeros((2 * n, n_par))
        rx, ry = slice(0, 2 * n, 2), slice(1, 2 * n, 2)
        jac[rx, 0], jac[rx, 1], jac[rx, 2] = ux / ww, uy / ww, 1 / ww
        jac[ry, 3], jac[ry, 4], jac[ry, 5] = ux / ww, uy / ww, 1 / ww
        jac[rx, 6], jac[rx, 7] = -px * ux / ww, -px * uy / ww
        jac[ry, 6], jac[ry, 7] = -py * ux / ww, -py * uy / ww
        if movable:
            # d(pixel)/d(table point), then the chain through each tile's pose
            a11 = (h[0, 0] - px * h[2, 0]) / ww
            a12 = (h[0, 1] - px * h[2, 1]) / ww
            a21 = (h[1, 0] - py * h[2, 0]) / ww
            a22 = (h[1, 1] - py * h[2, 1]) / ww
            dux = -s * local[:, 0] - c * local[:, 1]
            duy = c * local[:, 0] - s * local[:, 1]
            rows = np.nonzero(tile_col >= 0)[0]
            col = 8 + 3 * tile_col[rows]
            jac[2 * rows, col] = a11[rows] * dux[rows] + a12[rows] * duy[rows]
            jac[2 * rows + 1, col] = a21[rows] * dux[rows] + a22[rows] * duy[rows]
            jac[2 * rows, col + 1] = a11[rows]
            jac[2 * rows + 1, col + 1] = a21[rows]
            jac[2 * rows, col + 2] = a12[rows]
            jac[2 * rows + 1, col + 2] = a22[rows]
        res = np.empty(2 * n)
        res[rx] = px - obs[:, 0]
        res[ry] = py - obs[:, 1]
        jtj = jac.T @ jac
        jtr = jac.T @ res
        improved = False
        for _ in range(8):
            a = jtj + lam * np.diag(np.diag(jtj) + 1e-12)
            try:
                step = np.linalg.solve(a, -jtr)
            except np.linalg.LinAlgError:
                lam *= 10
                continue
            trial = x + step
            t = project(trial)
            new_cost = float(np.sum((t[5] - obs[:, 0]) ** 2 + (t[6] - obs[:, 1]) ** 2))
            if new_cost < cost:
                x, cost = trial, new_cost
                h, c, s, ux, uy, px, py, ww = t
                lam = max(lam / 10, 1e-9)
                improved = True
                break
            lam *= 10
        if not improved or prev_cost - cost < 1e-6 * prev_cost:
            break
    poses = x[8:].reshape(-1, 3)
    for g, (ang, tx, ty) in zip(movable, poses, strict=True):
        g.pose = Pose2D(float(tx), float(ty), math.degrees(float(ang)))
    err2 = ((px - obs[:, 0]) ** 2 + (py - obs[:, 1]) ** 2).reshape(-1, 4)
    marker_rms = np.sqrt(err2.mean(axis=1))
    splits = np.cumsum([len(g.slots) for g in groups])[:-1]
    return np.append(x[:8], 1.0).reshape(3, 3), np.split(marker_rms, splits)


def _confidence(n_markers: int, rms_px: float, offset_mm: float, angle_off: float) -> float:
    """Support from the number of markers, times fit quality, times closeness to the lattice."""
    support = 1.0 - 0.5**n_markers
    fit = math.exp(-((rms_px / 3.0) ** 2))
    lattice = 1.0 - 0.5 * max(offset_mm / MAX_OFFSET_MM, abs(angle_off) / MAX_ANGLE_OFF_DEG)
    return round(max(0.0, support * fit * lattice), 3)


def _ideal(hits: MarkerHits, intrinsics: Intrinsics | None) -> np.ndarray:
    """The markers' corners as an ideal pinhole camera would see them."""
    if intrinsics is None or not len(hits):
        return hits.corners
    return undistort_points(
        hits.corners.reshape(-1, 2), intrinsics.camera_matrix, intrinsics.dist_coeffs
    ).reshape(-1, 4, 2)


def find_tiles(
    frame: np.ndarray,
    intrinsics: Intrinsics | None = None,
    hits: MarkerHits | None = None,
    covered: bool = True,
    layout: Layout | None = None,
    _rounds: int | None = None,
    _soft: Mapping[int, float] | None = None,
    through_blur: bool = True,
) -> TableView:
    """Every tile in ``frame`` (see :func:`_find_tiles`); with ``through_blur``, looked for
    again in a sharpened copy of the frame when its markers' edges are smeared
    (:func:`_through_blur`)."""
    if hits is not None or _rounds is not None or _soft is not None:
        return _find_tiles(frame, intrinsics, hits, covered, layout, _rounds, _soft)
    gray = to_gray(frame)  # made once: the markers are searched in it, the blur measured
    hits = detect_markers(gray)
    view = _find_tiles(frame, intrinsics, hits, covered, layout, _searched=True)
    if not through_blur:
        return view
    return _through_blur(frame, gray, intrinsics, hits, covered, layout, view)


def _through_blur(frame: np.ndarray, gray: np.ndarray, intrinsics: Intrinsics | None,
                  hits: MarkerHits, covered: bool, layout: Layout | None, view: TableView
                  ) -> TableView:
    """``view``, or the view of a copy of ``frame`` with a motion streak undone, if that
    places more tiles.

    Tried when the read markers' outer edges rise over more than BLURRED_EDGE_PX (the
    print is sharp: the width is the camera's), or when too few edges were measured and
    the table is not found. The likeliest streak is estimated from the frame's spectrum
    (:func:`vision.deblur.motion_streaks`) and undone if the spectrum matches it better
    than MIN_STREAK_SCORE (a defocused frame widens the edges too, but matches no streak).
    A wrong guess costs time only: the copy's view is kept only when it places more
    tiles, and every tile it places is read and checked as any other."""
    # Measured and estimated in pixels of a frame BLUR_SEARCH_WIDTH across, as markers are
    # searched: a 4K camera's sharp edges rise over more of its pixels, and a streak is
    # longer in them. A wider frame's edges are sampled from the frame itself, at full
    # size, and scaled (shrinking it first would cost more than the look).
    scale = min(1.0, BLUR_SEARCH_WIDTH / frame.shape[1])
    width = edge_width(gray if scale == 1.0 else frame, hits.corners)
    width = None if width is None else width * scale
    lost = not view.tiles or any("Neutral Territory (tile 0)" in w for w in view.warnings)
    if not (width is not None and width > BLURRED_EDGE_PX or width is None and lost):
        return view
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                 interpolation=cv2.INTER_AREA)
    streaks = motion_streaks(small, 1)
    if not streaks or streaks[0].score < MIN_STREAK_SCORE:
        return view
    streak = streaks[0]
    # Searched first at the small size (cheap); a wider frame is sharpened whole only when
    # that finds more tiles, so that the tiles' fit uses all of its pixels.
    again = _find_tiles(sharpen(small, streak), intrinsics, None, covered, layout)
    if len(again.tiles) <= len(view.tiles):
        return view
    if scale < 1.0:
        streak = Streak(streak.length / scale, streak.angle_deg, streak.score)
        again = _find_tiles(sharpen(gray, streak), intrinsics, None, covered, layout)
        if len(again.tiles) <= len(view.tiles):
            return view
    again.markers_found = max(again.markers_found, view.markers_found)
    again.streak_px = streak.length
    again.warnings.append(
        f"the frame is blurred (a streak of about {streak.length:.0f} px): its tiles were "
        "found in a sharpened copy and its cells are asked about; hold the camera still")
    return again


def _find_tiles(
    frame: np.ndarray,
    intrinsics: Intrinsics | None = None,
    hits: MarkerHits | None = None,
    covered: bool = True,
    layout: Layout | None = None,
    _rounds: int | None = None,
    _soft: Mapping[int, float] | None = None,
    _searched: bool = False,
) -> TableView:
    """Every tile in ``frame``, placed on the lattice, and the table-to-image homography.

    With ``covered``, a tile next to a placed one whose markers the detector missed
    (every one touched by a piece or half under a hand) is looked for where the
    lattice puts it (:mod:`vision.peepwar.covered_tiles`), and so is the Neutral tile beside
    the others when it is the one missed. Never raises on a bad frame: a
    frame with no tiles or without the Neutral tile gives a view with no tiles and a
    warning that says what to do, unless ``layout`` (where tiles lay in earlier frames)
    places them without it: see :func:`_frame_from_layout`.

    When the Neutral tile is missing, or candidate squares lie beside the placed tiles
    unread, the candidates are read again by the soft decoder
    (:func:`vision.markers.soft_markers`); a tile that stands on soft readings alone must
    be corroborated (:func:`_uncorroborated`) and is placed with a warning. ``_soft``
    (marker id to log-likelihood ratio) names the soft-read markers among ``hits``.
    """
    h_img, w_img = frame.shape[:2]
    view = TableView((w_img, h_img))
    if intrinsics is not None:
        intrinsics = intrinsics.for_size((w_img, h_img))
        view.intrinsics = intrinsics
    searched = _searched or hits is None
    if hits is None:
        hits = detect_markers(frame)
    groups = _group_markers(hits, _ideal(hits, intrinsics))
    if searched and groups and NEUTRAL_ID not in groups and frame.ndim == 3:
        # A piece touching the Neutral tile's last visible marker joins its black border:
        # look again with colours made pale (not always: coloured light costs contrast;
        # nor in a frame with no tile at all, which would pay twice for nothing).
        hits = hits.with_new(detect_markers(frame, pale_colours=True))
        groups = _group_markers(hits, _ideal(hits, intrinsics))
    view.markers_found = len(hits)

    def soft_pass() -> TableView | None:
        """The frame read again with the unread squares soft-decoded (and, the first time
        round, searched for once more with looser settings), if that finds markers."""
        if _soft is not None or not (searched or len(hits.unread)):
            return None
        soft, llr = soft_markers(frame, hits, _tile_markers_except(set(groups)),
                                 search_again=searched)
        if not len(soft):
            return None
        again = _find_tiles(frame, intrinsics, hits.with_new(soft), covered, layout, _rounds,
                            dict(zip(soft.ids.tolist(), llr.tolist(), strict=True)))
        again.markers_found = view.markers_found
        return again

    soft_ids = dict(_soft or {})
    if soft_ids:
        weak = _uncorroborated(groups, soft_ids)
        if weak:
            keep = ~np.isin(hits.ids, list(weak))
            rest = MarkerHits(hits.ids[keep], hits.corners[keep], hits.unread)
            again = _find_tiles(frame, intrinsics, rest, covered, layout, _rounds,
                                {k: v for k, v in soft_ids.items() if k not in weak})
            again.markers_found = view.markers_found
            return again
    if not groups:
        again = soft_pass()
        if again is not None:
            return again
        view.warnings.append(
            "no tiles in view: check that the camera sees the table and the tiles are lit"
        )
        return view

    # Fit in the frame of the tile showing most markers (a Neutral tile glimpsed through
    # one half-covered marker must not steer the fit), then move to the Neutral's frame.
    members = list(groups.values())

    def hard_slots(g: _Group) -> int:
        return sum(g.tile_id * MARKERS_PER_TILE + s not in soft_ids for s in g.slots)

    ref = max(members, key=lambda g: (hard_slots(g), len(g.slots), g.tile_id == NEUTRAL_ID)
              ).tile_id
    hom = _reference_homography(groups[ref])
    _initial_poses(members, hom, ref)
    hom, residuals = _joint_refine(members, hom, ref)
    # Drop markers that disagree with the joint fit (misreads, bent or lifted paper),
    # then refit once.
    dropped = False
    for g, res in zip(members, residuals, strict=True):
        side = np.linalg.norm(g.image[:, 1] - g.image[:, 0], axis=1)
        bad = res > np.maximum(3.0, 0.1 * side)
        if bad.any() and not bad.all():
            g.keep(~bad)
            dropped = True
        elif bad.all() and g.tile_id != ref:
            view.warnings.append(
                f"tile {g.tile_id}'s markers disagree with the other tiles: is it lifted, "
                "bent or lying on another tile?"
            )
            g.slots = []
            dropped = True
    if dropped:
        members = [g for g in members if g.slots]
        hom, residuals = _joint_refine(members, hom, ref)
    neutral = next((g for g in members if g.tile_id == NEUTRAL_ID), None)
    if neutral is None and NEUTRAL_ID not in groups and covered:
        # The other tiles lie on the lattice round one another as well: look for the
        # Neutral tile's half-covered markers beside them, in the reference tile's frame.
        ref_view = TableView((w_img, h_img), homography=hom, intrinsics=intrinsics)
        poses = [g.pose for g in members]
        anchor = next(i for i, g in enumerate(members) if g.tile_id == ref)
        ref_view.lattice = fit_lattice(poses, anchor)
        blurred: set[int] = set()
        found = covered_tiles_near(frame, ref_view, poses, set(range(MAX_TILES)) - {NEUTRAL_ID},
                                   blurred)
        if len(found):
            again = _find_tiles(frame, intrinsics, hits.with_new(found), covered=True,
                                layout=layout, _soft=soft_ids)
            if any(t.tile_id == NEUTRAL_ID for t in again.tiles):
                again.warnings.append(_covered_warning(NEUTRAL_ID, (0, 0), blurred))
                again.markers_found = view.markers_found
                return again
    if neutral is None and NEUTRAL_ID not in groups:
        # No table frame without the Neutral tile: read the squares no code read softly.
        again = soft_pass()
        if again is not None and any(t.tile_id == NEUTRAL_ID for t in again.tiles):
            return again
    remembered = None
    if neutral is None and layout:
        remembered = _frame_from_layout(members, layout)
        if remembered is None and any(g.tile_id in layout for g in members):
            view.warnings.append(
                "tiles seen before lie elsewhere now, so their old places cannot stand in for "
                "the Neutral Territory (tile 0): uncover tile 0"
            )
    if neutral is None and remembered is None:
        if NEUTRAL_ID not in groups:
            ids = ", ".join(str(i) for i in sorted(groups))
            view.warnings.append(
                f"the Neutral Territory (tile 0) is not in view, so tiles {ids} cannot be "
                "placed on the lattice: move the camera or uncover tile 0"
            )
        else:
            view.warnings.append(
                "the Neutral Territory (tile 0) is too covered to place the other tiles: "
                "uncover tile 0"
            )
        return view
    # Table frame = the Neutral tile's frame (or where it lies by the tiles remembered).
    to_ref = neutral.pose.matrix() if neutral is not None else remembered[0]
    to_table = np.linalg.inv(to_ref)
    hom = hom @ to_ref
    for g in members:
        g.pose = Pose2D.from_matrix(to_table @ g.pose.matrix())
    if neutral is not None:
        neutral.pose = Pose2D(0.0, 0.0, 0.0)
    view.homography = hom / hom[2, 2]

    # The lattice from every tile at once, named by the Neutral tile (at 0,0, upright); with
    # the Neutral tile hidden, by its place as the remembered tiles put it.
    poses = [g.pose for g in members]
    if neutral is not None:
        lattice = fit_lattice(poses, next(i for i, g in enumerate(members) if g is neutral))
    else:
        lattice = fit_lattice([Pose2D(0.0, 0.0, 0.0), *poses], 0)
    view.lattice = lattice
    placed: dict[Hex, TileDetection] = {}
    for g, res in zip(members, residuals, strict=True):
        (q, r), rotation, offset, angle_off = lattice.snap(g.pose)
        far = offset > MAX_OFFSET_MM or abs(angle_off) > MAX_ANGLE_OFF_DEG
        if far:
            what = "tile 0 (the Neutral Territory)" if g is neutral else f"tile {g.tile_id}"
            view.warnings.append(
                f"{what} is {offset:.0f} mm and {abs(angle_off):.0f} degrees off the "
                f"lattice the other tiles make near {q},{r}: push it flat against its neighbours"
            )
            if g is not neutral:  # the Neutral tile names the lattice: always placed
                continue
        rms = float(np.sqrt(np.mean(res**2)))
        confidence = _confidence(len(g.slots), rms, offset, angle_off)
        if hard_slots(g) == 0:  # read through blur only: less sure than any print read clear
            confidence = round(SOFT_CONFIDENCE * confidence, 3)
        det = TileDetection(
            g.tile_id, q, r, rotation, g.pose, round(offset, 2), round(angle_off, 2),
            confidence, tuple(sorted(g.slots)), round(rms, 3),
        )
        other = placed.get((q, r))
        if other is not None:
            keep, lose = (other, det) if other.confidence >= det.confidence else (det, other)
            view.warnings.append(
                f"tiles {keep.tile_id} and {lose.tile_id} both sit at {q},{r}; "
                f"keeping tile {keep.tile_id}: is a tile lying on another?"
            )
            det = keep
        placed[(q, r)] = det
    view.tiles = sorted(placed.values(), key=lambda t: t.tile_id)
    for t in view.tiles:
        if soft_ids and all(t.tile_id * MARKERS_PER_TILE + s in soft_ids for s in t.markers_seen):
            view.warnings.append(_soft_warning(t.tile_id, t.hex))
    if remembered is not None:
        moved = [t.tile_id for t in view.tiles
                 if t.tile_id in layout and tuple(layout[t.tile_id]) != (t.q, t.r, t.rotation)]
        if moved:
            view.tiles, view.homography, view.lattice = [], None, None
            view.warnings.append(
                f"tiles {', '.join(map(str, moved))} lie elsewhere than before and the "
                "Neutral Territory (tile 0) is hidden, so no tile is placed: uncover tile 0")
            return view
        view.warnings.append(
            f"the Neutral Territory (tile 0) is hidden: tiles placed by where tile "
            f"{remembered[1]} lay before ({', '.join(map(str, layout[remembered[1]][:2]))})")
    if covered and view.tiles:
        blurred: set[int] = set()
        found = covered_tiles_near(frame, view, [t.pose for t in view.tiles], set(groups),
                                   blurred)
        if len(found):
            # Tiles found so show where the next ones lie: a chain of covered tiles is
            # followed out from the tiles the detector found, a few rounds deep.
            rounds = COVERED_ROUNDS if _rounds is None else _rounds
            again = _find_tiles(frame, intrinsics, hits.with_new(found), covered=rounds > 1,
                                layout=layout, _rounds=rounds - 1, _soft=soft_ids)
            for tile_id in sorted(set(found.ids // MARKERS_PER_TILE)):
                at = next((t for t in again.tiles if t.tile_id == tile_id), None)
                if at is not None:
                    again.warnings.append(_covered_warning(tile_id, at.hex, blurred))
            again.markers_found = view.markers_found
            return again
    return view


def _tile_markers_except(tiles: set[int]) -> Callable[[np.ndarray], np.ndarray]:
    """Mask over marker ids: the markers of tiles other than ``tiles``."""
    def wanted(ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids)
        return (ids < MAX_TILES * MARKERS_PER_TILE) & ~np.isin(ids // MARKERS_PER_TILE,
                                                               list(tiles))
    return wanted


def _copy(g: _Group) -> _Group:
    return _Group(g.tile_id, list(g.slots), g.local.copy(), g.image.copy())


def _uncorroborated(groups: dict[int, _Group], soft: Mapping[int, float]) -> set[int]:
    """The soft-read markers (ids in ``soft``) that nothing corroborates.

    A tile whose markers were all read softly stands when two or more of them agree on
    one print: one affine map of the tile, fitted to their corners, puts each one's centre
    within SOFT_AGREE of a marker side (of at least 20 px) of where it was seen, turned as
    seen within SOFT_AGREE_DEG (a misread slot lies tens of mm off, a misread turn 90
    degrees); the marker that disagrees most is dropped until they agree. A lone soft
    marker stands only with a clearer reading (SOFT_LONE_LLR) and when the tile it names
    lies on the lattice that the corroborated tiles make, within SOFT_LONE_MM and
    SOFT_LONE_DEG: a misread id of a real marker would lie on the lattice as well, so the
    lattice alone is not enough.
    Soft markers of a tile that hard-read markers place are checked by the joint fit.
    """
    def mid(g: _Group, slot: int) -> int:
        return g.tile_id * MARKERS_PER_TILE + slot

    weak: set[int] = set()
    hard = [_copy(g) for g in groups.values() if not all(mid(g, s) in soft for s in g.slots)]
    soft_only = [_copy(g) for g in groups.values()
                 if all(mid(g, s) in soft for s in g.slots)]
    if not soft_only:
        return weak

    def disagreement(g: _Group) -> np.ndarray:
        """Each marker's distance from where one affine map of the print, fitted to all
        the tile's soft markers, puts it: by its centre, in marker sides (at least 20 px;
        a blurred marker's outline grows round its centre, so corners would disagree), and
        by its turn, in units of SOFT_AGREE_DEG (blur skews a small quad by degrees; a
        misread turn is 90)."""
        src = np.hstack([g.local.reshape(-1, 2), np.ones((g.local.shape[0] * 4, 1))])
        affine, *_ = np.linalg.lstsq(src, g.image.reshape(-1, 2), rcond=None)
        pred = (src @ affine).reshape(-1, 4, 2)
        side = np.linalg.norm(g.image[:, 1] - g.image[:, 0], axis=1)
        off = np.linalg.norm(pred.mean(axis=1) - g.image.mean(axis=1), axis=1)
        seen_dir, pred_dir = g.image[:, 1] - g.image[:, 0], pred[:, 1] - pred[:, 0]
        turn = np.degrees(np.abs(np.angle(
            (seen_dir[:, 0] + 1j * seen_dir[:, 1]) / (pred_dir[:, 0] + 1j * pred_dir[:, 1]))))
        return np.maximum(off / np.maximum(side, 20.0) / SOFT_AGREE, turn / SOFT_AGREE_DEG)

    sure: list[_Group] = []
    lone: list[_Group] = []
    for g in soft_only:
        while len(g.slots) >= 2:
            res = disagreement(g)
            worst = int(np.argmax(res))
            if res[worst] <= 1.0:
                break
            weak.add(mid(g, g.slots[worst]))
            g.keep(np.arange(len(g.slots)) != worst)
        (sure if len(g.slots) >= 2 else lone).append(g)
    for g in lone:
        if soft[mid(g, g.slots[0])] < SOFT_LONE_LLR or not (hard or sure):
            weak.add(mid(g, g.slots[0]))
    lone = [g for g in lone if mid(g, g.slots[0]) not in weak]
    if not lone:
        return weak
    fit = _table_fit(hard + sure)
    assert fit is not None
    hom, lattice = fit
    inv = np.linalg.inv(hom)
    for g in lone:
        pose = fit_rigid(g.local.reshape(-1, 2), apply_h(inv, g.image.reshape(-1, 2)))
        _, _, offset, angle_off = lattice.snap(pose)
        if offset > SOFT_LONE_MM or abs(angle_off) > SOFT_LONE_DEG:
            weak.add(mid(g, g.slots[0]))
    return weak


def _table_fit(groups: list[_Group]) -> tuple[np.ndarray, Lattice] | None:
    """The homography (in the frame of the tile showing most markers) and the lattice
    that ``groups`` (copies: poses are set, misreads dropped) make, or None if empty."""
    if not groups:
        return None
    groups = [_copy(g) for g in groups]
    ref = max(groups, key=lambda g: len(g.slots))
    hom = _reference_homography(ref)
    _initial_poses(groups, hom, ref.tile_id)
    hom, _ = _joint_refine(groups, hom, ref.tile_id)
    return hom, fit_lattice([g.pose for g in groups], groups.index(ref))


def _frame_from_layout(members: list[_Group], layout: Layout) -> tuple[np.ndarray, int] | None:
    """Where the table frame lies (as a matrix in the fit's frame) by the remembered tile
    showing most markers, and that tile's id; None when no tile in view is remembered or the
    remembered tiles in view no longer lie as they did round one another."""
    known = [g for g in members if g.tile_id in layout]
    if not known:
        return None
    best = max(known, key=lambda g: (len(g.slots), -g.tile_id))
    q, r, rotation = layout[best.tile_id]
    was = Pose2D(*tile_centre_mm((q, r)), 60.0 * rotation)
    to_ref = best.pose.matrix() @ np.linalg.inv(was.matrix())
    to_table = np.linalg.inv(to_ref)
    for g in known:
        q, r, rotation = layout[g.tile_id]
        now = Pose2D.from_matrix(to_table @ g.pose.matrix())
        off = math.dist((now.x, now.y), tile_centre_mm((q, r)))
        turn = (now.angle_deg - 60.0 * rotation + 180.0) % 360.0 - 180.0
        if off > MAX_OFFSET_MM or abs(turn) > MAX_ANGLE_OFF_DEG:
            return None
    return to_ref, best.tile_id


def covered_tiles_near(frame: np.ndarray, view: TableView, poses: list[Pose2D],
                       seen: set[int], soft_read: set[int] | None = None) -> MarkerHits:
    """Markers of tiles beside the tiles at ``poses`` (in ``view``'s frame) whose every
    marker the detector missed (:mod:`vision.peepwar.covered_tiles`); tiles ``seen`` are not
    looked for. Positions are taken from ``view.lattice``, fitted to all the tiles, not
    from the frame's origin alone (a reference tile turned a few degrees would turn a
    position 170 mm away by centimetres). Tiles named through blur go into ``soft_read``."""
    lattice = view.lattice or Lattice()
    placed = list(dict.fromkeys(lattice.index(np.array([(p.x, p.y) for p in poses]))))
    return covered_tile_hits(frame, view.to_image, placed, seen, lattice.place, soft_read)


def _covered_warning(tile_id: int, at: Hex, blurred: set[int]) -> str:
    if tile_id in blurred:
        return _soft_warning(tile_id, at)
    return (f"tile {tile_id} at {at[0]},{at[1]} was found by markers that pieces or a hand "
            "partly cover: uncover one for a surer fit")


def _soft_warning(tile_id: int, at: Hex) -> str:
    return (f"tile {tile_id} at {at[0]},{at[1]} was read from blurred or faint markers: hold "
            "the camera still and in focus for a surer reading")
