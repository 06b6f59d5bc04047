"""Peep War rules speed: legality checks per second on a mid-game position.

Run: .venv/bin/python bench/rules_speed.py
The position is a 4-player 2005 game played by the bot to turn 40, in movement.
"""

from __future__ import annotations

import statistics
import time

from companion.rules.peepwar import PeepWar, Phase
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.odds import Side, clear_caches, combat_odds


def midgame() -> tuple[PeepWar, object]:
    rules = PeepWar(players=("red", "blue", "green", "yellow"), edition=2005)
    bot = Bot(rules, 4)
    state = rules.new_state()
    while not (state.turn >= 40 and state.phase is Phase.MOVEMENT):
        state, _ = rules.apply(state, bot.choose(state))
    return rules, state


def main() -> None:
    rules, state = midgame()
    pieces = sum(len(who) for who in state.pieces.values())
    print(f"position: turn {state.turn}, {len(state.tiles)} hexes, {pieces} stacks, "
          f"{rules.to_act(state)} to move")

    candidates = list(rules._gen_movement(state, rules.to_act(state)))  # legal and illegal
    legal = [a for a in candidates if rules.is_legal(state, a)]
    rates = []
    for _ in range(5):
        t = time.perf_counter()
        for a in candidates:
            rules.why_not(state, a)
        rates.append(len(candidates) / (time.perf_counter() - t))
    print(f"legality checks: {statistics.median(rates):,.0f} per second "
          f"({len(candidates)} candidate moves, {len(legal)} legal)")

    times = []
    for _ in range(20):
        t = time.perf_counter()
        n = sum(1 for _ in rules.legal_actions(state))
        times.append(time.perf_counter() - t)
    print(f"all legal actions: {statistics.median(times) * 1000:.2f} ms median ({n} actions)")

    rules2 = PeepWar(players=("red", "blue"), edition=2005)
    actions = list(Bot(rules2, 18).play(rules2.new_state()))
    t = time.perf_counter()
    for _ in range(5):
        rules2.replay(actions)
    per = (time.perf_counter() - t) / (5 * len(actions))
    print(f"apply (with its legality check): {per * 1e6:.0f} µs per action "
          f"(replay of a {len(actions)}-action game)")

    cold = []
    for _ in range(200):
        clear_caches()
        t = time.perf_counter()
        combat_odds(Side(5, 3), Side(5, 3))
        cold.append(time.perf_counter() - t)
    print(f"odds for the largest fight (5+3 v 5+3), cold: {statistics.median(cold) * 1000:.2f} ms "
          f"median, {sorted(cold)[int(len(cold) * 0.95)] * 1000:.2f} ms p95")


if __name__ == "__main__":
    main()
