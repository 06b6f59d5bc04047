"""Benchmark: how much the reader gains from cells corrected on the page.

A referee is simulated on the first ``--corrected`` frames of a held-out range: each
frame is read with what was learned so far, and every cell read wrongly (no hand over
it) is corrected from the scene's truth, as a player would on the page
(:meth:`vision.peepwar.reader.PeepWarReader.learn`; the examples go to a real examples
file in a temporary folder). After 0, 1, 3 and 10 corrected frames the reader reads the
*other* frames of the range (``--scenes`` of them, none of those corrected) and the
figures are printed: cells read exactly, boards read exactly, beans miscounted.

The reader is tuned on the 2D renderer (:mod:`vision.render`); the telling figure is
the 3D generator's (:mod:`vision.render3d`, frames from its cache: render them with
``python -m vision.render3d.cache --seeds 50000-50499``), whose pieces, light and card
photo it was never tuned on. Cells are scored as ``bench/vision_pieces.py`` scores them.

In those ranges every frame is a table of its own (its own top, lamps, camera and
players), so what one frame teaches about *this* table is tested on others. A referee
corrects frames of the game in front of them: with ``--night-frames N`` the 3D frames
are game nights (``Spec3D.night_frames``: N frames of one table, light, camera and
players, the position changing), each night's first ``--corrected`` frames are
corrected and its other frames read, a night starting with no examples; the figures
add up over ``--nights`` nights. Nights 90000-90199 (25 frames each) are held out: no
rule, threshold or training run has seen them (render them with
``python -m vision.render3d.cache --seeds 90000-90199 --night-frames 25``).

    .venv/bin/python bench/correction_learning.py --generator 3d --scenes 100
    .venv/bin/python bench/correction_learning.py --generator 2d --scenes 100
    .venv/bin/python bench/correction_learning.py --generator 3d --first-seed 90000 \
        --night-frames 25 --nights 8
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from vision_pieces import _scenes_2d, _scenes_3d, cell_ok  # noqa: E402

from calibration.examples import ExampleStore  # noqa: E402
from companion.rules.peepwar.board import cells_of  # noqa: E402
from companion.rules.peepwar.observation import CellReading, Pieces  # noqa: E402
from vision.kit_layout import MAX_TILES  # noqa: E402
from vision.peepwar.mosaic import preload_art  # noqa: E402
from vision.peepwar.observation import comparable  # noqa: E402
from vision.peepwar.reader import PeepWarReader  # noqa: E402

STEPS = (0, 1, 3, 10)


def _truth_reading(cell: dict | None) -> CellReading:
    cell = cell or {}
    return CellReading(bool(cell.get("supply_center")), {
        p: Pieces(int(v["troops"]), bool(v["peep"]))
        for p, v in cell.get("pieces", {}).items() if v["troops"] or v["peep"]})


def _score(obs: dict, st) -> tuple[int, int, bool, list[int], list[str]]:
    """Cells, cells right, board right, bean-count errors, and the cells a player would
    correct (wrong, no hand over them), as bench/vision_pieces.py scores them."""
    found = {(t["q"], t["r"]) for t in obs["tiles"]}
    cells = right = 0
    board = True
    errors: list[int] = []
    fix: list[str] = []
    for tt in st.tiles:
        if (tt.q, tt.r) not in found:
            board = False
        for name in cells_of((tt.q, tt.r)):
            cells += 1
            truth = st.cells.get(name)
            got = obs["cells"].get(name) if (tt.q, tt.r) in found else {"missing": True}
            cover = st.hand_cover.get(name, 0.0)
            want, have = comparable(truth), comparable(got)
            ok = cell_ok(want, have, cover, st.out_of_frame.get(name, 0.0))
            right += ok
            board &= ok
            if have != ("occluded",) and not (got or {}).get("missing"):
                tp, gp = (truth or {}).get("pieces", {}), (got or {}).get("pieces", {})
                errors += [abs(tp.get(p, {}).get("troops", 0) - gp.get(p, {}).get("troops", 0))
                           for p in set(tp) | set(gp)]
            if not ok and cover == 0 and (tt.q, tt.r) in found:
                fix.append(name)
    return cells, right, board, errors, fix


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", choices=("2d", "3d"), default="3d")
    ap.add_argument("--scenes", type=int, default=100,
                    help="frames read after each step (default 100)")
    ap.add_argument("--corrected", type=int, default=max(STEPS),
                    help=f"frames corrected, the first of the range (default {max(STEPS)})")
    ap.add_argument("--first-seed", type=int, default=None,
                    help="first seed (default the held-out range: 50000 for 3d, 1000 for 2d)")
    ap.add_argument("--card-seed", type=int, default=0, help="3d: the card photo's seed")
    ap.add_argument("--photos", default=str(ROOT / ".." / "shared" / "photos" / "jellybeans"))
    ap.add_argument("--night-frames", type=int, default=0,
                    help="3d: N frames a game night (render them with the same option); each "
                         "night's first --corrected frames are corrected, the rest read")
    ap.add_argument("--nights", type=int, default=4, help="with --night-frames: nights read")
    args = ap.parse_args()
    if args.first_seed is None:
        args.first_seed = 50000 if args.generator == "3d" else 1000
    if args.night_frames and (args.generator != "3d" or args.night_frames <= args.corrected):
        ap.error("--night-frames needs --generator 3d and more frames than --corrected")
    cv2.setNumThreads(1)
    preload_art(range(MAX_TILES))
    # Scenes as bench/vision_pieces.py loads them; the 3D cache is read only where rendered.
    args.cached_only = True
    groups = _nights(args) if args.night_frames else [_one_range(args)]
    if not groups:
        print("no frames in the cache for these seeds: render them first (see the module's doc)")
        return 1
    for corrected, evaluated in groups:
        print(f"{args.generator} generator: corrected frames seeds "
              f"{corrected[0][0]}..{corrected[-1][0]}; read {len(evaluated)} others, seeds "
              f"{evaluated[0][0]}..{evaluated[-1][0]}")

    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        # Each table (night) has its own examples, as each profile has.
        stores = [ExampleStore(Path(folder) / f"table{k}.json.examples.sqlite")
                  for k in range(len(groups))]
        done = corrected_cells = 0
        for step in STEPS:
            if step > min(len(corrected) for corrected, _ in groups):
                break
            cells = right = boards = frames = 0
            errors: list[int] = []
            for (corrected, evaluated), store in zip(groups, stores, strict=True):
                for _seed, frame, st, profile in corrected[done:step]:
                    reader = PeepWarReader(profile, store)
                    *_, fix = _score(reader.read(frame), st)
                    for name in fix:
                        reader.learn(frame, name, _truth_reading(st.cells.get(name)))
                    corrected_cells += len(fix)
                for _seed, frame, st, profile in evaluated:
                    reader = PeepWarReader(profile, store)
                    c, r, b, e, _ = _score(reader.read(frame), st)
                    cells, right, boards = cells + c, right + r, boards + b
                    errors += e
                frames += len(evaluated)
            done = step
            kept = sum(len(store) for store in stores)
            print(f"after {step:>2} corrected frames ({corrected_cells:>3} cells corrected, "
                  f"{kept:>3} examples kept): cells exact {right / cells:.4f}, boards "
                  f"exact {boards / frames:.4f}, bean-count error "
                  f"{float(np.mean(errors)) if errors else 0.0:.4f}", flush=True)
    print(f"{time.perf_counter() - t_start:.0f} s in all")
    return 0


def _one_range(args: argparse.Namespace) -> tuple[list, list]:
    """The range's first --corrected frames, and the --scenes frames after them."""
    make = _scenes_3d if args.generator == "3d" else _scenes_2d
    wanted = args.scenes
    args.scenes = args.corrected + args.scenes + 200
    scenes = make(args, 1280, 720)
    corrected = [next(scenes) for _ in range(args.corrected)]
    evaluated = []
    for scene in scenes:
        evaluated.append(scene)
        if len(evaluated) == wanted:
            break
    return corrected, evaluated


def _nights(args: argparse.Namespace) -> list[tuple[list, list]]:
    """Each night's first --corrected frames and its other frames (at most --scenes of
    them), for --nights nights from the one --first-seed falls in."""
    n, wanted = args.night_frames, args.scenes
    first = args.first_seed - args.first_seed % n
    args.first_seed, args.scenes = first, n * args.nights
    by_night: dict[int, list] = {}
    for scene in _scenes_3d(args, 1280, 720):
        by_night.setdefault(scene[0] // n, []).append(scene)
    return [(frames[:args.corrected], frames[args.corrected:args.corrected + wanted])
            for _, frames in sorted(by_night.items()) if len(frames) > args.corrected]


if __name__ == "__main__":
    sys.exit(main())
