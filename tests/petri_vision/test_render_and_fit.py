"""The Petri renderer's ground truth, and the lattice fit on points with gaps and clutter."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import apply_h
from vision.petri.holes import HOLE_QR, HOLES, home_of, on_star
from vision.petri.lattice_fit import fit_lattice
from vision.render.camera import look_at_homography
from vision.render.petri import USUAL_HOMES, grow_positions, project_holes, render_petri

_D = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


def test_frames_are_the_same_for_a_seed_and_differ_between_seeds():
    a, b, c = render_petri(21), render_petri(21), render_petri(22)
    assert np.array_equal(a.image, b.image) and a.pieces == b.pieces
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_groups_grow_from_their_homes_as_connected_pieces(players):
    rng = np.random.default_rng(players)
    homes = {f"p{i}": k for i, k in enumerate(USUAL_HOMES[players])}
    board = grow_positions(rng, homes, {p: 12 for p in homes})
    for player, k in homes.items():
        mine = {h for h, p in board.items() if p == player}
        assert len(mine) == 12 and all(on_star(*h) for h in mine)
        assert any(home_of(*h) == k for h in mine)
        # Connected: a walk over neighbours from one piece reaches them all.
        todo, seen = [next(iter(mine))], set()
        while todo:
            q, r = todo.pop()
            if (q, r) in seen:
                continue
            seen.add((q, r))
            todo += [(q + dq, r + dr) for dq, dr in _D if (q + dq, r + dr) in mine]
        assert seen == mine


def test_hands_hide_holes_in_a_third_of_frames():
    frames = [render_petri(s, size=(640, 360)) for s in range(30, 45)]
    with_hand = [f for f in frames if f.occluded or f.touched]
    assert 2 <= len(with_hand) <= 10
    assert all(f.occluded <= {f"{q},{r}" for q, r in HOLES} for f in frames)
    styles = {f.style for f in frames}
    assert styles == {"wood", "plastic", "print"}
    f = frames[0]
    assert project_holes(f).shape == (121, 2)


def _view(tilt_deg: float) -> np.ndarray:
    """A homography lattice -> pixels for a camera tilted ``tilt_deg``."""
    k = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
    hom = look_at_homography(k, np.array([0.0, 0.0]), 500.0, np.radians(tilt_deg), 0.7, 0.3)
    lat = np.array([[np.sqrt(3) / 2 * 23, 0, 0], [23 / 2, 23, 0], [0, 0, 1]])
    return hom @ lat


@pytest.mark.parametrize("tilt", [0.0, 25.0, 45.0])
def test_the_lattice_is_found_with_holes_missing_and_clutter(tilt):
    rng = np.random.default_rng(int(tilt))
    h = _view(tilt)
    pts = apply_h(h, HOLE_QR)
    keep = rng.uniform(size=len(pts)) > 0.3  # a hand and pieces hide a third
    clutter = rng.uniform((0, 0), (1280, 720), size=(25, 2))
    fit = fit_lattice(np.vstack([pts[keep], clutter]), rng)
    assert fit is not None
    # The same holes up to a turn of the star: compare the set of projected holes.
    got = apply_h(fit.homography, HOLE_QR)
    d = np.linalg.norm(got[:, None] - pts[None], axis=2).min(axis=1)
    assert d.max() < 1.0


@pytest.mark.parametrize("tilt", [0.0, 30.0])
def test_the_lattice_is_found_on_a_grainy_table_whose_specks_lie_closer_than_the_holes(tilt):
    # A wood-grain or speckled table gives hundreds of dark specks, most of them nearer
    # each other than two holes are: the holes' nearest neighbours are specks, so the
    # lattice cannot be guessed from the typical nearest distance.
    rng = np.random.default_rng(7 + int(tilt))
    h = _view(tilt)
    pts = apply_h(h, HOLE_QR)
    keep = rng.uniform(size=len(pts)) > 0.3
    specks = rng.uniform((0, 0), (1280, 720), size=(900, 2))
    cloud = np.vstack([pts[keep], specks])
    d = np.linalg.norm(cloud[:, None] - cloud[None], axis=2)
    np.fill_diagonal(d, np.inf)
    step = np.median(np.linalg.norm(apply_h(h, HOLE_QR + [1, 0]) - pts, axis=1))
    assert np.median(d.min(axis=1)) < step / 1.6  # the case: specks nearer than holes
    fit = fit_lattice(cloud, rng)
    assert fit is not None
    # Every hole of the star within a fifth of a step of a true one (a lattice at the wrong
    # scale, sheared, or a hole off is a third of a step or more away somewhere).
    got = apply_h(fit.homography, HOLE_QR)
    assert np.linalg.norm(got[:, None] - pts[None], axis=2).min(axis=1).max() < 0.2 * step


def test_too_few_points_are_no_board():
    assert fit_lattice(np.random.default_rng(0).uniform(0, 500, (8, 2)),
                       np.random.default_rng(0)) is None


def test_a_degenerate_refit_is_no_lattice_not_a_division_by_zero(monkeypatch) -> None:
    # OpenCV can return a fit whose corner is zero for points that nearly line up: the
    # refit is then refused (no lattice there), with no NumPy warning on the way.
    import warnings

    from vision.petri import lattice_fit

    flat = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0]])
    monkeypatch.setattr(lattice_fit.cv2, "findHomography", lambda *a, **k: (flat, None))
    pts = np.array([[q, r] for q in range(-2, 3) for r in range(-2, 3)], float)  # the lattice
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lattice_fit._grow(np.eye(3), pts)[1] == 0
