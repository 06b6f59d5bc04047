"""Game rules engines, one package per game, all behind :class:`companion.rules.base.Ruleset`.

Each game's package also holds its bundle (``game.py``), which the registry in
:mod:`companion.games` finds; nothing here names a game.
"""
