"""Benchmark: is a photo a PeltaPeeps layout? The verdict on layouts and on jellybeans.

Reads rendered layouts (fixed seeds, as bench/peltapeeps_photos.py draws them)
and the real jellybean photos in ../shared/photos/jellybeans/ (no PeltaPeeps
piece in any of them) with the photo reader, and prints how many of each get
each verdict from vision.peltapeeps.verdict.judge: "layout" (the sheet names a
winner), "doubtful" (it leads with the reason and names none) and "not a
layout" (companion score refuses the photo). The jellybeans are read with a
profile of two team colours (red, blue) and one of all six, so beans of a
team's colour are in play.

It also prints, over the layouts, the lowest share of pieces read sure
(confidence >= SURE_CONFIDENCE), and over the jellybean readings the highest:
how far each side is from the thresholds.

    .venv/bin/python bench/peltapeeps_verdict.py --scenes 100
    .venv/bin/python bench/peltapeeps_verdict.py --scenes 0 --photos ../shared/photos/jellybeans
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: numpy's BLAS too
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.profile import Profile  # noqa: E402
from companion.rules.peltapeeps.catalog import default_catalog  # noqa: E402
from vision.image_io import read_image  # noqa: E402
from vision.peltapeeps.read import read_layout  # noqa: E402
from vision.peltapeeps.reading import LayoutReading  # noqa: E402
from vision.peltapeeps.verdict import (  # noqa: E402
    NOT_A_LAYOUT_SHARE,
    SURE_CONFIDENCE,
    SURE_SHARE,
    judge,
)
from vision.render.peltapeeps import (  # noqa: E402
    TEAM_COLOURS,
    PeltaSpec,
    profile_for_teams,
    render_layout,
)

SEED0 = 7000
BEANS = ROOT.parent / "shared" / "photos" / "jellybeans"
LEVELS = ("layout", "doubtful", "not a layout")


def sure_share(reading: LayoutReading) -> float | None:
    if not reading.pieces:
        return None
    return sum(p.confidence >= SURE_CONFIDENCE for p in reading.pieces) / len(reading.pieces)


def line(name: str, counts: Counter, total: int) -> str:
    return f"{name}: " + ", ".join(f"{lv} {counts[lv]}/{total}" for lv in LEVELS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--size", default="2000x1500", help="rendered photo size WxH")
    ap.add_argument("--seed", type=int, default=SEED0, help="first scene's seed")
    ap.add_argument("--photos", type=Path, default=BEANS, help="the jellybean photos")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    spec = PeltaSpec(size=size)
    catalog = default_catalog("full")
    print(f"thresholds: sure piece >= {SURE_CONFIDENCE}; not a layout below "
          f"{NOT_A_LAYOUT_SHARE:.0%} sure, doubtful below {SURE_SHARE:.0%}")

    profiles: dict[tuple[str, ...], Profile] = {}
    counts: Counter = Counter()
    shares = []
    for n in range(args.scenes):
        scene = render_layout(args.seed + n, spec)
        key = tuple(scene.colours)
        if key not in profiles:
            profiles[key] = profile_for_teams(scene.colours)
        reading = read_layout(scene.frame, profiles[key], catalog)
        verdict = judge(reading)
        counts[verdict.level] += 1
        shares.append(sure_share(reading) or 0.0)
        if verdict.level != "layout":
            print(f"  layout seed {args.seed + n}: {verdict.level}: {verdict.reason}")
    if args.scenes:
        print(line(f"rendered layouts ({args.size}, seeds {args.seed}-"
                   f"{args.seed + args.scenes - 1})", counts, args.scenes))
    if shares:
        print(f"  lowest share of pieces read sure: {min(shares):.2f}")

    photos = sorted(args.photos.glob("*.jpg"))
    if not photos:
        print(f"jellybean photos: none found in {args.photos}")
        return 0
    two = profile_for_teams({t: TEAM_COLOURS[t] for t in ("red", "blue")})
    six = profile_for_teams(dict(TEAM_COLOURS))
    counts = Counter()
    best = 0.0
    for path in photos:
        frame = read_image(path)
        for name, prof in (("red+blue", two), ("six colours", six)):
            reading = read_layout(frame, prof, catalog)
            verdict = judge(reading)
            counts[verdict.level] += 1
            best = max(best, sure_share(reading) or 0.0)
            print(f"  {path.name} ({name}): {len(reading.pieces)} pieces read, "
                  f"{verdict.level}")
    print(line(f"jellybean photos ({len(photos)} photos x 2 profiles)", counts, 2 * len(photos)))
    print(f"  highest share of pieces read sure: {best:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
