"""Path-traced PeltaPeeps photos kept on disk: each (seed, size, samples) is rendered once.

Frames are stored as lossless PNG (the camera's JPEG already applied) beside
their truth as JSON, under ``$XDG_CACHE_HOME/table-companion/peltapeeps3d``
(by default ``~/.cache/...``), outside the repository. The folder name carries
``GENERATOR_VERSION``: a change to the generator that alters pixels bumps it.

    python -m vision.render3d.pelta_cache --seeds 70000-70099     # render what is missing

Seeds 60000-60999 are for development (rules and thresholds may be looked at
and tuned on them); 70000-70999 are held out: only measured, never tuned on.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from vision.render.peltapeeps import Truth, TruthPiece
from vision.render3d.cache import cache_parser, read_pair, render_command, write_pair
from vision.render3d.cache import cache_root as shared_root
from vision.render3d.peltapeeps import PeltaScene3D, PeltaSpec3D, render_pelta3d

GENERATOR_VERSION = 2  # 2: cut sizes from the catalog, pieces pushed until they meet
DEV_SEEDS = range(60000, 61000)
HELD_OUT_SEEDS = range(70000, 71000)


def cache_root() -> Path:
    return shared_root("peltapeeps3d")


def scene_dir(spec: PeltaSpec3D) -> Path:
    w, h = spec.size
    return cache_root() / f"v{GENERATOR_VERSION}-{w}x{h}-s{spec.render_scale:g}-spp{spec.spp}"


def truth_to_json(truth: Truth) -> dict:
    return {
        "pieces": [{"uid": p.uid, "team": p.team, "piece": p.piece, "face_up": p.face_up,
                    "x": p.x, "y": p.y, "rotation": p.rotation,
                    "centre_px": list(p.centre_px), "radius_px": p.radius_px}
                   for p in truth.pieces],
        "joins": [list(j) for j in truth.joins],
        "seats": [list(s) for s in truth.seats],
        "sheet": truth.sheet,
        "homography": np.asarray(truth.homography, float).tolist(),
        "kelvin": truth.kelvin, "tilt_deg": truth.tilt_deg,
        "colours": {k: list(v) for k, v in truth.colours.items()},
    }


def truth_from_json(data: dict) -> Truth:
    pieces = [TruthPiece(str(p["uid"]), str(p["team"]), str(p["piece"]), bool(p["face_up"]),
                         float(p["x"]), float(p["y"]), float(p["rotation"]),
                         (float(p["centre_px"][0]), float(p["centre_px"][1])),
                         float(p["radius_px"])) for p in data["pieces"]]
    return Truth(pieces, [(str(a), str(b)) for a, b in data["joins"]],
                 [(str(a), str(b)) for a, b in data["seats"]],
                 {k: {n: int(v) for n, v in line.items()} for k, line in data["sheet"].items()},
                 np.asarray(data["homography"], float), float(data["kelvin"]),
                 float(data["tilt_deg"]),
                 {k: (int(v[0]), int(v[1]), int(v[2])) for k, v in data["colours"].items()})


def cached_pelta(seed: int, spec: PeltaSpec3D | None = None, render: bool = True
                 ) -> PeltaScene3D | None:
    """The photo of ``seed`` from the cache, rendered and stored first if missing
    (or None when missing and ``render`` is False)."""
    spec = spec or PeltaSpec3D()
    found = read_pair(scene_dir(spec), seed, lambda d: (truth_from_json(d["truth"]),
                                                        d.get("params", {})))
    if found is not None:
        frame, (truth, params) = found
        return PeltaScene3D(frame, truth, dict(truth.colours), params)
    if not render:
        return None
    scene = render_pelta3d(seed, spec)
    write_pair(scene_dir(spec), seed, scene.frame,
               {"truth": truth_to_json(scene.truth), "params": scene.params})
    return scene


def main(argv: list[str] | None = None) -> int:
    ap = cache_parser("Render missing 3D PeltaPeeps photos into the cache.", "70000-70099",
                      "4000x3000", PeltaSpec3D().spp)
    ap.add_argument("--scale", type=float, default=PeltaSpec3D().render_scale,
                    help="share of the width and height the tracer renders (then enlarged)")
    args = ap.parse_args(argv)
    return render_command(args, lambda size: PeltaSpec3D(size=size, spp=args.spp,
                                                          render_scale=args.scale),
                          cached_pelta, "photos", scene_dir)

if __name__ == "__main__":
    sys.exit(main())
