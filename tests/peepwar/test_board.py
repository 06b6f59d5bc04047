"""Board geometry and adjacency, checked against section 2 of the table standard.

The expected values are written from the standard's own words (180 mm across
flats, side k faces 60k+30 degrees, the D table), and the adjacency is checked
twice: against the standard's three rules, and against the cell outlines in mm
(two cells touch exactly when their outlines share a side, not just a corner).
"""

from __future__ import annotations

import itertools
import math

import pytest

from companion.rules.peepwar.board import (
    DIRECTIONS,
    Cell,
    cell_centre_mm,
    cell_name,
    cell_neighbours,
    cell_polygon_mm,
    cells_of,
    cells_touch,
    parse_cell,
    parse_tile,
    tile_centre_mm,
)

# The standard's table, written out rather than imported.
SPEC_D = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
SPEC_R = 180 / math.sqrt(3)
FLOWER = {(0, 0), *SPEC_D}  # the Neutral Territory and its six neighbours


def _angle(frm: tuple[float, float], to: tuple[float, float]) -> float:
    return math.degrees(math.atan2(to[1] - frm[1], to[0] - frm[0])) % 360


def _hexagon_area(across_flats: float) -> float:
    return math.sqrt(3) / 2 * across_flats**2


def _angle_close(a: float, b: float) -> bool:
    return abs((a - b + 180) % 360 - 180) < 1e-6


# --- names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tile", "slot"),
    [
        ("0,0/c", (0, 0), "c"),
        ("1,-1/3", (1, -1), "3"),
        ("-2,5/0", (-2, 5), "0"),
        ("12,-7/5", (12, -7), "5"),
        (" 1 , -1 / 3 ", (1, -1), "3"),
    ],
)
def test_cell_names_parse_to_tile_and_slot(text: str, tile: tuple[int, int], slot: str) -> None:
    cell = parse_cell(text)
    assert cell == Cell(tile, slot)
    assert cell.is_central == (slot == "c")
    # The canonical name carries no spaces.
    assert str(cell) == f"{tile[0]},{tile[1]}/{slot}"


def test_cell_name_round_trip_for_every_cell_of_a_tile() -> None:
    names = cells_of((1, -1))
    assert names == ["1,-1/c"] + [f"1,-1/{k}" for k in range(6)]
    for name in names:
        assert str(parse_cell(name)) == name
    assert cell_name((1, -1), 3) == "1,-1/3"


@pytest.mark.parametrize(
    "text", ["", "0,0", "0,0/6", "0,0/-1", "0/c", "0,0,0/c", "a,b/c", "0,0/x", "0,0/cc", "c"]
)
def test_malformed_cell_names_are_refused_with_the_expected_form(text: str) -> None:
    with pytest.raises(ValueError, match=r"is not a cell name: write q,r/c .* q,r/k"):
        parse_cell(text)


@pytest.mark.parametrize("text", ["", "1", "1,0/c", "1;0", "a,b", "1,0,0"])
def test_malformed_hex_positions_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a hex position: write q,r"):
        parse_tile(text)


@pytest.mark.parametrize(("parse", "text", "why"), [
    (parse_cell, "1" * 5000 + ",0/c", "is not a cell name"),
    (parse_tile, "1" * 5000 + ",0", "is not a hex position"),
])
def test_a_runaway_name_is_quoted_cut_as_every_error_cuts_it(parse, text: str, why: str) -> None:
    # It was cut at 40 with the ellipsis after the quote ('1111'…), unlike every other echo.
    with pytest.raises(ValueError) as refused:
        parse(text)
    assert str(refused.value).startswith(f"'{'1' * 59}…' {why}: write ")


def test_hex_position_parses() -> None:
    assert parse_tile("-3, 2") == (-3, 2)


# --- adjacency, rule by rule ---------------------------------------------------------


def test_directions_are_the_standards_table() -> None:
    assert list(DIRECTIONS) == SPEC_D


