"""The text referee: a whole game typed at a terminal, logged as it goes.

It reads one command per line, rules on it, prints the events, and writes every
accepted action to the game log before saying ``ok``. It is how the engine is
used without a camera, and how scripted games are played.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from companion.gamelog import LoggedGame
from companion.rules.base import IllegalAction
from companion.rules.peepwar import notation, textboard
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.egg import DigitalEgg
from companion.rules.peepwar.odds import Side, combat_odds
from companion.rules.peepwar.rules import PeepWar

META_HELP = """\
board | tally | legal | odds | undo | undo turn | bot | bot turn | help | quit"""


class TextReferee:
    """Rules on typed commands for one logged Peep War game."""

    def __init__(self, game: LoggedGame, out: TextIO = sys.stdout, seed: int | None = None,
                 source: str = "terminal") -> None:
        if not isinstance(game.rules, PeepWar):
            raise TypeError("the text referee plays Peep War")
        self.game = game
        self.rules: PeepWar = game.rules
        self.out = out
        self.egg = DigitalEgg(seed)
        self.bot = Bot(self.rules, seed or 0)
        self.source = source

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def prompt(self) -> str:
        s = self.game.state
        who = self.rules.to_act(s)
        return f"{who} ({s.phase.value.replace('_', ' ')})> " if who else "game over> "

    def run(self, lines: Iterable[str], interactive: bool = False) -> None:
        self.say(textboard.render(self.rules, self.game.state))
        if interactive:
            print(self.prompt(), end="", file=self.out, flush=True)
        for line in lines:
            if not self.handle(line):
                return
            if interactive:
                print(self.prompt(), end="", file=self.out, flush=True)

    def handle(self, line: str) -> bool:
        """Rule on one line; False when the player asked to quit."""
        text = line.split("#", 1)[0].strip()
        if not text:
            return True
        word = text.lower()
        if word in ("quit", "exit", "q"):
            return False
        meta = {
            "help": lambda: self.say(notation.HELP + "\n" + META_HELP),
            "board": lambda: self.say(textboard.render(self.rules, self.game.state)),
            "tally": lambda: self.say(self.rules.tally(self.game.state).headline),
            "legal": self._legal,
            "odds": self._odds,
            "undo": lambda: self._undo(False),
            "undo turn": lambda: self._undo(True),
            "bot": lambda: self._bot(False),
            "bot turn": lambda: self._bot(True),
        }
        if word in meta:
            meta[word]()
            return True
        state = self.game.state
        if self.rules.is_over(state):
            self.say(f"the game is over: {state.winner} won ('undo' takes back the last action)")
            return True
        try:
            if word == "draw":
                action = self.egg.draw(state)
            else:
                action = notation.parse(text, self.rules, state)
        except ValueError as e:
            self.say(f"  ? {e}")
            return True
        self.play(action)
        return True

    def play(self, action: object) -> bool:
        try:
            events = self.game.play(action, source=self.source)  # type: ignore[arg-type]
        except IllegalAction as e:
            self.say(f"  ✗ {e}")
            return False
        for ev in events:
            self.say(f"  · {ev.text}")
        self.say(f"  ok #{len(self.game.actions)}")
        return True

    def _legal(self) -> None:
        actions = list(self.rules.legal_actions(self.game.state))
        shown = [notation.format(a) for a in actions[:40]]
        more = f" … and {len(actions) - 40} more" if len(actions) > 40 else ""
        self.say("  legal: " + " | ".join(shown) + more)

    def _odds(self) -> None:
        c = self.game.state.combat
        if c is None:
            self.say("  no fight in progress; 'companion odds' computes any fight")
            return
        def side(p: str) -> Side:
            health = self.game.state.stack(c.cell, p).peep
            return Side(c.troops[p], health, peep_beans=p not in c.kept_out)
        odds = combat_odds(side(c.attacker), side(c.defender))
        self.say(f"  {c.attacker} wins {float(odds.attacker_wins):.1%}, "
                 f"{c.defender} wins {float(odds.defender_wins):.1%}")

    def _undo(self, whole_turn: bool) -> None:
        n = self.game.actions_this_turn() if whole_turn else 1
        undone = self.game.undo(n, source=self.source)
        if not undone:
            self.say("  nothing to undo")
            return
        listed = "; ".join(notation.format(a) for a in undone)
        self.say(f"  undone: {listed}")
        self.say(textboard.render(self.rules, self.game.state))

    def _bot(self, whole_turn: bool) -> None:
        turn = self.game.state.turn
        player = self.rules.to_act(self.game.state)
        while not self.rules.is_over(self.game.state):
            action = self.bot.choose(self.game.state)
            self.say(f"{self.prompt()}{notation.format(action)}")
            if not self.play(action):
                return
            s = self.game.state
            if not whole_turn or s.turn != turn or (s.turn == 0 and self.rules.to_act(s) != player):
                return
