"""A Peloponnesian War: whole bot games — their speed, length and how they end.

Run: .venv/bin/python bench/peloponnesian_games.py [--games N]
Three plain bots (the bundle's) play N games from seeds 0..N-1 on the default
map; the script prints games per second, legal-action lists per second on a
first-round position, the turns games last and how they end.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from companion.rules.peloponnesian.game import GAME
from companion.rules.peloponnesian.state import PLAY


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    rules = GAME.new_rules(["sparta", "athens", "thebes"])
    turns, ends, winners = [], Counter(), Counter()
    actions = 0
    start = time.perf_counter()
    for seed in range(args.games):
        bot = GAME.bot(rules, seed)
        s = rules.new_state()
        while not rules.is_over(s):
            s, _ = rules.apply(s, bot.choose(s))
            actions += 1
        turns.append(s.turn)
        ends["after turn 15" if "after turn" in s.reason else "7 or 8 areas"] += 1
        winners[" and ".join(s.winners)] += 1
    spent = time.perf_counter() - start
    print(f"{args.games} games, {actions} actions in {spent:.2f} s: "
          f"{args.games / spent:.1f} games/s, {actions / spent:.0f} actions/s")
    print(f"turns: median {statistics.median(turns)}, min {min(turns)}, max {max(turns)}")
    print("ends: " + ", ".join(f"{k} {v}" for k, v in ends.most_common()))
    print("winners: " + ", ".join(f"{k} {v}" for k, v in winners.most_common()))

    bot = GAME.bot(rules, 1)
    s = rules.new_state()
    while s.phase != PLAY:
        s, _ = rules.apply(s, bot.choose(s))
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 1.0:
        listed = list(rules.legal_actions(s))
        n += 1
    spent = time.perf_counter() - start
    print(f"legal actions on a first-round position ({len(listed)} plays for three hands): "
          f"{n / spent:.0f} lists/s")


if __name__ == "__main__":
    main()
