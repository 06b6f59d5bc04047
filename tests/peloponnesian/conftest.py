"""Helpers for the Peloponnesian War tests: a finished set-up, chosen hands, typed plays.

Every helper goes through ``rules.apply`` (the path the referee takes), so a
position is always one the rules themselves reached: hands are dealt by
choosing each draw's outcome, as a player would report what the real cup gave.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.base import Event
from companion.rules.peloponnesian import Draw, Keep, PeloponnesianWar, Place
from companion.rules.peloponnesian.game import GAME
from companion.rules.peloponnesian.notation import parse
from companion.rules.peloponnesian.state import DELPHI, DRAW, REDRAW, State

CITIES = ("sparta", "athens", "thebes")


@pytest.fixture
def rules() -> PeloponnesianWar:
    return PeloponnesianWar(list(CITIES))


def set_up(rules: PeloponnesianWar, places: Mapping[str, str] | None = None) -> State:
    """The state after every player placed their second counter (default: next to home)."""
    places = dict(places or {"sparta": "messenia", "athens": "euboea", "thebes": "locris"})
    s = rules.new_state()
    while s.to_place:
        who = s.to_place[0]
        s, _ = rules.apply(s, Place(who, places[who]))
    return s


def deal(rules: PeloponnesianWar, s: State, hands: Mapping[str, Sequence[str]],
         keep: bool = True) -> tuple[State, list[Event]]:
    """Draw the chits named for each player (in order), then keep the hand at Delphi."""
    todo = {p: list(v) for p, v in hands.items()}
    events: list[Event] = []
    while s.phase in (DRAW, REDRAW):
        who = s.draws[0]
        if not todo.get(who):
            raise AssertionError(f"no chit given for {who}'s draw")
        s, ev = rules.apply(s, Draw(who, todo[who].pop(0)))
        events += ev
    if keep and s.phase == DELPHI:
        s, ev = rules.apply(s, Keep(rules.delphi_holder(s) or ""))
        events += ev
    return s, events


def play(rules: PeloponnesianWar, s: State, *lines: str) -> tuple[State, list[Event]]:
    """Apply typed actions in turn (``athens play coup megara``)."""
    events: list[Event] = []
    for line in lines:
        s, ev = rules.apply(s, parse(line, rules, s))
        events += ev
    return s, events


def chits_everywhere(s: State) -> int:
    """Every chit of the game, wherever it is: cup, hands, map, aside and retired."""
    return (s.cup_size() + sum(len(h) for _, h in s.hands) + len(s.board)
            + (1 if s.aside else 0) + len(s.retired))


@contextmanager
def page_over_a_game(log_path: Path, players: list[str], files: Path | None = None
                     ) -> Iterator[tuple[Referee, Any, Callable[[dict], Any]]]:
    """A table page (Flask's test client) over a new game in ``log_path``, with a function
    that asks it for a new Peloponnesian game with the options given, as the page's own
    "new game" form does (with the page's token). ``files``: the folder whose maps and chit
    sets the page may name, as ``companion serve`` gives it."""
    from web.app import create_app

    with GameLog(log_path) as log:
        referee = Referee(log, log.new_game(GAME.new_rules(players)))
        client = create_app(referee, files=files).test_client()
        page = client.get("/").get_data(as_text=True)
        token = re.search(r'token: "([^"]+)"', page).group(1)

        def new_game(options: dict) -> Any:
            return client.post("/api/new", json={"game": "peloponnesian", "options": options},
                               headers={"X-Companion-Token": token})

        yield referee, client, new_game
