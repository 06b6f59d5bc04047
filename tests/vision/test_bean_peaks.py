"""Which peaks of the bean net stand for beans: which box's, when the boxes round
neighbouring regions of pieces overlap (``beans._own_peaks``: each bean once, however the
boxes place it), and when two peaks are one bean (``beans._one_bean_two_peaks``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from vision.peepwar import bean_net
from vision.peepwar.passes import beans

SIZE = 80  # mosaic pixels (1 px a millimetre) of the little table
COLD = -9.0  # the net's logit where it sees no bean


def _state() -> SimpleNamespace:
    """Three regions of pieces round a gap at (40, 40): one to its left, one to its right,
    one below it; the gap itself is no region's (a pale bean makes no foreground)."""
    lab = np.zeros((SIZE, SIZE), np.uint16)
    lab[36:45, 26:34] = 1  # left: nearest pixel 7 px from the gap's middle
    lab[36:45, 47:55] = 2  # right: 7 px
    lab[47:56, 36:45] = 3  # below: 7 px
    return SimpleNamespace(regions=(4, lab, np.zeros((4, 5), np.int32)), s=1.0)


def _answer(peaks: list[tuple[float, float, float]]) -> np.ndarray:
    """The net's answer over the whole little table with a peak (logit) at each mosaic
    point given, placed there by its offsets."""
    h = w = SIZE // bean_net.STRIDE
    out = np.zeros((3, h, w), np.float32)
    out[0] = COLD
    half = (bean_net.STRIDE - 1) / 2
    for x, y, logit in peaks:
        cx, cy = int((x - half) // bean_net.STRIDE), int((y - half) // bean_net.STRIDE)
        out[0, cy, cx] = logit
        out[1, cy, cx] = (x - half) / bean_net.STRIDE - cx
        out[2, cy, cx] = (y - half) / bean_net.STRIDE - cy
    return out


def _batches(by_box: dict[int, list[tuple[float, float, float]]]) -> list:
    """One batch of whole-table boxes, one per region, each with its own answer."""
    keys = list(by_box)
    outs = np.stack([_answer(by_box[k]) for k in keys])
    group = [(k, (0, 0, SIZE, SIZE)) for k in keys]
    return [(group, np.zeros((len(keys), 1), np.float32), outs)]


def _kept(by_box: dict[int, list[tuple[float, float, float]]]) -> list[tuple[int, tuple]]:
    ran = np.ones(4, bool)
    ran[0] = False
    got = beans._own_peaks(_state(), _batches(by_box), ran)
    return sorted((k, tuple(round(v, 1) for v in at)) for k, at, _, _ in got)


def test_a_bean_each_box_places_nearer_another_region_is_kept_once() -> None:
    # Left's box places the bean a little right (nearer the right region), right's box a
    # little down (nearer the region below), the box below a little left: no box's own
    # region is the nearest to its peak.
    got = _kept({1: [(40.8, 39.8, 2.0)], 2: [(40.2, 40.7, 2.0)], 3: [(39.4, 40.0, 2.0)]})
    assert len(got) == 1
    region, (x, y) = got[0]
    assert abs(x - 40) < 2 and abs(y - 40) < 2
    nearest = beans._nearest_region(_state(), (x, y), np.array([False, True, True, True]))
    assert region == nearest


def test_a_bean_the_nearest_regions_box_places_is_kept_from_that_box_alone() -> None:
    got = _kept({1: [(30.0, 40.0, 2.0)], 2: [(30.6, 40.4, 2.0)], 3: [(30.3, 39.8, 1.0)]})
    assert got == [(1, (30.0, 40.0))]


def test_a_peak_the_nearest_regions_box_does_not_see_is_no_bean() -> None:
    # Only the box below sees something at the right region's edge, where the right
    # region's own box, which sees it whole, finds nothing: an artefact of the box's cut.
    assert _kept({1: [], 2: [], 3: [(46.0, 40.0, 2.0)]}) == []


def test_two_beans_side_by_side_stay_two() -> None:
    # Each in its own region, each box seeing both: one each, from its own box.
    got = _kept({1: [(30.0, 40.0, 2.0), (50.0, 40.0, 2.0)],
                 2: [(30.4, 40.0, 2.0), (50.3, 40.2, 2.0)], 3: []})
    assert got == [(1, (30.0, 40.0)), (2, (50.3, 40.2))]


def test_one_bean_two_boxes_place_apart_is_kept_once() -> None:
    # Left's box places the bean nearer the left region (kept for it); the box below
    # places it 2.5 mm away, nearer the right region, and right's box nearer the region
    # below: a cycle, but a bean already kept lies within half a bean's width.
    got = _kept({1: [(39.0, 39.0, 2.0)], 2: [(40.6, 41.5, 1.5)], 3: [(41.4, 39.8, 1.8)]})
    assert got == [(1, (39.0, 39.0))]


def test_one_bean_two_boxes_each_place_nearer_their_own_region_is_kept_once() -> None:
    # A bean midway between the left and right regions: each box places it a little
    # towards its own region, so each would keep it; the hotter peak stands for it.
    got = _kept({1: [(39.0, 39.0, 2.0)], 2: [(41.4, 39.8, 1.8)], 3: []})
    assert got == [(1, (39.0, 39.0))]


def _heat_map(blobs: list[tuple[float, float, float, float, float]]) -> np.ndarray:
    """The net's answer (logits, no offsets) over the little table: the sum of blobs
    (x, y, half-length along x, half-width, peak heat), as the net marks beans' centres."""
    h = w = SIZE // bean_net.STRIDE
    half = (bean_net.STRIDE - 1) / 2
    gx = np.arange(w) * bean_net.STRIDE + half
    gy = np.arange(h) * bean_net.STRIDE + half
    heat = np.zeros((h, w))
    for x, y, along, across, top in blobs:
        heat = np.maximum(heat, top * np.exp(-0.5 * (((gx[None, :] - x) / along) ** 2
                                                     + ((gy[:, None] - y) / across) ** 2)))
    out = np.zeros((3, h, w), np.float32)
    out[0] = np.log(np.clip(heat, 1e-4, 1 - 1e-4) / (1 - np.clip(heat, 1e-4, 1 - 1e-4)))
    return out


def _pairs(out: np.ndarray, peaks: list[tuple[float, float, float]], line_x: int = SIZE,
           players: tuple[int, int] = (0, 0), boxes: tuple[int, int] = (1, 1),
           on_map: bool = True) -> tuple[list, set[int]]:
    """What :func:`beans._one_bean_two_peaks` keeps and doubts of two ``peaks`` (kept for
    region 1), on a table whose cell line runs down at ``line_x`` (seen from straight
    above; no cells at all unless ``on_map``). The peaks' colours read as ``players``'
    (each counts from heat 0.5), and they were found in ``boxes``' answers, both ``out``."""
    cells = np.full((SIZE, SIZE), 0 if on_map else -1, np.int16)
    if on_map:
        cells[:, line_x:] = 1
    st = SimpleNamespace(s=1.0, m=SimpleNamespace(cell_map=cells), foot=lambda at, _: at)
    keys = sorted(set(boxes))
    batches = [([(k, (0, 0, SIZE, SIZE)) for k in keys], np.zeros((len(keys), 1), np.float32),
                np.stack([out] * len(keys)))]
    found = [beans._Peak(1, (x, y), heat, box)
             for (x, y, heat), box in zip(peaks, boxes, strict=True)]
    whose = {(x, y): pi for (x, y, _), pi in zip(peaks, players, strict=True)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(beans, "_whose", lambda _, at: (whose[at], 2.0, 1 - whose[at]))
        mp.setattr(beans, "_thresholds", lambda *_: [0.5, 0.5])
        kept, doubted = beans._one_bean_two_peaks(st, batches, found)
    return [(p.region, p.at, p.heat) for p in kept], doubted


# One bean seen long (a ridge 20 mm long), peaking a little at both ends; the points lie
# where the net answers (every 4 mm from 1.5).
LONG_BEAN = [(39.5, 41.5, 12.0, 4.0, 0.72), (33.5, 41.5, 2.0, 2.0, 0.8),
             (45.5, 41.5, 2.0, 2.0, 0.78)]


def test_two_peaks_on_one_long_bean_are_one_doubted_bean() -> None:
    kept, doubted = _pairs(_heat_map(LONG_BEAN), [(33.5, 41.5, 0.8), (45.5, 41.5, 0.78)])
    assert kept == [(1, (33.5, 41.5), 0.8)]
    assert doubted == {0}


def test_two_beans_side_by_side_stay_two_and_sure() -> None:
    # Two beans 12 mm apart: the heat falls between them.
    out = _heat_map([(33.5, 41.5, 3.0, 3.0, 0.9), (45.5, 41.5, 3.0, 3.0, 0.85)])
    kept, doubted = _pairs(out, [(33.5, 41.5, 0.9), (45.5, 41.5, 0.85)])
    assert len(kept) == 2 and doubted == set()


def test_peaks_further_apart_than_a_bean_are_never_one() -> None:
    out = _heat_map([(39.5, 41.5, 30.0, 4.0, 0.8)])  # a long bright streak, no bean
    kept, doubted = _pairs(out, [(21.5, 41.5, 0.8), (57.5, 41.5, 0.8)])
    assert len(kept) == 2 and doubted == set()


# The long bean of the first test, its two peaks seen otherwise: across a cell line (each
# cell keeps its peak), read as two players' colours, found in two boxes' answers (a stray
# peak kept for this region came from another region's box, whose valley this box's answer
# cannot give), or off the cell map.
@pytest.mark.parametrize("seen", [{"line_x": 40}, {"players": (0, 1)}, {"boxes": (1, 2)},
                                  {"on_map": False}],
                         ids=["across a cell line", "two players", "two boxes",
                              "off the cell map"])
def test_two_peaks_are_never_one_bean_when_seen(seen: dict) -> None:
    kept, doubted = _pairs(_heat_map(LONG_BEAN), [(33.5, 41.5, 0.8), (45.5, 41.5, 0.78)],
                           **seen)
    assert len(kept) == 2 and doubted == set()


def test_a_peak_too_faint_to_count_is_no_other_end() -> None:
    # A faint peak on the shoulder of a sure bean: the valley is high only because the
    # peak is low. It stays a peak of its own (asked about as "perhaps one more").
    out = _heat_map([(33.5, 41.5, 6.5, 4.0, 0.9), (45.5, 41.5, 2.0, 2.0, 0.45)])
    kept, doubted = _pairs(out, [(33.5, 41.5, 0.9), (45.5, 41.5, 0.45)])
    assert len(kept) == 2 and doubted == set()


# Two frames with beans heaped against peeps, photographed beans and a hand (2D seeds).
@pytest.mark.parametrize("seed", [3, 57])
def test_the_beans_pass_looks_for_many_peaks_at_once_as_it_looks_for_each(
        seed, monkeypatch) -> None:
    # ``_whose_many`` and ``_nearest_regions`` answer for every peak at once what ``_whose``
    # and ``_nearest_region`` answer for one, to the last bit; both are kept (one peak at a
    # time is still asked where the first look does not settle it), so a change to one that
    # the other lacks would change readings quietly.
    from pathlib import Path

    from vision.peepwar.table import prepare_reader, read_table
    from vision.render.game_scene import GameSpec, LookProfiles, flavour_cutouts, render_game

    photos = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos" / "jellybeans"
    scene = render_game(seed, GameSpec(size=(1280, 720)), flavour_cutouts(str(photos.resolve())))
    asked = {"whose": 0, "regions": 0}
    many, regions = beans._whose_many, beans._nearest_regions

    def whose_many(st, points):
        answers = many(st, points)
        kept, st.whose_at = st.whose_at, {}
        for (x, y), answer in answers.items():
            assert beans._whose(st, (float(x), float(y))) == answer
        st.whose_at = kept
        asked["whose"] += len(answers)
        return answers

    def nearest_regions(st, points, ran):
        answers = regions(st, points, ran)
        assert answers == [beans._nearest_region(st, at, ran) for at in points]
        asked["regions"] += len(answers)
        return answers

    monkeypatch.setattr(beans, "_whose_many", whose_many)
    monkeypatch.setattr(beans, "_nearest_regions", nearest_regions)
    profile = LookProfiles().for_looks(scene.truth.looks)
    prepare_reader(profile)
    read_table(scene.frame, profile)
    assert asked["whose"] > 10 and asked["regions"] > 10
