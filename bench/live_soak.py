"""Resident memory of the live demo over a soak run, with a page connected.

Run: .venv/bin/python bench/live_soak.py            (2 minutes)
     .venv/bin/python bench/live_soak.py --minutes 30
It starts `companion demo` (the scripted game played at the table, fast), keeps
one server-sent-events client reading every update, and samples the process's
resident memory (VmRSS) every few seconds.
"""

from __future__ import annotations

import argparse
import http.client
import re
import subprocess
import sys
import threading
import time


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--step", type=float, default=0.05, help="seconds between table actions")
    args = ap.parse_args()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", "0",
                             "--no-browser", "--step", str(args.step)],
                            stdout=subprocess.PIPE, text=True)
    port = int(re.search(r":(\d+)/", proc.stdout.readline()).group(1))
    updates = {"n": 0}
    stop = threading.Event()

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/stream")
        resp = conn.getresponse()
        while not stop.is_set():
            line = resp.fp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                updates["n"] += 1

    threading.Thread(target=client, daemon=True).start()
    samples = []
    end = time.monotonic() + args.minutes * 60
    try:
        while time.monotonic() < end:
            time.sleep(5)
            samples.append(rss_mb(proc.pid))
    finally:
        stop.set()
        proc.terminate()
        proc.wait(10)
    print(f"soak {args.minutes:g} min, table action every {args.step:g} s: "
          f"{updates['n']} page updates received")
    print(f"resident memory: start {samples[0]:.0f} MB, end {samples[-1]:.0f} MB, "
          f"max {max(samples):.0f} MB (target < 300 MB)")


if __name__ == "__main__":
    main()
