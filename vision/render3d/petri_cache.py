"""Path-traced Petri frames kept on disk: each (seed, size, samples) is rendered once.

Frames are stored as lossless PNG (the camera's JPEG already applied) beside
their truth as JSON, under ``$XDG_CACHE_HOME/table-companion/petri3d`` (by
default ``~/.cache/...``), outside the repository. The folder name carries
``GENERATOR_VERSION``: a change to the generator that alters pixels bumps it.

    python -m vision.render3d.petri_cache --seeds 3500000-3500099   # render what is missing

Seeds 3,000,000-3,000,999 are for development (frames may be looked at, and a
reader's rules and thresholds tuned on them); 3,500,000-3,500,999 are held out:
only measured, never used to choose anything in any reader.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from vision.render.petri import PetriFrame
from vision.render3d.cache import cache_parser, read_pair, render_command, write_pair
from vision.render3d.cache import cache_root as shared_root
from vision.render3d.petri import PetriScene3D, PetriSpec3D, render_petri3d

GENERATOR_VERSION = 1
DEV_SEEDS = range(3_000_000, 3_001_000)
HELD_OUT_SEEDS = range(3_500_000, 3_501_000)


def cache_root() -> Path:
    return shared_root("petri3d")


def scene_dir(spec: PetriSpec3D) -> Path:
    w, h = spec.size
    return cache_root() / f"v{GENERATOR_VERSION}-{w}x{h}-spp{spec.spp}"


def truth_to_json(scene: PetriScene3D) -> dict:
    t = scene.truth
    return {"style": t.style, "pitch_mm": t.pitch_mm, "homes": dict(t.homes),
            "pieces": dict(sorted(t.pieces.items())), "occluded": sorted(t.occluded),
            "touched": sorted(t.touched), "tilt_deg": t.tilt_deg,
            "homography": np.asarray(t.homography, float).tolist(),
            "piece_set": scene.piece_set, "params": scene.params}


def scene_from_json(frame: np.ndarray, data: dict) -> PetriScene3D:
    truth = PetriFrame(frame, str(data["style"]), float(data["pitch_mm"]),
                       {str(k): int(v) for k, v in data["homes"].items()},
                       {str(k): str(v) for k, v in data["pieces"].items()},
                       {str(n) for n in data["occluded"]}, {str(n) for n in data["touched"]},
                       float(data["tilt_deg"]), np.asarray(data["homography"], float))
    return PetriScene3D(frame, truth, str(data["piece_set"]), dict(data.get("params", {})))


def cached_petri(seed: int, spec: PetriSpec3D | None = None, render: bool = True
                 ) -> PetriScene3D | None:
    """The frame of ``seed`` from the cache, rendered and stored first if missing
    (or None when missing and ``render`` is False)."""
    spec = spec or PetriSpec3D()
    found = read_pair(scene_dir(spec), seed, lambda d: d)
    if found is not None:
        frame, data = found
        try:
            return scene_from_json(frame, data)
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{scene_dir(spec) / f'{seed}.json'} is not a Petri frame's "
                             f"truth ({e}): delete it to render again") from e
    if not render:
        return None
    scene = render_petri3d(seed, spec)
    write_pair(scene_dir(spec), seed, scene.frame, truth_to_json(scene))
    return scene


def main(argv: list[str] | None = None) -> int:
    ap = cache_parser("Render missing path-traced Petri frames into the cache.",
                      f"3500000-3500099 (development {DEV_SEEDS.start}-{DEV_SEEDS.stop - 1}, "
                      f"held out {HELD_OUT_SEEDS.start}-{HELD_OUT_SEEDS.stop - 1})",
                      "1280x720", PetriSpec3D().spp)
    args = ap.parse_args(argv)
    return render_command(args, lambda size: PetriSpec3D(size=size, spp=args.spp),
                          cached_petri, "frames", scene_dir)


if __name__ == "__main__":
    sys.exit(main())
