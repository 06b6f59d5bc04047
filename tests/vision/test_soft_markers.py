"""The soft decoder (vision.markers.soft_identify and its use in tile finding): a marker
blurred past the hard read is still read; noise, paper and another dictionary's markers
are not read as any tile; a soft reading alone places a tile only when corroborated
(real OpenCV on rendered images)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.peepwar.board import NEUTRAL, hexagon_mm, tile_centre_mm
from vision.geometry import Pose2D, apply_h
from vision.kit_layout import dictionary, tile_slots
from vision.markers import MarkerHits, detect_markers, identify, soft_identify
from vision.peepwar.tiles import SOFT_LONE_LLR, find_tiles
from vision.render import SceneSpec, render_scene
from vision.render.layout import PlacedTile

SPEC = SceneSpec(hands=(0, 0), beans=(0, 0), peeps=(0, 0), max_tilt_deg=20)


def _streak(length: float, angle_deg: float) -> np.ndarray:
    """A motion-blur kernel: a line ``length`` px long."""
    size = int(length) | 1
    k = np.zeros((size + 2, size + 2), np.float32)
    c = size // 2 + 1
    dx, dy = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))
    for t in np.linspace(-length / 2, length / 2, 4 * size + 1):
        k[int(round(c + t * dy)), int(round(c + t * dx))] += 1
    return k / k.sum()


def _marker_picture(mid: int, d: cv2.aruco.Dictionary | None = None, blur: float = 0.0,
                    angle: float = 30.0, module_px: float = 4.0, seed: int = 0
                    ) -> tuple[np.ndarray, np.ndarray]:
    """A marker printed grey on white paper, seen in perspective at ``module_px`` pixels
    a module, motion-blurred by ``blur`` px, with sensor noise; and its true corners."""
    d = d or dictionary()
    n = d.markerSize + 2
    art = cv2.aruco.generateImageMarker(d, mid, n * 10, borderBits=1)
    paper = np.full((n * 10 + 40, n * 10 + 40), 255, np.uint8)
    paper[20:-20, 20:-20] = art
    paper = 50 + paper.astype(np.float32) * (150 / 255)
    src = np.array([[20, 20], [20 + n * 10, 20], [20 + n * 10, 20 + n * 10], [20, 20 + n * 10]],
                   np.float32) - 0.5
    side = 7 * module_px
    dst = np.array([[100, 90], [100 + side, 96], [96 + side, 92 + side],
                    [92, 88 + side * 0.95]], np.float32)
    frame = cv2.warpPerspective(paper, cv2.getPerspectiveTransform(src, dst), (240, 220),
                                flags=cv2.INTER_AREA, borderValue=200)
    if blur:
        frame = cv2.filter2D(frame, -1, _streak(blur, angle))
    rng = np.random.default_rng(seed)
    frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    return frame, dst.astype(np.float64)


@pytest.mark.parametrize(("mid", "angle"), [(38, 30.0), (5, 80.0), (101, 0.0), (700, 135.0)])
def test_a_marker_blurred_past_the_hard_read_is_read_softly(mid, angle):
    """Motion blur of two and a half modules: the thresholded bits are wrong, the hard
    decoder refuses the square; the soft decoder names it, and its corners in order, from
    whichever corner the square finder started."""
    frame, quad = _marker_picture(mid, blur=10, angle=angle, seed=mid)
    assert identify(frame, quad[None])[0].size == 0
    for roll in range(4):
        reads = soft_identify(frame, np.roll(quad, roll, axis=0)[None])
        assert reads.accepted()[0]
        assert reads.ids[0] == mid
        np.testing.assert_allclose(reads.corners[0], quad)


def test_noise_and_paper_are_not_read():
    rng = np.random.default_rng(3)
    quad = np.array([[100, 90], [142, 96], [138, 134], [92, 128]], float)
    pictures = []
    for i in range(60):
        noise = rng.integers(0, 256, (220, 240)).astype(np.uint8)
        pictures.append(cv2.GaussianBlur(noise, (0, 0), 2.0) if i % 2 else noise)
    paper = np.full((220, 240), 210, np.uint8)
    pictures.append(paper)
    half = paper.copy()
    half[:, 120:] = 40  # an edge across the square
    pictures.append(half)
    for picture in pictures:
        assert not soft_identify(picture, quad[None]).accepted()[0]
    # A quad with its corners in a line (the square finder's rescue pass can return one).
    line = np.array([[[10.0, 10.0], [20, 20], [30, 30], [40, 40]]])
    with np.errstate(all="raise"):
        assert not soft_identify(pictures[0], line).accepted()[0]
        assert identify(pictures[0], line)[0].size == 0


@pytest.mark.parametrize("name", ["DICT_4X4_50", "DICT_6X6_250", "DICT_7X7_50"])
def test_another_dictionarys_markers_place_no_tile(name):
    """Markers of another dictionary on the six squares where the Neutral tile's markers
    would lie, beside two tiles whose markers read: a 5x5 code may fit one of them
    loosely, but no Neutral tile is placed, and so no tile at all."""
    other = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    c = np.array(tile_centre_mm((0, 1)))
    layout = [PlacedTile(4, (1, 0), Pose2D(*tile_centre_mm((1, 0)), 1.0), 0),
              PlacedTile(9, (0, 1), Pose2D(c[0] + 2.5, c[1] - 2.0, 122.0), 2)]
    for seed in (3, 5):
        scene = render_scene(seed, SPEC, layout)
        frame = scene.frame.copy()
        hom = scene.truth.camera.homography
        n = other.markerSize + 2
        for i, s in enumerate(tile_slots()[:6]):
            art = cv2.aruco.generateImageMarker(other, 3 * i + seed, n * 10, borderBits=1)
            src = np.array([[0, 0], [n * 10, 0], [n * 10, n * 10], [0, n * 10]], np.float32)
            dst = apply_h(hom, s.corners_mm).astype(np.float32)
            warp = cv2.getPerspectiveTransform(src, dst)
            h, w = frame.shape[:2]
            pic = cv2.warpPerspective(cv2.cvtColor(art, cv2.COLOR_GRAY2BGR), warp, (w, h))
            inside = cv2.warpPerspective(np.full_like(art, 255), warp, (w, h)) > 0
            frame[inside] = pic[inside]
        view = find_tiles(frame)
        assert view.tiles == [], view.warnings


def _blur_tile(frame: np.ndarray, hom: np.ndarray, at: tuple[int, int], length: float
               ) -> np.ndarray:
    """``frame`` with the tile at lattice position ``at`` motion-blurred."""
    outline = apply_h(hom, np.asarray(hexagon_mm(at, 104.0)))
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 255)
    blurred = cv2.filter2D(frame, -1, _streak(length, 30.0))
    return np.where(mask[..., None] > 0, blurred, frame)


def test_a_neutral_tile_blurred_past_every_hard_read_is_found_with_a_warning():
    """The Neutral tile streaked by motion: not one of its markers reads, so without it
    no tile could be placed. Its squares, read softly where the other tiles put it, name
    it; every tile is placed, and the observation says the reading was through blur."""
    c = np.array(tile_centre_mm((0, 1)))
    layout = [PlacedTile(0, NEUTRAL, Pose2D(0, 0, 0), 0),
              PlacedTile(4, (1, 0), Pose2D(*tile_centre_mm((1, 0)), 1.0), 0),
              PlacedTile(9, (0, 1), Pose2D(c[0] + 2.5, c[1] - 2.0, 122.0), 2)]
    scene = render_scene(5, SPEC, layout)
    frame = _blur_tile(scene.frame, scene.truth.camera.homography, (0, 0), 28)
    assert not (detect_markers(frame).ids < 12).any()
    view = find_tiles(frame)
    assert {t.tile_id: (t.q, t.r, t.rotation) for t in view.tiles} == {
        0: (0, 0, 0), 4: (1, 0, 0), 9: (0, 1, 2)}
    assert any("tile 0 at 0,0 was read from blurred or faint markers" in w
               for w in view.warnings), view.warnings


def _exact_hits(soft_tile0: dict[int, np.ndarray], seen_as: dict[int, int] | None = None
                ) -> MarkerHits:
    """Exact corners of tiles 7 and 12 (read hard) and of the given tile-0 markers, shifted
    by so many pixels; ``seen_as`` puts a marker where another slot's square lies (a
    misread id)."""
    k = np.array([[900.0, 0, 640], [0, 900, 360], [0, 0, 1]])
    hom = k @ np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 900]]) / 900 * 2.2
    hom[:, 2] = [640, 360, 1]
    poses = {7: Pose2D(*tile_centre_mm((1, 0)), 0.0), 12: Pose2D(*tile_centre_mm((0, 1)), 60.0)}
    ids, corners = [], []
    for tid, pose in poses.items():
        for s in tile_slots()[:3]:
            ids.append(tid * 12 + s.slot)
            corners.append(apply_h(hom, pose.apply(s.corners_mm)))
    for slot, shift in soft_tile0.items():
        ids.append(slot)
        square = tile_slots()[(seen_as or {}).get(slot, slot)].corners_mm
        corners.append(apply_h(hom, square) + shift)
    return MarkerHits(np.array(ids), np.array(corners))


def test_a_lone_soft_marker_places_a_tile_only_when_clear_and_on_the_lattice():
    blank = np.zeros((720, 1280, 3), np.uint8)
    on = {2: np.zeros(2)}
    weak = find_tiles(blank, hits=_exact_hits(on), _soft={2: SOFT_LONE_LLR - 5})
    assert weak.tiles == []  # a reading that is not clear enough: nothing placed
    clear = find_tiles(blank, hits=_exact_hits(on), _soft={2: SOFT_LONE_LLR + 5})
    assert {t.tile_id: t.hex for t in clear.tiles} == {0: (0, 0), 7: (1, 0), 12: (0, 1)}
    assert any("tile 0 at 0,0 was read from blurred" in w for w in clear.warnings)
    neutral = next(t for t in clear.tiles if t.tile_id == 0)
    assert neutral.confidence < min(t.confidence for t in clear.tiles if t.tile_id != 0)
    off = find_tiles(blank, hits=_exact_hits({2: np.array([30.0, 0.0])}),
                     _soft={2: SOFT_LONE_LLR + 5})
    assert off.tiles == []  # 14 mm off the lattice the others make: not placed


def test_two_soft_markers_must_agree():
    blank = np.zeros((720, 1280, 3), np.uint8)
    llr = SOFT_LONE_LLR - 5  # too weak alone
    agree = find_tiles(blank, hits=_exact_hits({2: np.zeros(2), 4: np.zeros(2)}),
                       _soft={2: llr, 4: llr})
    assert {t.tile_id for t in agree.tiles} == {0, 7, 12}
    # Slot 5's square read as slot 4: the two cannot lie on one print.
    apart = find_tiles(blank, hits=_exact_hits({2: np.zeros(2), 4: np.zeros(2)}, {4: 5}),
                       _soft={2: llr, 4: llr})
    assert apart.tiles == []
