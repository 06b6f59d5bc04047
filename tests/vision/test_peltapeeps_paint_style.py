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


def test_the_cost_grows_steadily_with_the_paints_distance_from_a_kind() -> None:
    # One spread for both kinds: no paint far out on one side counts for the other kind.
    style = identify.PaintStyle(closed=-3.1, open_=-1.8, spread=0.3)
    paints = [0.0, 0.002, 0.01, 0.03, 0.05, 0.08, 0.12, 0.2, 0.4, 0.7, 1.0]
    asleep = [style.cost("sleeping", p) for p in paints]
    awake = [style.cost("awake", p) for p in paints]
    assert asleep == sorted(asleep) and awake == sorted(awake, reverse=True)
    assert asleep[0] == 0 and awake[-1] == 0 and awake[0] == asleep[-1] == identify.KIND_COST
    assert style.cost("egg", float("nan")) == 0


def test_a_sleeping_piece_one_type_mistake_from_any_other_kind_teaches_at_any_turn() -> None:
    # S2 (curve, notch) is one type mistake (a curve read as a tab) from E1 (tab, notch):
    # exactly the margin that names its kind, whatever small angle error its connectors
    # are seen with.
    pieces = list(CATALOG.pieces)
    for err in (0.0, 1.0, 2.0, 3.0, 5.0):
        rows_for = [([(a + err, t, 1.0, 1.0) for a, t in ((0.0, "curve"), (180.0, "notch"))], 0.05),
                    (seen("A5"), 0.2)]
        rows = [identify._row(cons, 1.0, None, pieces, 2.5) for cons, _ in rows_for]
        style = identify.paint_style(rows, pieces, [1.0, 1.0], [p for _, p in rows_for])
        assert style is not None, err


def test_each_set_learns_its_own_paint() -> None:
    # Red plays a finely painted set, blue a boldly painted one (the same pieces): a disc
    # painted 11% is open-eyed in red's set and closed-eyed in blue's.
    bold = type(CATALOG)("bold", CATALOG.pieces, CATALOG.sizes)
    fine = [(seen("S1"), 0.045), (seen("A5"), 0.16), (seen("E2"), 0.2)]
    strong = [(seen("S1"), 0.11), (seen("A5"), 0.26), (seen("E2"), 0.45)]
    doubtful = seen("S3", drop=(240.0,), doubt=(0.0,))
    discs = fine + [(doubtful, 0.11)] + strong + [(doubtful, 0.11)]
    teams = ["red"] * 4 + ["blue"] * 4
    matches, _ = identify.identify_pieces(
        [c for c, _ in discs], teams, {"red": CATALOG, "blue": bold}, [1.0] * 8,
        [p for _, p in discs])
    assert CATALOG.piece(matches[3][0].piece).kind != "sleeping"
    assert matches[7][0].piece == "S3"
