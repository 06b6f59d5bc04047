"""A Peloponnesian War's bundle: what the referee, the page, the terminal and the CLI need.

>>> rules = GAME.new_rules(["sparta", "athens", "thebes"], {"youngest": "athens"})
>>> GAME.describe(rules)
'A Peloponnesian War (Greece in the fifth century BC, simultaneous rounds): sparta, athens, thebes'
>>> GAME.prompt(rules, rules.new_state())
'athens: place your second counter (the youngest places first)'
>>> GAME.format(GAME.parse("place euboea", rules, rules.new_state()))
'athens place euboea'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.errors import quoted
from companion.games import Game, Option
from companion.observation import BadObservation, Inference, Observation
from companion.rules.base import Action
from companion.rules.json_values import unknown_fields
from companion.rules.peloponnesian import inference, notation, svg, textboard
from companion.rules.peloponnesian.actions import Resolve
from companion.rules.peloponnesian.bot import Bot
from companion.rules.peloponnesian.mapdata import CITIES
from companion.rules.peloponnesian.observation import AreaReading, PeloObservation
from companion.rules.peloponnesian.rules import (
    INFLUENCE_RANGES,
    ORDERS,
    PeloponnesianWar,
)
from companion.rules.peloponnesian.state import DELPHI, DRAW, PLAY, REDRAW, REVEAL, SETUP, State


class PeloponnesianGame(Game):
    name = "peloponnesian"
    title = "A Peloponnesian War"
    ruleset = PeloponnesianWar
    options = (
        Option("map", "the map file (JSON, see docs/peloponnesian.md; default: the Greek "
               "world of the fifth century BC)", "", file=True),
        Option("chits", "the chit file: the mix and the Special chits (JSON; default: "
               "the rules' mix, three Special chits per city)", "", file=True),
        Option("youngest", "the youngest player, who places first (default: the first seat)",
               ""),
        Option("order", "how the chits of a round are played", "simultaneous", ORDERS),
        Option("influence", "where an Influence chit may go", "adjacent", INFLUENCE_RANGES),
    )
    place_word = "area"
    min_players = 2
    max_players = 3
    default_players = ("sparta", "athens", "thebes")
    example = "athens play military attica"
    notation_help = notation.HELP
    score_heading = "areas"
    tally_title = "Areas"
    tally_columns = (("counters", "counters"), ("needed", "needed"))
    page = "web.peloponnesian:panel"
    reader = "vision.peloponnesian.reader:make_reader"
    reader_takes = ("map",)
    demo_camera = "vision.render.peloponnesian:demo_scene"
    printables = (
        ("peloponnesian-map", "the map of A Peloponnesian War: A3 as a PNG (--paper a3), or "
         "tiled on four A4 pages as a PDF (--paper a4), and its areas as JSON",
         "vision.peloponnesian.printables:print_map",
         ("dpi", "out", "json", ("paper", "a3 (one PNG sheet) or a4 (four tiled pages as a PDF); "
                                  "default a3"), "map")),
        ("peloponnesian-pieces", "the counters (twelve per city) and every chit, on an A4 PNG",
         "vision.peloponnesian.printables:print_pieces", ("dpi", "out")),
    )

    def new_rules(self, players: Sequence[str], options: Mapping[str, Any] | None = None
                  ) -> PeloponnesianWar:
        """As :meth:`Game.new_rules`, and a map or chit set may also come as data (a logged
        game's options, a new game started from the page)."""
        given = dict(options or {})
        unknown = set(given) - {o.name for o in self.options}
        if unknown:
            raise ValueError(f"{self.title} has no option {', '.join(sorted(unknown))}")
        chosen = {o.name: given[o.name] if isinstance(given.get(o.name), Mapping)
                  else o.read(given.get(o.name)) for o in self.options}
        return PeloponnesianWar(list(players), **chosen)

    def describe(self, rules: PeloponnesianWar) -> str:
        return (f"{self.title} ({rules.map.name}, {rules.order.replace('-', ' ')} rounds): "
                f"{', '.join(rules.players)}")

    def parse(self, text: str, rules: Any, state: Any) -> Action:
        return notation.parse(text, rules, state)

    def format(self, action: Action) -> str:
        return notation.format(action)

    def prompt(self, rules: PeloponnesianWar, state: State) -> str:
        waiting = " and ".join(sorted(rules.waiting_for(state)))
        if state.phase == SETUP:
            return f"{waiting}: place your second counter (the youngest places first)"
        if state.phase in (DRAW, REDRAW):
            return f"{waiting}: draw a chit from the cup ('draw', or say which you drew)"
        if state.phase == DELPHI:
            return f"{waiting} holds Delphi: swap a chit for a new one, or keep the hand"
        if state.phase == PLAY:
            return f"round {state.round} of 3: {waiting}, play a chit face down"
        if state.phase == REVEAL:
            return f"the chits are face up: {waiting}, resolve the struggles"
        return super().prompt(rules, state)

    def text_board(self, rules: PeloponnesianWar, state: State) -> str:
        return textboard.render(rules.view(state, None))

    def board_svg(self, view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
        return svg.board_svg(view, highlight)

    def terminal_words(self) -> dict[str, str]:
        return {f"hand {c}": f"{c}'s hand (show it to {c} only)" for c in CITIES}

    def answer(self, word: str, rules: PeloponnesianWar, state: State
               ) -> str:
        player = word.split()[-1]
        if player not in rules.players:
            return f"{player} is not at this table"
        return textboard.hand(rules.view(state, player), player)

    def panel(self, rules: PeloponnesianWar, state: State,
              viewer: str | None) -> dict[str, Any]:
        """For a player: the chits they may play now, as the private page offers them."""
        if viewer not in rules.players or viewer not in rules.waiting_for(state):
            return {"plays": []}
        return {"plays": [{"chit": p.chit, "area": p.area, "star_as": p.star_as}
                          for p in rules.plays(state, viewer)]}

    # --- the table ----------------------------------------------------------------------

    def parse_observation(self, data: Mapping[str, Any]) -> Observation:
        return PeloObservation.from_dict(data)

    def check_observation(self, rules: PeloponnesianWar, state: State, obs: Observation
                          ) -> None:
        assert isinstance(obs, PeloObservation)
        unknown = [a for a in obs.areas if a not in rules.map.areas]
        if unknown:
            n = len(unknown) - 1
            more = f" (and {n} more unknown area{'s' if n > 1 else ''})" if n else ""
            raise BadObservation(rules.map.no_area(unknown[0]) + more)

    def infer(self, rules: PeloponnesianWar, state: State, obs: Observation,
              history: Sequence[Any]) -> Inference:
        assert isinstance(obs, PeloObservation)
        return inference.infer(rules, state, obs, list(history))

    def expected_observation(self, rules: PeloponnesianWar, state: State) -> Observation:
        return inference.expected_observation(rules, state)

    def correction(self, rules: PeloponnesianWar, state: State, data: Mapping[str, Any]
                   ) -> tuple[str, AreaReading]:
        """``{"area": "attica", "counters": {"athens": 2}}`` (no counters: an empty area);
        the chits seen there are kept as the camera read them."""
        extra = unknown_fields(data, ("area", "counters"))
        if extra:
            raise ValueError(f"a correction has area and counters, not {extra}")
        area = data.get("area")
        if not isinstance(area, str):
            raise ValueError("area must name an area of the map, e.g. \"attica\", "
                             f"not {quoted(area)}")
        if area not in rules.map.areas:
            raise ValueError(rules.map.no_area(area))
        # Only a missing or null counters means an empty area: [], "" or false is a mistake.
        counters = data.get("counters")
        counters = {} if counters is None else counters
        if not isinstance(counters, Mapping):
            raise ValueError("counters must map players to counts, e.g. {\"athens\": 2}")
        for p, n in counters.items():
            if p not in rules.players:
                raise ValueError(f"{quoted(p)} is not at this table ({', '.join(rules.players)})")
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 2:
                raise ValueError(f"{p}'s counters must be 0, 1 or 2, not {quoted(n)}")
        return area, AreaReading({p: n for p, n in counters.items() if n},
                                 inference.seen_chits(rules, state, area))

    def end_action(self, rules: PeloponnesianWar, state: State
                   ) -> Action | None:
        if state.phase != REVEAL:
            return None
        return Resolve(next(iter(rules.waiting_for(state))))

    def bot(self, rules: PeloponnesianWar, seed: int = 0) -> Bot:
        return Bot(rules, seed)


GAME = PeloponnesianGame()
