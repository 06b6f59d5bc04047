"""The rules of A Peloponnesian War (Thebes expansion) as a :class:`Ruleset`.

A turn: every player draws from the cup up to four chits in hand (four on the
first turn, three later since one chit is always kept); Delphi's holder may
swap one; three rounds of one face-down chit each (simultaneous by default,
or in turn from the holder of the Gods' Support); the chits are revealed;
``resolve`` fights the struggles, returns the chits to the cup and checks
victory. :meth:`why_not` is the single judge, with one check per action type.

>>> game = PeloponnesianWar(["sparta", "athens", "thebes"], youngest="thebes")
>>> s = game.new_state()
>>> game.waiting_for(s), game.why_not(s, Place("thebes", "attica"))
(frozenset({'thebes'}), 'thebes cannot place a counter in Attica: it is oriented to athens')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from companion.errors import clipped, quoted
from companion.rules.base import Action, Event, Ruleset, Standing, Tally
from companion.rules.chance import Chance
from companion.rules.peloponnesian import views
from companion.rules.peloponnesian.actions import (
    ACTIONS,
    Draw,
    Keep,
    Pass,
    Place,
    Play,
    Resolve,
    Swap,
)
from companion.rules.peloponnesian.chits import (
    INFLUENCE,
    MILITARY,
    STAR,
    STAR_AS,
    STAR_LIFE,
    ChitSet,
    load_chits,
)
from companion.rules.peloponnesian.mapdata import CITIES, GreekMap, load_map
from companion.rules.peloponnesian.state import (
    DELPHI,
    DRAW,
    OVER,
    PLAY,
    REDRAW,
    REVEAL,
    SETUP,
    TURNS,
    Placed,
    State,
)
from companion.rules.peloponnesian.struggle import (
    MAX_COUNTERS,
    final_winners,
    needed,
    resolve_area,
)

HAND = 4  # chits in hand when the rounds start: three drawn and one kept (four on turn 1)
ROUNDS = 3
WIN_AREAS = 7
GODS_ROTATION = ("athens", "sparta", "thebes")
ORDERS = ("simultaneous", "in-turn")
INFLUENCE_RANGES = ("adjacent", "adjacent-or-own")
MILITARY_RANGE = 2

_WAITS = {SETUP: "place a counter", DRAW: "draw a chit", REDRAW: "draw a chit",
          DELPHI: "swap a chit at Delphi or keep the hand", PLAY: "play a chit face down",
          REVEAL: "resolve the struggles"}
_PHASE_OF = {Place: (SETUP,), Draw: (DRAW, REDRAW), Swap: (DELPHI,), Keep: (DELPHI,),
             Play: (PLAY,), Pass: (PLAY,), Resolve: (REVEAL,)}


def _wrong_players(players: Sequence[object]) -> str:
    """What is wrong with ``players`` as the cities of a game, named alone ("2000 players",
    "'corinth'", "sparta twice") so that a runaway list is not repeated whole; "" when
    nothing is.

    >>> _wrong_players(["sparta", "corinth"]), _wrong_players(["thebes", "thebes"])
    ("'corinth'", 'thebes twice')
    """
    if not players:
        return "nobody"
    if len(players) not in (2, 3):
        return f"{len(players)} players"
    stranger = next((p for p in players if p not in CITIES), None)
    if stranger is not None:
        return quoted(stranger)
    twice = next((p for p in players if list(players).count(p) > 1), None)
    return f"{twice} twice" if twice is not None else ""


class PeloponnesianWar(Ruleset[State]):
    name = "peloponnesian"
    title = "A Peloponnesian War"
    action_types = ACTIONS

    def __init__(self, players: Sequence[str], map: str | Mapping[str, Any] = "",  # noqa: A002
                 chits: str | Mapping[str, Any] = "", youngest: str = "",
                 order: str = "simultaneous", influence: str = "adjacent") -> None:
        players = tuple(players)
        wrong = _wrong_players(players)
        if wrong:
            raise ValueError("the players are the cities sparta, athens and thebes "
                             f"(or two of them), not {wrong}")
        if youngest and youngest not in players:
            raise ValueError(f"youngest must be one of the players ({', '.join(players)}), "
                             f"not {quoted(youngest)}")
        if order not in ORDERS:
            raise ValueError(f"order must be {' or '.join(ORDERS)}, not {quoted(order)}")
        if influence not in INFLUENCE_RANGES:
            raise ValueError(f"influence must be {' or '.join(INFLUENCE_RANGES)}, "
                             f"not {quoted(influence)}")
        self.players = players
        self.map: GreekMap = load_map(map)
        self.chits: ChitSet = load_chits(chits)
        self.youngest = youngest or players[0]
        self.order = order
        self.influence = influence
        self._checks: dict[type, Callable[[State, Any], str | None]] = {
            Place: self._why_not_place, Draw: self._why_not_draw, Swap: self._why_not_swap,
            Keep: lambda s, a: None, Play: self._why_not_play, Pass: self._why_not_pass,
            Resolve: lambda s, a: None,
        }

    def options(self) -> dict[str, Any]:
        return {"players": list(self.players), "map": dict(self.map.data),
                "chits": dict(self.chits.data), "youngest": self.youngest,
                "order": self.order, "influence": self.influence}

    # --- the table's order ----------------------------------------------------------------

    def gods_support(self, turn: int) -> str | None:
        """Who has the Gods' Support on ``turn``: Athens, Sparta, Thebes in rotation."""
        if turn < 1:
            return None
        rotation = [c for c in GODS_ROTATION if c in self.players]
        return rotation[(turn - 1) % len(rotation)]

    def play_order(self, turn: int) -> tuple[str, ...]:
        """The turn's order of play: the Gods' Support first, then on in the rotation."""
        rotation = [c for c in GODS_ROTATION if c in self.players]
        first = rotation.index(self.gods_support(turn) or rotation[0])
        return tuple(rotation[first:] + rotation[:first])

    def new_state(self) -> State:
        first = self.players.index(self.youngest)
        seats = self.players[first:] + self.players[:first]
        counters = tuple(sorted((self.map.homes[p], p, 1) for p in self.players))
        return State(players=self.players, to_place=seats, counters=counters,
                     cup=self.chits.cup(self.players),
                     hands=tuple((p, ()) for p in self.players))

    # --- reading ----------------------------------------------------------------------

    def delphi_holder(self, s: State) -> str | None:
        return s.holder(self.map.delphi)

    def waiting_for(self, s: State) -> frozenset[str]:
        if s.phase == SETUP:
            return frozenset(s.to_place[:1])
        if s.phase in (DRAW, REDRAW):
            return frozenset(s.draws[:1])
        if s.phase == DELPHI:
            holder = self.delphi_holder(s)
            return frozenset((holder,)) if holder else frozenset()
        if s.phase == PLAY:
            left = [p for p in self.play_order(s.turn) if p not in s.played]
            return frozenset(left if self.order == "simultaneous" else left[:1])
        if s.phase == REVEAL:
            return frozenset((self.gods_support(s.turn) or self.players[0],))
        return frozenset()

    def turn(self, s: State) -> int:
        return s.turn

    def phase(self, s: State) -> str:
        return f"play, round {s.round}" if s.phase == PLAY else s.phase

    def is_over(self, s: State) -> bool:
        return s.phase == OVER

    def chance(self, s: State) -> Chance | None:
        if s.phase not in (DRAW, REDRAW) or not s.draws or not s.cup_size():
            return None
        who = s.draws[0]
        return Chance(f"{who} draws a chit from the cup",
                      tuple((Draw(who, c), n) for c, n in s.cup if n), hidden=True)

    def needed(self, s: State, player: str) -> int:
        return needed(player, s.holder(self.map.homes[player]), WIN_AREAS)

    def tally(self, s: State) -> Tally:
        standings = [Standing(p, len(s.areas_of(p)), {"counters": s.counters_of(p),
                                                        "needed": self.needed(s, p)})
                     for p in self.players]
        over = s.phase == OVER
        held = ", ".join(f"{x.player} {x.score}" for x in standings)
        if over:
            headline = f"{' and '.join(s.winners)} won: {s.reason}"
        else:
            headline = (f"areas held: {held} ({WIN_AREAS} win, {WIN_AREAS + 1} while "
                        "another holds your city)")
        return Tally(standings, needed=WIN_AREAS, winners=s.winners, reason=s.reason,
                     headline=headline, over=over)

    def state_to_dict(self, s: State) -> dict[str, Any]:
        return views.picture(self, s, None, everything=True)

    def view(self, s: State, viewer: str | None) -> dict[str, Any]:
        return views.picture(self, s, viewer)

    def action_private_to(self, action: Action) -> frozenset[str] | None:
        """A draw, a Delphi discard and a face-down play are their player's alone."""
        if isinstance(action, Draw | Swap | Play):
            return frozenset((action.player,))
        return None

    # --- legality -----------------------------------------------------------------------

    def why_not(self, s: State, a: Action) -> str | None:
        check = self._checks.get(type(a))
        if check is None:
            return f"{a.kind} is not an action of {self.title}"
        if a.player not in self.players:
            return f"{quoted(a.player)} is not at this table (players: {', '.join(self.players)})"
        if s.phase == OVER:
            return f"the game is over: {' and '.join(s.winners)} won ({s.reason})"
        waiting = self.waiting_for(s)
        if s.phase not in _PHASE_OF[type(a)]:
            return (f"{a.player} cannot {a.kind} now: the game waits for "
                    f"{' and '.join(sorted(waiting))} to {_WAITS[s.phase]}")
        if a.player not in waiting:
            if s.phase == PLAY and a.player in s.played:
                return (f"{a.player} has played this round already; waiting for "
                        f"{' and '.join(sorted(waiting))}")
            return (f"it is not {a.player}'s move: the game waits for "
                    f"{' and '.join(sorted(waiting))} to {_WAITS[s.phase]}")
        return check(s, a)

    def _area_name(self, area: str) -> str:
        return self.map.name_of(area) if area in self.map.areas else area

    def _unknown_area(self, area: str) -> str | None:
        if area in self.map.areas:
            return None
        return f"there is no area {quoted(area)} on the map ({', '.join(self.map.areas)})"

    def _why_not_place(self, s: State, a: Place) -> str | None:
        unknown = self._unknown_area(a.area)
        if unknown:
            return unknown
        holder = s.holder(a.area)
        where = f"{a.player} cannot place a counter in {self.map.name_of(a.area)}"
        if holder not in (None, a.player):
            return f"{where}: it is oriented to {holder}"
        if s.counters_in(a.area).get(a.player, 0) >= MAX_COUNTERS:
            return f"{where}: an area holds at most {MAX_COUNTERS} counters of one player"
        return None

    def _why_not_draw(self, s: State, a: Draw) -> str | None:
        if a.chit not in self.chits.ids():
            return f"there is no chit {quoted(a.chit)} (chits: {', '.join(self.chits.ids())})"
        if not s.in_cup(a.chit):
            return f"no {self.chits.name(a.chit)} chit is left in the cup"
        return None

    def _why_not_swap(self, s: State, a: Swap) -> str | None:
        if a.chit not in s.hand(a.player):
            return f"{a.player} holds no {clipped(a.chit)} chit to discard"
        if not s.cup_size():
            return "the cup is empty: there is nothing to draw instead"
        return None

    def reach(self, s: State, player: str, kind: str) -> frozenset[str]:
        """The areas where ``player`` may put a chit of type ``kind`` now (its range)."""
        everywhere = frozenset(self.map.areas)
        if kind not in (MILITARY, INFLUENCE):
            return everywhere
        own = s.areas_of(player)
        if kind == MILITARY:
            return frozenset().union(*(self.map.within(a, MILITARY_RANGE) for a in own))
        near = frozenset().union(*(self.map.neighbours(a) for a in own))
        return near | own if self.influence == "adjacent-or-own" else near

    def _why_not_play(self, s: State, a: Play) -> str | None:
        hand = s.hand(a.player)
        if a.chit not in hand:
            return f"{a.player} holds no {clipped(a.chit)} chit"
        if len(hand) < 2:
            return f"{a.player} must keep their last chit: one chit is kept each turn"
        unknown = self._unknown_area(a.area)
        if unknown:
            return unknown
        kind = a.chit
        if a.chit == STAR:
            if a.star_as not in STAR_AS:
                return f"say what the Star is played as: {', '.join(STAR_AS)}"
            kind = a.star_as
        elif a.star_as:
            return "only the Star chit is played as another chit"
        sides = s.sides_in(a.area)
        if a.player not in sides and len(sides) >= 2:
            return (f"{self.map.name_of(a.area)} holds chits of {sides[0]} and {sides[1]}: "
                    "an area holds chits of two players only")
        if a.area not in self.reach(s, a.player, kind):
            if kind == MILITARY:
                return (f"{self.map.name_of(a.area)} is out of range: a Military chit goes "
                        f"within {MILITARY_RANGE} areas of an area oriented to {a.player}")
            own = " or one of them" if self.influence == "adjacent-or-own" else ""
            return (f"{self.map.name_of(a.area)} is out of range: an Influence chit goes "
                    f"next to an area oriented to {a.player}{own}")
        return None

    def plays(self, s: State, player: str) -> Iterator[Play]:
        """Every chit ``player`` may play now."""
        hand = s.hand(player)
        if len(hand) < 2:
            return
        # The same tests as _why_not_play, each made once (the property tests hold them equal).
        sides: dict[str, set[str]] = {}
        for c in s.board:
            sides.setdefault(c.area, set()).add(c.player)
        open_areas = [a for a in self.map.areas
                      if player in sides.get(a, ()) or len(sides.get(a, ())) < 2]
        reach = {kind: self.reach(s, player, kind) for kind in (MILITARY, INFLUENCE)}
        for chit in sorted(set(hand)):
            for kind in (STAR_AS if chit == STAR else (chit,)):
                allowed = reach.get(kind)
                for area in open_areas:
                    if allowed is None or area in allowed:
                        yield Play(player, chit, area, kind if chit == STAR else "")

    def _why_not_pass(self, s: State, a: Pass) -> str | None:
        play = next(self.plays(s, a.player), None)
        if play is None:
            return None
        return (f"{a.player} can still play a chit (e.g. {play.chit} in "
                f"{self.map.name_of(play.area)}): three chits are played each turn")

    def legal_actions(self, s: State) -> Iterator[Action]:
        waiting = sorted(self.waiting_for(s))
        if s.phase == SETUP:
            for who in waiting:
                yield from (Place(who, a) for a in self.map.areas
                            if self._why_not_place(s, Place(who, a)) is None)
        elif s.phase in (DRAW, REDRAW):
            chance = self.chance(s)
            yield from (a for a, _ in chance.outcomes) if chance else ()
        elif s.phase == DELPHI:
            for who in waiting:
                yield Keep(who)
                if s.cup_size():
                    yield from (Swap(who, c) for c in sorted(set(s.hand(who))))
        elif s.phase == PLAY:
            for who in waiting:
                found = False
                for play in self.plays(s, who):
                    found = True
                    yield play
                if not found:
                    yield Pass(who)
        elif s.phase == REVEAL:
            yield from (Resolve(who) for who in waiting)

    # --- change -------------------------------------------------------------------------

    def _apply(self, s: State, a: Action) -> tuple[State, list[Event]]:
        handler = {Place: self._place, Draw: self._draw, Swap: self._swap, Keep: self._keep,
                   Play: self._play, Pass: self._pass, Resolve: self._resolve}[type(a)]
        return handler(s, a)

    def _place(self, s: State, a: Place) -> tuple[State, list[Event]]:
        s = replace(s, counters=s.with_counter(a.area, a.player, 1), to_place=s.to_place[1:])
        events = [Event("place", f"{a.player} places a counter in {self.map.name_of(a.area)}")]
        if not s.to_place:
            s, more = self._start_turn(s, 1)
            events += more
        return s, events

    def _start_turn(self, s: State, turn: int) -> tuple[State, list[Event]]:
        order = self.play_order(turn)
        need = {p: max(0, HAND - len(s.hand(p))) for p in order}
        draws: list[str] = []
        while any(need.values()):
            for p in order:
                if need[p]:
                    draws.append(p)
                    need[p] -= 1
        s = replace(s, phase=DRAW, turn=turn, round=0, played=(), draws=tuple(draws))
        event = Event("turn", f"turn {turn}: {order[0]} has the Gods' Support and plays first")
        if not s.draws or not s.cup_size():
            s, more = self._after_draws(s)
            return s, [event, *more]
        return s, [event]

    def _after_draws(self, s: State) -> tuple[State, list[Event]]:
        holder = self.delphi_holder(s)
        if holder is not None and s.cup_size():
            return replace(s, phase=DELPHI, draws=()), []
        return self._start_rounds(s)

    def _start_rounds(self, s: State) -> tuple[State, list[Event]]:
        return replace(s, phase=PLAY, round=1, played=(), draws=()), [
            Event("round", f"round 1 of {ROUNDS}: play a chit face down")]

    def _draw(self, s: State, a: Draw) -> tuple[State, list[Event]]:
        s = replace(s, cup=s.with_cup(a.chit, -1), hands=s.with_hand(
            a.player, (*s.hand(a.player), a.chit)), draws=s.draws[1:])
        events = [Event("draw", f"{a.player} draws {self.chits.name(a.chit)}",
                        {"player": a.player, "chit": a.chit},
                        private_to=frozenset((a.player,)), public=f"{a.player} draws a chit")]
        if s.draws and s.cup_size():
            return s, events
        if s.phase == REDRAW:
            back = s.aside
            s = replace(s, cup=s.with_cup(back, 1) if back else s.cup, aside="")
            s, more = self._start_rounds(s)
            return s, events + more
        if s.draws:
            events.append(Event("cup", "the cup is empty: the remaining draws are lost"))
        s, more = self._after_draws(s)
        return s, events + more

    def _swap(self, s: State, a: Swap) -> tuple[State, list[Event]]:
        hand = list(s.hand(a.player))
        hand.remove(a.chit)
        s = replace(s, hands=s.with_hand(a.player, tuple(hand)), aside=a.chit, phase=REDRAW,
                    draws=(a.player,))
        return s, [Event("swap", f"{a.player} discards {self.chits.name(a.chit)} at Delphi",
                         private_to=frozenset((a.player,)),
                         public=f"{a.player} holds Delphi and swaps a chit")]

    def _keep(self, s: State, a: Keep) -> tuple[State, list[Event]]:
        s, events = self._start_rounds(s)
        return s, [Event("keep", f"{a.player} holds Delphi and keeps the hand"), *events]

    def _play(self, s: State, a: Play) -> tuple[State, list[Event]]:
        hand = list(s.hand(a.player))
        hand.remove(a.chit)
        as_what = f" as {a.star_as}" if a.chit == STAR else ""
        where = self.map.name_of(a.area)
        s = replace(s, hands=s.with_hand(a.player, tuple(hand)),
                    board=(*s.board, Placed(a.player, a.chit, a.area, a.star_as)),
                    star_plays=s.star_plays + (a.chit == STAR))
        event = Event("play", f"{a.player} plays {self.chits.name(a.chit)}{as_what} face down "
                      f"in {where}", {"player": a.player, "area": a.area},
                      private_to=frozenset((a.player,)),
                      public=f"{a.player} plays a chit face down in {where}")
        return self._played(s, a.player, [event])

    def _pass(self, s: State, a: Pass) -> tuple[State, list[Event]]:
        return self._played(s, a.player, [Event(
            "pass", f"{a.player} cannot play a chit in round {s.round}")])

    def _played(self, s: State, player: str, events: list[Event]) -> tuple[State, list[Event]]:
        s = replace(s, played=(*s.played, player))
        if len(s.played) < len(self.players):
            return s, events
        if s.round < ROUNDS:
            return replace(s, round=s.round + 1, played=()), events + [Event(
                "round", f"round {s.round + 1} of {ROUNDS}: play a chit face down")]
        return replace(s, phase=REVEAL, played=()), events + [Event(
            "reveal", views.revealed(self, s))]

    def _resolve(self, s: State, a: Resolve) -> tuple[State, list[Event]]:
        events: list[Event] = []
        counters = s.counters
        cup, retired = dict(s.cup), list(s.retired)
        for area in self.map.areas:
            chits = s.chits_in(area)
            if not chits:
                continue
            here = {p: n for ar, p, n in counters if ar == area}
            outcome = resolve_area(area, chits, here, self.chits)
            counters = tuple(sorted([c for c in counters if c[0] != area]
                                    + [(area, p, n) for p, n in outcome.counters.items() if n]))
            events.append(Event("struggle", f"{self.map.name_of(area)}: "
                                + "; ".join(outcome.lines)))
        for c in s.board:
            if self.chits.is_special(c.chit) or (c.chit == STAR and s.star_plays >= STAR_LIFE):
                retired.append(c.chit)
            else:
                cup[c.chit] += 1
        s = replace(s, counters=counters, board=(), cup=tuple(cup.items()),
                    retired=tuple(retired))
        return self._end_turn(s, events)

    def _end_turn(self, s: State, events: list[Event]) -> tuple[State, list[Event]]:
        held = {p: len(s.areas_of(p)) for p in self.players}
        reached = [p for p in self.players if held[p] >= self.needed(s, p)]
        if reached:
            best = max(held[p] for p in reached)
            winners = tuple(p for p in reached if held[p] == best)
            reason = (f"{' and '.join(winners)} orient{'s' if len(winners) == 1 else ''} "
                      f"{best} areas at the end of turn {s.turn}")
        elif s.turn >= TURNS:
            counters = {p: s.counters_of(p) for p in self.players}
            winners = final_winners(held, counters)
            tied = [p for p in self.players if held[p] == held[winners[0]]]
            reason = (f"the most areas after turn {TURNS}" if len(tied) == 1 else
                      f"the most counters after turn {TURNS}, areas being tied")
        else:
            s, more = self._start_turn(s, s.turn + 1)
            return s, events + more
        s = replace(s, phase=OVER, winners=winners, reason=reason, draws=(), round=0)
        return s, events + [Event("over", f"{' and '.join(winners)} won: {reason}")]
