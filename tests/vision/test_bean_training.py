"""The bean net's training targets and augmentation agree with how the reader decodes the
net's answer (no torch needed: these parts are numpy); the shipped 8-bit net answers as
the float net it is made from."""

from __future__ import annotations

import numpy as np
import pytest

from vision.peepwar import bean_net
from vision.peepwar.training import train_bean_net
from vision.peepwar.training.bean_samples import dequantise, scene_sample
from vision.peepwar.training.quantise_bean_net import FLOAT_MODEL, calibration_windows, quantise
from vision.peepwar.training.train_bean_net import WINDOW, _augment, _targets
from vision.render.game_scene import LookProfiles


def _logits(heat: np.ndarray) -> np.ndarray:
    p = np.clip(heat, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


@pytest.mark.parametrize("seed", range(5))
def test_targets_decoded_as_the_reader_does_give_back_every_centre(seed):
    """A net answering exactly the training targets is read back to the true centres."""
    rng = np.random.default_rng(seed)
    # Beans are at least 13 mm apart (13 mm wide): centres on a jittered 16 px grid.
    grid = np.stack(np.meshgrid(np.arange(8, WINDOW - 8, 16), np.arange(8, WINDOW - 8, 16)),
                    axis=-1).reshape(-1, 2).astype(np.float32)
    centres = grid[rng.random(len(grid)) < 0.5] + rng.uniform(-1.5, 1.5, (1, 2))
    heat, off, _ = _targets([centres.astype(np.float32)], WINDOW)
    out = np.concatenate([_logits(heat)[:, None], off], axis=1)[0]
    found = bean_net.peaks(out, bean_net.THRESHOLD)
    assert len(found) == len(centres)
    got = np.array([[p.x, p.y] for p in found])
    for c in centres:
        assert np.min(np.linalg.norm(got - c, axis=1)) < 1e-4


@pytest.mark.parametrize("seed", range(8))
def test_turns_and_mirrors_move_the_centres_with_the_pixels(seed, monkeypatch):
    """One lit pixel at a bean's centre: after any turn, mirror and crop, the centre the
    targets are made from is still where the pixel is."""
    monkeypatch.setattr(train_bean_net, "BOXED", 0.0)  # no blanking: the pixel stays
    rng = np.random.default_rng(seed)
    cut = WINDOW + 16
    win = np.zeros((1, bean_net.CHANNELS, cut, cut), np.uint8)
    x, y = (int(v) for v in rng.integers(30, cut - 30, 2))
    win[0, 3, y, x] = 255
    centre = np.array([[x, y]], np.float32)
    w, _, cents = _augment(win, np.zeros((1, cut, cut), np.uint8), [centre], rng)
    ys, xs = np.nonzero(w[0, 3])
    assert cents[0].tolist() == [[float(xs[0]), float(ys[0])]]


@pytest.mark.parametrize("seed", range(4))
def test_a_boxed_window_is_paper_beyond_its_box_and_unscored_near_its_edge(seed):
    """As the reader crops round a region of pieces: every plane reads bare paper outside
    the box, and no loss is taken within CONTEXT_PX of the box's edge."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 256, (bean_net.CHANNELS, WINDOW, WINDOW)).astype(np.uint8)
    g = np.zeros((WINDOW, WINDOW), np.uint8)
    boxed, ignored = train_bean_net._boxed(w, g, rng)
    ys, xs = np.nonzero((boxed != w).any(axis=0))
    kept = np.ones((WINDOW, WINDOW), bool)
    kept[ys, xs] = False  # changed: must be outside the box
    ky, kx = np.nonzero(kept)
    y0, y1, x0, x1 = ky.min(), ky.max() + 1, kx.min(), kx.max() + 1
    assert kept[y0:y1, x0:x1].all(), "what is kept is one box"
    assert min(y1 - y0, x1 - x0) >= 40
    outside = ~np.pad(np.ones((y1 - y0, x1 - x0), bool),
                      ((y0, WINDOW - y1), (x0, WINDOW - x1)))
    assert (boxed[:3][:, outside] == train_bean_net.PAPER).all()
    assert (boxed[3:][:, outside] == 0).all()
    c = train_bean_net.CONTEXT_PX
    scored = ignored == 0
    assert scored[y0 + c:y1 - c, x0 + c:x1 - c].all()
    assert scored.sum() == (y1 - y0 - 2 * c) * (x1 - x0 - 2 * c)
    assert (g == 0).all(), "the caller's ignore map is left as it was"


def _answer(model, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return session.run(None, {"planes": x})[0]


def _heat(out: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-out[:, 0]))


def test_the_net_in_eight_bits_answers_as_the_float_net(tmp_path):
    """Quantised on windows of two rendered tables, the net's heat over a third table stays
    within 0.05 of the float net's, and it finds the same beans within a pixel; the
    shipped net (made so from more tables, of both generators) is such a net. (One
    table's windows are too few: the net trained on both generators has activations
    that one 2D table does not range over, and its heat then drifts 0.055.)"""
    import onnx

    profiles = LookProfiles()
    samples = []
    for seed in (100_003, 100_005, 100_004):  # training seeds: no benchmark reads them
        sample = scene_sample(seed, profiles, None)
        assert sample is not None and len(sample.centres) > 20
        path = tmp_path / f"scene{seed}.npz"
        np.savez_compressed(path, inputs=sample.inputs, centres=sample.centres,
                            ignore=sample.ignore)
        samples.append((path, sample))
    quantised = tmp_path / "bean_net.onnx"
    quantise(FLOAT_MODEL, quantised,
             calibration_windows([samples[0][0], samples[1][0]], per_scene=12))
    x = dequantise(samples[2][1].inputs[None])
    x = np.ascontiguousarray(x[..., : x.shape[2] // 8 * 8, : x.shape[3] // 8 * 8])
    want = _answer(FLOAT_MODEL, x)
    beans = bean_net.peaks(want[0], bean_net.THRESHOLD)
    assert len(beans) > 20
    for model in (quantised, bean_net.MODEL):
        ops = {node.op_type for node in onnx.load(str(model)).graph.node}
        assert {"QuantizeLinear", "DequantizeLinear"} <= ops, model
        got = _answer(model, x)
        assert float(np.abs(_heat(got) - _heat(want)).max()) < 0.05, model
        found = np.array([(p.x, p.y) for p in bean_net.peaks(got[0], bean_net.THRESHOLD)])
        assert len(found) == len(beans), model
        for b in beans:
            assert np.min(np.hypot(*(found - (b.x, b.y)).T)) < 1.0, model


# --- Samples from the path-traced generator (vision.peepwar.training.bean_samples3d) ---


def test_held_out_3d_frames_are_never_made_into_samples():
    """Only 3D development seeds make samples: a held-out seed is refused, whatever is
    cached (and before anything is read)."""
    from vision.peepwar.training import bean_samples3d

    for seed in (50_000, 50_999, 39_999):
        with pytest.raises(ValueError, match="development"):
            bean_samples3d.scene3d_samples(seed, None)
    with pytest.raises(SystemExit):
        bean_samples3d.main(["--seeds", "40990-50010", "--out", "/nonexistent"])


@pytest.mark.slow  # lays out a 3D scene and traces its first hits: a few seconds
def test_a_3d_beans_middle_is_where_the_camera_sees_the_bean():
    """The camera drawn again from the seed is the one the scene was rendered with, and
    each bean's middle, carried along the camera's ray to the table plane, lies where the
    picture shows that bean: most such points' pixels show a bean first."""
    from vision.peepwar.training.bean_samples3d import BEAN_MIDDLE_MM, scene_camera, seen_on_table
    from vision.render3d.camera import table_to_world
    from vision.render3d.game import Spec3D, render_scene3d

    spec = Spec3D(size=(640, 360), spp=1)
    seed = 40_003  # a development seed, tilted 38 degrees
    scene = render_scene3d(seed, spec, picture=False)
    cam = scene_camera(seed, scene.truth, spec)
    assert cam == scene.camera
    beans = [p for p in scene.truth.pieces if p["kind"] == "bean"]
    assert len(beans) > 20
    xy = np.array([p["centre_mm"] for p in beans], float)
    z = np.array([p["z_mm"] for p in beans], float) + BEAN_MIDDLE_MM
    seen = seen_on_table(cam, xy, z)
    # The same ray: the middle and the table point it is carried to share a pixel ...
    np.testing.assert_allclose(cam.project(table_to_world(seen, 0.0)),
                               cam.project(table_to_world(xy, z)), atol=1e-6)
    # ... which shows a bean (not the tile under its foot, a tilted view's few mm off).
    px = np.round(cam.project(table_to_world(seen, 0.0))).astype(int)
    shown = [scene.first_hit[y, x] for x, y in px]
    assert sum(s == "beans" for s in shown) >= 0.85 * len(shown), shown
    feet = np.round(cam.project(table_to_world(xy, 0.0))).astype(int)
    at_feet = [scene.first_hit[y, x] for x, y in feet]
    assert sum(s == "beans" for s in shown) > sum(s == "beans" for s in at_feet)


def test_sample_files_name_3d_looks_by_their_frame(tmp_path):
    """2D samples are scene<seed>.npz, a 3D frame's looks scene<seed>_<k>.npz; a 3D frame
    is held out whole (its look as rendered scored), never one look of it trained on."""
    from vision.peepwar.training.train_bean_net import sample_files, split

    for name in ("scene40001_0", "scene40001_1", "scene40002_0", "scene40002_1",
                 "scene40003_0", "partial-scene40004_0", "scene40005_x"):
        (tmp_path / f"{name}.npz").write_bytes(b"")
    assert {k: [f.stem for f in v] for k, v in sample_files(tmp_path).items()} == {
        40001: ["scene40001_0", "scene40001_1"], 40002: ["scene40002_0", "scene40002_1"],
        40003: ["scene40003_0"]}
    train, held = split(tmp_path, 2)
    assert [f.stem for f in train] == ["scene40001_0", "scene40001_1"]
    assert [f.stem for f in held] == ["scene40002_0", "scene40003_0"]


def test_the_shipped_float_net_is_read_back_for_further_training():
    """Read back from its ONNX file (batch norms folded into the convolutions), the float
    net answers as the file does, so training can go on from it."""
    torch = pytest.importorskip("torch")
    import onnxruntime as ort

    from vision.peepwar.training.train_bean_net import load_onnx

    x = np.random.default_rng(0).uniform(-1.0, 0.6, (1, bean_net.CHANNELS, 64, 96))
    x[:, 3:] = x[:, 3:] > 0
    x = x.astype(np.float32)
    session = ort.InferenceSession(str(FLOAT_MODEL), providers=["CPUExecutionProvider"])
    want = session.run(None, {"planes": x})[0]
    with torch.no_grad():
        got = load_onnx(FLOAT_MODEL).eval()(torch.from_numpy(x)).numpy()
    assert float(np.abs(got - want).max()) < 1e-3


@pytest.mark.parametrize("seed", range(3))
def test_randomised_looks_keep_the_frame_and_change_only_what_a_camera_would(seed):
    """A randomised look is the same picture: same size, the same places bright and dark
    (correlated), though never pixel for pixel the frame itself."""
    from vision.peepwar.training.looks import randomise

    rng = np.random.default_rng(seed)
    frame = np.full((120, 160, 3), 200, np.uint8)
    frame[40:80, 50:110] = (30, 60, 210)  # a red piece on paper
    frame[10:20, 10:30] = 20  # print
    out = randomise(frame, rng)
    assert out.shape == frame.shape and out.dtype == np.uint8
    assert (out != frame).any()
    a, b = frame.astype(float).ravel(), out.astype(float).ravel()
    assert np.corrcoef(a, b)[0, 1] > 0.9
    assert out[45:75, 55:105, 2].mean() > out[45:75, 55:105, 0].mean() + 60  # still red


def test_distilling_counts_only_a_2d_windows_distance_from_the_teacher():
    """The distillation term is nothing where the net answers as its teacher does, grows as
    the heat strays either way, and counts only the windows it is told to (the 2D ones)."""
    torch = pytest.importorskip("torch")
    from vision.peepwar.training.train_bean_net import _distil_loss

    rng = np.random.default_rng(0)
    teacher = torch.from_numpy(rng.uniform(0.01, 0.99, (2, 6, 6)).astype(np.float32))
    logits = torch.log(teacher / (1 - teacher))
    out = torch.zeros(2, 3, 6, 6)
    both = torch.ones(2)
    out[:, 0] = logits
    assert abs(float(_distil_loss(torch, out, teacher, both))) < 1e-4
    cooler, hotter = out.clone(), out.clone()
    cooler[0, 0, 2, 2] -= 2.0
    hotter[0, 0, 2, 2] += 2.0
    for strayed in (cooler, hotter):
        assert float(_distil_loss(torch, strayed, teacher, both)) > 0.05
        assert abs(float(_distil_loss(torch, strayed, teacher, torch.tensor([0.0, 1.0])))) < 1e-4


def test_distilling_weighs_the_teachers_peaks_more_when_asked():
    """The same stray costs ``1 + peak_weight`` times as much at a pixel the teacher holds
    over DOUBT_LOW (a peak) as without the weight, and no more off the peaks."""
    torch = pytest.importorskip("torch")
    from vision.peepwar.training.train_bean_net import _distil_loss

    teacher = torch.full((1, 4, 4), 0.02)
    teacher[0, 1, 1] = 0.6  # a cool peak, as a greyish bean's
    out = torch.zeros(1, 3, 4, 4)
    out[:, 0] = torch.log(teacher / (1 - teacher))
    one = torch.ones(1)
    for y, x, factor in ((1, 1, 5.0), (3, 3, 1.0)):
        strayed = out.clone()
        strayed[0, 0, y, x] -= 1.5
        plain = float(_distil_loss(torch, strayed, teacher, one))
        weighed = float(_distil_loss(torch, strayed, teacher, one, peak_weight=4.0))
        assert plain > 0.001 and weighed == pytest.approx(factor * plain, rel=1e-4)
