"""Regenerate the scripted Peep War games in tests/data/scripts/.

Each script is a whole game, setup to victory, as typed commands. The draws are
written out ("draw blue"), so a script replays the same way on any machine.
Run: .venv/bin/python tests/data/make_scripts.py
"""

from __future__ import annotations

from pathlib import Path

from companion.rules.peepwar import PeepWar, notation
from companion.rules.peepwar.bot import Bot

PLAYERS = ["red", "blue", "green", "yellow"]
# (edition, players, bot seed): short games; the 4-player ones include eliminations.
GAMES = [(2001, 2, 12), (2005, 2, 18), (2001, 4, 30), (2005, 4, 4)]


def main() -> None:
    here = Path(__file__).parent / "scripts"
    for edition, n, seed in GAMES:
        rules = PeepWar(players=PLAYERS[:n], edition=edition)
        state = rules.new_state()
        lines = []
        for action in Bot(rules, seed).play(state):
            lines.append(f"{notation.format(action):<28} # {action.player}")
            state, _ = rules.apply(state, action)
        path = here / f"peepwar-{edition}-{n}p.txt"
        names = ",".join(PLAYERS[:n])
        out = ",".join(state.out) or "none"
        header = [
            f"# Peep War {edition}, players {names}: a whole game, setup to victory.",
            f"# expect: {state.winner} wins after turn {state.turn}; out: {out}",
        ]
        path.write_text("\n".join(header + lines) + "\n")
        print(path, len(lines), "actions,", state.winner, "wins")


if __name__ == "__main__":
    main()
