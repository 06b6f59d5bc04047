"""The text referee: a whole game, of any game, typed at a terminal, logged as it goes.

It reads one command per line, rules on it, prints the events, and writes every
accepted action to the game log before saying ``ok``. It is how the engine is
used without a camera, and how scripted games are played.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterable
from typing import TextIO

from companion import games
from companion.gamelog import LoggedGame, is_busy
from companion.rules.base import Action, IllegalAction
from companion.rules.chance import Randomiser

META_HELP = """\
board | tally | legal | draw | roll | undo | undo turn | bot | bot turn | help | quit"""


class TextReferee:
    """Rules on typed commands for one logged game, in its bundle's notation."""

    def __init__(self, game: LoggedGame, out: TextIO | None = None, seed: int | None = None,
                 source: str = "terminal") -> None:
        self.game = game
        self.rules = game.rules
        self.bundle = games.of(game.rules)
        self.out = out or sys.stdout  # looked up now: the stdout of this run, not of the import
        self.randomiser = Randomiser(seed)
        self.bot = self.bundle.bot(self.rules, seed or 0)
        self.source = source
        # Lines typed by a player at a terminal, who can type one again that the log could
        # not record; a script cannot, and goes on no further than the log went.
        self.at_keyboard = False

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def prompt(self) -> str:
        s = self.game.state
        who = ", ".join(sorted(self.rules.waiting_for(s)))
        phase = self.rules.phase(s).replace("_", " ")
        return f"{who}{f' ({phase})' if phase else ''}> " if who else "game over> "

    def run(self, lines: Iterable[str], interactive: bool = False) -> None:
        self.at_keyboard = interactive
        self.say(self.bundle.text_board(self.rules, self.game.state))
        if interactive:
            print(self.prompt(), end="", file=self.out, flush=True)
        for line in lines:
            if not self.handle(line):
                return
            if interactive:
                print(self.prompt(), end="", file=self.out, flush=True)

    def handle(self, line: str) -> bool:
        """Rule on one line; False when the player asked to quit."""
        # Commands piped in from a file Windows Notepad saved start with its byte-order
        # mark, which strip() keeps: the first command would be unknown.
        text = line.lstrip("\ufeff").split("#", 1)[0].strip()
        if not text:
            return True
        word = text.lower()
        if word in ("quit", "exit", "q"):
            return False
        meta = {
            "help": lambda: self.say("\n".join(
                [self.bundle.notation_help, META_HELP, *(f"{w}: {h}" for w, h in
                                                        self.bundle.terminal_words().items())])),
            "board": lambda: self.say(self.bundle.text_board(self.rules, self.game.state)),
            "tally": lambda: self.say(self.rules.tally(self.game.state).headline),
            "legal": self._legal,
            "undo": lambda: self._undo(False),
            "undo turn": lambda: self._undo(True),
            "bot": lambda: self._bot(False),
            "bot turn": lambda: self._bot(True),
        }
        if word in meta:
            meta[word]()
            return True
        head = word.split()[0]
        if head in meta:
            # 'undo 5', 'help move': a word of the terminal's own, with more than it takes.
            forms = " or ".join(f"'{w}'" for w in meta if w.split()[0] == head)
            self.say(f"  ? {forms} takes nothing more: type it alone")
            return True
        if word in self.bundle.terminal_words():
            self.say(f"  {self.bundle.answer(word, self.rules, self.game.state)}")
            return True
        state = self.game.state
        if self.rules.is_over(state):
            self.say(f"the game is over: {self.bundle.prompt(self.rules, state)} "
                     "('undo' takes back the last action)")
            return True
        try:
            if word in ("draw", "roll"):
                chance = self.rules.chance(state)
                if chance is None:
                    raise ValueError(f"nothing is to be drawn or rolled now: "
                                     f"{self.bundle.prompt(self.rules, state)}")
                action = self.randomiser.pick(chance)
            else:
                action = self.bundle.parse(text, self.rules, state)
        except ValueError as e:
            self.say(f"  ? {e}")
            return True
        try:
            self.play(action)
        except sqlite3.DatabaseError as e:
            self._unwritten(e, "nothing was recorded")
        return True

    def play(self, action: Action) -> bool:
        try:
            events = self.game.play(action, source=self.source)
        except IllegalAction as e:
            self.say(f"  ✗ {e}")
            return False
        for ev in events:
            self.say(f"  · {ev.text}")
        # The entry replay lists it by, which an undo earlier in the game leaves as it was.
        self.say(f"  ok #{self.game.numbers[-1]}")
        return True

    def _legal(self) -> None:
        actions = list(self.rules.legal_actions(self.game.state))
        shown = [self.bundle.format(a) for a in actions[:40]]
        more = f" … and {len(actions) - 40} more" if len(actions) > 40 else ""
        self.say("  legal: " + " | ".join(shown) + more)

    def _undo(self, whole_turn: bool) -> None:
        n = self.game.actions_this_turn() if whole_turn else 1
        try:
            undone = self.game.undo(n, source=self.source)
        except IllegalAction as e:  # another program wrote to the game: it is reloaded
            self.say(f"  ✗ {e}")
            return
        except sqlite3.DatabaseError as e:
            self._unwritten(e, "nothing was undone")
            return
        if not undone:
            self.say("  nothing to undo")
            return
        listed = "; ".join(self.bundle.format(a) for a in undone)
        self.say(f"  undone: {listed}")
        self.say(self.bundle.text_board(self.rules, self.game.state))

    def _unwritten(self, e: sqlite3.DatabaseError, nothing: str) -> None:
        """One line for a line the log could not record, and the game goes on: each action
        is written in its own transaction before the state moves on, so the game is as it
        was and the line may be typed again (as the page answers 503 "try again"). A
        script's next lines were written for a game that took this one: it ends there, on
        the command's one line, as before."""
        if not self.at_keyboard:
            raise e
        if is_busy(e):
            why = f"the game log is busy: another program is writing to it ({e})"
        else:  # a full disk, a log damaged under the game: retrying may not be enough
            why = f"the game log could not be written ({e}): check the disk"
        self.say(f"  ✗ {why}; {nothing}: type it again")

    def _bot(self, whole_turn: bool) -> None:
        turn = self.rules.turn(self.game.state)
        player = self.rules.to_act(self.game.state)
        while not self.rules.is_over(self.game.state):
            action = self.bot.choose(self.game.state)
            self.say(f"{self.prompt()}{self.bundle.format(action)}")
            try:
                played = self.play(action)
            except sqlite3.DatabaseError as e:
                self._unwritten(e, "nothing was recorded")
                return
            if not played:
                return
            s = self.game.state
            now = self.rules.turn(s)
            if not whole_turn or now != turn or (now == 0 and self.rules.to_act(s) != player):
                return
