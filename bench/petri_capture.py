"""How long the best capture order takes on mid-game Petri positions; prints the figures.

Positions come from games played to the capture step by players who place at
random (2 to 6 players, 10 or 15 pieces each, both readings of whose pieces
are checked): every capture step of those games is one position. Each is
timed once on one core, searched to the end. ``--scattered N`` also times N
boards far denser and more mixed than play produces (20 to 70 pieces of 2 to
6 players dropped on random holes), the search's hard case, with the budget
the page, the bot and the end-turn button give it. Usage::

    python bench/petri_capture.py [--positions 1000] [--seed 1] [--scattered 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Iterator

from companion.rules.petri import Capture, Petri, Place, Step
from companion.rules.petri.board import HOLES
from companion.rules.petri.captures import BUDGET, advise
from companion.rules.petri.state import PetriState


def positions(count: int, seed: int) -> Iterator[tuple[Petri, PetriState, str]]:
    """``count`` capture steps of random games (rules, state, the player capturing)."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        rules = Petri(players=[f"p{i}" for i in range(rng.randint(2, 6))],
                      pieces=rng.choice((10, 15)), removed=rng.choice(("box", "hand")),
                      own_pieces=rng.choice(("checked", "safe")))
        state = rules.new_state()
        for _ in range(3000):
            if rules.is_over(state) or made >= count:
                break
            who = next(p for p in rules.players if p in rules.waiting_for(state))
            part = state.parts[who]
            if part.step is Step.CAPTURE:
                made += 1
                yield rules, state, who
                action = Capture(who, advise(state.board, who, rules.own_checked()).order)
            elif part.step is Step.ROLL:
                action = rng.choice([a for a, _ in rules.chance(state).outcomes])
            elif part.step is Step.PLACE:
                action = Place(who, (rng.choice(sorted(rules.placeable(state, who))),))
            else:
                action = rng.choice(list(rules.legal_actions(state)))
            state, _ = rules.apply(state, action)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scattered", type=int, default=0, metavar="N")
    args = parser.parse_args()
    times, pieces, captured, lost, cut = [], [], [], [], 0
    for rules, state, who in positions(args.positions, args.seed):
        start = time.perf_counter()
        advice = advise(state.board, who, rules.own_checked())
        times.append((time.perf_counter() - start) * 1000)
        pieces.append(len(state.board))
        captured.append(advice.enemy)
        lost.append(advice.careless_loss)
        cut += not advise(state.board, who, rules.own_checked(), BUDGET).exact
    times.sort()
    print(f"{len(times)} capture steps of random games, {statistics.median(pieces):.0f} pieces "
          f"on the board (median), {max(pieces)} at most")
    print(f"best order: median {statistics.median(times):.2f} ms, 95th percentile "
          f"{times[int(0.95 * len(times))]:.2f} ms, worst {times[-1]:.2f} ms")
    print(f"captures per step: mean {statistics.mean(captured):.2f}, most {max(captured)}; "
          f"reading order loses some in {sum(1 for x in lost if x) / len(lost):.1%} of steps "
          f"(at most {max(lost)})")
    print(f"the page's search budget ({BUDGET} sets searched) ran out in {cut} of {len(times)}")
    if args.scattered:
        scattered(args.scattered, args.seed)


def scattered(count: int, seed: int) -> None:
    rng = random.Random(seed)
    times, cut = [], 0
    for _ in range(count):
        players = [f"p{i}" for i in range(rng.randint(2, 6))]
        board = {h: rng.choice(players) for h in rng.sample(HOLES, rng.randint(20, 70))}
        start = time.perf_counter()
        advice = advise(board, players[0], rng.random() < 0.5, BUDGET)
        times.append((time.perf_counter() - start) * 1000)
        cut += not advice.exact
    times.sort()
    print(f"{count} scattered boards, with the page's budget: median "
          f"{statistics.median(times):.2f} ms, 90th percentile {times[int(0.9 * len(times))]:.0f}"
          f" ms, worst {times[-1]:.0f} ms; the budget ran out in {cut}")


if __name__ == "__main__":
    main()
