"""Train the doubt model (:mod:`vision.peepwar.doubt_model`) on both scene generators.

    python -m vision.peepwar.training.train_doubt_model --2d 500000-500399 \\
        --3d 40500-40999 --samples DIR

Every scene is read by the real reader up to the rules' last pass
(:func:`vision.peepwar.pieces.read_state`); each cell it reads (not occluded, no hand
over it in the truth, wholly in the frame) gives its measures
(:func:`vision.peepwar.doubt_model.cell_measures`) and whether its reading differs from
the truth. 2D scenes come from seed 500000 on (the benchmarks read 0-9999, the bean net
learnt from 100000 on and the hand net from 300000 on: frames a net learnt from would
look surer than a new table's); the path-traced generator's development seeds from 40500
(the bean net learnt from 40020-40241), never its held-out range, and only frames already
in the cache. Each generator weighs
half. The samples of each scene are kept in ``--samples`` (a folder), so fitting again
reads no frame twice; they hold what the reader read when they were made, and samples of
another version of the reader are refused (start an empty folder). Needs NumPy only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.profile import Profile
from vision.peepwar import doubt_model
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.observation import comparable
from vision.peepwar.pieces import read_state
from vision.peepwar.table import prepare_rules
from vision.peepwar.tiles import find_tiles

FIRST_2D_SEED = 500_000
# Path-traced development frames from here on: the bean net learnt from 40020-40241.
FIRST_3D_SEED = 40_500
STD_FLOOR = 0.1


def frame_samples(frame: np.ndarray, profile: Profile, truth: Any
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """One frame's cells: their measures, and 1 where the rules read the cell wrongly
    (None when no tile is found). ``truth``: the scene's, with ``cells``, ``hand_cover`` and
    ``out_of_frame`` as both generators write them."""
    prepare_rules(profile)
    view = find_tiles(frame, profile.intrinsics)
    if not view.tiles or view.homography is None:
        return None
    st = read_state(build_mosaic(frame, view), profile)
    names, x = doubt_model.cell_measures(st)
    keep = [k for k, n in enumerate(names)
            if not truth.hand_cover.get(n, 0.0) and not truth.out_of_frame.get(n, 0.0)]
    wrong = [int(comparable(truth.cells.get(names[k])) != comparable(st.cells[names[k]].to_json()))
             for k in keep]
    return x[keep], np.array(wrong, np.int8)


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, hidden: int = 16,
        steps: int = 1500, rate: float = 0.01, l2: float = 1e-3, seed: int = 0
        ) -> doubt_model.DoubtModel:
    """A one-hidden-layer network fitted by full-batch Adam to weighted cross-entropy.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(400, len(doubt_model.FEATURES)))
    >>> y = (x[:, 0] + x[:, 3] > 0).astype(int)
    >>> m = fit(x, y, np.ones(len(y)), steps=300)
    >>> bool(((m.chances(x) > 0.5) == y).mean() > 0.95)
    True
    """
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    # A measure that rarely varies (a kind of warning given a few times) is scaled as one
    # that varies by STD_FLOOR at least: one such warning then moves its input by a few
    # units, not hundreds; and a measure constant in the data stays 0.
    std = np.maximum(x.std(axis=0), STD_FLOOR)
    z = (x - mean) / std
    w = weight / weight.sum()
    n_in = z.shape[1]
    params = [rng.normal(0, np.sqrt(2 / n_in), (n_in, hidden)), np.zeros(hidden),
              rng.normal(0, np.sqrt(1 / hidden), hidden), np.zeros(())]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        a = z @ w1 + b1
        h = np.maximum(a, 0)
        p = 0.5 * (1.0 + np.tanh(0.5 * (h @ w2 + b2)))  # the logistic, as the model runs it
        g = (p - y) * w
        gh = np.outer(g, w2)
        gh[a <= 0] = 0
        grads = [z.T @ gh + l2 * w1, gh.sum(axis=0), h.T @ g + l2 * w2, g.sum()]
        for i, gr in enumerate(grads):
            m1[i] = 0.9 * m1[i] + 0.1 * gr
            m2[i] = 0.999 * m2[i] + 0.001 * gr * gr
            params[i] = params[i] - rate * (m1[i] / (1 - 0.9**t)) / (
                np.sqrt(m2[i] / (1 - 0.999**t)) + 1e-8)
    return doubt_model.DoubtModel(mean, std, *params)


def _scenes_2d(seeds: range):
    from vision.render.game_scene import GameSpec, LookProfiles, flavour_cutouts, render_game

    photos = Path(__file__).resolve().parents[3] / ".." / "shared" / "photos" / "jellybeans"
    cutouts = flavour_cutouts(str(photos.resolve())) if photos.is_dir() else None
    profiles = LookProfiles()
    spec = GameSpec(size=(1280, 720))
    for seed in seeds:
        scene = render_game(seed, spec, cutouts)
        yield f"2d-{seed}", scene.frame, profiles.for_looks(scene.truth.looks), scene.truth


def _scenes_3d(seeds: range):
    from vision.render3d.cache import cached_scene
    from vision.render3d.card import card_profile, scene_profile
    from vision.render3d.game import Spec3D

    card = card_profile(0)
    for seed in seeds:
        scene = cached_scene(seed, Spec3D(size=(1280, 720)), render=False)
        if scene is not None:
            yield f"3d-{seed}", scene.frame, scene_profile(card, scene.truth.players), scene.truth


def refusal(seeds_2d: range, seeds_3d: range) -> str | None:
    """Why these seeds may not be trained on (a benchmark's, a net's or a held-out range),
    or None: checked before any frame is read."""
    from vision.render3d.cache import DEV_SEEDS

    if seeds_2d and seeds_2d.start < FIRST_2D_SEED:
        return f"2D seed {seeds_2d.start}: training scenes start at {FIRST_2D_SEED}"
    for seed in (seeds_3d.start, seeds_3d[-1]) if seeds_3d else ():
        if seed not in DEV_SEEDS:
            return (f"3D seed {seed} is not a development seed ({DEV_SEEDS.start}-"
                    f"{DEV_SEEDS.stop - 1}): held-out frames are never trained on")
        if seed < FIRST_3D_SEED:
            return (f"3D seed {seed}: the bean net learnt from frames below {FIRST_3D_SEED}, "
                    "which would look surer than a new table's")
    return None


def reader_fingerprint() -> str:
    """What the samples depend on, in short: the measures' names, this module (which labels
    them), and the code and nets a Peep War frame is read by (``vision/peepwar`` but its
    training scripts and the doubt model's own weights, which training leaves out; the
    shared ``vision`` modules; ``calibration``). Samples read by another reader would teach
    its readings."""
    h = hashlib.sha256("\n".join(doubt_model.FEATURES).encode())
    vision = Path(doubt_model.__file__).parents[1]
    files = [*vision.glob("*.py"), *(vision / "peepwar").rglob("*"),
             *(vision.parent / "calibration").glob("*.py"), Path(__file__)]
    for path in sorted(set(files)):
        if (not path.is_file() or path.suffix not in (".py", ".onnx", ".json")
                or path == doubt_model.MODEL or "__pycache__" in path.parts
                or ("training" in path.parts and path != Path(__file__))):
            continue
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def gather(scenes: Iterable[tuple[str, np.ndarray, Profile, Any]], folder: Path,
           reader: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every cell of ``scenes`` (name, frame, profile, truth), read once into ``folder``;
    samples kept there by another reader (``reader``: :func:`reader_fingerprint`) are
    refused."""
    reader = reader or reader_fingerprint()
    folder.mkdir(parents=True, exist_ok=True)
    xs, ys = [], []
    for name, frame, profile, truth in scenes:
        path = folder / f"{name}.npz"
        if not path.exists():
            got = frame_samples(frame, profile, truth)
            x, y = got if got is not None else (np.zeros((0, len(doubt_model.FEATURES))),
                                                np.zeros(0, np.int8))
            tmp = path.with_name(f"partial-{path.name}")
            np.savez(tmp, x=x, y=y, features=np.array(doubt_model.FEATURES),
                     reader=np.array(reader))
            os.replace(tmp, path)
        with np.load(path) as d:
            if "features" not in d or list(d["features"]) != list(doubt_model.FEATURES):
                raise SystemExit(f"{path} holds other measures: remove the folder's samples")
            if "reader" not in d or str(d["reader"]) != reader:
                raise SystemExit(f"{path} was read by another version of the reader: start "
                                 "with an empty --samples folder")
            xs.append(d["x"])
            ys.append(d["y"])
    x = np.vstack(xs) if xs else np.zeros((0, len(doubt_model.FEATURES)))
    return x, (np.concatenate(ys) if ys else np.zeros(0, np.int8))


