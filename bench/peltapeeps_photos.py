"""Benchmark: reading PeltaPeeps layouts from rendered photos (fixed seeds).

Each scene is a layout grown by the rules engine (2 to 6 teams, up to 16
pieces each from the default full set, the default PeltaSpec), photographed as
glossy acrylic under a random lamp and a camera tilted up to 20 degrees. Each
scene's colour profile comes from a rendered calibration card with a piece of
each team in play, through the real calibration (cached per set of teams).

Prints piece recall and precision, team, face and piece-id accuracy (over the
pieces found), join recall and precision (pairs of pieces), the share of
players whose score sheet is exactly right (score_reading with the truth seats
against the engine's sheet), how many lines the score-sheet page asks to check
(their line rests on a piece read unsure: ``vision.peltapeeps.verdict.to_check``)
among the wrong ones and among the right ones, and the median time per photo on one core, as
wall-clock time and as processor time (the latter barely moves when other
programs share the machine).

Seeds: 7000 onwards are for development; 9000 onwards are held out (measure
only: choose no rule or threshold by looking at them).

    .venv/bin/python bench/peltapeeps_photos.py --scenes 300
    .venv/bin/python bench/peltapeeps_photos.py --scenes 20 --size 2000x1500 --dump /tmp/pp

With ``--generator 3d`` the photos come from the path-traced generator
(:mod:`vision.render3d.peltapeeps`, docs/scenes.md) instead, from its cache
(rendered once: ``python -m vision.render3d.pelta_cache --seeds 70000-70099``),
each read with the profile of a path-traced calibration card; its first seed
is 70000, the held-out range:

    .venv/bin/python bench/peltapeeps_photos.py --generator 3d --scenes 100 --cached-only
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: numpy's BLAS too
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.profile import Profile  # noqa: E402
from companion.rules.peltapeeps.catalog import Catalog, default_catalog  # noqa: E402
from vision.peltapeeps.read import read_layout  # noqa: E402
from vision.peltapeeps.reading import LayoutReading, score_reading  # noqa: E402
from vision.peltapeeps.verdict import to_check  # noqa: E402
from vision.render.peltapeeps import PeltaSpec, Truth, profile_for_teams, render_layout  # noqa: E402

SEED0 = 7000
SEED0_3D = 70000  # the 3D generator's held-out range (vision/render3d/pelta_cache.py)


@dataclass
class Tally:
    truth_pieces: int = 0
    seen_pieces: int = 0
    matched: int = 0
    team_ok: int = 0
    face_ok: int = 0
    id_ok: int = 0
    truth_joins: int = 0
    seen_joins: int = 0
    joins_ok: int = 0
    players: int = 0
    players_ok: int = 0
    wrong_asked: int = 0  # players scored wrongly whose line the page asks to check
    right_asked: int = 0  # players scored exactly whose line it asks to check all the same
    scenes_ok: int = 0
    scenes: int = 0
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # processor time: steady on a busy machine

    def add(self, other: Tally) -> None:
        for k, v in vars(other).items():
            if k in ("times", "cpu"):
                getattr(self, k).extend(v)
            else:
                setattr(self, k, getattr(self, k) + v)


def compare(reading: LayoutReading, truth: Truth, catalog: Catalog) -> Tally:
    """How ``reading`` measures against ``truth`` (one scene)."""
    t = Tally(truth_pieces=len(truth.pieces), seen_pieces=len(reading.pieces), scenes=1)
    tc = np.array([p.centre_px for p in truth.pieces], float).reshape(-1, 2)
    match: dict[str, str] = {}  # seen uid -> truth uid
    taken: set[int] = set()
    for p in reading.pieces:
        if not len(tc):
            break
        d = np.hypot(*(tc - np.array(p.centre_px)).T)
        k = int(np.argmin(d))
        if d[k] < 0.5 * truth.pieces[k].radius_px and k not in taken:
            taken.add(k)
            tp = truth.pieces[k]
            match[p.uid] = tp.uid
            t.matched += 1
            t.team_ok += p.team == tp.team
            t.face_ok += p.face_up == tp.face_up
            t.id_ok += p.team == tp.team and p.piece == tp.piece
    truth_joins = {frozenset(j) for j in truth.joins}
    seen = {frozenset((match.get(j.a, "?" + j.a), match.get(j.b, "?" + j.b)))
            for j in reading.joins if j.kind == "join"}
    t.truth_joins, t.seen_joins = len(truth_joins), len(seen)
    t.joins_ok = len(truth_joins & seen)
    try:
        sheet = score_reading(reading, catalog, seats=truth.seats)
    except ValueError:
        sheet = {}
    t.players = len(truth.sheet)
    asked = to_check(reading, truth.seats)
    for pl, line in truth.sheet.items():
        ok = sheet.get(pl) == line
        t.players_ok += ok
        t.right_asked += ok and pl in asked
        t.wrong_asked += not ok and pl in asked
    t.scenes_ok = int(t.players_ok == t.players)
    return t


def report(t: Tally, size: tuple[int, int]) -> str:
    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:6.2f}%" if b else "   n/a"

    med = float(np.median(t.times)) if t.times else float("nan")
    p90 = float(np.percentile(t.times, 90)) if t.times else float("nan")
    cpu = float(np.median(t.cpu)) if t.cpu else float("nan")
    return "\n".join([
        f"scenes {t.scenes}, photos {size[0]}x{size[1]}, pieces {t.truth_pieces}",
        f"piece recall      {pct(t.matched, t.truth_pieces)}",
        f"piece precision   {pct(t.matched, t.seen_pieces)}",
        f"team accuracy     {pct(t.team_ok, t.matched)}",
        f"face accuracy     {pct(t.face_ok, t.matched)}",
        f"piece-id accuracy {pct(t.id_ok, t.matched)}",
        f"join recall       {pct(t.joins_ok, t.truth_joins)}",
        f"join precision    {pct(t.joins_ok, t.seen_joins)}",
        f"players scored exactly {pct(t.players_ok, t.players)}  (target >= 98%)",
        f"scenes all exact  {pct(t.scenes_ok, t.scenes)}",
        f"lines to check    {pct(t.wrong_asked, t.players - t.players_ok)} of the players scored "
        f"wrongly, {pct(t.right_asked, t.players_ok).strip()} of those scored exactly "
        f"(their line rests on a piece read unsure)",
        f"wrong, unasked    {t.players - t.players_ok - t.wrong_asked} of {t.players} players",
        f"time per photo    median {med:.3f} s, 90th percentile {p90:.3f} s (one core)",
        f"cpu per photo     median {cpu:.3f} s (processor time, as on an idle core)",
    ])


def dump_scene(path: Path, frame: np.ndarray, reading: LayoutReading, truth: Truth) -> None:
    """The photo with the truth (thin white) and the reading (team-coloured outline, ids)."""
    img = frame.copy()
    for p in truth.pieces:
        cv2.circle(img, (int(p.centre_px[0]), int(p.centre_px[1])), int(p.radius_px),
                   (255, 255, 255), 1)
        cv2.putText(img, f"{p.piece}{'' if p.face_up else 'v'}",
                    (int(p.centre_px[0] - p.radius_px / 2), int(p.centre_px[1] + p.radius_px / 2)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    for p in reading.pieces:
        if p.outline_px:
            pts = np.array(p.outline_px, np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [pts], True, (0, 0, 0), 1)
        cv2.putText(img, f"{p.piece}{'' if p.face_up else 'v'}",
                    (int(p.centre_px[0] - p.radius_px / 2), int(p.centre_px[1])),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 2)
    for j in reading.joins:
        colour = (0, 255, 0) if j.kind == "join" else (0, 0, 255)
        cv2.circle(img, (int(j.at_px[0]), int(j.at_px[1])), 4, colour, -1)
    cv2.imwrite(str(path), img)


def _scenes_2d(args, size: tuple[int, int]):
    """(seed, frame, truth, profile) of the compositing generator's scenes."""
    spec = PeltaSpec(size=size)
    profiles: dict[tuple[str, ...], Profile] = {}
    for n in range(args.scenes):
        seed = args.seed + n
        scene = render_layout(seed, spec)
        key = tuple(scene.colours)
        if key not in profiles:
            profiles[key] = profile_for_teams(scene.colours)
        yield seed, scene.frame, scene.truth, profiles[key]


