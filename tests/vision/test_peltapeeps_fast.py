"""The PeltaPeeps reader's shortcuts give bit for bit what the plain computations give.

The reader's speed-ups (many discs at once, lookups instead of arithmetic) must
not change a single reading, so each is checked against the computation it
replaces, on random data with ties and empty rows.
"""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from vision.peltapeeps import colours, discs, read, rims
from vision.render.light import to_srgb
from vision.render.peltapeeps import TEAM_COLOURS, linear_colour, profile_for_teams
from vision.srgb import SRGB_TO_LINEAR


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def testrow_medians_match_numpy_bit_for_bit(dtype) -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        rows, width = rng.integers(1, 20), rng.integers(1, 200)
        values = (rng.random((rows, width)) * 3).astype(dtype)
        values[:, ::3] = np.round(values[:, ::3], 1)  # ties
        values[:, 1::5] = -0.0  # np.median gives 0.0 for a middle of -0.0
        keep = rng.random((rows, width)) < rng.random()
        got = rims.row_medians(values, keep)
        everything = rims.row_medians(values)
        for k in range(rows):
            assert everything[k].tobytes() == np.asarray(np.median(values[k]), dtype).tobytes()
            if keep[k].any():
                want = np.asarray(np.median(values[k][keep[k]]), dtype)
                assert got[k].tobytes() == want.tobytes()
            else:
                assert np.isnan(got[k])


def _drawn_discs() -> tuple[np.ndarray, colours.ChromaTable, discs.TableModel, list[rims.Disc]]:
    """A table (linear light, grain) with red and blue discs drawn on it, and candidates:
    off-centre ones on the discs and one on bare table (which no fit moves)."""
    rng = np.random.default_rng(5)
    lin = np.full((300, 400, 3), 0.18, np.float32) * np.float32([0.8, 1.0, 1.1])
    teams = ("red", "blue")
    centres = [(100, 100, 0), (145, 100, 0), (260, 180, 1), (300, 90, 1)]
    for x, y, t in centres:
        cv2.circle(lin, (x, y), 22, linear_colour(TEAM_COLOURS[teams[t]]).tolist(), -1)
    lin = np.clip(lin + rng.normal(0, 0.01, lin.shape).astype(np.float32), 0, 1)
    srgb = to_srgb(lin)
    lin = SRGB_TO_LINEAR[srgb]
    table = discs.table_model(discs.features(srgb))
    lut = colours.chroma_table(colours.team_models(profile_for_teams(
        {t: TEAM_COLOURS[t] for t in teams})))
    cands = [rims.Disc(x + 2.5, y - 1.5, 20.0, t) for x, y, t in centres]
    cands.append(rims.Disc(60.0, 250.0, 20.0, 0))  # bare table
    return lin, lut, table, cands


def test_refine_labels_each_disc_at_its_final_pose() -> None:
    """Discs read again only while they move, yet every disc's labels are those of
    its final pose, and a disc refined with others ends where it ends alone."""
    lin, lut, table, cands = _drawn_discs()
    alone = copy.deepcopy(cands)
    rims.refine(lin, cands, np.ones(3), lut, table)
    for d, a in zip(cands, alone, strict=True):
        rims.refine(lin, [a], np.ones(3), lut, table)
        assert (d.x, d.y, d.r, d.rim_share) == (a.x, a.y, a.r, a.rim_share)
        assert np.array_equal(d.labels, a.labels)
        samples = rims._polar(lin, [d], rims.RADII.astype(np.float32))
        fresh = rims.label_samples(samples, np.ones(3), lut, table, np.array([d.team]))[0]
        assert np.array_equal(d.labels, fresh)
    assert (cands[-1].x, cands[-1].y) == (60.0, 250.0)  # on bare table: never moved
    assert all(abs(d.r - 22) < 2 for d in cands[:-1])


