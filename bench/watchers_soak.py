"""The table's action → page latency with 50 watchers, and again beside misbehaving clients.

Run: .venv/bin/python bench/watchers_soak.py [--watchers 50] [--rounds 30]
The live service runs on 127.0.0.1 (a real port, its real server). Watchers
follow the page's server-sent events as browser tabs do. Each round the table
makes one action (a hex placed, then taken back), and the time until every
watcher has the update is measured: first, median, slowest watcher. Then the
same with misbehaving clients running: slowloris connections dribbling a
header each second, and camera views opened and dropped at once. Bounded in
time: each phase stops after --rounds actions.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.service import Service, ServiceOptions
from web.event_stream import follow_events


def _os_threads() -> int:
    """Threads of this process as the system counts them (gevent's pool threads too)."""
    return len(os.listdir("/proc/self/task"))


def _phase(ref, arrivals: dict, lock: threading.Condition, watchers: int, rounds: int
           ) -> list[tuple[float, float, float]]:
    out = []
    for i in range(rounds):
        t0 = time.perf_counter()
        if i % 2 == 0:
            ref.play_text("hex 1,0", "bench")
        else:
            ref.undo(1, "bench")
        version = ref.version
        with lock:
            ok = lock.wait_for(lambda v=version: len(arrivals.get(v, ())) >= watchers,
                               timeout=10)
            got = sorted(t - t0 for t in arrivals.get(version, ()))
        if not ok:
            raise SystemExit(f"round {i}: only {len(got)} of {watchers} watchers got the update")
        out.append((got[0], statistics.median(got), got[-1]))
        time.sleep(0.05)
    return out


def _report(name: str, rows: list[tuple[float, float, float]]) -> None:
    first = [r[0] * 1000 for r in rows]
    median = [r[1] * 1000 for r in rows]
    last = [r[2] * 1000 for r in rows]
    q = statistics.quantiles(last, n=20)
    print(f"{name:<34} first {statistics.median(first):6.1f} ms   median watcher "
          f"{statistics.median(median):6.1f} ms   slowest watcher {statistics.median(last):6.1f} "
          f"ms (p95 {q[18]:6.1f}, max {max(last):6.1f})")


def _misbehave(port: int, slowloris: int, stop, report) -> None:
    """In a process of its own, as another device would be: not sharing the bench's GIL."""
    halt = threading.Event()
    opened: list[int] = []
    aborted = [0]
    bad = [threading.Thread(target=_slowloris, args=(port, slowloris, halt, opened)),
           threading.Thread(target=_aborted_views, args=(port, halt, aborted))]
    for t in bad:
        t.start()
    stop.wait()
    halt.set()
    for t in bad:
        t.join(5)
    report.put((opened[0] if opened else 0, aborted[0]))


def _slowloris(port: int, n: int, stop: threading.Event, opened: list[int]) -> None:
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        except OSError:
            break
    opened.append(len(socks))
    i = 0
    while not stop.wait(1.0):
        i += 1
        for s in list(socks):
            try:
                s.sendall(f"X-Slow-{i}: {i}\r\n".encode())
            except OSError:
                socks.remove(s)
    for s in socks:
        s.close()


def _aborted_views(port: int, stop: threading.Event, count: list[int]) -> None:
    while not stop.is_set():
        # A refused or reset connection is what a misbehaving client expects now and then.
        with contextlib.suppress(OSError):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /video.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            s.close()
            count[0] += 1
        time.sleep(0.01)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--watchers", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--slowloris", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(ServiceOptions(port=0, log=Path(tmp) / "g.sqlite", new_game=True))
        ref = service.referee
        threads_before = _os_threads()
        service.start()
        arrivals: dict[int, list[float]] = {}
        lock = threading.Condition()

        def arrive(data: dict) -> None:
            t = time.perf_counter()
            with lock:
                arrivals.setdefault(data["version"], []).append(t)
                lock.notify_all()

        for _ in range(args.watchers):
            follow_events(service.port, arrive, timeout=120)
        with lock:
            lock.wait_for(lambda: len(arrivals.get(ref.version, ())) >= args.watchers, 10)
        server_threads = _os_threads() - threads_before - args.watchers
        quiet = _phase(ref, arrivals, lock, args.watchers, args.rounds)

        stop = multiprocessing.Event()
        report: multiprocessing.Queue = multiprocessing.Queue()
        bad = multiprocessing.Process(target=_misbehave, args=(service.port, args.slowloris,
                                                                stop, report), daemon=True)
        bad.start()
        time.sleep(2.0)
        noisy = _phase(ref, arrivals, lock, args.watchers, args.rounds)
        threads_loaded = _os_threads() - threads_before - args.watchers
        stop.set()
        opened, aborted = report.get(timeout=30)
        bad.join(10)
        service.stop()
    print(f"{args.watchers} watchers on 127.0.0.1, {args.rounds} table actions per phase")
    print(f"service threads (server, view pool, inputs): {server_threads} with the watchers, "
          f"{threads_loaded} under the misbehaving clients; streams are greenlets")
    _report("watchers only:", quiet)
    _report("with slowloris + aborted views:", noisy)
    print(f"misbehaving (another process): {opened} slowloris connections held open, "
          f"{aborted} camera views opened and dropped")


if __name__ == "__main__":
    main()
