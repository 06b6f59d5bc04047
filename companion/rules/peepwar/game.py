"""Peep War's bundle: what the referee, the page, the terminal and the CLI need of the game.

>>> from companion.rules.peepwar import PeepWar
>>> rules = GAME.new_rules(["red", "blue"], {"edition": 2001})
>>> GAME.describe(rules)
'Peep War 2001: red, blue'
>>> GAME.prompt(rules, rules.new_state())
'red: lay a hex'
>>> GAME.format(GAME.parse("hex 1,0", rules, rules.new_state()))
'hex 1,0'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.errors import quoted
from companion.games import Game, Option
from companion.inputs import events as kinds
from companion.inputs.events import InputEvent
from companion.observation import BadObservation, Inference, Observation
from companion.rules.base import Action
from companion.rules.json_values import unknown_fields
from companion.rules.peepwar import inference, notation, svg, textboard
from companion.rules.peepwar.actions import EndMovement, EndTurn
from companion.rules.peepwar.board import parse_cell
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.egg_input import draw_for_bean
from companion.rules.peepwar.observation import CellReading, PeepWarObservation, Pieces
from companion.rules.peepwar.odds import Side, combat_odds
from companion.rules.peepwar.rules import PeepWar
from companion.rules.peepwar.state import PeepWarState, Phase

MAX_TROOPS_IN_CELL = 5  # the rules' stacking limit: a correction above it is a typo

_PHASE_PROMPTS = {
    Phase.SETUP_TILES: "{who}: lay a hex",
    Phase.SETUP_SUPPLY: "{who}: put a Supply Center on one of your hexes",
    Phase.UPKEEP: "{who}: remove pieces your Supply Centers cannot support",
    Phase.MOVEMENT: "{who}: move your pieces, then press end movement",
    Phase.PRODUCTION: "{who}: produce at your Supply Centers, then press end turn",
}


class PeepWarGame(Game):
    name = "peepwar"
    title = "Peep War"
    ruleset = PeepWar
    options = (Option("edition", "the rules edition", 2005, (2001, 2005)),)
    example = "move 2 0,0/3 1,0/0"
    notation_help = notation.HELP
    place_word = "cell"
    # The camera reader marks every close call (a doubtful bean, a colour between two players,
    # "perhaps one more", an egg's rim half seen) by lowering its cell to 0.5-0.7.
    doubtful_below = 0.8
    score_heading = "held"
    tally_title = "Supply Centers"
    tally_columns = (("troops", "troops"), ("peeps", "peeps"))
    reader = "vision.peepwar.reader:make_reader"
    page = "web.peepwar:panel"
    demo_camera = "vision.render.game_scene:demo_scene"

    def parse(self, text: str, rules: Any, state: Any) -> Action:
        return notation.parse(text, rules, state)

    def format(self, action: Action) -> str:
        return notation.format(action)

    def prompt(self, rules: PeepWar, state: PeepWarState) -> str:
        who = rules.to_act(state)
        if who is None:
            return f"{state.winner} has won. Start a new game when you are ready."
        c = state.combat
        if c is not None:
            if c.undecided:
                return f"{who}: put your peep's beans in the egg, or keep them out?"
            if c.victor:
                return f"{who} won the round: eat a troop bean or a peep bean"
            return f"{who}: draw a bean from the egg (fight at {c.cell})"
        return _PHASE_PROMPTS[state.phase].format(who=who)

    def text_board(self, rules: PeepWar, state: PeepWarState) -> str:
        return textboard.render(rules, state)

    def board_svg(self, view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
        return svg.board_svg(view, highlight)

    def terminal_words(self) -> dict[str, str]:
        return {"odds": "the odds of the fight in progress"}

    def answer(self, word: str, rules: PeepWar, state: PeepWarState) -> str:
        odds = fight_odds(state)
        if odds is None:
            return "no fight in progress; 'companion odds' computes any fight"
        return (f"{odds['attacker']} wins {odds['attacker_wins']:.1%}, "
                f"{odds['defender']} wins {odds['defender_wins']:.1%}")

    def panel(self, rules: PeepWar, state: PeepWarState, viewer: str | None
              ) -> dict[str, Any]:
        return {"supply_centers_in_play": 2 * len(state.players) + 1,
                "odds": fight_odds(state)}

    # --- the table ----------------------------------------------------------------------

    def parse_observation(self, data: Mapping[str, Any]) -> Observation:
        return PeepWarObservation.from_dict(data)

    def check_observation(self, rules: PeepWar, state: PeepWarState, obs: Observation
                          ) -> None:
        assert isinstance(obs, PeepWarObservation)
        off = inference.cells_on_no_tile(state, obs)
        if off:
            more = f" (and {len(off) - 1} more)" if len(off) > 1 else ""
            raise BadObservation(f"cell {off[0]} is on no tile placed on the table{more}")

    def infer(self, rules: PeepWar, state: PeepWarState, obs: Observation,
              history: Sequence[Any]) -> Inference:
        assert isinstance(obs, PeepWarObservation)
        return inference.infer(rules, state, obs, list(history))

    def expected_observation(self, rules: PeepWar, state: PeepWarState) -> Observation:
        return inference.expected_observation(state)

    def correction(self, rules: PeepWar, state: PeepWarState, data: Mapping[str, Any]
                   ) -> tuple[str, CellReading]:
        """``{"cell": "1,0/3", "pieces": {"red": {"troops": 2, "peep": false}},
        "supply_center": false}`` as the cell's true reading."""
        extra = unknown_fields(data, ("cell", "pieces", "supply_center"))
        if extra:
            raise ValueError(f"a correction has cell, pieces and supply_center, not {extra}")
        if not isinstance(data.get("cell"), str):
            raise ValueError("cell must name a cell, e.g. \"1,0/3\"")
        cell = str(parse_cell(data["cell"]))
        # Only a missing or null pieces means an empty cell: [], "" or false is a mistake.
        raw = data.get("pieces")
        raw = {} if raw is None else raw
        if not isinstance(raw, dict):
            raise ValueError("pieces must map each player to {troops, peep}")
        pieces = {}
        for player, v in raw.items():
            if player not in state.players:
                raise ValueError(f"pieces: there is no player {quoted(player)} at this table "
                                 f"({', '.join(state.players)})")
            if not isinstance(v, dict) or unknown_fields(v, ("troops", "peep")):
                raise ValueError(f"pieces of {player} must be {{troops, peep}}")
            troops, peep = v.get("troops", 0), v.get("peep", False)
            if not isinstance(troops, int) or isinstance(troops, bool) or not (
                    0 <= troops <= MAX_TROOPS_IN_CELL):
                raise ValueError(f"{player}'s troops must be a whole number 0 to "
                                 f"{MAX_TROOPS_IN_CELL}")
            if not isinstance(peep, bool):
                raise ValueError(f"{player}'s peep must be true or false")
            if troops or peep:
                pieces[player] = Pieces(troops, peep)
        supply = data.get("supply_center", False)
        if not isinstance(supply, bool):
            raise ValueError("supply_center must be true or false")
        return cell, CellReading(supply_center=supply, pieces=pieces)

    # --- buttons and the egg -----------------------------------------------------------

    def end_action(self, rules: PeepWar, state: PeepWarState) -> Action | None:
        who = rules.to_act(state) or ""
        return EndMovement(who) if state.phase is Phase.MOVEMENT else EndTurn(who)

    def input_action(self, rules: PeepWar, state: PeepWarState, event: InputEvent
                     ) -> Action | str | None:
        if event.kind == kinds.BEAN:
            return draw_for_bean(rules, state, event)
        return None

    def bot(self, rules: PeepWar, seed: int = 0) -> Bot:
        return Bot(rules, seed)


def fight_odds(state: PeepWarState) -> dict[str, Any] | None:
    """The odds of the fight in progress, as the page shows them before each draw."""
    c = state.combat
    if c is None:
        return None

    def side(p: str) -> Side:
        return Side(c.troops[p], state.stack(c.cell, p).peep,
                    peep_beans=p not in c.kept_out and p not in c.undecided)

    try:
        odds = combat_odds(side(c.attacker), side(c.defender))
    except ValueError:
        return None
    return {
        "cell": c.cell, "attacker": c.attacker, "defender": c.defender,
        "attacker_wins": float(odds.attacker_wins),
        "defender_wins": float(odds.defender_wins),
        "likely": [o.to_dict() for o in odds.likely(4)],
        "egg": {p: {"troops": c.troops[p], "peep": c.peep_beans.get(p, 0)} for p in c.sides},
        "drawer": c.drawer,
    }


GAME = PeepWarGame()