def _glare_distance_einsum(ch: np.ndarray, models: colours.TeamModels
                           ) -> tuple[np.ndarray, np.ndarray]:
    """The glare-line distances as first written (einsum), to check the fast form against."""
    pts = (1 - colours.GLARE_STEPS)[:, None, None] * models.chroma[None]
    diff = ch[..., None, None, :] - pts
    d2 = np.einsum("...kti,tij,...ktj->...kt", diff, models.inv, diff)
    cost = np.sqrt(np.maximum(d2, 0)) + colours.GLARE_COST * colours.GLARE_STEPS[:, None]
    k = np.argmin(cost, axis=-2)
    return np.take_along_axis(cost, k[..., None, :], axis=-2)[..., 0, :], colours.GLARE_STEPS[k]


@pytest.mark.parametrize("teams", [1, 2, 6])
def test_glare_distance_matches_einsum_bit_for_bit(teams: int) -> None:
    rng = np.random.default_rng(teams)
    half = rng.normal(size=(teams, 2, 2)) * 5
    models = colours.TeamModels([str(t) for t in range(teams)], rng.normal(size=(teams, 2)),
                                half @ half.transpose(0, 2, 1) + 10 * np.eye(2))
    for ch in (rng.normal(size=(40, 30, 2)), rng.normal(size=(7, 2)).astype(np.float32)):
        got, want = colours.glare_distance(ch, models), _glare_distance_einsum(ch, models)
        assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()


def _chroma_plain(lin_bgr: np.ndarray) -> np.ndarray:
    px = np.maximum(lin_bgr, 1e-4)
    total = px.sum(axis=-1)
    return np.stack([3 * px[..., 2] / total - 1, 3 * px[..., 0] / total - 1], axis=-1)