def _scenes_3d(args, size: tuple[int, int]):
    """(seed, frame, truth, profile) of the path-traced generator's cached photos."""
    from vision.render3d.pelta_cache import cached_pelta, scene_dir
    from vision.render3d.pelta_card import pelta_profile
    from vision.render3d.peltapeeps import PeltaSpec3D

    spec = PeltaSpec3D(size=size)
    missing = 0
    for n in range(args.scenes):
        seed = args.seed + n
        scene = cached_pelta(seed, spec, render=not args.cached_only)
        if scene is None:
            missing += 1
            continue
        yield seed, scene.frame, scene.truth, pelta_profile(scene.colours)
    if missing:
        print(f"({missing} of {args.scenes} photos not in {scene_dir(spec)}: skipped)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--size", default="4000x3000", help="photo size WxH (default 12 MP)")
    ap.add_argument("--seed", type=int, default=None,
                    help=f"first scene's seed (default {SEED0}; {SEED0_3D} with --generator 3d)")
    ap.add_argument("--generator", choices=("2d", "3d"), default="2d",
                    help="2d: the compositing renderer (default); 3d: the path-traced one")
    ap.add_argument("--cached-only", action="store_true",
                    help="3d: read only photos already rendered into the cache")
    ap.add_argument("--dump", type=Path, help="write failing scenes with an overlay here")
    ap.add_argument("--progress", type=int, default=0, help="print figures every N scenes")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    assert len(size) == 2
    if args.seed is None:
        args.seed = SEED0_3D if args.generator == "3d" else SEED0
    catalog = default_catalog("full")
    total = Tally()
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    scenes = _scenes_3d(args, size) if args.generator == "3d" else _scenes_2d(args, size)
    for n, (seed, frame, truth, profile) in enumerate(scenes):
        t0, c0 = time.perf_counter(), time.process_time()
        reading = read_layout(frame, profile, catalog)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        tally = compare(reading, truth, catalog)
        tally.times.append(elapsed)
        tally.cpu.append(cpu)
        total.add(tally)
        if args.dump and not tally.scenes_ok:
            dump_scene(args.dump / f"scene_{seed}.jpg", frame, reading, truth)
        if args.progress and (n + 1) % args.progress == 0:
            print(f"-- after {n + 1} scenes\n{report(total, size)}", flush=True)
    print(report(total, size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
