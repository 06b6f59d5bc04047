"""Training the hole model (:mod:`vision.petri.hole_model`) on both scene generators.

Every frame is read by the real reader up to the hole model (its rules' measures of
every hole); each hole in view gets its true class by where it lies in the frame, not
by the reader's names, so a frame whose board the reader turned wrongly still teaches
what its holes hold. The network is trained in NumPy (full-batch Adam), each
generator's holes weighing half.

    python -m vision.petri.training --2d 100000-100999 --3d 3000000-3000449 \\
        --out vision/petri/hole_model.json

2D frames come from seed 100000 on (the benchmark reads 0-999 as its tuning range and
1,000,000 on as held out); 3D frames only from the path-traced development seeds,
never the held-out range.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.geometry import apply_h
from vision.petri.hole_model import CLASSES, FEATURES, HoleModel, evidence
from vision.petri.holes import HOLE_NAMES, HOLE_QR
from vision.petri.read import read_board
from vision.petri.reader import PetriReader

if TYPE_CHECKING:
    from vision.render.petri import PetriFrame

Frames = Iterator[tuple[np.ndarray, Any, "PetriFrame"]]  # image, profile, truth

FIRST_2D_SEED = 100_000
LAST_2D_SEED = 999_999  # the benchmark's held-out frames start at 1,000,000
NEAR = 0.3  # a fitted hole this far (in hole steps) from a true one has no label


def frame_samples(image: np.ndarray, profile: Any, frame: PetriFrame
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """One frame's (inputs, class) rows, ``frame`` its truth (a ``PetriFrame``); None when
    no board is found. A hole partly under a hand is taught as hidden: reading it
    occluded is right, and a piece half covered must not be read surely empty."""
    from vision.render.petri import project_holes

    rd = PetriReader(profile, homes=frame.homes)
    reading = read_board(image, rd.print_colours, rd.card_white, rd.homes, rd.table,
                         rd.plain_colours, by_rules_only=True)
    m = reading.measures
    if m is None:
        return None
    x = evidence(m)
    players = rd.print_colours.players
    true_px = project_holes(frame)
    step = _step(true_px)
    got_px = apply_h(m.homography, HOLE_QR)
    d = np.linalg.norm(got_px[:, None] - true_px[None], axis=2)
    near, dist = d.argmin(axis=1), d.min(axis=1) / step
    order = m.ranked
    rows, ys = [], []
    for i in np.nonzero(m.view & (dist <= NEAR))[0]:
        name = HOLE_NAMES[near[i]]
        truth = frame.pieces.get(name)
        if name in frame.occluded or name in frame.touched:
            y = 3
        elif truth is None:
            y = 1
        elif truth == players[order[i, 0]]:
            y = 0
        elif len(players) > 1 and truth == players[order[i, 1]]:
            y = 2
        else:
            y = 3
        rows.append(i)
        ys.append(y)
    return x[rows], np.array(ys, np.int64)


def _step(px: np.ndarray) -> float:
    """The distance between neighbouring holes in the frame (median nearest distance)."""
    d = np.linalg.norm(px[:, None] - px[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def frames_2d(seeds: range) -> Frames:
    from vision.render.petri import card_profile, frame_spec, render_petri

    profiles: dict = {}
    for seed in seeds:
        if not FIRST_2D_SEED <= seed <= LAST_2D_SEED:
            raise SystemExit(f"2D seed {seed}: training frames are {FIRST_2D_SEED}-"
                             f"{LAST_2D_SEED} (the benchmark reads the others)")
        style, kelvin = frame_spec(seed)
        frame = render_petri(seed, style=style, kelvin=kelvin)
        key = (kelvin, style != "plastic")
        if key not in profiles:
            profiles[key] = card_profile(*key)
        yield frame.image, profiles[key], frame


def frames_3d(seeds: range) -> Frames:
    from calibration.colour import CalibrationError
    from vision.render3d.petri_cache import DEV_SEEDS, cached_petri
    from vision.render3d.petri_card import set_profile

    for seed in seeds:
        if seed not in DEV_SEEDS:
            raise SystemExit(f"3D seed {seed} is not a development seed ({DEV_SEEDS.start}-"
                             f"{DEV_SEEDS.stop - 1}): held-out frames are never trained on")
        scene = cached_petri(seed, render=False)
        if scene is None:
            continue
        try:
            profile = set_profile(scene.piece_set)
        except CalibrationError:  # a box the calibration refuses is never read
            continue
        yield scene.truth.image, profile, scene.truth


def gather(frames: Frames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stacked inputs, classes and each row's frame number."""
    xs, ys, fs = [], [], []
    for k, (image, profile, truth) in enumerate(frames):
        got = frame_samples(image, profile, truth)
        if got is None:
            continue
        xs.append(got[0])
        ys.append(got[1])
        fs.append(np.full(len(got[1]), k))
    if not xs:
        return (np.zeros((0, len(FEATURES)), np.float32), np.zeros(0, np.int64),
                np.zeros(0, np.int64))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(fs)


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, hidden: int = 32,
        steps: int = 2000, rate: float = 0.01, l2: float = 1e-4, seed: int = 0) -> HoleModel:
    """A one-hidden-layer network fitted by full-batch Adam to weighted cross-entropy.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(400, len(FEATURES))).astype(np.float32)
    >>> y = (x[:, 0] > 0).astype(int)
    >>> m = fit(x, y, np.ones(len(y)), steps=300)
    >>> bool((m.chances(x).argmax(axis=1) == y).mean() > 0.95)
    True
    """
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3  # a measure constant in the data (a flag never set) stays 0
    z = (x - mean) / std
    n_in, n_out = z.shape[1], len(CLASSES)
    w = weight / weight.sum()
    params = [rng.normal(0, np.sqrt(2 / n_in), (n_in, hidden)), np.zeros(hidden),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, n_out)), np.zeros(n_out)]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    target = np.eye(n_out)[y]
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        a = z @ w1 + b1
        h = np.maximum(a, 0)
        logits = h @ w2 + b2
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        g = (e / e.sum(axis=1, keepdims=True) - target) * w[:, None]
        gh = g @ w2.T
        gh[a <= 0] = 0
        grads = [z.T @ gh + l2 * w1, gh.sum(axis=0), h.T @ g + l2 * w2, g.sum(axis=0)]
        for i, gr in enumerate(grads):
            m1[i] = 0.9 * m1[i] + 0.1 * gr
            m2[i] = 0.999 * m2[i] + 0.001 * gr * gr
            params[i] -= rate * (m1[i] / (1 - 0.9**t)) / (np.sqrt(m2[i] / (1 - 0.999**t)) + 1e-8)
    f32 = [np.asarray(p, np.float32) for p in params]
    return HoleModel(mean.astype(np.float32), std.astype(np.float32), *f32)


def _seeds(text: str) -> range:
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--2d", dest="two", type=_seeds, required=True, help="e.g. 100000-100999")
    ap.add_argument("--3d", dest="three", type=_seeds, required=True,
                    help="path-traced development seeds, e.g. 3000000-3000449")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    x2, y2, _ = gather(frames_2d(args.two))
    x3, y3, _ = gather(frames_3d(args.three))
    if not len(y2) or not len(y3):
        print("no holes to learn from: render the path-traced frames first "
              "(python -m vision.render3d.petri_cache --seeds ...)", file=sys.stderr)
        return 1
    x = np.concatenate([x2, x3])
    y = np.concatenate([y2, y3])
    weight = np.concatenate([np.full(len(y2), 0.5 / len(y2)), np.full(len(y3), 0.5 / len(y3))])
    model = fit(x, y, weight, hidden=args.hidden, steps=args.steps)
    args.out.write_text(json.dumps(model.to_json()) + "\n")
    print(f"{len(y2)} holes of 2D frames, {len(y3)} of path-traced frames; "
          f"model written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