@pytest.mark.parametrize("shape", [(3,), (6, 3), (4, 9, 7, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chroma_planes_match_the_plain_formula(shape, dtype) -> None:
    rng = np.random.default_rng(len(shape))
    lin = (rng.random(shape) * rng.choice([1e-3, 1.0], shape)).astype(dtype)
    gains = np.array([1.4, 1.0, 0.6])
    assert colours.chroma(lin).tobytes() == _chroma_plain(lin).tobytes()
    c0, c1 = colours.chroma_planes(lin, gains)
    assert np.stack([c0, c1], axis=-1).tobytes() == _chroma_plain(lin / gains).tobytes()


def _labels_plain(samples, gains, lut, table, teams=None) -> np.ndarray:
    """label_samples as first written (disc by disc, whole arrays), to check against."""
    ij = lut.index(_chroma_plain(samples / gains))
    best, dmin = lut.team[ij], lut.distance[ij]
    light = np.cbrt(np.maximum(samples @ np.array([0.0722, 0.7152, 0.2126], np.float32), 0))
    tab = discs.is_table(_chroma_plain(samples), light, table)
    if teams is not None:
        share = lut.share[ij]
        own = best == teams[:, None, None]
        for k in range(len(samples)):
            near_own = lut.each[teams[k]][ij[0][k], ij[1][k]] < rims.OWN_NEAR
            best[k] = np.where(near_own, teams[k], best[k])
            own[k] |= near_own
            ref = np.median(light[k][:, rims.BODY_COLUMNS])
            mine = own[k][:, rims.BODY_COLUMNS]
            s_ref = float(np.median(share[k][:, rims.BODY_COLUMNS][mine])) if mine.any() else 0.0
            tab[k] |= (light[k] < rims.DARK * ref) \
                | (own[k] & (np.abs(share[k] - s_ref) > rims.SHARE_STEP))
    return np.where((dmin < colours.FAR) & ~tab, best, rims.TABLE).astype(np.int16)


def test_label_samples_match_the_plain_computation(monkeypatch) -> None:
    """Block by block, all discs at once and one channel at a time: the same labels."""
    monkeypatch.setattr(rims, "LABEL_BLOCK", 5000)  # several blocks, one ending mid-way
    lin, lut, table, cands = _drawn_discs()
    rng = np.random.default_rng(2)
    for d in cands:
        d.x, d.y = d.x + rng.normal(0, 4), d.y + rng.normal(0, 4)
    samples = rims._polar(lin, cands, rims.RADII.astype(np.float32))
    gains = np.array([1.1, 1.0, 0.9])
    teams = np.array([d.team for d in cands])
    got = rims.label_samples(samples, gains, lut, table, teams)
    assert got.tobytes() == _labels_plain(samples, gains, lut, table, teams).tobytes()
    assert len(np.unique(got)) == 3  # red, blue and the table all seen
    got = rims.label_samples(lin, gains, lut, table)
    assert got.tobytes() == _labels_plain(lin, gains, lut, table).tobytes()


def test_chroma_table_in_blocks_matches_the_whole_grid() -> None:
    models = colours.team_models(profile_for_teams(
        {t: TEAM_COLOURS[t] for t in ("red", "orange", "green")}))
    lut = colours.chroma_table(models)
    lo, hi = colours.LUT_RANGE
    c = lo + (np.arange(colours.LUT_SIZE) + 0.5) * (hi - lo) / colours.LUT_SIZE
    gx, gy = np.meshgrid(c, c, indexing="ij")
    d, white = _glare_distance_einsum(np.stack([gx, gy], axis=-1), models)
    order = np.argsort(d, axis=-1)
    assert lut.team.tobytes() == order[..., 0].astype(np.int16).tobytes()
    assert lut.each.tobytes() == np.moveaxis(d, -1, 0).astype(np.float32).tobytes()
    share = np.take_along_axis(white, order[..., :1], axis=-1)[..., 0]
    assert lut.share.tobytes() == share.astype(np.float32).tobytes()


def test_disc_colours_match_one_candidate_at_a_time() -> None:
    rng = np.random.default_rng(4)
    lin = rng.random((120, 160, 3)).astype(np.float32)
    cands = np.stack([rng.uniform(-10, 170, 60), rng.uniform(-10, 130, 60),
                      rng.uniform(3, 30, 60)], axis=1).astype(np.float32)
    off = np.linspace(-0.6, 0.6, 9)
    gx, gy = np.meshgrid(off, off)
    keep = np.hypot(gx, gy) <= 0.6
    want = np.zeros((len(cands), 3), np.float32)
    for k, (x, y, r) in enumerate(cands):
        px = np.clip((x + gx[keep] * r).astype(int), 0, 159)
        py = np.clip((y + gy[keep] * r).astype(int), 0, 119)
        v = lin[py, px]
        lum = v.sum(axis=1)
        want[k] = np.median(v[lum <= np.median(lum)], axis=0)
    assert read._disc_colours(lin, cands).tobytes() == want.tobytes()
    assert read._disc_colours(lin, np.zeros((0, 3), np.float32)).shape == (0, 3)


def _missed_plain(labels: np.ndarray, found: list[rims.Disc], radius: float
                  ) -> list[tuple[float, float, int]]:
    """rims.missed as first written (whole photo, every team), from the labels."""
    cover = np.zeros(labels.shape, np.uint8)
    for d in found:
        cv2.circle(cover, (round(d.x), round(d.y)), round(1.08 * d.r), 1, -1)
    out: list[tuple[float, float, int]] = []
    for t in np.unique(labels):
        if t == rims.TABLE:
            continue
        mask = ((labels == t) & (cover == 0)).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, lab, stats, _ = cv2.connectedComponentsWithStats((mask == 0).astype(np.uint8), 4)
        h, w = mask.shape
        x, y, bw, bh, area = stats.T
        small = (area <= int(0.6 * np.pi * radius**2)) & (x > 0) & (y > 0) \
            & (x + bw < w) & (y + bh < h)
        small[0] = False
        mask[small[lab]] = 1
        if mask.sum() < 1.2 * radius**2:
            continue
        dt = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
        peaks = (dt >= cv2.dilate(dt, np.ones((5, 5), np.uint8))) & (dt >= 0.55 * radius)
        ys, xs = np.nonzero(peaks)
        for k in np.argsort(-dt[ys, xs]):
            px, py = float(xs[k]), float(ys[k])
            if all(np.hypot(px - a, py - b) > 1.3 * radius for a, b, _ in out):
                out.append((px, py, int(t)))
    return out


def test_missed_in_boxes_matches_the_whole_photo(monkeypatch) -> None:
    """Discs missed by the circle search, some cut by the photo's edge, some with
    painted holes, found the same working in each team's box as on the whole photo."""
    labels = np.full((200, 300), rims.TABLE, np.int16)
    for x, y, t in [(40, 40, 0), (0, 120, 0), (150, 100, 1), (285, 195, 1), (220, 60, 2),
                    (100, 150, 0)]:
        cv2.circle(labels, (x, y), 20, t, -1)
        cv2.circle(labels, (x + 3, y - 2), 4, rims.TABLE, -1)  # paint: a hole to fill
    labels[150:190, 170:240] = 3  # square-sided: its box's edges are its own
    labels[::7, ::11] = 2  # specks
    found = [rims.Disc(100.0, 150.0, 20.0, 0)]
    monkeypatch.setattr(rims, "label_samples", lambda *a, **k: labels)
    table = discs.TableModel(np.zeros(2), np.ones(2), 0.5, 0.4)
    got = rims.missed(np.zeros((200, 300, 3), np.float32), found, np.ones(3), None, table,
                      20.0)
    want = _missed_plain(labels, found, 20.0)
    assert [(d.x, d.y, d.team) for d in got] == want
    assert len(want) == 6  # the half disc at the left edge is too thin to peak


def test_polar_samples_match_each_disc_on_its_own() -> None:
    """Polar grids for all discs at once: the same points as Disc.to_image, disc by disc."""
    rng = np.random.default_rng(6)
    lin = rng.random((90, 120, 3)).astype(np.float32)
    found = [rims.Disc(float(x), float(y), float(r)) for x, y, r in
             rng.uniform((-5, -5, 4), (125, 95, 20), (12, 3))]
    for d in found[::3]:
        d.shape = rng.normal(size=(2, 2)) + np.eye(2) * d.r  # tilted: an ellipse
    radii = rims.RADII.astype(np.float32)
    th = np.arange(rims.ANGLES) * (2 * np.pi / rims.ANGLES)
    u = (np.cos(th)[:, None] * radii[None, :]).astype(np.float32)
    v = (np.sin(th)[:, None] * radii[None, :]).astype(np.float32)
    got = rims._polar(lin, found, radii)
    for d, g in zip(found, got, strict=True):
        mx, my = d.to_image(u, v)
        want = rims.sample_at(lin, mx.astype(np.float32), my.astype(np.float32),
                              cv2.BORDER_REPLICATE)
        assert g.tobytes() == want.tobytes()


def test_median_matches_numpy_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    for n in [*range(1, 12), 57, 120]:
        for _ in range(20):
            values = rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
            values[: n // 3] = np.round(values[: n // 3])  # ties
            values[n // 2: n // 2 + 2] = -0.0  # np.median gives 0.0 for a middle of -0.0
            want = float(np.median(values))
            assert np.float64(rims.median(values)).tobytes() == np.float64(want).tobytes()
    assert np.isnan(rims.median(np.array([1.0, np.nan, 3.0])))


@pytest.mark.parametrize("points", [5, 1024, 3000])
def test_sample_at_matches_one_remap(points: int) -> None:
    """Points split into rows of REMAP_WIDTH (and blocks of rows) sample as one remap."""
    rng = np.random.default_rng(points)
    img = rng.random((40, 50, 3)).astype(np.float32)
    mx, my = rng.uniform(-2, 52, (2, points))
    got = rims.sample_at(img, mx.reshape(-1, 1), my.reshape(-1, 1))
    want = cv2.remap(img, mx.astype(np.float32)[None], my.astype(np.float32)[None],
                     cv2.INTER_LINEAR)[0]
    assert got.shape == (points, 1, 3)
    assert got.reshape(points, 3).tobytes() == want.tobytes()
