"""Petri's bundle: what the referee, the page, the terminal and the CLI need of the game.

>>> rules = GAME.new_rules(["red", "blue"], {"pieces": 15, "variant": "realtime"})
>>> GAME.describe(rules)
'Petri (15 pieces, realtime): red, blue'
>>> GAME.prompt(rules, rules.new_state()).count("roll the dice")  # both at once
2
>>> rules = GAME.new_rules(["red", "blue"])
>>> GAME.describe(rules)
'Petri: red, blue'
>>> GAME.prompt(rules, rules.new_state())
'red: roll the dice (roll, or roll A B for real dice)'
>>> GAME.format(GAME.parse("die 4", rules, rules.new_state()))
'die 4'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.errors import quoted
from companion.games import Game, Option
from companion.observation import Inference, Observation
from companion.rules.base import Action, Ruleset
from companion.rules.json_values import unknown_fields
from companion.rules.petri import inference, notation, svg, textboard
from companion.rules.petri.actions import Capture
from companion.rules.petri.board import hole_order, parse_hole
from companion.rules.petri.bot import Bot
from companion.rules.petri.observation import HoleReading, PetriObservation
from companion.rules.petri.rules import (
    OWN_PIECES,
    PIECES,
    PLACEMENTS,
    REMOVED,
    VARIANTS,
    Petri,
)
from companion.rules.petri.state import PetriState, Step

_PROMPTS = {
    Step.ROLL: "{who}: roll the dice (roll, or roll A B for real dice)",
    Step.DIE: "{who}: you rolled {a} and {b}; choose a die (die N)",
    Step.PLACE: "{who}: place {left} (place HOLE ...)",
    Step.REMOVE: "{who}: too few in hand; remove {left} of yours (remove HOLE ...)",
    Step.CAPTURE: "{who}: capture in the order you choose (capture HOLE ...; best: {best})",
}


class PetriGame(Game):
    name = "petri"
    title = "Petri"
    ruleset = Petri
    options = (
        Option("pieces", "pieces per player", 10, PIECES),
        Option("homes", "each player's home tip 0-5 in seat order, e.g. 0,3 (default: the "
               "usual tips)", ""),
        Option("variant", "standard turns, or realtime (all at once, captures together)",
               "standard", VARIANTS),
        Option("placement", "whether pieces placed this turn count for the next one (chain) "
               "or only those held when the turn began (start)", "chain", PLACEMENTS),
        Option("removed", "where pieces removed for a short hand go", "box", REMOVED),
        Option("own_pieces", "whether your own crowded-out pieces are captured on your turn",
               "checked", OWN_PIECES),
    )
    example = "roll"
    notation_help = notation.HELP
    place_word = "hole"
    reader = "vision.petri.reader:make_reader"
    reader_takes = ("home",)
    printables = (("petri-board", "the Petri (Chinese checkers) board, A3, as a PNG and its "
                   "hole positions (--json, mm)", "vision.petri.print_board:print_command",
                   ("dpi", "out", "json")),)
    page = "web.petri:panel"
    demo_camera = "vision.render.petri_demo:demo_scene"
    score_heading = "cup"
    tally_title = "Capture cups"
    tally_columns = (("hand", "hand"), ("board", "board"))

    def describe(self, rules: Ruleset) -> str:
        """The title with the options that differ from the usual game, and the players."""
        opts = rules.options()
        changed = [o for o in self.options if o.name != "homes" and opts[o.name] != o.default]
        words = [f"{opts[o.name]} pieces" if o.name == "pieces" else
                 f"{o.name.replace('_', ' ')} {opts[o.name]}" if o.name != "variant" else
                 str(opts[o.name]) for o in changed]
        extra = f" ({', '.join(words)})" if words else ""
        return f"{self.title}{extra}: {', '.join(opts['players'])}"

    def parse(self, text: str, rules: Any, state: Any) -> Action:
        return notation.parse(text, rules, state)

    def format(self, action: Action) -> str:
        return notation.format(action)

    def prompt(self, rules: Petri, state: PetriState) -> str:
        if rules.is_over(state):
            return super().prompt(rules, state)
        lines = []
        for who in rules.players:
            part = state.parts.get(who)
            if part is None or part.step is Step.DONE:
                continue
            best = ""
            if part.step is Step.CAPTURE:
                best = " ".join(rules.advice(state, who).order) or "none"
            dice = part.dice or (0, 0)
            lines.append(_PROMPTS[part.step].format(
                who=who, a=dice[0], b=dice[1], left=_pieces(part.left), best=best))
        return "; ".join(lines)

    def text_board(self, rules: Petri, state: PetriState) -> str:
        return textboard.render(rules, state)

    def board_svg(self, view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
        return svg.board_svg(view, highlight)

    def panel(self, rules: Petri, state: PetriState, viewer: str | None) -> dict[str, Any]:
        """The page's extra data: per player waiting, the step, dice and the holes a tap on
        the board may use (where a piece may go, or the own pieces to take off)."""
        view = rules.view(state, viewer)
        taps: dict[str, list[str]] = {}
        for p in sorted(rules.waiting_for(state)):
            part = state.parts[p]
            if part.step is Step.PLACE:
                taps[p] = sorted(rules.placeable(state, p), key=hole_order)
            elif part.step is Step.REMOVE:
                taps[p] = state.holes_of(p)
        return {"hands": view["hands"], "cups": view["cups"], "box": view["box"],
                "steps": {p: part["step"] for p, part in view["parts"].items()},
                "left": {p: part["left"] for p, part in view["parts"].items()},
                "dice": {p: part["dice"] for p, part in view["parts"].items()},
                "die": {p: part["die"] for p, part in view["parts"].items()},
                "taps": taps, "advice": view["advice"]}

    def terminal_words(self) -> dict[str, str]:
        return {"advice": "the best capture order now, and what a careless order loses"}

    def answer(self, word: str, rules: Petri, state: PetriState) -> str:
        advice = rules.view(state, None)["advice"]
        if advice is None:
            return "no captures are being chosen now"
        return (f"{advice['player']}: capture {' '.join(advice['order']) or 'nothing'} "
                f"({advice['enemy']} enemy, {advice['own']} own); checking in reading order "
                f"captures {advice['careless']}, {advice['careless_loss']} fewer")

    # --- the table ----------------------------------------------------------------------

    def parse_observation(self, data: Mapping[str, Any]) -> Observation:
        return PetriObservation.from_dict(data)

    def infer(self, rules: Petri, state: PetriState, obs: Observation,
              history: Sequence[Any]) -> Inference:
        assert isinstance(obs, PetriObservation)
        return inference.infer(rules, state, obs, list(history))

    def expected_observation(self, rules: Petri, state: PetriState) -> Observation:
        return inference.expected_observation(state)

    def correction(self, rules: Petri, state: PetriState, data: Mapping[str, Any]
                   ) -> tuple[str, HoleReading]:
        """``{"hole": "q,r", "player": "red"}`` (or ``"player": null`` for an empty hole)."""
        extra = unknown_fields(data, ("hole", "player"))
        if extra:
            raise ValueError(f"a correction has hole and player, not {extra}")
        if not isinstance(data.get("hole"), str):
            raise ValueError("hole must name a hole, e.g. \"0,0\"")
        hole = parse_hole(data["hole"])
        player = data.get("player")
        if player is not None and player not in rules.players:
            raise ValueError(f"player must be one of {', '.join(rules.players)} or null, "
                             f"not {quoted(player)}")
        return hole, HoleReading(player=player)

    # --- buttons ------------------------------------------------------------------------

    def end_action(self, rules: Petri, state: PetriState) -> Action | None:
        """In the capture step, the end-turn button captures in the suggested order."""
        for who, part in state.parts.items():
            if part.step is Step.CAPTURE:
                return Capture(who, rules.advice(state, who).order)
        return None

    def bot(self, rules: Petri, seed: int = 0) -> Bot:
        return Bot(rules, seed)


def _pieces(n: int) -> str:
    return f"{n} piece" if n == 1 else f"{n} pieces"


GAME = PetriGame()
