"""Benchmark: reading the printed map of A Peloponnesian War from rendered frames (fixed seeds).

Each frame is a random table on the A3 map (``vision.render.peloponnesian``):
counters of one or two cities in about half the areas (1-2 each), chits of one
or two sides in about a third (all face up, or all face down), a random camera
tilted 0-45 degrees, a lamp of 3000-6500 K, a brightness gradient, shadows, a
hand over the map in about a third of the frames, blur, noise and JPEG.

Two seed ranges are reported separately: the tuning range (seeds from 0), on
which the reader's thresholds were chosen, and the held-out range (seeds from
1,000,000; ``--held-out-start`` picks another range above it), which no threshold was
tuned on.

An area a hand touches may be read occluded or correctly; every other area must
be read exactly and not occluded. A wrong reading with a confidence of 0.5 or
more (the referee asks about those under it) is a confident wrong reading, the
worst thing the camera can do. Reported: areas whose counters are exact, areas whose chits are
exact (type and side), frames read exactly, confident wrong readings under a
hand, and the time of one 1280x720 frame's read on one core (median wall clock
and process CPU time).

    nice -n 10 .venv/bin/python bench/peloponnesian_vision.py --frames 500

``--generator 3d`` reads the path-traced photos of
:mod:`vision.render3d.peloponnesian` instead (a second generator built on
other principles: the map a sheet of paper, perhaps curled, counters thick
tokens, chits card, stacked when a player plays two in an area; real light,
shadows and a camera model; ``docs/scenes.md``) with the same reader and the
same scoring, on its development seeds (from 4,000,000) and its held-out seeds
(from 4,500,000), which no reader was tuned on. Path tracing is slow, so the
frames come from the render cache (``python -m vision.render3d.pelo_cache``);
``--cached-only`` reads only the frames already there and renders none.

    nice -n 10 .venv/bin/python bench/peloponnesian_vision.py --generator 3d --cached-only
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: numpy's BLAS too
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.peloponnesian.layout import map_layout  # noqa: E402
from vision.peloponnesian.reader import PeloReader  # noqa: E402
from vision.render.peloponnesian import PeloFrame, render_random  # noqa: E402

HELD_OUT = 1_000_000


def score(frame: PeloFrame, data: dict, areas: list[str]) -> tuple[Counter, list[str]]:
    """Counts for one frame, and what was wrong."""
    got_all = data["areas"]
    c: Counter = Counter()
    wrong = []
    for a in areas:
        got = got_all.get(a, {})
        want_counters = frame.counters.get(a, {})
        want_chits = sorted((ch["type"], ch["player"]) for ch in frame.chits.get(a, []))
        got_chits = sorted((ch["type"], ch["player"]) for ch in got.get("chits", []))
        sure = got.get("confidence", 1.0) >= 0.5  # under 0.5 the referee asks the players
        if a in frame.touched:
            c["touched"] += 1
            if got.get("occluded"):
                continue
            if got.get("counters", {}) != want_counters or got_chits != want_chits:
                c["confident_wrong"] += sure
                wrong.append(f"{a} (under a hand): {want_counters} {want_chits} read {got}")
            continue
        c["judged"] += 1
        occluded = bool(got.get("occluded"))
        c["counters_ok"] += not occluded and got.get("counters", {}) == want_counters
        c["chits_ok"] += not occluded and got_chits == want_chits
        if occluded or got.get("counters", {}) != want_counters or got_chits != want_chits:
            wrong.append(f"{a}: {want_counters} {want_chits} read {got}")
            if not occluded:
                c["confident_wrong"] += sure
    return c, wrong


def frames_3d(cached_only: bool):
    """The path-traced photo of a seed (None when not cached and ``cached_only``)."""
    from vision.render3d.pelo_cache import cached_pelo

    def get(seed: int) -> PeloFrame | None:
        scene = cached_pelo(seed, render=not cached_only)
        return None if scene is None else scene.frame

    return get


def run(seeds: range, verbose: bool, source=None) -> dict:
    reader = PeloReader(None)
    areas = list(map_layout(None).areas)
    totals: Counter = Counter()
    walls, cpus = [], []
    for seed in seeds:
        frame = render_random(seed) if source is None else source(seed)
        if frame is None:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        data = reader.read(frame.image)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        c, wrong = score(frame, data, areas)
        totals.update(c)
        if any("no map" in w for w in data.get("warnings", [])):
            totals.update(no_map=1, no_map_wrong=c["confident_wrong"])
        totals.update(frames=1, exact=int(not wrong), hands=int(bool(frame.touched)))
        if verbose and wrong:
            print(f"  seed {seed} tilt {frame.tilt_deg:.0f}: {'; '.join(wrong[:3])}"
                  f"{' ...' if len(wrong) > 3 else ''}", flush=True)
    return {"totals": totals, "wall": walls, "cpu": cpus}


def report(title: str, res: dict) -> None:
    t = res["totals"]
    j = max(t["judged"], 1)
    print(f"{title}: {t['frames']} frames ({t['hands']} with a hand)")
    if not t["frames"]:
        return
    print(f"  areas with counters exact: {t['counters_ok']}/{t['judged']} = "
          f"{100 * t['counters_ok'] / j:.3f} %")
    print(f"  areas with chits exact: {t['chits_ok']}/{t['judged']} = "
          f"{100 * t['chits_ok'] / j:.3f} %")
    print(f"  frames read exactly: {t['exact']}/{t['frames']} = "
          f"{100 * t['exact'] / max(t['frames'], 1):.1f} %")
    print(f"  confident wrong readings: {t['confident_wrong']} "
          f"({t['touched']} areas under a hand, read occluded or right)")
    if t["no_map"]:
        print(f"  frames where no map was found (a warning, every area read occluded): "
              f"{t['no_map']}, with {t['no_map_wrong']} of the confident wrong readings")
    print(f"  time per 1280x720 frame: median {1000 * np.median(res['wall']):.1f} ms wall, "
          f"{1000 * np.median(res['cpu']):.1f} ms CPU (90th percentile "
          f"{1000 * np.percentile(res['cpu'], 90):.1f} ms CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=500, help="frames per seed range")
    parser.add_argument("--tuning-only", action="store_true", help="skip the held-out range")
    parser.add_argument("--held-out-only", action="store_true", help="skip the tuning range")
    parser.add_argument("--tuning-start", type=int, default=0,
                        help="first tuning seed (any below the held-out range)")
    parser.add_argument("--held-out-start", type=int, default=HELD_OUT,
                        help=f"first held-out seed (at least {HELD_OUT})")
    parser.add_argument("--verbose", action="store_true", help="list every frame not read exactly")
    parser.add_argument("--generator", choices=("2d", "3d"), default="2d",
                        help="2d: the compositing generator (default); 3d: the path-traced "
                             "photos (development seeds, then held-out seeds)")
    parser.add_argument("--cached-only", action="store_true",
                        help="3d: read only the photos already in the render cache")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.generator == "3d":
        from vision.render3d.peloponnesian import DEV_SEEDS, HELD_OUT_SEEDS

        source = frames_3d(args.cached_only)
        ranges3 = (("3d development seeds", DEV_SEEDS), ("3d held-out seeds", HELD_OUT_SEEDS))
        if args.tuning_only:
            ranges3 = ranges3[:1]
        elif args.held_out_only:
            ranges3 = ranges3[1:]
        for title, seeds in ranges3:
            todo = range(seeds.start, seeds.start + min(args.frames, len(seeds)))
            res = run(todo, args.verbose, source)
            report(f"{title} {todo.start}..{todo.stop - 1}", res)
        return
    if not 0 <= args.tuning_start <= HELD_OUT - args.frames:
        parser.error(f"--tuning-start: tuning seeds lie below the held-out range ({HELD_OUT})")
    if args.held_out_start < HELD_OUT:
        parser.error(f"--held-out-start: held-out seeds start at {HELD_OUT}")
    ranges = (("tuning seeds", args.tuning_start), ("held-out seeds", args.held_out_start))
    if args.tuning_only:
        ranges = ranges[:1]
    elif args.held_out_only:
        ranges = ranges[1:]
    for title, start in ranges:
        res = run(range(start, start + args.frames), args.verbose)
        report(f"{title} {start}..{start + args.frames - 1}", res)


if __name__ == "__main__":
    main()
