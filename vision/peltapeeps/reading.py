"""What a photo of a PeltaPeeps layout shows, and its score.

A :class:`LayoutReading` is the reader's answer (:func:`vision.peltapeeps.read.read_layout`)
and what the score-sheet page corrects: every piece seen (team, catalog piece,
face, where it lies in the photo) and every pair of pieces whose connectors meet.
:func:`score_reading` turns it into the score sheet, line by line, exactly as the
rules engine scores a layout (:meth:`companion.rules.peltapeeps.rules.PeltaPeeps.score_sheet`),
but from the joins *seen* rather than re-derived from poses.

>>> from companion.rules.peltapeeps.catalog import default_catalog
>>> r = LayoutReading(pieces=[
...     SeenPiece("red:E1", "red", "E1", True, (100.0, 100.0), 40.0, 0.0),
...     SeenPiece("blue:S1", "blue", "S1", False, (180.0, 100.0), 40.0, 90.0)],
...     joins=[SeenJoin("blue:S1", "red:E1", "join", (140.0, 100.0))],
...     image_size=(400, 300))
>>> sheet = score_reading(r, default_catalog("core"))
>>> sheet["red"]["joins"], sheet["red"]["face_up"], sheet["blue"]["face_up"]
(1, 1, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from companion.errors import clipped
from companion.rules.peltapeeps.catalog import Catalog
from companion.rules.peltapeeps.rules import FACE_UP_POINTS

JOIN_KINDS = ("join", "touch", "clash")
# A piece this unsure or less fits the catalog only roughly (or worse): it may be another
# piece, with other connectors, and so other joins.
ROUGH = 0.5
SHEET_LINES = ("joins", "bonus", "face_up", "unplayed", "unplayed_peeps", "total")


class ReadingError(ValueError):
    """A reading or a correction that does not make sense; the message says which part."""


@dataclass(frozen=True)
class SeenPiece:
    """One piece in the photo.

    ``uid`` is ``team:piece`` as in the engine; ``piece`` is the catalog id whose
    connector pattern (mirrored when face down) matches best. ``centre_px`` and
    ``radius_px`` locate the disc in the photo; ``rotation`` is the piece's turn
    in degrees (clockwise, as the engine has it). ``outline_px`` is the piece's
    outline in photo pixels, for drawing.
    """

    uid: str
    team: str
    piece: str
    face_up: bool
    centre_px: tuple[float, float]
    radius_px: float
    rotation: float
    confidence: float = 1.0
    outline_px: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class SeenJoin:
    """Two pieces whose edges meet: ``join`` (connectors fit, a point each),
    ``touch`` (edges meet with no fitting connectors) or ``clash`` (they do not fit)."""

    a: str
    b: str
    kind: str
    at_px: tuple[float, float]
    confidence: float = 1.0


@dataclass
class LayoutReading:
    pieces: list[SeenPiece]
    joins: list[SeenJoin]
    image_size: tuple[int, int]  # width, height of the photo read
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def piece(self, uid: str) -> SeenPiece:
        for p in self.pieces:
            if p.uid == uid:
                return p
        raise ReadingError(f"no piece {uid} in the reading")

    def teams(self) -> list[str]:
        return list(dict.fromkeys(p.team for p in self.pieces))

    def to_json(self) -> dict[str, Any]:
        return {
            "image_size": list(self.image_size),
            "pieces": [_piece_json(p) for p in self.pieces],
            "joins": [asdict(j) | {"at_px": list(j.at_px)} for j in self.joins],
            "warnings": list(self.warnings),
            "seconds": round(self.seconds, 4),
        }

    @staticmethod
    def from_json(data: Any) -> LayoutReading:
        """The reading from :meth:`to_json`; raises :class:`ReadingError` naming a bad field."""
        try:
            pieces = [SeenPiece(
                uid=str(p["uid"]), team=str(p["team"]), piece=str(p["piece"]),
                face_up=bool(p["face_up"]),
                centre_px=(float(p["centre_px"][0]), float(p["centre_px"][1])),
                radius_px=float(p["radius_px"]), rotation=float(p["rotation"]),
                confidence=float(p.get("confidence", 1.0)),
                outline_px=tuple((float(x), float(y)) for x, y in p.get("outline_px", ())),
            ) for p in data["pieces"]]
            joins = [SeenJoin(a=str(j["a"]), b=str(j["b"]), kind=str(j["kind"]),
                              at_px=(float(j["at_px"][0]), float(j["at_px"][1])),
                              confidence=float(j.get("confidence", 1.0)))
                     for j in data["joins"]]
            size = (int(data["image_size"][0]), int(data["image_size"][1]))
            warnings = [str(w) for w in data.get("warnings", [])]
        except (KeyError, TypeError, ValueError, IndexError) as e:
            # Python's own words repeat a bad value whole ("could not convert string to
            # float: 'xxx...'"): cut.
            raise ReadingError("a layout reading needs pieces, joins and image_size "
                               f"({clipped(repr(e), 120)})"
                               ) from None
        uids = {p.uid for p in pieces}
        for j in joins:
            # The ids and kind a request sent, a runaway one cut (40 characters each), so
            # the error stays one line.
            if j.kind not in JOIN_KINDS:
                raise ReadingError(f"join {clipped(j.a, 40)}-{clipped(j.b, 40)}: kind "
                                   f"{clipped(j.kind, 40)!r} is not one of {JOIN_KINDS}")
            if j.a not in uids or j.b not in uids:
                raise ReadingError(f"join {clipped(j.a, 40)}-{clipped(j.b, 40)} names a piece "
                                   "that is not in the reading")
        return LayoutReading(pieces, joins, size, warnings, float(data.get("seconds", 0.0)))


def _piece_json(p: SeenPiece) -> dict[str, Any]:
    out = asdict(p)
    out["centre_px"] = list(p.centre_px)
    out["outline_px"] = [list(xy) for xy in p.outline_px]
    return out


def owners(reading: LayoutReading, seats: Sequence[tuple[str, str]] | None = None
           ) -> dict[str, str]:
    """Team colour -> player. Without seats, each team seen is its own player."""
    if seats:
        return {team: player for player, team in seats}
    return {t: t for t in reading.teams()}


def team_catalog(catalog: Catalog | Mapping[str, Catalog], team: str) -> Catalog:
    """The team's set, where ``catalog`` is one set for all or a set per team."""
    return catalog[team] if isinstance(catalog, Mapping) else catalog


