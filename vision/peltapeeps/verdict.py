"""Whether a reading looks like a PeltaPeeps layout, and so whether its sheet names a winner.

The reader finds round things of a team's colour and matches each to a catalog
piece; a piece's ``confidence`` drops when its connectors fit the catalog only
roughly (x0.5) or its team is in doubt (x0.6), less when only its face is
unclear or a cut in its rim could be a notch or a curve (x0.8 each). In a
photo of a real layout nearly every piece is read sure and every piece touches
another; loose jellybeans of a team's colour come out as
"pieces" whose cut-outs fit nothing well, lying apart. The verdict goes by
exactly that, never by what the photo shows otherwise:

- **not a layout** — no pieces, or fewer than :data:`NOT_A_LAYOUT_SHARE` of
  them sure: the command refuses the photo;
- **doubtful** — fewer than :data:`SURE_SHARE` of the pieces sure, or more than
  half of them touching no other piece: the sheet leads with the reason and
  names no winner;
- **layout** — otherwise: the sheet names the winner.

``bench/peltapeeps_verdict.py`` prints the verdicts on rendered layouts and on
the jellybean photos.

Whatever the verdict, :func:`to_check` names the players whose lines rest on a
piece read unsure, so that the sheet and the page ask about those lines.

>>> from vision.peltapeeps.reading import LayoutReading, SeenJoin, SeenPiece
>>> def piece(uid, x, conf=1.0):
...     return SeenPiece(uid, uid.split(":")[0], uid.split(":")[1], True, (x, 0.0), 40.0, 0.0,
...                      conf)
>>> pair = [piece("red:E1", 100), piece("blue:E3", 180)]
>>> judge(LayoutReading(pair, [SeenJoin("blue:E3", "red:E1", "join", (140, 0))], (400, 300)))
Verdict(level='layout', reason='')
>>> judge(LayoutReading([piece("red:E1", 100, 0.5), piece("red:E2", 300, 0.5)], [],
...                     (400, 300))).level
'not a layout'
>>> outcome({"red": {"total": 3}, "blue": {"total": 1}}, Verdict(LAYOUT))
{'winner': 'red', 'headline': 'red wins with 3 points'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vision.peltapeeps.reading import ROUGH, LayoutReading, owners

LAYOUT = "layout"
DOUBTFUL = "doubtful"
NOT_A_LAYOUT = "not a layout"

SURE_CONFIDENCE = 0.75  # a piece at least this sure has a clear team and fits the catalog
NOT_A_LAYOUT_SHARE = 0.4  # below this share of sure pieces the photo is no layout ...
SURE_SHARE = 0.75  # ... below this share it is in doubt
LONE_SHARE = 0.5  # more than this share of pieces touching nothing: in doubt


@dataclass(frozen=True)
class Verdict:
    level: str
    reason: str = ""

    @property
    def names_winner(self) -> bool:
        return self.level == LAYOUT

    def to_json(self) -> dict[str, str]:
        return {"level": self.level, "reason": self.reason}


def _of(k: int, n: int) -> str:
    return f"{k} of the {n}"


def judge(reading: LayoutReading) -> Verdict:
    """How far the reading looks like a PeltaPeeps layout (see the module's text)."""
    n = len(reading.pieces)
    if n == 0:
        return Verdict(NOT_A_LAYOUT, "no pieces found in the photo")
    sure = sum(1 for p in reading.pieces if p.confidence >= SURE_CONFIDENCE)
    if sure < NOT_A_LAYOUT_SHARE * n:
        return Verdict(NOT_A_LAYOUT, f"{_of(n - sure, n)} round things read as pieces fit "
                       "no piece of the set well or have no clear team colour")
    if sure < SURE_SHARE * n:
        return Verdict(DOUBTFUL, f"{_of(n - sure, n)} pieces read are in doubt "
                       "(see the warnings)")
    touching = {u for j in reading.joins for u in (j.a, j.b) if j.a != j.b}
    alone = sum(1 for p in reading.pieces if p.uid not in touching)
    if n > 1 and alone > LONE_SHARE * n:
        return Verdict(DOUBTFUL, f"{_of(alone, n)} pieces read touch no other piece, but a "
                       "layout is one connected group")
    return Verdict(LAYOUT)


def outcome(sheet: Mapping[str, Mapping[str, int]], verdict: Verdict) -> dict[str, Any]:
    """The winner (None unless the verdict lets the sheet name one) and the line saying so."""
    if not sheet:
        return {"winner": None, "headline": "nobody to score"}
    if not verdict.names_winner:
        return {"winner": None, "headline": "no winner named: the photo may not show a "
                f"PeltaPeeps layout ({verdict.reason})"}
    best = max(line["total"] for line in sheet.values())
    leaders = [p for p, line in sheet.items() if line["total"] == best]
    points = f"{best} point{'s' if abs(best) != 1 else ''}"
    if len(leaders) > 1:
        return {"winner": None, "headline": f"{' and '.join(leaders)} tie with {points}"}
    return {"winner": leaders[0], "headline": f"{leaders[0]} wins with {points}"}


def to_check(reading: LayoutReading, seats: Sequence[tuple[str, str]] | None
             ) -> dict[str, list[str]]:
    """Each player whose line rests on a piece read unsure, with those pieces: a piece of
    their own named in a warning (its cut-outs fit only roughly, its team, face or a cut
    in doubt, or a cut or tab set aside as the lamp's light), or another player's piece
    joined to one of theirs whose cut-outs fit only roughly (:data:`ROUGH`): it may be
    another piece, and a join counts on both lines.

    ``bench/peltapeeps_photos.py`` prints how many of the lines scored wrong and right
    are marked (docs/peltapeeps.md). A piece confirmed or corrected on the page is sure.

    >>> from vision.peltapeeps.reading import SeenJoin, SeenPiece
    >>> sure = SeenPiece("red:E1", "red", "E1", True, (0.0, 0.0), 40.0, 0.0)
    >>> unsure = SeenPiece("blue:E3", "blue", "E3", True, (80.0, 0.0), 40.0, 0.0, 0.8)
    >>> seats = [("ann", "red"), ("bob", "blue")]
    >>> to_check(LayoutReading([sure, unsure], [], (400, 300)), seats)
    {'bob': ['blue:E3']}
    >>> rough = SeenPiece("blue:E3", "blue", "E3", True, (80.0, 0.0), 40.0, 0.0, ROUGH)
    >>> joined = [SeenJoin("blue:E3", "red:E1", "join", (40.0, 0.0))]
    >>> to_check(LayoutReading([sure, rough], joined, (400, 300)), seats)
    {'bob': ['blue:E3'], 'ann': ['blue:E3']}
    """
    owner = owners(reading, seats)
    out: dict[str, list[str]] = {}
    for p in sorted(reading.pieces, key=lambda p: p.uid):
        if p.confidence < 1.0 and p.team in owner:
            out.setdefault(owner[p.team], []).append(p.uid)
    by_uid = {p.uid: p for p in reading.pieces}
    for j in sorted(reading.joins, key=lambda j: (j.a, j.b)):
        if j.kind != "join" or j.a not in by_uid or j.b not in by_uid:
            continue
        for mine, theirs in ((by_uid[j.a], by_uid[j.b]), (by_uid[j.b], by_uid[j.a])):
            if theirs.confidence <= ROUGH and mine.team in owner:
                uids = out.setdefault(owner[mine.team], [])
                if theirs.uid not in uids:
                    uids.append(theirs.uid)
    return out
