"""A toy third game, written outside the generic code: tic-tac-toe, through the Game bundle only.

It proves the bundle is enough: registered with ``companion.games.register``,
it is played by the referee, the terminal and the page without any of them
naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion.games import Game
from companion.rules.base import Action, Event, Ruleset, Standing, Tally

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@dataclass(frozen=True)
class Mark(Action):
    kind = "mark"
    square: int


@dataclass(frozen=True)
class Board:
    squares: tuple[str | None, ...] = (None,) * 9
    turn: int = 1


class TicTacToe(Ruleset[Board]):
    name = "tictactoe"
    title = "Tic-tac-toe"
    action_types = (Mark,)

    def __init__(self, players: list[str]) -> None:
        if len(players) != 2:
            raise ValueError("tic-tac-toe is for two players")
        self.players = tuple(players)

    def options(self) -> dict[str, Any]:
        return {"players": list(self.players)}

    def new_state(self) -> Board:
        return Board()

    def _winners(self, s: Board) -> tuple[str, ...]:
        for a, b, c in LINES:
            if s.squares[a] and s.squares[a] == s.squares[b] == s.squares[c]:
                return (s.squares[a],)
        return ()

    def is_over(self, state: Board) -> bool:
        return bool(self._winners(state)) or all(state.squares)

    def to_act(self, state: Board) -> str | None:
        if self.is_over(state):
            return None
        return self.players[sum(1 for q in state.squares if q) % 2]

    def turn(self, state: Board) -> int:
        return state.turn

    def why_not(self, state: Board, action: Action) -> str | None:
        if not isinstance(action, Mark):
            return "only marks are played"
        if action.player != self.to_act(state):
            return f"it is {self.to_act(state)}'s turn"
        if not 0 <= action.square < 9:
            return "the squares are 0 to 8"
        if state.squares[action.square]:
            return f"square {action.square} is taken"
        return None

    def legal_actions(self, state: Board) -> Iterator[Action]:
        who = self.to_act(state)
        if who:
            for i, q in enumerate(state.squares):
                if not q:
                    yield Mark(who, i)

    def _apply(self, state: Board, action: Action) -> tuple[Board, list[Event]]:
        assert isinstance(action, Mark)
        squares = list(state.squares)
        squares[action.square] = action.player
        s = replace(state, squares=tuple(squares), turn=state.turn + 1)
        return s, [Event("mark", f"{action.player} marks square {action.square}")]

    def tally(self, state: Board) -> Tally:
        winners = self._winners(state)
        over = self.is_over(state)
        return Tally([Standing(p, int(p in winners)) for p in self.players], winners=winners,
                     reason="three in a row" if winners else ("a draw" if over else ""),
                     over=over, headline="")

    def state_to_dict(self, state: Board) -> dict[str, Any]:
        return {"players": list(self.players), "squares": list(state.squares)}


class TicTacToeGame(Game):
    name = "tictactoe"
    title = "Tic-tac-toe"
    ruleset = TicTacToe
    max_players = 2
    notation_help = "mark N: put your mark on square N (0 to 8)"

    def parse(self, text: str, rules: Any, state: Any) -> Action:
        word, _, rest = text.partition(" ")
        if word != "mark" or not rest.strip().isdigit():
            raise ValueError("type mark N, with N from 0 to 8")
        return Mark(rules.to_act(state) or "", int(rest))

    def format(self, action: Action) -> str:
        assert isinstance(action, Mark)
        return f"mark {action.square}"

    def text_board(self, rules: Any, state: Board) -> str:
        cells = [(q or ".")[0] for q in state.squares]
        return "\n".join(" ".join(cells[i:i + 3]) for i in (0, 3, 6))

    def board_svg(self, view: Mapping[str, Any], highlight: Iterable[str] = ()) -> str:
        marks = "".join(
            f'<text class="mark" data-square="{i}" x="{10 * (i % 3) + 5}" y="{10 * (i // 3) + 7}">'
            f"{q[0]}</text>" for i, q in enumerate(view["squares"]) if q)
        return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 30">{marks}</svg>'


GAME = TicTacToeGame()
