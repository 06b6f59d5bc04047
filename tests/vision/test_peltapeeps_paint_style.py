"""The paint's hint at a piece's kind is learnt from the photo, not fixed.

A Sleeping PeltaPeep's closed eyes cover less of its centre than the open eyes
or scales of the other pieces, but by how much is the set's own. The reader
learns it from the discs whose connectors alone name their kind, and only then
lets the paint weigh in where the connectors leave the piece in doubt.
"""

from __future__ import annotations

import pytest

from companion.rules.peltapeeps.catalog import default_catalog
from vision.peltapeeps import identify

CATALOG = default_catalog("full")


def seen(piece: str, *, drop: tuple[float, ...] = (), doubt: tuple[float, ...] = (),
         weak: tuple[float, ...] = ()) -> list[identify.Seen]:
    """``piece``'s connectors as a face-up disc at turn 0 shows them: those at ``drop``
    hidden, those at ``doubt`` a cut whose shape fits a notch as well as a curve, those
    at ``weak`` less sure (a tab told from a touching disc of the same colour)."""
    out = []
    for c in CATALOG.piece(piece).connectors:
        if c.angle in drop:
            continue
        out.append((c.angle, c.type, 0.7 if c.angle in weak else 1.0,
                    0.1 if c.angle in doubt else 1.0))
    return out


def read(discs: list[tuple[list[identify.Seen], float]]) -> list[str]:
    """The pieces read for face-up red discs (connectors, painted share)."""
    matches, _ = identify.identify_pieces(
        [cons for cons, _ in discs], ["red"] * len(discs), {"red": CATALOG},
        [1.0] * len(discs), [paint for _, paint in discs])
    return [m.piece for m, _ in matches]


def teachers(closed: float, open_: float) -> list[tuple[list[identify.Seen], float]]:
    """Discs whose connectors name them surely: two Sleeping PeltaPeeps painted
    ``closed``, three other pieces painted about ``open_``."""
    return [(seen("S1"), closed), (seen("S4"), closed * 1.1),
            (seen("A5"), open_), (seen("A4"), open_ * 0.9), (seen("E2"), open_ * 1.2)]


@pytest.mark.parametrize(("closed", "open_"), [(0.045, 0.16), (0.11, 0.25)])
def test_the_paint_names_the_kind_where_the_connectors_leave_it_open(closed, open_) -> None:
    # Its tab hidden under a neighbour and its first cut's shape in doubt, the disc's
    # connectors fit S3 (curve, notch, tab) about as well as eggs with two cuts.
    doubtful = seen("S3", drop=(240.0,), doubt=(0.0,))
    assert read(teachers(closed, open_) + [(doubtful, closed)])[-1] == "S3"
    other = read(teachers(closed, open_) + [(doubtful, open_)])[-1]
    assert CATALOG.piece(other).kind == "egg"


def test_open_eyes_that_cover_little_in_a_finely_painted_set_are_not_closed_eyes() -> None:
    # This set's open eyes cover 16% of the centre, its closed eyes 4.5%: a disc painted
    # 11.6% with every connector of A1 in view (one tab told from its same-coloured
    # neighbour) is A1. A fixed line learnt on another set (closed eyes below 17%)
    # read it as the Sleeping S2, its tab as the curve.
    a1 = seen("A1", weak=(60.0,))
    assert read(teachers(0.045, 0.16) + [(a1, 0.116)])[-1] == "A1"


def test_the_paint_says_nothing_until_the_photo_has_taught_it() -> None:
    # Without a Sleeping PeltaPeep named surely by its connectors (its curve in
    # doubt), the photo cannot show how its set paints closed eyes.
    rows_for = [(seen("S2", doubt=(0.0,)), 0.05), (seen("A5"), 0.2), (seen("A4"), 0.2),
                (seen("E2"), 0.2)]
    pieces = list(CATALOG.pieces)
    rows = [identify._row(cons, 1.0, None, pieces, 2.5) for cons, _ in rows_for]
    assert identify.paint_style(rows, pieces, [1.0] * 4, [p for _, p in rows_for]) is None
    rows_for.append((seen("S4"), 0.05))
    rows = [identify._row(cons, 1.0, None, pieces, 2.5) for cons, _ in rows_for]
    style = identify.paint_style(rows, pieces, [1.0] * 5, [p for _, p in rows_for])
    assert style is not None
    assert style.cost("sleeping", 0.05) == 0 and style.cost("awake", 0.05) > 1
    # A face in doubt teaches nothing.
    assert identify.paint_style(rows, pieces, [0.2] * 5, [p for _, p in rows_for]) is None
