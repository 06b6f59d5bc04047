"""Rendered 3D scenes kept on disk: each (seed, size, samples) is path-traced once.

Frames are stored as lossless PNG (the camera's JPEG already applied) beside
their truth as JSON, under ``$XDG_CACHE_HOME/table-companion/scenes3d`` (by
default ``~/.cache/...``), outside the repository. The folder name carries
``GENERATOR_VERSION``: a change to the generator that alters pixels bumps it.

    python -m vision.render3d.cache --seeds 50000-50499        # render what is missing
    python -m vision.render3d.cache --seeds 50000-50499 --jobs 2   # two frames at a time
    python -m vision.render3d.cache --seeds 50000-50499 --truth-only   # re-derive truth
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from vision.render3d.game import Scene3D, Spec3D, render_scene3d
from vision.render3d.truth import Truth3D

T = TypeVar("T")
GENERATOR_VERSION = 1
DEV_SEEDS = range(40000, 41000)  # rules and thresholds may be looked at and tuned on these
HELD_OUT_SEEDS = range(50000, 51000)  # never tuned on: only measured
# Game nights (``Spec3D.night_frames``: 25 frames of one table): the same split.
DEV_NIGHT_SEEDS = range(80000, 90000)
HELD_OUT_NIGHT_SEEDS = range(90000, 100000)


def cache_root(kind: str = "scenes3d") -> Path:
    """Where a generator's frames are kept (``kind``: its folder)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "table-companion" / kind


def read_pair(folder: Path, seed: int, parse: Callable[[dict], T]) -> tuple[np.ndarray, T] | None:
    """A cached frame and its parsed truth, or None when either is missing."""
    png, js = folder / f"{seed}.png", folder / f"{seed}.json"
    if not (png.exists() and js.exists()):
        return None
    frame = cv2.imread(str(png), cv2.IMREAD_COLOR)
    try:
        truth = parse(json.loads(js.read_text()))
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{js} is not a scene's truth ({e}): delete it to render again") from e
    return None if frame is None else (frame, truth)


def write_pair(folder: Path, seed: int, frame: np.ndarray, data: dict) -> None:
    """Store a frame and its truth; the frame last, so a half-written pair is never read."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{seed}.{os.getpid()}.png"
    cv2.imwrite(str(tmp), frame)
    (folder / f"{seed}.json").write_text(json.dumps(data))
    tmp.replace(folder / f"{seed}.png")


def render_missing(seeds: range, cached: Callable[..., object], what: str, where: Path,
                   jobs: int = 1) -> int:
    """Render each seed ``cached(seed, render=False)`` does not find, in ``jobs`` processes
    at once (the tracer runs on one thread, so one job a core); print as each is done.

    With more than one job, ``cached`` must be picklable: a module-level function or a
    :func:`functools.partial` of one. Each frame is written whole before it is named
    (:func:`write_pair`), so jobs never see one another's half-written files."""
    missing = [seed for seed in seeds if cached(seed, render=False) is None]
    render = partial(_timed_render, cached)
    parallel = jobs > 1 and len(missing) > 1
    # Spawned, not forked: a forked child would inherit the parent's tracer state.
    with (multiprocessing.get_context("spawn").Pool(min(jobs, len(missing))) if parallel
          else contextlib.nullcontext()) as pool:
        for seed, seconds in (pool.imap_unordered(render, missing) if parallel
                              else map(render, missing)):
            print(f"seed {seed}: {seconds:.1f} s", flush=True)
    print(f"{len(missing)} {what} rendered into {where}")
    return len(missing)


def _timed_render(cached: Callable[..., object], seed: int) -> tuple[int, float]:
    """Render ``seed`` into the cache; (seed, seconds it took)."""
    t0 = time.perf_counter()
    cached(seed)
    return seed, time.perf_counter() - t0