def test_central_cell_touches_exactly_the_six_border_cells_of_its_tile() -> None:
    got = set(cell_neighbours(parse_cell("2,-1/c"), FLOWER | {(2, -1)}))
    assert got == {f"2,-1/{k}" for k in range(6)}


@pytest.mark.parametrize("k", range(6))
def test_border_cell_alone_on_the_table_touches_centre_and_its_two_neighbours(k: int) -> None:
    got = set(cell_neighbours(parse_cell(f"0,0/{k}"), {(0, 0)}))
    assert got == {"0,0/c", f"0,0/{(k - 1) % 6}", f"0,0/{(k + 1) % 6}"}


@pytest.mark.parametrize("k", range(6))
def test_border_cell_touches_the_facing_cell_across_side_k_when_that_tile_is_down(k: int) -> None:
    q, r = 3, -2
    dq, dr = SPEC_D[k]
    other = (q + dq, r + dr)
    cell = parse_cell(f"{q},{r}/{k}")
    facing = f"{other[0]},{other[1]}/{(k + 3) % 6}"
    assert facing in set(cell_neighbours(cell, {(q, r), other}))
    # The relation is symmetric.
    assert cells_touch(facing, str(cell), {(q, r), other})
    # No other side of the tile reaches that neighbour.
    for j in range(6):
        if j != k:
            assert not any(
                n.startswith(f"{other[0]},{other[1]}/")
                for n in cell_neighbours(parse_cell(f"{q},{r}/{j}"), {(q, r), other})
            )


@pytest.mark.parametrize("k", range(6))
def test_no_adjacency_across_a_side_with_no_tile(k: int) -> None:
    # Every other tile of the flower is down, but not the one across side k.
    dq, dr = SPEC_D[k]
    tiles = FLOWER - {(dq, dr)}
    got = set(cell_neighbours(parse_cell(f"0,0/{k}"), tiles))
    assert got == {"0,0/c", f"0,0/{(k - 1) % 6}", f"0,0/{(k + 1) % 6}"}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Round vertex 0 of the Neutral tile meet 0,0/0, 0,0/5, 1,0/3, 1,0/4, 1,-1/1, 1,-1/2.
        ("0,0/0", "1,-1/2"),
        ("0,0/0", "1,-1/1"),
        ("0,0/0", "1,0/4"),
        ("0,0/5", "1,0/3"),
        ("0,0/5", "1,0/4"),
        ("0,0/5", "1,-1/1"),
        ("1,0/3", "1,-1/2"),
        # Opposite and non-consecutive border cells of one tile.
        ("0,0/0", "0,0/3"),
        ("0,0/0", "0,0/2"),
        # A central cell never reaches another tile.
        ("0,0/c", "1,0/3"),
    ],
)
def test_cells_that_meet_only_at_a_point_or_not_at_all_do_not_touch(a: str, b: str) -> None:
    assert not cells_touch(a, b, FLOWER)
    assert not cells_touch(b, a, FLOWER)


@pytest.mark.parametrize(
    ("a", "b"), [("0,0/0", "1,0/3"), ("0,0/5", "1,-1/2"), ("1,0/4", "1,-1/1"), ("0,0/0", "0,0/5")]
)
def test_cells_sharing_a_side_round_a_vertex_touch(a: str, b: str) -> None:
    assert cells_touch(a, b, FLOWER)
    assert cells_touch(b, a, FLOWER)


def test_adjacency_matches_shared_sides_of_the_cell_outlines() -> None:
    """Over the whole flower: touching (by the rules) == outlines share two vertices."""
    cells = [c for t in sorted(FLOWER) for c in cells_of(t)]
    polys = {c: [(round(x, 6), round(y, 6)) for x, y in cell_polygon_mm(parse_cell(c))]
             for c in cells}
    for a, b in itertools.combinations(cells, 2):
        shared = len(set(polys[a]) & set(polys[b]))
        assert cells_touch(a, b, FLOWER) == (shared >= 2), (a, b, shared)
    degree = {c: len(list(cell_neighbours(parse_cell(c), FLOWER))) for c in cells}
    # Centrals have six neighbours, borders three or four.
    assert all(degree[c] == 6 for c in cells if c.endswith("/c"))
    assert {degree[c] for c in cells if not c.endswith("/c")} == {3, 4}
    # Each of the six shared tile sides gives one adjacent pair of border cells.
    across = [(a, b) for a, b in itertools.combinations(cells, 2)
              if parse_cell(a).tile != parse_cell(b).tile and cells_touch(a, b, FLOWER)]
    assert len(across) == 12  # six spokes from the centre plus six round the rim


