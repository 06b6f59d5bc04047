"""Path-traced A Peloponnesian War photos kept on disk: each (seed, size, samples) once.

Frames are stored as lossless PNG (the camera's JPEG already applied) beside
their truth as JSON, under ``$XDG_CACHE_HOME/table-companion/peloponnesian3d``
(by default ``~/.cache/...``), outside the repository. The folder name carries
``GENERATOR_VERSION``: a change to the generator that alters pixels bumps it.

    python -m vision.render3d.pelo_cache --seeds 4000000-4000029      # development
    nice -n 19 python -m vision.render3d.pelo_cache --seeds 4500000-4500099   # held out

Seeds 4,000,000-4,000,999 are for development (frames may be looked at, and
anything chosen on them); 4,500,000-4,500,999 are held out: only measured, never
used to choose anything in any reader.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from vision.render.peloponnesian import PeloFrame
from vision.render3d.cache import cache_parser, read_pair, render_command, write_pair
from vision.render3d.cache import cache_root as shared_root
from vision.render3d.peloponnesian import (
    DEV_SEEDS,
    HELD_OUT_SEEDS,
    PeloScene3D,
    PeloSpec3D,
    render_pelo3d,
)

GENERATOR_VERSION = 1

__all__ = ["cached_pelo", "scene_dir", "DEV_SEEDS", "HELD_OUT_SEEDS", "GENERATOR_VERSION"]


def scene_dir(spec: PeloSpec3D) -> Path:
    w, h = spec.size
    return shared_root("peloponnesian3d") / f"v{GENERATOR_VERSION}-{w}x{h}-spp{spec.spp}"


def truth_to_json(frame: PeloFrame, params: dict) -> dict:
    return {"counters": frame.counters, "chits": frame.chits, "covered": frame.covered,
            "tilt_deg": frame.tilt_deg,
            "homography": np.asarray(frame.homography, float).tolist(), "params": params}


def _parse(data: dict) -> tuple[dict, dict]:
    counters = {a: {p: int(n) for p, n in by.items()} for a, by in data["counters"].items()}
    chits = {a: [{"type": str(c["type"]), "player": str(c["player"])} for c in v]
             for a, v in data["chits"].items()}
    return {"counters": counters, "chits": chits,
            "covered": {a: float(s) for a, s in data["covered"].items()},
            "tilt_deg": float(data["tilt_deg"]),
            "homography": np.asarray(data["homography"], float)}, data.get("params", {})


def cached_pelo(seed: int, spec: PeloSpec3D | None = None, render: bool = True
                ) -> PeloScene3D | None:
    """The photo of ``seed`` from the cache, rendered and stored first if missing
    (or None when missing and ``render`` is False)."""
    spec = spec or PeloSpec3D()
    found = read_pair(scene_dir(spec), seed, _parse)
    if found is not None:
        image, (t, params) = found
        return PeloScene3D(PeloFrame(image, t["counters"], t["chits"], t["covered"],
                                     t["tilt_deg"], t["homography"]), params)
    if not render:
        return None
    scene = render_pelo3d(seed, spec)
    write_pair(scene_dir(spec), seed, scene.frame.image,
               truth_to_json(scene.frame, scene.params))
    return scene


def main(argv: list[str] | None = None) -> int:
    ap = cache_parser("Render missing path-traced A Peloponnesian War photos into the cache.",
                      "4000000-4000029 (development) or 4500000-4500099 (held out)",
                      "1280x720", PeloSpec3D().spp)
    args = ap.parse_args(argv)
    return render_command(args, lambda size: PeloSpec3D(size=size, spp=args.spp),
                          cached_pelo, "photos", scene_dir)


if __name__ == "__main__":
    sys.exit(main())
