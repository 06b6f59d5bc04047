"""How long a turn of ``companion demo --game petri`` takes through the rendered camera.

Plays the demo's scripted Petri game (two players) with no pause between table
actions: every change of the board is rendered as a 1280x720 photo, read back by
the Petri reader and ruled on. Prints per photo the render and read times, per
turn the wall time (roll, die, the placements, captures), and the misreads.

    nice -n 10 .venv/bin/python bench/petri_demo.py --turns 12 --seed 7
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion import games  # noqa: E402
from companion.demo_camera import RenderedCamera  # noqa: E402
from companion.demo_table import ScriptedTable  # noqa: E402
from companion.gamelog import GameLog  # noqa: E402
from companion.referee import Referee  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7, help="7 plastic, 6 wood, 8 the printed sheet")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, GameLog(Path(tmp) / "d.sqlite") as log:
        rules = games.find("petri").new_rules(["red", "blue"])
        referee = Referee(log, log.new_game(rules))
        t0 = time.perf_counter()
        camera = RenderedCamera(referee, ["red", "blue"], seed=args.seed, fix_after_s=0)
        print(f"demo camera set up ({camera.scene.style}, card calibrated) in "
              f"{time.perf_counter() - t0:.2f} s")
        renders, reads = [], []
        render, detect = camera.scene.render, camera.reader.detect

        def timed_render(state, n):
            t = time.perf_counter()
            out = render(state, n)
            renders.append(time.perf_counter() - t)
            return out

        def timed_detect(frame):
            t = time.perf_counter()
            out = detect(frame)
            reads.append(time.perf_counter() - t)
            return out

        camera.scene.render, camera.reader.detect = timed_render, timed_detect
        table = ScriptedTable(referee, seed=args.seed, show=camera.show)
        turns, start, turn = [], time.perf_counter(), referee.state.turn
        while len(turns) < args.turns and not rules.is_over(referee.state):
            table.step()
            if referee.state.turn != turn:
                now = time.perf_counter()
                turns.append(now - start)
                start, turn = now, referee.state.turn
        print(f"{len(turns)} turns, {camera.frames} photos, {referee.misreads} misreads")
        print(f"  photo: render median {1000 * statistics.median(renders):.0f} ms, "
              f"read median {1000 * statistics.median(reads):.0f} ms "
              f"(max {1000 * max(reads):.0f} ms)")
        print(f"  turn: median {statistics.median(turns):.2f} s, max {max(turns):.2f} s "
              "(with no pause between actions; the demo adds --step seconds per action)")


if __name__ == "__main__":
    main()
