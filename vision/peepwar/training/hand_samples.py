"""Training samples for the hand net: every cell of rendered tables, with its truth.

Each scene is read by the real reader up to where it has found the hands by its rules
(tiles, the mosaic, pixel classes, Supply Centers, occluders); every cell it shows gives
the hand net's input (:func:`vision.peepwar.hand_net.cell_inputs`, quantised to bytes),
the share of it the truth says a hand covers, and the share the frame does not show.

    python -m vision.peepwar.training.hand_samples --generator 2d --seeds 300000-300499 \
        --out DIR/2d
    python -m vision.peepwar.training.hand_samples --generator 3d --seeds 40000-40169 \
        --looks 3 --out DIR/3d
    python -m vision.peepwar.training.hand_samples --generator 3d --seeds 80000-80299 \
        --night-frames 25 --out DIR/nights

2D scenes come from seed 300000 on (the benchmarks read 0-9999, the bean net trained
from 100000); only the path-traced generator's development seeds are accepted, never its
held-out range. With ``--looks`` above 1, each 3D frame gives further copies randomised
as another camera and light might have given them (:func:`looks.randomise`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.peepwar import hand_net
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.occlusion import find_occluders
from vision.peepwar.passes import occlusion, supply_centers
from vision.peepwar.passes.state import FrameState
from vision.peepwar.piece_pixels import classify
from vision.peepwar.tiles import find_tiles
from vision.peepwar.training.bean_samples import REL_SCALE
from vision.peepwar.training.looks import randomise

FIRST_2D_SEED = 300_000


def quantise(x: np.ndarray) -> np.ndarray:
    """The net's float input as bytes (brightness planes by REL_SCALE, masks by 255)."""
    out = np.empty(x.shape, np.uint8)
    out[:, :3] = np.clip(np.round((x[:, :3] + 1.0) * REL_SCALE), 0, 255)
    out[:, 3:] = np.clip(np.round(x[:, 3:] * 255.0), 0, 255)
    return out


def dequantise(q: np.ndarray) -> np.ndarray:
    """Back to the net's float input (``q``: N x CHANNELS x H x W bytes).

    >>> x = np.zeros((1, hand_net.CHANNELS, 2, 2), np.float32); x[0, 0] = -0.5; x[0, 5] = 1
    >>> bool(np.allclose(dequantise(quantise(x)), x, atol=0.01))
    True
    """
    x = q.astype(np.float32)
    x[:, :3] = x[:, :3] / REL_SCALE - 1.0
    x[:, 3:] /= 255.0
    return x


def frame_cells(frame: np.ndarray, profile, hand_cover: dict[str, float]
                ) -> dict[str, np.ndarray] | None:
    """One frame's cells: quantised inputs, true hand cover, share unseen, and the rules'
    own answer (None when no tile is found)."""
    view = find_tiles(frame, profile.intrinsics)
    if not view.tiles or view.homography is None:
        return None
    mosaic = build_mosaic(frame, view)
    st = FrameState(mosaic, classify(mosaic, profile), profile)
    supply_centers.find_supply_centers(st)
    st.occluder |= find_occluders(st.m, st.px, st.egg)  # the rules' hands, never the net's
    names, x = hand_net.cell_inputs(st)
    if not names:
        return None
    covered, outside = occlusion.cell_shares(st)
    index = {n: i for i, n in enumerate(mosaic.cell_names)}
    return {"inputs": quantise(x),
            "cover": np.array([hand_cover.get(n, 0.0) for n in names], np.float32),
            "outside": np.array([outside[index[n]] for n in names], np.float32),
            "rules": np.array([covered[index[n]] for n in names], np.float32),
            "names": np.array(names)}


def _save(cells: dict[str, np.ndarray], path: Path) -> None:
    tmp = path.with_name(f"partial-{path.name}")
    np.savez_compressed(tmp, **cells)
    os.replace(tmp, path)


def _scenes_2d(seeds: range, photometric: float, hand_scenes: float):
    from vision.render.game_scene import GameSpec, LookProfiles, flavour_cutouts, render_game

    photos = Path(__file__).resolve().parents[3] / ".." / "shared" / "photos" / "jellybeans"
    cutouts = flavour_cutouts(str(photos.resolve())) if photos.is_dir() else None
    profiles = LookProfiles()
    for seed in seeds:
        if seed < FIRST_2D_SEED:
            raise SystemExit(f"2D seed {seed}: training scenes start at {FIRST_2D_SEED}")
        spec = GameSpec(size=(1280, 720), hands=(1, 2), hand_scenes=hand_scenes)
        scene = render_game(seed, spec, cutouts)
        frame = scene.frame
        rng = np.random.default_rng((seed, 11))
        if rng.uniform() < photometric:
            frame = randomise(frame, rng)
        yield f"2d-{seed}", frame, profiles.for_looks(scene.truth.looks), scene.truth.hand_cover


def _scenes_3d(seeds: range, looks: int, night_frames: int = 0):
    from vision.render3d.cache import DEV_NIGHT_SEEDS, DEV_SEEDS, cached_scene
    from vision.render3d.card import card_profile, scene_profile
    from vision.render3d.game import Spec3D

    card = card_profile(0)
    dev = DEV_NIGHT_SEEDS if night_frames else DEV_SEEDS
    for seed in seeds:
        if seed not in dev:
            raise SystemExit(f"3D seed {seed} is not a development seed ({dev.start}-"
                             f"{dev.stop - 1}): held-out frames are never trained on")
        scene = cached_scene(seed, Spec3D(size=(1280, 720), night_frames=night_frames),
                             render=False)
        if scene is None:
            continue
        profile = scene_profile(card, scene.truth.players)
        for look in range(looks):
            frame = scene.frame
            if look:
                frame = randomise(frame, np.random.default_rng((seed, look)))
            yield f"3d-{seed}-{look}", frame, profile, scene.truth.hand_cover


def main(argv: list[str] | None = None) -> int:
    from vision.render3d.cache import parse_seeds

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", choices=("2d", "3d"), required=True)
    ap.add_argument("--seeds", required=True, help="e.g. 300000-301999")
    ap.add_argument("--looks", type=int, default=1, help="3d: copies of each frame (default 1)")
    ap.add_argument("--night-frames", type=int, default=0,
                    help="3d: frames of game nights of N frames each (seeds 80000 on), as "
                         "bench/correction_learning.py reads them")
    ap.add_argument("--photometric", type=float, default=0.5,
                    help="2d: chance a frame is randomised first (default 0.5)")
    ap.add_argument("--hand-scenes", type=float, default=0.7,
                    help="2d: share of scenes with hands (default 0.7; the benchmark's 0.3)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = parse_seeds(args.seeds)
    scenes = (_scenes_2d(seeds, args.photometric, args.hand_scenes) if args.generator == "2d"
              else _scenes_3d(seeds, args.looks, args.night_frames))
    made = 0
    for name, frame, profile, cover in scenes:
        path = out / f"{name}.npz"
        if path.exists():
            continue
        cells = frame_cells(frame, profile, cover)
        if cells is not None:
            _save(cells, path)
            made += 1
    print(f"{made} frames written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