def unplayed_pieces(reading: LayoutReading, catalog: Catalog | Mapping[str, Catalog],
                    teams: Sequence[str], unplayed: Mapping[str, Sequence[str]] | None = None,
                    ) -> dict[str, list[str]]:
    """Each team's pieces not in play: as ``unplayed`` says, else its catalog minus those seen."""
    played = {(p.team, p.piece) for p in reading.pieces}
    return {t: list(unplayed[t]) if unplayed is not None and t in unplayed else
            [pc.id for pc in team_catalog(catalog, t).pieces if (t, pc.id) not in played]
            for t in teams}


def score_reading(reading: LayoutReading, catalog: Catalog | Mapping[str, Catalog],
                  seats: Sequence[tuple[str, str]] | None = None,
                  unplayed: Mapping[str, Sequence[str]] | None = None,
                  ) -> dict[str, dict[str, int]]:
    """Each player's score-sheet lines and total from what the photo shows.

    ``catalog`` is one set for every team or a set per team. ``unplayed`` maps a
    team to its pieces not in play; by default, the team's catalog minus the
    pieces seen. Only ``join`` contacts score: a JOIN point to each side, and a
    bonus once per join between two of the same player's pieces.
    """
    owner = owners(reading, seats)
    for p in reading.pieces:
        if p.team not in owner:
            raise ReadingError(f"piece {clipped(p.uid)} is {p.team}, which no seat plays: "
                               "add the colour to the seats")
    sheet = {pl: dict.fromkeys(SHEET_LINES, 0) for pl in dict.fromkeys(owner.values())}

    def cat(team: str) -> Catalog:
        return team_catalog(catalog, team)

    kinds: dict[str, str] = {}
    for p in reading.pieces:
        try:
            kinds[p.uid] = cat(p.team).piece(p.piece).kind
        except (KeyError, ValueError):
            raise ReadingError(f"piece {clipped(p.uid, 40)}: {clipped(p.piece, 40)!r} is not "
                               f"in {p.team}'s catalog"
                               ) from None
        if p.face_up:
            sheet[owner[p.team]]["face_up"] += FACE_UP_POINTS[kinds[p.uid]]
    team_of = {p.uid: p.team for p in reading.pieces}
    seen_pairs: set[frozenset[str]] = set()
    for j in reading.joins:
        pair = frozenset((j.a, j.b))
        if j.kind != "join" or pair in seen_pairs or len(pair) != 2:
            continue
        seen_pairs.add(pair)
        pa, pb = owner[team_of[j.a]], owner[team_of[j.b]]
        sheet[pa]["joins"] += 1
        sheet[pb]["joins"] += 1
        if pa == pb:
            sheet[pa]["bonus"] += 1
    left_by_team = unplayed_pieces(reading, catalog, list(owner), unplayed)
    for team, player in owner.items():
        for pid in left_by_team[team]:
            try:
                piece = cat(team).piece(pid)
            except (KeyError, ValueError):
                raise ReadingError(f"unplayed piece {team}:{pid} is not in {team}'s catalog"
                                   ) from None
            sheet[player]["unplayed"] -= 1
            if piece.is_peep:
                sheet[player]["unplayed_peeps"] -= 1
    for line in sheet.values():
        line["total"] = sum(v for k, v in line.items() if k != "total")
    return sheet