# --- millimetres ----------------------------------------------------------------------


def test_neutral_tile_is_centred_at_the_origin() -> None:
    assert tile_centre_mm((0, 0)) == pytest.approx((0.0, 0.0))


@pytest.mark.parametrize(("q", "r"), [(1, 0), (0, 1), (-1, 1), (2, -1), (-3, 2), (4, 4)])
def test_tile_centre_follows_the_axial_formula(q: int, r: int) -> None:
    x, y = tile_centre_mm((q, r))
    assert x == pytest.approx(1.5 * SPEC_R * q)
    assert y == pytest.approx(math.sqrt(3) * SPEC_R * (r + q / 2))


@pytest.mark.parametrize("k", range(6))
def test_neighbour_across_side_k_is_180_mm_away_at_60k_plus_30_degrees(k: int) -> None:
    here = tile_centre_mm((2, -1))
    there = tile_centre_mm((2 + SPEC_D[k][0], -1 + SPEC_D[k][1]))
    assert math.dist(here, there) == pytest.approx(180.0)
    assert _angle_close(_angle(here, there), 60 * k + 30)


def test_tile_is_flat_top_180_mm_across_flats() -> None:
    centre = tile_centre_mm((1, -1))
    outer = [cell_polygon_mm(parse_cell(f"1,-1/{k}"))[0] for k in range(6)]
    for i, v in enumerate(outer):
        assert math.dist(centre, v) == pytest.approx(SPEC_R)
        assert _angle_close(_angle(centre, v), 60 * i)  # vertex i at 60·i: flat top
    # Opposite sides (0 and 3) are 180 mm apart: midpoints of vertices 0-1 and 3-4.
    mid0 = ((outer[0][0] + outer[1][0]) / 2, (outer[0][1] + outer[1][1]) / 2)
    mid3 = ((outer[3][0] + outer[4][0]) / 2, (outer[3][1] + outer[4][1]) / 2)
    assert math.dist(mid0, mid3) == pytest.approx(180.0)


def test_central_cell_is_a_concentric_hexagon_80_mm_across_flats() -> None:
    centre = tile_centre_mm((-2, 1))
    inner = cell_polygon_mm(parse_cell("-2,1/c"))
    assert len(inner) == 6
    for i, v in enumerate(inner):
        assert _angle_close(_angle(centre, v), 60 * i)
    apothems = [math.dist(centre, ((inner[i][0] + inner[(i + 1) % 6][0]) / 2,
                                   (inner[i][1] + inner[(i + 1) % 6][1]) / 2)) for i in range(6)]
    assert apothems == pytest.approx([40.0] * 6)
    assert cell_centre_mm(parse_cell("-2,1/c")) == pytest.approx(centre)


@pytest.mark.parametrize("k", range(6))
def test_border_cell_k_lies_between_outer_and_inner_side_k(k: int) -> None:
    centre = tile_centre_mm((0, 0))
    poly = cell_polygon_mm(parse_cell(f"0,0/{k}"))
    assert len(poly) == 4
    mid = cell_centre_mm(parse_cell(f"0,0/{k}"))
    assert _angle_close(_angle(centre, mid), 60 * k + 30)
    # Between the inner apothem (40 mm) and the outer one (90 mm).
    assert 40 < math.dist(centre, mid) < 90
    # The border cells and the central cell tile the hexagon: their areas add up.
    area = 0.5 * abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1)
                         in zip(poly, poly[1:] + poly[:1], strict=True)))
    assert area == pytest.approx((_hexagon_area(180) - _hexagon_area(80)) / 6)
