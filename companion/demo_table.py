"""The demo's table: a scripted game played "at the table" with no camera and no Pi.

The game's plain player (its bundle's bot) decides each move from the
referee's current state — so the demo carries on after someone presses undo or
corrects a cell — and acts as the table would: what changes the table is shown
to the camera (an observation, or a rendered photo read back), ends of turn
come as the buttons would send them, random steps from the companion's own
egg or dice, and the rest as taps on the page. When the game ends, a new one
starts after a pause.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from companion.inputs.events import END_TURN, InputEvent
from companion.referee import Referee
from companion.rules.base import IllegalAction

Show = Callable[[Any], None]


class ScriptedTable:
    """Plays the referee's game, one table action every ``step_s`` seconds, in a thread."""

    def __init__(self, referee: Referee, *, seed: int = 7, step_s: float = 0.6,
                 pause_s: float = 5.0, show: Show | None = None) -> None:
        self.referee = referee
        self.seed = seed
        self.step_s = step_s
        self.pause_s = pause_s
        self.show = show or self._observe
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bot = referee.bundle.bot(referee.rules, seed)
        self.games = 0
        self.actions = 0

    def _observe(self, table: Any) -> None:
        r = self.referee
        obs = r.bundle.expected_observation(r.rules, table)
        if obs is not None:
            r.observe(obs)

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

    def _seen(self, state: Any) -> Any:
        r = self.referee
        obs = r.bundle.expected_observation(r.rules, state)
        return None if obs is None else obs.to_dict()

    def step(self) -> None:
        """One thing done at the table."""
        r = self.referee
        if r.rules.is_over(r.state):
            if self._stop.wait(self.pause_s):
                return
            self.games += 1
            opts = r.rules.options()
            players = opts.pop("players")
            r.new_game(players, opts)
            self._bot = r.bundle.bot(r.rules, self.seed + self.games)
            return
        state = r.state
        action = self._bot.choose(state)
        try:
            if r.rules.chance(state) is not None:
                r.chance(action, "egg")
            elif action == r.bundle.end_action(r.rules, state):
                r.handle_input(InputEvent("buttons", END_TURN))
            else:
                table, _ = r.rules.apply(state, action)
                if self._seen(table) != self._seen(state):
                    self.show(table)
                    if r.proposal is not None:
                        r.accept("demo")
                    if r.state is state:  # the camera's reading was not taken: say it by hand
                        r.play(action, "page")
                else:
                    r.play(action, "page")
            self.actions += 1
        except IllegalAction:
            # Someone changed the game under the script (undo, a correction): think again.
            self._bot = r.bundle.bot(r.rules, self.seed + self.games + self.actions)
