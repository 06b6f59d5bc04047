"""PeltaPeeps' bundle: a layout scored from a photo, on its own score-sheet page.

PeltaPeeps is not refereed move by move at the table: ``companion score
peltapeeps`` and the score-sheet page read a finished layout from one photo.
The bundle lets the log, the page shell and the command line find it.

>>> rules = GAME.new_rules(["ann", "bob"])
>>> GAME.describe(rules)
'PeltaPeeps: ann, bob'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.games import Game, Option
from companion.rules.peltapeeps.rules import PeltaPeeps


class PeltaPeepsGame(Game):
    name = "peltapeeps"
    title = "PeltaPeeps"
    ruleset = PeltaPeeps
    live = False
    options = (Option("set_size", "the set of pieces each player has", "full",
                      ("core", "full")),)
    page = "web.scoresheet:panel"

    def new_rules(self, players: Sequence[str], options: Mapping[str, Any] | None = None
                  ) -> PeltaPeeps:
        given = dict(options or {})
        set_size = self.options[0].read(given.pop("set_size", None))
        if given:
            raise ValueError(f"PeltaPeeps has no option {', '.join(sorted(given))}")
        # One team a player: the team is named after its player.
        return PeltaPeeps(seats=[(p, p) for p in players], set_size=set_size)

    def describe(self, rules: Any) -> str:
        return f"{self.title}: {', '.join(p for p, _ in rules.seats)}"


GAME = PeltaPeepsGame()
