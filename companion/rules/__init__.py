"""Game rules engines, one per game, all behind :class:`companion.rules.base.Ruleset`."""

from __future__ import annotations

from companion.rules.base import Ruleset
from companion.rules.peepwar import PeepWar
from companion.rules.peltapeeps.rules import PeltaPeeps

RULESETS: dict[str, type[Ruleset]] = {PeepWar.name: PeepWar, PeltaPeeps.name: PeltaPeeps}


def ruleset_from_options(game: str, options: dict) -> Ruleset:
    """The ruleset a game log names; raises ValueError for an unknown game."""
    if game not in RULESETS:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(sorted(RULESETS))}")
    return RULESETS[game].from_options(options)
