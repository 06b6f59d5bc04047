"""Training samples for the bean net: rendered tables read up to the beans, with their truth.

Each sample is one rendered game (:func:`vision.render.game_scene.render_game`) run
through the real reader up to where it counts beans: tiles found, the mosaic,
pixel classes, Supply Centers, occluders and peeps. It holds the net's input
over the whole mosaic (quantised to bytes), every true bean centre in input
pixels, and where the loss is ignored: cells a hand touches (the truth says what
lies under the hand; the camera cannot).

    python -m vision.peepwar.training.bean_samples --scenes 4000 --workers 2 --out DIR

Training scenes start at seed 100000 so that the benchmark's (0 to 9999) are never
trained on.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.peepwar import bean_net
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.pieces import bean_planes
from vision.peepwar.tiles import find_tiles
from vision.peepwar.training.looks import randomise
from vision.render.game_scene import GameSpec, LookProfiles, flavour_cutouts, render_game
from vision.render.piece_layer import seen_middle_mm

TRAIN_FIRST_SEED = 100_000
REL_SCALE = 150.0  # relative brightness -1..0.6 is stored as (v + 1) * REL_SCALE
SIZES = ((1280, 720), (1280, 720), (1280, 720), (1920, 1080))  # frame sizes, by seed


@dataclass
class Sample:
    inputs: np.ndarray  # uint8 CHANNELS x H x W (see quantise)
    centres: np.ndarray  # float32 N x 2: true bean centres, input pixels (x, y)
    ignore: np.ndarray  # uint8 H x W: 1 where the loss is not counted


def quantise(x: np.ndarray) -> np.ndarray:
    """The net's float input as bytes (brightness planes by REL_SCALE, masks by 255).

    >>> x = np.zeros((7, 1, 2), np.float32); x[0] = -1.0; x[3] = 1.0
    >>> dequantise(quantise(x))[[0, 3], 0, 0].tolist()
    [-1.0, 1.0]
    """
    out = np.empty(x.shape, np.uint8)
    out[:3] = np.clip(np.round((x[:3] + 1.0) * REL_SCALE), 0, 255)
    out[3:] = np.clip(np.round(x[3:] * 255.0), 0, 255)
    return out


def dequantise(q: np.ndarray) -> np.ndarray:
    """Back to the net's float input (``q``: ... x CHANNELS x H x W bytes)."""
    x = q.astype(np.float32)
    x[..., :3, :, :] = x[..., :3, :, :] / REL_SCALE - 1.0
    x[..., 3:, :, :] /= 255.0
    return x


def scene_sample(seed: int, profiles: LookProfiles, cutouts, photometric: float = 0.0
                 ) -> Sample | None:
    """The sample of rendered game ``seed`` (None when no tile is found); with chance
    ``photometric`` its frame is first randomised (:func:`looks.randomise`, drawn from
    the seed) as another camera and light might have given it."""
    w, h = SIZES[seed % len(SIZES)]
    scene = render_game(seed, GameSpec(size=(w, h)), cutouts)
    profile = profiles.for_looks(scene.truth.looks)
    frame = scene.frame
    rng = np.random.default_rng((seed, 7))
    if rng.uniform() < photometric:
        frame = randomise(frame, rng)
    # Where each bean's middle appears on the table plane: the renderer lifts it.
    eye = scene.truth.camera.centre_mm()
    beans = [seen_middle_mm(p, eye) for p in scene.truth.pieces if p["kind"] == "bean"]
    return frame_sample(frame, profile, np.asarray(beans, float).reshape(-1, 2),
                        scene.truth.hand_cover)


def frame_sample(frame: np.ndarray, profile, beans_mm: np.ndarray,
                 hand_cover: dict[str, float]) -> Sample | None:
    """The sample of one camera frame read with ``profile``: the net's input over the
    whole mosaic, the beans at table positions ``beans_mm`` (N x 2, where each bean's
    middle appears on the table plane), no loss in cells ``hand_cover`` names (None when
    no tile is found)."""
    view = find_tiles(frame, profile.intrinsics)
    if not view.tiles or view.homography is None:
        return None
    mosaic = build_mosaic(frame, view)
    planes = bean_planes(mosaic, profile)
    H, W = mosaic.cell_map.shape
    x = bean_net.net_input(planes, (0, 0, W, H))
    centres = np.zeros((0, 2), np.float32)
    if len(beans_mm):
        centres = mosaic.to_px(np.asarray(beans_mm, float)).astype(np.float32)
        inside = (centres[:, 0] >= 0) & (centres[:, 1] >= 0) \
            & (centres[:, 0] < W) & (centres[:, 1] < H)
        centres = centres[inside]
    handed = [i for i, name in enumerate(mosaic.cell_names) if hand_cover.get(name, 0.0) > 0]
    ignore = np.zeros(x.shape[1:], np.uint8)
    if handed:
        ignore[:H, :W] = np.isin(mosaic.cell_map, handed)
        # A hand reaches past the cells it is counted in: its fingers (at 1 px/mm).
        ignore = cv2.dilate(ignore, np.ones((15, 15), np.uint8))
    return Sample(quantise(x), centres, ignore)


def save_sample(sample: Sample, path: Path) -> None:
    """Write ``sample`` to ``path`` (.npz), aside and renamed, so that a stopped run leaves
    no half sample under a sample's name."""
    tmp = path.with_name(f"partial-{path.name}")
    np.savez_compressed(tmp, inputs=sample.inputs, centres=sample.centres,
                        ignore=sample.ignore)
    os.replace(tmp, path)


def _work(args: tuple[list[int], str, str | None, float]) -> int:
    seeds, out, photos, photometric = args
    cv2.setNumThreads(1)
    cutouts = flavour_cutouts(photos) if photos else None
    profiles = LookProfiles()
    made = 0
    for seed in seeds:
        path = Path(out) / f"scene{seed}.npz"
        if path.exists():
            continue
        sample = scene_sample(seed, profiles, cutouts, photometric)
        if sample is None:
            continue
        save_sample(sample, path)
        made += 1
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first-seed", type=int, default=TRAIN_FIRST_SEED)
    ap.add_argument("--scenes", type=int, default=4000)
    ap.add_argument("--out", required=True, help="folder for the samples (one .npz a scene)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--photos", default=str(Path(__file__).resolve().parents[3] / ".."
                                            / "shared" / "photos" / "jellybeans"))
    ap.add_argument("--photometric", type=float, default=0.5,
                    help="share of frames randomised in white balance, gloss, blur, noise "
                         "and JPEG before they are read (vision.peepwar.training.looks)")
    args = ap.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    photos = str(Path(args.photos).resolve()) if Path(args.photos).is_dir() else None
    if photos is None:
        print(f"note: no photos at {args.photos}; every bean is a rendered one")
    seeds = list(range(args.first_seed, args.first_seed + args.scenes))
    chunks = [(seeds[i::args.workers * 8], args.out, photos, args.photometric)
              for i in range(args.workers * 8)]
    with multiprocessing.Pool(args.workers) as pool:
        made = sum(pool.imap_unordered(_work, chunks))
    print(f"{made} samples written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