def parse_size(text: str) -> tuple[int, int]:
    """``WxH`` -> (w, h); ValueError naming the text."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"{text!r} is not a size: write e.g. 1280x720") from None
    return w, h


def scene_dir(spec: Spec3D) -> Path:
    w, h = spec.size
    night = f"-night{spec.night_frames}" if spec.night_frames else ""
    return cache_root() / f"v{GENERATOR_VERSION}-{w}x{h}-spp{spec.spp}{night}"


def cached_scene(seed: int, spec: Spec3D | None = None, render: bool = True) -> Scene3D | None:
    """The scene of ``seed`` from the cache, rendered and stored first if missing
    (or None when missing and ``render`` is False)."""
    spec = spec or Spec3D()
    found = read_pair(scene_dir(spec), seed, Truth3D.from_json)
    if found is not None:
        return Scene3D(*found)
    if not render:
        return None
    scene = render_scene3d(seed, spec)
    write_pair(scene_dir(spec), seed, scene.frame, scene.truth.to_json())
    return scene


def refresh_truth(seed: int, spec: Spec3D | None = None) -> bool:
    """Derive a cached frame's truth again (after a fix to how truth is measured that
    leaves the picture as it was); False when the frame is not in the cache."""
    spec = spec or Spec3D()
    js = scene_dir(spec) / f"{seed}.json"
    if not js.exists():
        return False
    old = json.loads(js.read_text())
    truth = render_scene3d(seed, spec, picture=False).truth.to_json()
    truth["params"]["render_s"] = old.get("params", {}).get("render_s")
    js.write_text(json.dumps(truth))
    return True


def parse_seeds(text: str) -> range:
    """``a-b`` (inclusive) or one seed."""
    try:
        if "-" in text[1:]:
            a, b = text.split("-", 1) if not text.startswith("-") else (text, text)
            return range(int(a), int(b) + 1)
        return range(int(text), int(text) + 1)
    except ValueError:
        raise ValueError(f"{text!r} is not a seed range: write e.g. 50000-50499") from None


def seeds_and_size(args: argparse.Namespace) -> tuple[range, tuple[int, int]] | None:
    """A cache command's ``--seeds`` and ``--size``; None, with one line on stderr, if they
    or ``--jobs`` are bad."""
    if getattr(args, "jobs", 1) < 1:
        print(f"error: --jobs {args.jobs}: render at least one frame at a time", file=sys.stderr)
        return None
    try:
        return parse_seeds(args.seeds), parse_size(args.size)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return None


def cache_parser(description: str, seeds: str, size: str, spp: int) -> argparse.ArgumentParser:
    """A cache command's options: ``--seeds`` (``seeds`` shows an example), ``--size``
    (default ``size``) and ``--spp`` (default ``spp``); a command adds its own."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--seeds", required=True, help=f"inclusive range, e.g. {seeds}")
    ap.add_argument("--size", default=size, help=f"frame size WxH (default {size})")
    ap.add_argument("--spp", type=int, default=spp, help="samples a pixel")
    _jobs_option(ap)
    return ap


def _jobs_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--jobs", type=int, default=1,
                    help="frames rendered at once, one core each (default 1)")


def render_command(args: argparse.Namespace, spec_for: Callable[[tuple[int, int]], T],
                   cached: Callable[[int, T, bool], object], what: str,
                   folder: Callable[[T], Path]) -> int:
    """Render the seeds of a cache command's ``args`` that are missing, each with the spec
    ``spec_for(size)``; 2, with one line on stderr, when the seeds or size are bad."""
    got = seeds_and_size(args)
    if got is None:
        return 2
    seeds, size = got
    spec = spec_for(size)
    render_missing(seeds, partial(cached, spec=spec), what, folder(spec), args.jobs)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Render missing 3D scenes into the cache.")
    ap.add_argument("--seeds", required=True, help="inclusive range, e.g. 50000-50499")
    ap.add_argument("--size", default="1280x720", help="frame size WxH (default 1280x720)")
    ap.add_argument("--spp", type=int, default=Spec3D().spp, help="samples a pixel")
    ap.add_argument("--night-frames", type=int, default=0,
                    help="N: seeds s with one s // N are frames of one game night (one table, "
                         "light, camera and players; default 0: every seed its own table)")
    ap.add_argument("--truth-only", action="store_true",
                    help="derive the truth of frames already cached again; render nothing")
    _jobs_option(ap)
    args = ap.parse_args(argv)
    got = seeds_and_size(args)
    if got is None:
        return 2
    seeds, (w, h) = got
    spec = Spec3D(size=(w, h), spp=args.spp, night_frames=args.night_frames)
    if args.truth_only:
        n = sum(refresh_truth(seed, spec) for seed in seeds)
        print(f"truth derived again for {n} cached scenes in {scene_dir(spec)}")
        return 0
    render_missing(seeds, partial(cached_scene, spec=spec), "scenes", scene_dir(spec), args.jobs)
    return 0

if __name__ == "__main__":
    sys.exit(main())
