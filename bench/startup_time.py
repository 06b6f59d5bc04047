"""How fast the rules commands start: wall and CPU time of whole ``companion`` processes.

Run: .venv/bin/python bench/startup_time.py [--runs 10]
Each command runs --runs times against a scratch game log; the median wall
time and CPU time (user + system, which a busy machine inflates less) are
printed beside those of a bare ``python -c pass``, and the heavy packages each
command loaded (none is the aim: OpenCV, NumPy, Flask and gevent are loaded by
the commands that need them only).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("cv2", "numpy", "flask", "werkzeug", "gevent", "onnxruntime", "segno", "serial",
         "gpiozero")


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _heavy(argv: list[str], env: dict[str, str]) -> list[str]:
    r = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in r.stderr.splitlines()
              if line.startswith("import time:")}
    return sorted(loaded & set(HEAVY))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    py = sys.executable
    # Byte-compile first: with PYTHONDONTWRITEBYTECODE set, every run would compile the
    # modules changed since the last install, which a user's machine does once.
    for package in ("companion", "calibration", "vision", "web"):
        compileall.compile_dir(ROOT / package, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "g.sqlite")
        script = Path(tmp) / "moves.txt"
        script.write_text("hex 1,0\nhex -1,0\n")
        subprocess.run([py, "-m", "companion", "new", "--log", log], cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL, check=True)
        commands = {
            "python -c pass": [py, "-c", "pass"],
            "Peep War's rules alone (import)": [py, "-c", "import companion.rules.peepwar"],
            "odds --attacker 3 --defender 2": [py, "-m", "companion", "odds", "--attacker", "3",
                                               "--defender", "2"],
            "new": [py, "-m", "companion", "new", "--log", log],
            "play --script (2 moves)": [py, "-m", "companion", "play", "--log", log,
                                        "--script", str(script)],
            "games": [py, "-m", "companion", "games", "--log", log],
            "replay": [py, "-m", "companion", "replay", "--log", log],
            "undo": [py, "-m", "companion", "undo", "--log", log],
        }
        print(f"median of {args.runs} runs (machine load {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores)")
        print(f"{'command':<34}{'wall':>9}{'CPU':>9}  heavy packages loaded")
        for name, argv in commands.items():
            runs = []
            for _ in range(args.runs):
                if name == "undo":  # something to take back each time
                    subprocess.run([py, "-m", "companion", "play", "--log", log, "--script",
                                    str(script)], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, check=True)
                runs.append(_timed(argv, env))
            wall = statistics.median(r[0] for r in runs) * 1000
            cpu = statistics.median(r[1] for r in runs) * 1000
            heavy = _heavy(argv, env) if "-m" in argv else []
            print(f"{name:<34}{wall:>7.0f} ms{cpu:>6.0f} ms  {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main()
