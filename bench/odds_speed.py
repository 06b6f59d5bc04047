"""How fast exact combat odds are: the largest fight cold and warm, and the CLI end to end.

The target is ``combat_odds(Side(5, 3), Side(5, 3))`` under 5 ms cold on one
core, so a page or a button press can ask for odds without noticing.

Run: ``.venv/bin/python bench/odds_speed.py [--runs 500] [--cli-runs 15]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from companion.rules.peepwar.odds import Side, clear_caches, combat_odds


def timings(
    fn: Callable[[], object], runs: int, before: Callable[[], None] | None = None
) -> list[float]:
    """Seconds per call of ``fn`` over ``runs`` calls, ``before`` run untimed ahead of each."""
    out = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def summary(label: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"{label}: median {statistics.median(ms):.3f} ms, p95 {p95:.3f} ms over {len(ms)} runs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500, help="in-process runs (default 500)")
    parser.add_argument("--cli-runs", type=int, default=15, help="CLI process runs (default 15)")
    args = parser.parse_args()

    attacker, defender = Side(5, 3), Side(5, 3)

    def fight() -> object:
        return combat_odds(attacker, defender)

    print(summary("odds 5+3 v 5+3 cold", timings(fight, args.runs, before=clear_caches)))
    fight()
    print(summary("odds 5+3 v 5+3 warm", timings(fight, args.runs)))

    script = Path(sys.executable).parent / "companion"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "companion"]
    cmd += ["odds", "--attacker", "5+3", "--defender", "5+3", "--json"]

    def cli() -> object:
        return subprocess.run(cmd, capture_output=True, check=True)

    print(summary("odds CLI 5+3 v 5+3 --json end to end", timings(cli, args.cli_runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
