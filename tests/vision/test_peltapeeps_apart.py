"""A round thing apart from a layout that fits no piece well is left out, with a warning."""

from __future__ import annotations

from companion.rules.peltapeeps.layout import Placed
from vision.peltapeeps import rims
from vision.peltapeeps.read import _apart
from vision.peltapeeps.reading import SeenPiece


def _reading(confidences: list[float], touching: list[tuple[int, int]]):
    found = [rims.Disc(100.0 * i, 50.0, 20.0, team=0) for i in range(len(confidences))]
    pieces, placed = [], {}
    for i, conf in enumerate(confidences):
        uid = f"red:P{i}"
        pieces.append(SeenPiece(uid, "red", f"P{i}", True, (200.0 * i, 100.0), 40.0, 0.0,
                                conf))
        placed[i] = Placed(uid, "red", f"P{i}", 100.0 * i, 50.0, 0.0, True)
    return found, [(i, j, 0.0) for i, j in touching], pieces, placed


def test_a_rough_thing_apart_from_a_layout_is_left_out_and_named() -> None:
    found, touching, pieces, placed = _reading([1.0, 1.0, 1.0, 1.0, 0.5],
                                               [(0, 1), (1, 2), (2, 3)])
    warnings: list[str] = []
    kept, kept_placed = _apart(found, touching, pieces, placed, 2.0, warnings)
    assert [p.uid for p in kept] == ["red:P0", "red:P1", "red:P2", "red:P3"]
    assert sorted(kept_placed) == [0, 1, 2, 3]
    assert warnings == ["something round near (800, 100) touches no piece of the layout and "
                        "fits no piece of the set well: left out (if it is a piece, add it "
                        "on the page)"]


def test_a_sure_piece_apart_and_pieces_lying_apart_are_kept() -> None:
    # A piece apart that fits a piece of the set well stays (a piece set aside is a piece).
    found, touching, pieces, placed = _reading([1.0, 1.0, 1.0, 1.0, 0.8],
                                               [(0, 1), (1, 2), (2, 3)])
    warnings: list[str] = []
    assert len(_apart(found, touching, pieces, placed, 2.0, warnings)[0]) == 5
    # No layout (most pieces touch nothing): every piece stays, for the verdict to judge.
    found, touching, pieces, placed = _reading([0.5, 0.5, 0.5, 1.0], [(2, 3)])
    assert len(_apart(found, touching, pieces, placed, 2.0, warnings)[0]) == 4
    assert warnings == []


def test_a_rough_thing_of_no_clear_team_in_a_layout_is_left_out() -> None:
    # Touching the layout, but its cut-outs fit roughly (x0.5) and its team is in doubt
    # (x0.6): a hole in the layout showing the table, not a piece.
    found, touching, pieces, placed = _reading([1.0, 1.0, 1.0, 0.3, 0.5],
                                               [(0, 1), (1, 2), (2, 3), (3, 4)])
    warnings: list[str] = []
    kept, _ = _apart(found, touching, pieces, placed, 2.0, warnings)
    assert [p.uid for p in kept] == ["red:P0", "red:P1", "red:P2", "red:P4"]
    assert warnings == ["something round near (600, 100) fits no piece of the set well and "
                        "is no team's colour clearly: left out (if it is a piece, add it on "
                        "the page)"]
