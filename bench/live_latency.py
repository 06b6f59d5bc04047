"""Time from a stable 1280x720 frame to a browser receiving the page update.

Run: .venv/bin/python bench/live_latency.py [--rounds 40]
The live service runs on a real port with a server-sent-events client reading
it. Each round hands one rendered photo of a mid-game table (a tilted camera,
tiles, beans, peeps, Supply Centers) to the whole pipeline: tiles and pieces
read with the players' colour profile, move inference and the rules, then the
update pushed to the page. Photos alternate between the table as the game has
it and the table after the current player's move, which the referee accepts
and then the undo puts back, so every reading changes what the page shows.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion import games
from companion.camera_setup import make_reader
from companion.rules.peepwar import Move, Phase
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.inference import differences
from companion.service import Service, ServiceOptions
from vision.render.game_scene import families_colours, profile_for_colours, render_state
from web.event_stream import follow_events


def _readable(state_dict, state, colours, detect):
    for seed in range(50):
        frame = render_state(state_dict, colours, seed=seed).frame
        if not differences(state, detect(frame)):
            return frame
    raise SystemExit("no rendered photo of the position was read exactly")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=40)
    args = ap.parse_args()
    players = ["red", "blue"]
    colours = families_colours(players)
    detect = make_reader(games.find("peepwar"), profile_for_colours(colours, 1)).detect
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(ServiceOptions(port=0, log=Path(tmp) / "g.sqlite", players=players,
                                         new_game=True))
        ref = service.referee
        bot = Bot(ref.rules, 5)
        while not (ref.state.phase is Phase.MOVEMENT and ref.state.turn >= 6):
            ref.play(bot.choose(ref.state), "bench")
        before = ref.state
        move = next(a for a in ref.rules.legal_actions(before) if isinstance(a, Move) and a.troops)
        after, _ = ref.rules.apply(before, move)
        # Latency, not accuracy (bench/vision_pieces.py measures that): photos read exactly.
        frames = [_readable(ref.rules.state_to_dict(s), s, colours, detect)
                  for s in (after, before)]
        service.start()
        port = service._server.server_port
        received: dict[int, float] = {}
        arrived = threading.Condition()

        def arrive(data: dict) -> None:
            with arrived:
                received[data["version"]] = time.perf_counter()
                arrived.notify_all()

        follow_events(port, arrive)
        time.sleep(0.5)
        total, reading, verdicts = [], [], []
        for i in range(args.rounds):
            t0 = time.perf_counter()
            obs = detect(frames[i % 2])
            t1 = time.perf_counter()
            result = ref.observe(obs)
            if result.verdict == "undo":
                ref.accept("bench")
            verdicts.append(result.verdict)
            version = ref.version
            with arrived:
                arrived.wait_for(lambda v=version: v in received, timeout=5)
            total.append(received[version] - t0)
            reading.append(t1 - t0)
        service.stop()
    print(f"stable 1280x720 frame -> page update received: median "
          f"{statistics.median(total) * 1000:.0f} ms, p95 "
          f"{sorted(total)[int(0.95 * len(total))] * 1000:.0f} ms over {len(total)} readings "
          f"(target <= 150 ms)")
    print(f"  of which reading the frame (tiles and pieces): median "
          f"{statistics.median(reading) * 1000:.0f} ms")
    print(f"  readings: {verdicts.count('actions')} moves accepted, {verdicts.count('undo')} "
          f"undos offered, {verdicts.count('problem')} problems")


if __name__ == "__main__":
    main()
