"""Time from a stable 1280x720 frame to a browser receiving the page update.

Run: .venv/bin/python bench/live_latency.py [--rounds 40]
The live service runs on a real port with a server-sent-events client reading
it. Each round hands one rendered frame (tilted camera, real markers) to the
camera pipeline: tile finding, the observation, move inference and the rules,
then the update pushed to the page. Frames alternate between a table that
matches the game and one with a stray hex, so every reading changes what the
page shows.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.camera_setup import make_detector
from companion.rules.peepwar.board import tile_centre_mm
from companion.service import Service, ServiceOptions
from vision.geometry import Pose2D
from vision.render.layout import PlacedTile
from vision.render.scene import SceneSpec, render_scene


def frame(tiles: list[tuple[int, int, int]], seed: int):
    layout = [PlacedTile(tile_id=i, hex=(q, r), pose=Pose2D(*tile_centre_mm((q, r)), 0.0),
                         rotation=0) for i, q, r in tiles]
    spec = SceneSpec(size=(1280, 720), tiles=(len(tiles), len(tiles)), tilt_deg=25.0,
                     beans=(0, 0), peeps=(0, 0), hands=(0, 0), noise_sigma=(1.0, 1.0))
    return render_scene(seed, spec, layout=layout).frame


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=40)
    args = ap.parse_args()
    good = frame([(0, 0, 0), (3, 1, -1)], 1)
    stray = frame([(0, 0, 0), (3, 1, -1), (7, -1, 2)], 2)
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(ServiceOptions(port=0, log=Path(tmp) / "g.sqlite",
                                         players=["red", "blue"], new_game=True))
        service.referee.play_text("hex 1,-1", "bench")
        service.start()
        port = service._server.server_port
        detect, _ = make_detector(None)
        received: dict[int, float] = {}
        arrived = threading.Condition()

        def page() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/api/stream")
            resp = conn.getresponse()
            while True:
                line = resp.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    version = json.loads(line[6:])["version"]
                    with arrived:
                        received[version] = time.perf_counter()
                        arrived.notify_all()

        threading.Thread(target=page, daemon=True).start()
        time.sleep(0.5)
        total, detect_ms = [], []
        for i in range(args.rounds):
            f = stray if i % 2 == 0 else good
            t0 = time.perf_counter()
            obs = detect(f)
            t1 = time.perf_counter()
            service.referee.observe(obs)
            version = service.referee.version
            with arrived:
                arrived.wait_for(lambda v=version: v in received, timeout=5)
            total.append(received[version] - t0)
            detect_ms.append(t1 - t0)
            assert (len(obs.tiles) == 3) == (i % 2 == 0), obs.warnings
        service.stop()
    print(f"stable 1280x720 frame -> page update received: median "
          f"{statistics.median(total) * 1000:.0f} ms, p95 "
          f"{sorted(total)[int(0.95 * len(total))] * 1000:.0f} ms over {len(total)} readings "
          f"(target <= 150 ms)")
    print(f"  of which reading the frame (tiles; pieces come with the piece reader): median "
          f"{statistics.median(detect_ms) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
