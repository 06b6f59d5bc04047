"""Benchmark: tile finding over rendered scenes (fixed seeds).

Prints the share of tiles found with the right id, lattice position and turn,
the cell-corner error in mm after back-projection through the true homography,
and the tile-finding time per frame on one core.

    .venv/bin/python bench/vision_tiles.py --scenes 500
    .venv/bin/python bench/vision_tiles.py --set crooked-neutral --scenes 200

Sets of layouts (``--set``): ``default``, every tile but the Neutral one up to
15 mm and 10 degrees off its lattice position; ``crooked-neutral``, the Neutral
tile 10 mm and 8 degrees off and every other tile exactly on the lattice;
``chain-drift``, each tile laid 3 mm and 1.5 degrees off the neighbour it was
pushed against (the same way all over the table, so the error grows along each
chain) and up to 2 mm and 1 degree more of its own; ``loose``, every tile, the
Neutral one among them, up to 12 mm and 8 degrees off on its own.

``--shake 3,8`` smears every frame as a camera shaken while its shutter is open does:
one straight streak over the whole frame, 3 to 8 px long in any direction
(:mod:`vision.render.shake`). ``--no-sharpen``
reads such frames without the reader's sharpened copy (``docs/vision.md``, *Tiles
through motion blur*), to show what it finds.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: numpy's BLAS too
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.peepwar.board import cells_of, parse_cell  # noqa: E402
from vision.geometry import apply_h  # noqa: E402
from vision.peepwar.cells import cell_outline_mm  # noqa: E402
from vision.peepwar.covered_tiles import prepare  # noqa: E402
from vision.peepwar.tiles import find_tiles  # noqa: E402
from vision.render import SceneSpec, render_scene  # noqa: E402
from vision.render.layout import Misplacement  # noqa: E402
from vision.render.shake import shake  # noqa: E402

# name: (SceneSpec fields, default tiles per scene)
SETS: dict[str, tuple[dict, str]] = {
    "default": ({}, "1,8"),
    "crooked-neutral": ({"jitter_mm": 0.0, "jitter_deg": 0.0,
                         "misplaced": Misplacement(neutral_mm=10.0, neutral_deg=8.0)}, "4,8"),
    "chain-drift": ({"jitter_mm": 2.0, "jitter_deg": 1.0,
                     "misplaced": Misplacement(drift_mm=3.0, drift_deg=1.5)}, "4,8"),
    "loose": ({"jitter_mm": 12.0, "jitter_deg": 8.0,
               "misplaced": Misplacement(neutral_jitter=True)}, "4,8"),
}


def shaken(frame: np.ndarray, lo: float, hi: float, seed: int) -> tuple[np.ndarray, float]:
    """``frame`` smeared by a streak lo..hi px long in a direction drawn from ``seed``, and
    the streak's length."""
    rng = np.random.default_rng(seed + 7_000_000)
    length, angle = float(rng.uniform(lo, hi)), float(rng.uniform(0, 180))
    return shake(frame, length, angle, rng), length


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=500, help="number of scenes (default 500)")
    ap.add_argument("--first-seed", type=int, default=0, help="seed of the first scene")
    ap.add_argument("--size", default="1280x720", help="frame size WxH (default 1280x720)")
    ap.add_argument("--tiles", help="tiles per scene, min,max (default 1,8; 4,8 for the sets "
                    "other than default)")
    ap.add_argument("--set", default="default", choices=sorted(SETS),
                    help="which layouts (default: default; see the module's doc)")
    ap.add_argument("--shake", help="smear every frame by a streak min,max px long")
    ap.add_argument("--no-sharpen", action="store_true",
                    help="read without the sharpened copy of a blurred frame")
    args = ap.parse_args()
    shake = tuple(float(v) for v in args.shake.split(",")) if args.shake else None
    sharpen = not args.no_sharpen
    w, h = (int(v) for v in args.size.lower().split("x"))
    fields, tiles_default = SETS[args.set]
    lo, hi = (int(v) for v in (args.tiles or tiles_default).split(","))
    spec = SceneSpec(size=(w, h), tiles=(lo, hi), **fields)
    cv2.setNumThreads(1)

    tiles = visible = right_visible = right_all = wrong = phantom = refused = 0
    hidden_neutral_scenes = hidden_neutral_tiles = 0
    errors: list[np.ndarray] = []
    by_tilt: dict[int, list[float]] = {0: [], 15: [], 30: []}
    times: list[float] = []
    misses: list[str] = []
    slow: list[tuple[float, int]] = []
    best: list[float] = []
    worst = (0.0, -1, -1, 0)
    t_start = time.perf_counter()
    prepare()  # the code and soft-decoder tables, as a service builds them at start
    find_tiles(render_scene(10**6, spec).frame)  # warm caches (code tables, art)
    for seed in range(args.first_seed, args.first_seed + args.scenes):
        scene = render_scene(seed, spec)
        frame = shaken(scene.frame, *shake, seed)[0] if shake else scene.frame
        t0 = time.perf_counter()
        view = find_tiles(frame, through_blur=sharpen)
        times.append(time.perf_counter() - t0)
        slow.append((times[-1], seed))
        runs = []
        for _ in range(2):  # best of three: the machine's other load, not the frame's cost
            t1 = time.perf_counter()
            find_tiles(frame, through_blur=sharpen)
            runs.append(time.perf_counter() - t1)
        best.append(min([times[-1], *runs]))
        found = {t.tile_id: t for t in view.tiles}
        refused += sum("off the lattice" in m for m in view.warnings)
        truth_ids = {t.tile_id for t in scene.truth.tiles}
        phantom += len(set(found) - truth_ids)
        h_inv = np.linalg.inv(scene.truth.camera.homography)
        if not scene.truth.tiles[0].visible_slots and not view.tiles:
            # By design no tile is placed without the Neutral tile (it defines the frame);
            # the detector says so in a warning. Counted apart.
            hidden_neutral_scenes += 1
            hidden_neutral_tiles += sum(1 for t in scene.truth.tiles[1:] if t.visible_slots)
            continue
        for tt in scene.truth.tiles:
            tiles += 1
            d = found.get(tt.tile_id)
            ok = d is not None and (d.q, d.r, d.rotation) == (tt.q, tt.r, tt.rotation)
            wrong += d is not None and not ok
            right_all += ok
            if tt.visible_slots:
                visible += 1
                right_visible += ok
                if not ok:
                    misses.append(f"seed {seed} tile {tt.tile_id} ({len(tt.visible_slots)} "
                                  f"markers visible): {view.warnings[:1]}")
            if not ok:
                continue
            for name in cells_of((tt.q, tt.r)):
                pred_px = view.to_image(cell_outline_mm(d, parse_cell(name).slot))
                err = np.linalg.norm(apply_h(h_inv, pred_px) - scene.truth.cell_corners_mm[name],
                                     axis=1)
                errors.append(err)
                worst = max(worst, (float(err.max()), seed, tt.tile_id, len(tt.visible_slots)))
                by_tilt[min(30, int(scene.truth.camera.tilt_deg // 15) * 15)].extend(err)
    wall = time.perf_counter() - t_start
    e = np.concatenate(errors) if errors else np.zeros(1)
    ms = np.array(times) * 1000

    last = args.first_seed + args.scenes - 1
    print(f"set {args.set}; scenes: {args.scenes} (seeds {args.first_seed}..{last}),"
          f" {w}x{h}, {lo}-{hi} tiles, tilt 0-{spec.max_tilt_deg:g} deg, any yaw, random light,"
          " hands and pieces" + (f"; shaken {args.shake} px" if shake else "")
          + ("; no sharpened copy" if not sharpen else ""))
    print(f"tiles with >=1 visible marker found right (id, q, r, turn): {right_visible}/{visible}"
          f" = {100 * right_visible / max(visible, 1):.2f}%  (scenes whose Neutral tile shows a"
          " marker)")
    print(f"scenes with the Neutral tile hidden: {hidden_neutral_scenes}; their "
          f"{hidden_neutral_tiles} visible tiles are withheld with a warning, as designed")
    print(f"all tiles found right: {right_all}/{tiles} = {100 * right_all / max(tiles, 1):.2f}%;"
          f" wrong placements: {wrong}; phantom tiles: {phantom}; 'off the lattice' warnings:"
          f" {refused}")
    print(f"cell-corner error (mm): median {np.median(e):.2f}, p99 {np.percentile(e, 99):.2f},"
          f" max {e.max():.2f} over {e.size} corners (worst: seed {worst[1]}, tile {worst[2]}"
          f" showing {worst[3]} markers)")
    for tilt, vals in by_tilt.items():
        if vals:
            v = np.asarray(vals)
            print(f"  tilt {tilt:>2}-{tilt + 15} deg: median {np.median(v):.2f}, "
                  f"p99 {np.percentile(v, 99):.2f} mm ({v.size} corners)")
    print(f"tile finding per frame, one core: median {np.median(ms):.1f} ms, "
          f"p90 {np.percentile(ms, 90):.1f} ms, max {ms.max():.1f} ms; best of 3 runs per "
          f"frame: median {np.median(best) * 1000:.1f} ms")
    print(f"total wall time {wall:.0f} s (mostly rendering); slowest seeds: "
          + ", ".join(f"{seed} ({t * 1000:.0f} ms)" for t, seed in sorted(slow)[-3:]))
    for m in misses[:10]:
        print("  missed:", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