def _summary(label: str, x: np.ndarray, y: np.ndarray, model: doubt_model.DoubtModel) -> str:
    sure = x[:, doubt_model.FEATURES.index("confidence")] >= doubt_model.SURE_FROM
    asked = sure & (model.chances(x) >= doubt_model.ASK_FROM)
    return (f"{label}: {len(y)} cells, {int(y.sum())} read wrongly, {int(y[sure].sum())} of "
            f"them surely; the model asks about {int(y[asked].sum())} of those, and "
            f"{int((asked & (y == 0)).sum())} right cells (its own training cells)")


def main(argv: list[str] | None = None) -> int:
    from vision.render3d.cache import parse_seeds

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--2d", dest="seeds_2d", default="500000-500399",
                    help="2D scene seeds (from 500000; default 500000-500399)")
    ap.add_argument("--3d", dest="seeds_3d", default="40500-40999",
                    help="path-traced development seeds read from the cache (default "
                         "40500-40999; 40020-40241 taught the bean net)")
    ap.add_argument("--samples", required=True, help="folder for each scene's samples")
    ap.add_argument("--out", default=str(doubt_model.MODEL), help="the model file written")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    folder = Path(args.samples)
    try:
        seeds_2d, seeds_3d = parse_seeds(args.seeds_2d), parse_seeds(args.seeds_3d)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    why = refusal(seeds_2d, seeds_3d)
    if why:
        raise SystemExit(why)
    x2, y2 = gather(_scenes_2d(seeds_2d), folder / "2d")
    x3, y3 = gather(_scenes_3d(seeds_3d), folder / "3d")
    if not len(y2) or not len(y3):
        raise SystemExit("cells of both generators are needed (render path-traced "
                         "development frames first: python -m vision.render3d.cache)")
    weight = np.concatenate([np.full(len(y2), 0.5 / len(y2)), np.full(len(y3), 0.5 / len(y3))])
    model = fit(np.vstack([x2, x3]), np.concatenate([y2, y3]).astype(float), weight,
                seed=args.seed)
    out = Path(args.out)
    tmp = out.with_name(f"partial-{out.name}")
    tmp.write_text(json.dumps(model.to_json()) + "\n")
    os.replace(tmp, out)
    print(_summary("2D", x2, y2, model))
    print(_summary("path-traced", x3, y3, model))
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
