"""Egg link figures: host decode throughput, and latency from the physical act to the event.

Run: .venv/bin/python bench/egg_link.py
The firmware runs on the host against the simulated sensors over a real pty (as in the tests),
with the shipped eggconfig (1 s heartbeat, 10 ms loop, 48 ms colour integration).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "fakes"), str(ROOT / "firmware"), str(ROOT)]

from eggrig import EggRig, EventLog  # noqa: E402  (test rig on the path above)

from companion.inputs.egg import EggLink  # noqa: E402
from companion.inputs.egg_colours import EggColours  # noqa: E402
from companion.inputs.egg_fields import parse  # noqa: E402
from companion.inputs.egg_frames import FrameReader  # noqa: E402
from firmware.eggproto import encode  # noqa: E402

RED = (0.55, 0.25, 0.22)


def fmt(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"median {statistics.median(xs) * 1000:.0f} ms, max {xs[-1] * 1000:.0f} ms (n={len(xs)})"


def decode_throughput() -> None:
    lines = b"".join(encode(i % 65536, "DRAW", (i, 4228, 1915, 1691, 7676, 4, "48.0"))
                     for i in range(50000))
    reader = FrameReader()
    t = time.perf_counter()
    n = sum(len(reader.feed(lines[i:i + 4096])) for i in range(0, len(lines), 4096))
    dt = time.perf_counter() - t
    print(f"host FrameReader: {n / dt:,.0f} DRAW lines/s ({dt / n * 1e6:.1f} µs per line)")
    fields = [m.fields for m in reader.feed(lines[:4096 * 20])]
    t = time.perf_counter()
    for f in fields:
        parse("DRAW", f)
    dt = time.perf_counter() - t
    print(f"host field check (egg_fields.parse): {len(fields) / dt:,.0f} DRAW messages/s "
          f"({dt / len(fields) * 1e6:.1f} µs per message)")


def latencies() -> None:
    rig = EggRig(Path(tempfile.mkdtemp()) / "egg")
    rig.plug_in()
    log = EventLog()
    link = EggLink(str(rig.port), colours=EggColours({"red": (RED,)}))
    t0 = time.monotonic()
    link.start(log.put)
    log.wait("device_status", where=lambda e: e.data["state"] == "connected")
    print(f"open + handshake: {(time.monotonic() - t0) * 1000:.0f} ms")
    time.sleep(0.3)
    bean, shake, button = [], [], []
    for _ in range(15):
        t = time.monotonic()
        rig.colour.put_bean(RED)
        log.wait("bean")
        bean.append(time.monotonic() - t)
        time.sleep(0.1)
        rig.colour.take_bean()
        time.sleep(0.2)
        rig.accel.shake(0.4)
        t = time.monotonic() + 0.4
        log.wait("shake")
        shake.append(time.monotonic() - t)
        time.sleep(0.7)
        rig.press_button()
        time.sleep(0.1)
        t = time.monotonic()
        rig.release_button()
        log.wait("egg_button")
        button.append(time.monotonic() - t)
    print("bean at the mouth -> bean event:", fmt(bean))
    print("shaking stops -> shake event:   ", fmt(shake))
    print("button released -> egg_button:  ", fmt(button))

    def state_is(s: str):
        return lambda e: e.data["state"] == s

    t = time.monotonic()
    rig.unplug()
    log.wait("device_status", where=state_is("disconnected"))
    print(f"unplug -> disconnected event: {(time.monotonic() - t) * 1000:.0f} ms")
    time.sleep(0.2)
    t = time.monotonic()
    rig.plug_in()
    log.wait("device_status", where=state_is("connected"), timeout=10)
    print(f"replug -> connected event (back-off 0.5 s, 1 s, ...): "
          f"{(time.monotonic() - t) * 1000:.0f} ms")
    t = time.monotonic()
    rig.stop_firmware()
    log.wait("device_status", where=state_is("disconnected"), timeout=10)
    print(f"egg goes silent -> lost (3 x 1 s heartbeat): {(time.monotonic() - t) * 1000:.0f} ms")
    link.stop()
    rig.unplug()


if __name__ == "__main__":
    decode_throughput()
    latencies()
