"""Training samples for the bean net from the path-traced generator's cached frames.

The 2D generator paints beans in the table plane, so a bean's centre in its truth
is where the bean shows in the mosaic. The path-traced beans stand up to about
12 mm off the table (more on other beans), and a tilted camera sees their middle
off their footprint: at 40 deg of tilt a bean's middle shows about 5 mm beyond its
foot. The truth gives each bean's foot (``centre_mm``) and lift (``z_mm``); its
middle (the lift plus ``BEAN_MIDDLE_MM``) is carried along the camera's ray down
to the table plane, which is where the reader's mosaic shows it. The camera is
not in the cached truth; it is drawn again from the scene's seed exactly as
:func:`vision.render3d.game.render_scene3d` draws it (checked against the tilt
and field of view the truth records), without tracing anything.

Each cached frame gives ``--looks`` samples: the frame as rendered, and further
copies randomised by :func:`vision.peepwar.training.looks.randomise` (path-traced
frames are few: each costs about 9 s of one core).

    python -m vision.peepwar.training.bean_samples3d --seeds 40000-40999 --out DIR

Only the 3D development seeds (``vision.render3d.cache.DEV_SEEDS``) are accepted:
the held-out range 50000-50999 is never trained on. Frames not yet in the cache
are skipped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.rules.peepwar.board import R_MM, hexagon_mm
from vision.peepwar.training.bean_samples import Sample, frame_sample, save_sample
from vision.peepwar.training.looks import randomise
from vision.render3d.cache import DEV_SEEDS, cached_scene, parse_seeds
from vision.render3d.camera import Camera3D, framing_camera, table_to_world
from vision.render3d.content import random_layout
from vision.render3d.game import Spec3D
from vision.render3d.truth import Truth3D

BEAN_MIDDLE_MM = 5.5  # a lying bean's middle above its foot (beans are 10-12 mm high)


def scene_camera(seed: int, truth: Truth3D, spec: Spec3D | None = None) -> Camera3D:
    """The camera of 3D scene ``seed``, drawn as the generator draws it; a ValueError when
    it disagrees with the tilt and field of view in ``truth`` (the generator changed)."""
    spec = spec or Spec3D()
    rng = np.random.default_rng(seed)
    n_tiles = int(rng.integers(spec.tiles[0], spec.tiles[1] + 1))
    n_players = int(rng.integers(spec.players[0], spec.players[1] + 1))
    layout = random_layout(rng, n_tiles, n_players)
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in layout.tiles])
    cam = framing_camera(rng, table_to_world(outline), spec.size, spec.max_tilt_deg, spec.fill)
    p = truth.params
    if "tilt_deg" in p and (abs(cam.tilt_deg - p["tilt_deg"]) > 0.01
                            or abs(cam.fov_deg - p["fov_deg"]) > 0.01):
        raise ValueError(f"scene {seed}: the camera drawn again (tilt {cam.tilt_deg:.2f}, "
                         f"fov {cam.fov_deg:.2f}) is not the truth's ({p['tilt_deg']}, "
                         f"{p['fov_deg']}): the generator has changed since")
    return cam


def seen_on_table(cam: Camera3D, xy_mm: np.ndarray, z_mm: np.ndarray) -> np.ndarray:
    """Where points (table frame ``xy_mm``, ``z_mm`` above the table) show on the table
    plane: the table point on the same camera ray.

    >>> from vision.render3d.camera import aim
    >>> cam = aim(np.zeros(3), 45.0, 0.0, 0.0, 800.0, 60.0, (640, 480))  # from the viewer's side
    >>> seen_on_table(cam, np.array([[0.0, 0.0]]), np.array([8.0])).round(1).tolist()
    [[0.0, -8.1]]
    """
    world = table_to_world(xy_mm, z_mm)
    o = np.asarray(cam.origin, float)
    t = o[2] / np.maximum(o[2] - world[:, 2], 1e-6)  # along the ray from o, to z = 0
    hit = o + (world - o) * t[:, None]
    return np.stack([hit[:, 0], -hit[:, 1]], -1)


def scene3d_samples(seed: int, profile, looks: int = 1, spec: Spec3D | None = None
                    ) -> list[Sample]:
    """Samples of cached 3D scene ``seed`` read with ``profile``: the frame as rendered,
    then ``looks - 1`` randomised copies (none when the frame is not cached or no tile
    is found)."""
    if seed not in DEV_SEEDS:
        raise ValueError(f"seed {seed} is not a 3D development seed ({DEV_SEEDS.start}-"
                         f"{DEV_SEEDS.stop - 1}): held-out frames are never trained on")
    scene = cached_scene(seed, spec, render=False)
    if scene is None:
        return []
    beans = [p for p in scene.truth.pieces if p["kind"] == "bean"]
    xy = np.array([p["centre_mm"] for p in beans], float).reshape(-1, 2)
    z = np.array([p.get("z_mm", 0.0) for p in beans], float) + BEAN_MIDDLE_MM
    seen = seen_on_table(scene_camera(seed, scene.truth, spec), xy, z) if len(xy) else xy
    rng = np.random.default_rng((seed, 11))
    out = []
    for k in range(looks):
        frame = scene.frame if k == 0 else randomise(scene.frame, rng)
        sample = frame_sample(frame, profile, seen, scene.truth.hand_cover)
        if sample is not None:
            out.append(sample)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default=f"{DEV_SEEDS.start}-{DEV_SEEDS.stop - 1}",
                    help="inclusive range of 3D development seeds")
    ap.add_argument("--looks", type=int, default=3, help="samples a frame (1: as rendered)")
    ap.add_argument("--card-seed", type=int, default=0, help="calibration card photo's seed")
    ap.add_argument("--out", required=True, help="folder for the samples (scene<seed>_<k>.npz)")
    args = ap.parse_args(argv)
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as e:
        ap.error(str(e))
    if seeds.start < DEV_SEEDS.start or seeds.stop > DEV_SEEDS.stop:
        ap.error(f"only 3D development seeds ({DEV_SEEDS.start}-{DEV_SEEDS.stop - 1}) are "
                 f"trained on")
    from vision.render3d.card import card_profile, scene_profile

    cv2.setNumThreads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    card = card_profile(args.card_seed)
    made = 0
    for seed in seeds:
        if (out / f"scene{seed}_0.npz").exists():
            continue
        scene = cached_scene(seed, render=False)
        if scene is None:
            continue
        samples = scene3d_samples(seed, scene_profile(card, scene.truth.players), args.looks)
        # The frame as rendered last, so that a stopped run redoes the whole frame.
        for k in list(range(1, len(samples))) + [0] * bool(samples):
            save_sample(samples[k], out / f"scene{seed}_{k}.npz")
        made += len(samples)
    print(f"{made} samples written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
