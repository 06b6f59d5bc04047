"""The demo's table: a scripted game played "at the table" with no camera and no Pi.

A plain player (the bot) decides each move from the referee's current state —
so the demo carries on after someone presses undo or corrects a cell — and
acts as the table would: pieces it lays or moves become what the camera would
report (an observation), the rest come as the buttons and the egg would send
them. When the game ends, a new one starts after a pause.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from companion.inputs.events import END_TURN, InputEvent
from companion.referee import Referee
from companion.rules.base import IllegalAction
from companion.rules.peepwar import (
    Draw,
    Eat,
    EndMovement,
    EndTurn,
    Move,
    PeepBeans,
    PeepWarState,
    PlaceSupplyCenter,
    PlaceTile,
    Produce,
    Remove,
)
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.inference import expected_observation

VISIBLE = (PlaceTile, PlaceSupplyCenter, Move, Remove, Produce)
Show = Callable[[PeepWarState], None]


class ScriptedTable:
    """Plays the referee's game, one table action every ``step_s`` seconds, in a thread."""

    def __init__(self, referee: Referee, *, seed: int = 7, step_s: float = 0.6,
                 pause_s: float = 5.0, show: Show | None = None) -> None:
        self.referee = referee
        self.seed = seed
        self.step_s = step_s
        self.pause_s = pause_s
        self.show = show or (lambda table: referee.observe(expected_observation(table)))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bot = Bot(referee.rules, seed)
        self.games = 0
        self.actions = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="demo-table", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.step_s):
            self.step()

    def step(self) -> None:
        """One thing done at the table."""
        r = self.referee
        if r.rules.is_over(r.state):
            if self._stop.wait(self.pause_s):
                return
            self.games += 1
            r.new_game(list(r.state.players), r.state.edition)
            self._bot = Bot(r.rules, self.seed + self.games)
            return
        action = self._bot.choose(r.state)
        try:
            if isinstance(action, VISIBLE):
                table, _ = r.rules.apply(r.state, action)
                self.show(table)
                if r.proposal is not None:
                    r.accept("demo")
            elif isinstance(action, EndMovement | EndTurn):
                r.handle_input(InputEvent("buttons", END_TURN))
            elif isinstance(action, Draw):
                r.draw(None, "egg")
            elif isinstance(action, Eat):
                r.eat(action.what, "page")
            elif isinstance(action, PeepBeans):
                r.peep_beans(action.commit, "page")
            self.actions += 1
        except IllegalAction:
            # Someone changed the game under the script (undo, a correction): think again.
            self._bot = Bot(r.rules, self.seed + self.games + self.actions)
