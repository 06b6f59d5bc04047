"""The rules of PeltaPeeps, and its score sheet.

Seats are (player, team colour) pairs in turn order. With 2 or 3 players each
player has two colours and no player may take two turns in a row within a
round; with 4 to 6 players each has one colour. In a turn the seat's player
must place a piece of that colour so it fits the layout, may then move or flip
one other player's piece, and ends the turn. For the first three rounds only
pieces with two or more interfaces may be placed. The game ends when a piece
is placed that was its colour's last, or when a seat cannot place at all; the
round is then finished and the game is scored.

>>> rules = PeltaPeeps(seats=[("ann", "red"), ("bob", "blue")])
>>> state = rules.new_state()
>>> print(rules.why_not(state, Place("ann", "red", "A3", 0, 0, 0, True))[:49])
ann cannot place red A3: in the first three round
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from companion.errors import clipped, quoted
from companion.rules.base import Action, Event, Ruleset, Standing, Tally
from companion.rules.peltapeeps.catalog import (
    DEFAULT_SET,
    Catalog,
    Connector,
    Piece,
    default_catalog,
)
from companion.rules.peltapeeps.layout import (
    Placed,
    attach,
    connected,
    contacts,
    contacts_of,
    fits,
    place_against,
    plain_rim,
    uid,
    world,
)

OPENING_ROUNDS = 3
FACE_UP_POINTS = {"egg": 1, "sleeping": 2, "awake": 2}


@dataclass(frozen=True)
class Place(Action):
    kind: ClassVar[str] = "place"
    team: str
    piece: str
    x: float
    y: float
    rotation: float
    face_up: bool

    def describe(self) -> str:
        return f"place {clipped(self.team)} {clipped(self.piece)}"  # typed: any text


@dataclass(frozen=True)
class MoveOther(Action):
    kind: ClassVar[str] = "move_other"
    target: str  # uid "team:piece"
    x: float
    y: float
    rotation: float

    def describe(self) -> str:
        return f"move {clipped(self.target)}"


@dataclass(frozen=True)
class FlipOther(Action):
    kind: ClassVar[str] = "flip_other"
    target: str

    def describe(self) -> str:
        return f"flip {clipped(self.target)}"


@dataclass(frozen=True)
class CannotPlace(Action):
    kind: ClassVar[str] = "cannot_place"

    def describe(self) -> str:
        return "say no piece fits"


@dataclass(frozen=True)
class EndTurn(Action):
    kind: ClassVar[str] = "end_turn"

    def describe(self) -> str:
        return "end the turn"


@dataclass(frozen=True)
class PeltaState:
    seats: tuple[tuple[str, str], ...]
    layout: Mapping[str, Placed] = field(default_factory=dict)
    turn: int = 0  # turns begun so far, from 0; seat = turn % len(seats)
    placed: bool = False  # this turn's piece is down (or none fits)
    none_fit: bool = False  # this turn's seat said no piece fits: it placed nothing
    changed_other: bool = False  # this turn's move or flip is done
    ending_round: int | None = None  # the round in which the game-ending move came
    over: bool = False

    @property
    def seat(self) -> tuple[str, str]:
        return self.seats[self.turn % len(self.seats)]

    @property
    def round(self) -> int:
        return self.turn // len(self.seats)


def check_seats(seats: Sequence[tuple[str, str]]) -> None:
    """Raises ValueError unless the seats follow the rules' player counts and order.

    2 players: one colour each, or two each (double team play); 3 players: two
    colours each; 4 to 6 players: one colour each. With two colours each, no
    player may take two turns in a row within a round.
    """
    players = list(dict.fromkeys(p for p, _ in seats))
    teams = [t for _, t in seats]
    if len(set(teams)) != len(teams):
        raise ValueError("each colour belongs to one seat")
    n = len(players)
    if not 2 <= n <= 6:
        raise ValueError(f"PeltaPeeps is for 2 to 6 players, not {n}")
    per = {p: sum(1 for q, _ in seats if q == p) for p in players}
    double = n in (2, 3) and all(v == 2 for v in per.values())
    single = n != 3 and all(v == 1 for v in per.values())
    if not (double or single):
        raise ValueError("2 players play one or two colours each, 3 players two each, "
                         "4 to 6 players one each")
    if double and any(seats[i][0] == seats[i + 1][0] for i in range(len(seats) - 1)):
        raise ValueError("no player may take two turns in a row in a round: reorder the seats")


class PeltaPeeps(Ruleset[PeltaState]):
    """PeltaPeeps for one table: its seats and each colour's set of pieces.

    The set is ``catalog`` (a catalog as JSON) when given, else the shipped
    ``set_size`` set: the full set unless told otherwise, as ``companion score``
    and the score-sheet page use, so a game and a photo of it count the same
    unplayed pieces.
    """

    name = "peltapeeps"
    title = "PeltaPeeps"
    action_types = (Place, MoveOther, FlipOther, CannotPlace, EndTurn)

    def __init__(self, seats: Sequence[Sequence[str]], catalog: Mapping[str, Any] | None = None,
                 set_size: str = DEFAULT_SET) -> None:
        self.seats = tuple((str(p), str(t)) for p, t in seats)
        check_seats(self.seats)
        self.set_size = set_size
        self._catalog_json = dict(catalog) if catalog else None
        cat = Catalog.from_json(catalog) if catalog else default_catalog(set_size)
        self.catalogs: dict[str, Catalog] = {t: cat for _, t in self.seats}
        self.set_label = cat.label()

    def options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seats": [list(s) for s in self.seats], "set_size": self.set_size}
        if self._catalog_json:
            out["catalog"] = self._catalog_json
        return out

    def new_state(self) -> PeltaState:
        return PeltaState(seats=self.seats)

    def owner(self, team: str) -> str:
        return next(p for p, t in self.seats if t == team)

    def unplayed(self, state: PeltaState, team: str) -> list[str]:
        return [p.id for p in self.catalogs[team].pieces
                if uid(team, p.id) not in state.layout]

    # --- who acts -----------------------------------------------------------------

    def to_act(self, state: PeltaState) -> str | None:
        return None if state.over else state.seat[0]

    def is_over(self, state: PeltaState) -> bool:
        return state.over

    # --- legality -------------------------------------------------------------------

    def why_not(self, state: PeltaState, action: Action) -> str | None:
        reason = self._reason(state, action)
        if reason is None:
            return None
        describe = getattr(action, "describe", lambda: action.kind)
        return f"{clipped(action.player)} cannot {describe()}: {reason}"

    def _reason(self, s: PeltaState, a: Action) -> str | None:
        if s.over:
            return "the game is over"
        player, team = s.seat
        if a.player != player:
            return f"it is {player}'s turn ({team})"
        if isinstance(a, Place):
            return self._check_place(s, a, team)
        if isinstance(a, CannotPlace):
            if s.placed:
                return "a piece is already down this turn"
            fitting = next(self._placements(s, team), None)
            if fitting is not None:
                return f"{fitting.team} {fitting.piece} fits"
            return None
        if isinstance(a, EndTurn):
            return None if s.placed else "place a piece first (or say none fits)"
        if isinstance(a, MoveOther | FlipOther):
            return self._check_change(s, a)
        return f"{type(a).__name__} is not a PeltaPeeps action"

    def _check_place(self, s: PeltaState, a: Place, team: str) -> str | None:
        if s.placed:
            return "a piece is already down this turn"
        if a.team != team:
            return f"this turn is for the {team} pieces"
        try:
            piece = self.catalogs[team].piece(a.piece)
        except KeyError:
            return f"there is no piece {quoted(a.piece)} in the {team} set"
        if uid(team, a.piece) in s.layout:
            return "that piece is already in play"
        if s.round < OPENING_ROUNDS and piece.interfaces < 2:
            return ("in the first three rounds only pieces with 2 or more interfaces "
                    "may be placed")
        new = Placed(uid(team, a.piece), team, a.piece, a.x, a.y, a.rotation % 360, a.face_up)
        if not s.layout:
            return None  # the first piece goes in the middle of the play area
        return self._fit(s.layout, new, need_all=False)

    def _fit(self, layout: Mapping[str, Placed], new: Placed, need_all: bool) -> str | None:
        found = contacts_of(new, layout, self.catalogs)
        for c in found:
            if c.kind == "clash":
                return f"it does not fit against {c.b}: {c.why}"
        joins = [c for c in found if c.kind == "join"]
        if not joins:
            return ("it must fit into a piece already in play (a tab in a notch, or a "
                    "Sleeping PeltaPeep's curve on a tab or a plain rim)")
        if need_all and len(joins) != len(found):
            loose = [c.b for c in found if c.kind != "join"]
            return f"flipped, it no longer fits {', '.join(loose)}"
        return None

    def _check_change(self, s: PeltaState, a: MoveOther | FlipOther) -> str | None:
        if not s.placed:
            return "first place a piece; a move or flip comes after"
        if s.none_fit:
            # PLAY 4a: a move or flip is "only done after placing a new piece"; a seat that
            # could place none has placed nothing to follow.
            return "no piece was placed this turn; a move or flip comes only after placing"
        if s.changed_other:
            return "only one move or flip a turn"
        target = s.layout.get(a.target)
        if target is None:
            return f"{quoted(a.target)} is not in play"
        if self.owner(target.team) == a.player:
            return "players never move or flip their own pieces"
        rest = {k: v for k, v in s.layout.items() if k != a.target}
        if isinstance(a, FlipOther):
            flipped = replace(target, face_up=not target.face_up)
            reason = self._fit(rest, flipped, need_all=True)
            if reason:
                return reason
            after = {**rest, a.target: flipped}
        else:
            if not connected(rest, self.catalogs):
                return f"taking {a.target} away would cut pieces off the group"
            moved = replace(target, x=a.x, y=a.y, rotation=a.rotation % 360)
            reason = self._fit(rest, moved, need_all=False)
            if reason:
                return reason
            after = {**rest, a.target: moved}
        if not connected(after, self.catalogs):
            return "the pieces in play must stay one connected group"
        return None

    # --- generation -------------------------------------------------------------------

    def _placements(self, s: PeltaState, team: str) -> Iterator[Place]:
        """Every placement of ``team``'s unplayed pieces that attaches at a free connector."""
        player = self.owner(team)
        cat = self.catalogs[team]
        pieces = [cat.piece(pid) for pid in self.unplayed(s, team)]
        if s.round < OPENING_ROUNDS:
            pieces = [p for p in pieces if p.interfaces >= 2]
        if not s.layout:
            for p in pieces:
                yield Place(player, team, p.id, 0.0, 0.0, 0.0, True)
            return
        joins = [c for c in contacts(s.layout, self.catalogs) if c.kind == "join"]
        joined = {(c.a, c.a_connector) for c in joins} | {(c.b, c.b_connector) for c in joins}
        for target in sorted(s.layout.values(), key=lambda p: p.uid):
            tpiece = self.catalogs[target.team].piece(target.piece)
            tcons = world(tpiece, target)
            for new in self._against(target, tpiece, tcons, joined, pieces, team):
                if self._fit(s.layout, new, need_all=False) is None:
                    yield Place(player, team, new.piece, new.x, new.y, new.rotation,
                                new.face_up)

    @staticmethod
    def _against(target: Placed, tpiece: Piece, tcons: list[Connector],
                 joined: set[tuple[str, int | None]], pieces: list[Piece], team: str
                 ) -> Iterator[Placed]:
        """Poses of ``pieces`` that would join ``target``: connector into free connector,
        a curve on its plain rim, its free curve on their plain rim (tried every
        RIM_STEP degrees; a curve may lie anywhere along a plain rim)."""
        for ti, tc in enumerate(tcons):
            if (target.uid, ti) in joined:
                continue
            for p in pieces:
                for face_up in (True, False):
                    own = list(p.face(face_up))
                    for ci, c in enumerate(own):
                        if fits(tc.type, c.type) == "join":
                            yield attach(tpiece, target, ti, p, ci, team, face_up)
                    if tc.type == "curve":
                        for d in plain_rim(own):
                            yield place_against(target, tc.angle, p, d, team, face_up)
        spots = plain_rim(tcons, target.rotation)
        for p in pieces:
            for face_up in (True, False):
                for c in p.face(face_up):
                    if c.type == "curve":
                        for theta in spots:
                            yield place_against(target, theta, p, c.angle, team, face_up)

    def legal_actions(self, state: PeltaState) -> Iterator[Action]:
        if state.over:
            return
        player, team = state.seat
        if not state.placed:
            any_place = False
            for a in self._placements(state, team):
                any_place = True
                yield a
            if not any_place:
                yield CannotPlace(player)
            return
        yield EndTurn(player)
        if not state.changed_other:
            for target in sorted(state.layout):
                a = FlipOther(player, target)
                if self._reason(state, a) is None:
                    yield a

    # --- change -------------------------------------------------------------------------

    def _apply(self, s: PeltaState, a: Action) -> tuple[PeltaState, list[Event]]:
        events: list[Event] = []
        player, team = s.seat
        if isinstance(a, Place):
            new = Placed(uid(team, a.piece), team, a.piece, a.x, a.y, a.rotation % 360, a.face_up)
            s = replace(s, layout={**s.layout, new.uid: new}, placed=True)
            joins = sum(1 for c in contacts(s.layout, self.catalogs, only=new.uid)
                        if c.kind == "join")
            face = "face up" if a.face_up else "face down"
            events.append(Event("place", f"{player} places {team} {a.piece} {face} "
                                f"({joins} join{'s' if joins != 1 else ''})",
                                {"player": player, "uid": new.uid, "joins": joins}))
            if not self.unplayed(s, team) and s.ending_round is None:
                s = replace(s, ending_round=s.round)
                events.append(Event("ending", f"{team} has played its last piece: the game "
                                    "ends with this round", {"team": team}))
        elif isinstance(a, CannotPlace):
            s = replace(s, placed=True, none_fit=True)
            if s.ending_round is None:
                s = replace(s, ending_round=s.round)
                events.append(Event("ending", f"no {team} piece fits: the game ends with this "
                                    "round", {"team": team}))
        elif isinstance(a, FlipOther):
            t = s.layout[a.target]
            s = replace(s, layout={**s.layout, a.target: replace(t, face_up=not t.face_up)},
                        changed_other=True)
            events.append(Event("flip", f"{player} flips {a.target}", {"uid": a.target}))
        elif isinstance(a, MoveOther):
            t = s.layout[a.target]
            s = replace(s, layout={**s.layout, a.target: replace(
                t, x=a.x, y=a.y, rotation=a.rotation % 360)}, changed_other=True)
            events.append(Event("move", f"{player} moves {a.target}", {"uid": a.target}))
        elif isinstance(a, EndTurn):
            s = replace(s, turn=s.turn + 1, placed=False, changed_other=False, none_fit=False)
            if s.ending_round is not None and s.turn % len(s.seats) == 0:
                s = replace(s, over=True)
                tally = self.tally(s)
                events.append(Event("over", f"the game is over: {tally.headline}",
                                    {"winner": tally.winner}))
            else:
                p, t = s.seat
                events.append(Event("turn", f"{p} to play ({t})", {"player": p, "team": t}))
        return s, events

    # --- reading ---------------------------------------------------------------------------

    def score_sheet(self, state: PeltaState) -> dict[str, dict[str, int]]:
        """Each player's lines of the score sheet and total."""
        sheet = {p: {"joins": 0, "bonus": 0, "face_up": 0, "unplayed": 0,
                     "unplayed_peeps": 0, "total": 0} for p in dict.fromkeys(
                         p for p, _ in self.seats)}
        for c in contacts(state.layout, self.catalogs):
            if c.kind != "join":
                continue
            pa = self.owner(state.layout[c.a].team)
            pb = self.owner(state.layout[c.b].team)
            sheet[pa]["joins"] += 1
            sheet[pb]["joins"] += 1
            if pa == pb:
                sheet[pa]["bonus"] += 1
        for placed in state.layout.values():
            if placed.face_up:
                kind = self.catalogs[placed.team].piece(placed.piece).kind
                sheet[self.owner(placed.team)]["face_up"] += FACE_UP_POINTS[kind]
        for _, team in self.seats:
            owner = self.owner(team)
            for pid in self.unplayed(state, team):
                sheet[owner]["unplayed"] -= 1
                if self.catalogs[team].piece(pid).is_peep:
                    sheet[owner]["unplayed_peeps"] -= 1
        for line in sheet.values():
            line["total"] = sum(v for k, v in line.items() if k != "total")
        return sheet

    def tally(self, state: PeltaState) -> Tally:
        sheet = self.score_sheet(state)
        standings = [Standing(p, line["total"], line) for p, line in sheet.items()]
        best = max(s.score for s in standings)
        leaders = [s.player for s in standings if s.score == best]
        winner = leaders[0] if state.over and len(leaders) == 1 else None
        headline = (f"{' and '.join(leaders)} {'lead' if len(leaders) > 1 else 'leads'} "
                    f"with {best} points")
        if state.over:
            headline = (f"{winner} wins with {best} points" if winner else
                        f"{' and '.join(leaders)} tie with {best} points")
        winners = tuple(leaders) if state.over else ()
        reason = f"most points ({best})" if state.over else ""
        return Tally(standings=standings, winners=winners, reason=reason, headline=headline,
                     over=state.over)

    def state_to_dict(self, state: PeltaState) -> dict[str, Any]:
        return {
            "game": self.name,
            "seats": [list(s) for s in state.seats],
            "turn": state.turn,
            "round": state.round,
            "to_act": self.to_act(state),
            "layout": [{"uid": p.uid, "team": p.team, "piece": p.piece, "x": p.x, "y": p.y,
                        "rotation": p.rotation, "face_up": p.face_up}
                       for p in sorted(state.layout.values(), key=lambda p: p.uid)],
            "over": state.over,
            "score": self.score_sheet(state),
            "set": self.set_label,
        }
