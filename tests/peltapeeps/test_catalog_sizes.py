"""The catalog's piece sizes (sizes_mm): shipped, defaulted, kept, and refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.rules.peltapeeps.catalog import (
    DEFAULT_SIZES,
    Catalog,
    CatalogError,
    Size,
    Sizes,
    default_catalog,
    load_catalog,
)

ONE_PIECE = [{"id": "E1", "kind": "egg", "connectors": [{"angle": 0, "type": "tab"}]}]


@pytest.mark.parametrize("size", ["core", "full"])
def test_the_shipped_sets_give_every_size(size: str) -> None:
    text = (Path(__file__).resolve().parents[2] / "companion" / "rules" / "peltapeeps" / "data"
            / f"{size}-set.json").read_text(encoding="utf-8")
    assert json.loads(text)["sizes_mm"] == DEFAULT_SIZES
    sizes = default_catalog(size).sizes
    assert sizes.disc_diameter == Size(49.0, 51.0) and sizes.disc_radius == 25.0
    assert (sizes.tab_width.nominal, sizes.tab_depth.nominal) == (8.0, 6.0)
    assert (sizes.notch_width.nominal, sizes.notch_depth.nominal) == (8.0, 6.0)
    assert sizes.curve_width.nominal > 2 * sizes.notch_width.nominal  # what tells them apart


def test_a_catalog_without_sizes_has_the_shipped_ones_and_its_own_are_kept() -> None:
    assert Catalog.from_json({"pieces": ONE_PIECE}).sizes == default_catalog().sizes
    own = Catalog.from_json({"pieces": ONE_PIECE, "sizes_mm": {
        "disc": {"diameter": 48}, "tab": {"width": [6.5, 7], "depth": 5},
        "curve": {"width": 17}}})
    s = own.sizes
    assert s.disc_diameter == Size(48.0, 48.0) and s.tab_width == Size(6.5, 7.0)
    assert s.tab_depth == Size(5.0, 5.0) and s.curve_width == Size(17.0, 17.0)
    assert s.notch_width == Size(7.0, 9.0)  # left out: the shipped range
    again = Catalog.from_json(json.loads(json.dumps(own.to_json())))
    assert again == own
    assert own.to_json()["sizes_mm"]["disc"] == {"diameter": 48.0}


@pytest.mark.parametrize(("sizes", "message"), [
    ("big", "sizes_mm is an object"),
    ({"tabs": {"width": 8}}, "sizes_mm.tabs is not a size the catalog knows"),
    ({"tab": 8}, "sizes_mm.tab is an object with width and depth"),
    ({"tab": {"length": 8}}, "sizes_mm.tab.length is not known: give width and depth"),
    ({"tab": {"width": "8 mm"}}, "sizes_mm.tab.width must be a number of mm or a range"),
    ({"notch": {"depth": [7, 5]}}, "sizes_mm.notch.depth must be positive mm, low before high"),
    ({"notch": {"depth": -1}}, "sizes_mm.notch.depth must be positive mm"),
    ({"disc": {"diameter": [50]}}, "sizes_mm.disc.diameter must be a number of mm or a range"),
    ({"disc": {"diameter": True}}, "sizes_mm.disc.diameter must be a number"),
    ({"tab": {"width": 30}}, "sizes_mm.tab.width (30 mm) must be less than the disc's radius"),
    ({"notch": {"depth": 9}}, "sizes_mm.notch.depth (9 mm) must be at most 0.3"),
    ({"curve": {"width": 10, "depth": 6}}, "sizes_mm.curve.depth (6 mm) must be at most half"),
    ({"curve": {"width": 33, "depth": 6}}, "sizes_mm.curve.width (33 mm) must be less than"),
])
def test_a_bad_size_is_refused_naming_its_field(sizes: object, message: str) -> None:
    with pytest.raises(CatalogError) as err:
        Catalog.from_json({"pieces": ONE_PIECE, "sizes_mm": sizes}, "my-set.json")
    assert str(err.value).startswith("my-set.json: ")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_a_bad_size_in_a_file_names_the_file_and_field(tmp_path: Path) -> None:
    # The score command turns this into its one error line (tests/test_score_cli.py).
    bad = tmp_path / "my-set.json"
    data = default_catalog().to_json()
    data["sizes_mm"]["notch"]["width"] = [9, 7]
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CatalogError, match=f"^{bad}: sizes_mm.notch.width must be positive"):
        load_catalog(bad)


def test_a_catalog_left_without_sizes_is_the_shipped_shape() -> None:
    s = Sizes.from_json(None)
    assert s.to_json() == DEFAULT_SIZES


def test_a_catalog_nested_too_deep_gets_one_clear_error(tmp_path) -> None:
    # Found by the file-argument fuzz test: Python's JSON reader gives up with a
    # RecursionError, which reached the user as a traceback.
    from companion.rules.peloponnesian.mapdata import BadMap, load_map
    from companion.rules.peltapeeps.catalog import CatalogError, load_catalog

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    with pytest.raises(CatalogError, match="nested too deep"):
        load_catalog(deep)
    with pytest.raises(BadMap, match="nested too deep"):
        load_map(deep)


@pytest.mark.parametrize(("piece", "message"), [
    ({"connectors": 5}, 'piece 1 (A1): connectors must be a list of {"angle", "type"}, not 5'),
    ({"connectors": {"angle": 0}}, "piece 1 (A1): connectors must be a list"),
    ({"connectors": ["tab"]}, 'piece 1 (A1): connector 1 needs an angle and a type'),
    ({"connectors": [{"angle": 0}]}, "piece 1 (A1): connector 1 needs an angle and a type"),
    ({"connectors": [{"angle": "90", "type": "tab"}]},
     "piece 1 (A1): connector 1's angle must be a finite number of degrees, not \"90\""),
    ({"connectors": [{"angle": float("nan"), "type": "tab"}]},
     "connector 1's angle must be a finite number of degrees, not NaN"),
    ({"connectors": [{"angle": 0, "type": "tab"}, {"angle": float("inf"), "type": "tab"}]},
     "connector 2's angle must be a finite number of degrees, not Infinity"),
    ({"connectors": [{"angle": 10**400, "type": "tab"}]}, "connector 1's angle must be"),
    ({"connectors": [{"angle": True, "type": "tab"}]}, "connector 1's angle must be"),
    ({"connectors": [{"angle": 0, "type": ["tab"]}]},
     'connector type must be one of tab, notch, curve, not ["tab"]'),
    ({"id": ["A1"]}, 'piece 1: every piece needs an id of its own (text), not ["A1"]'),
    ({"id": 7}, "piece 1: every piece needs an id of its own (text), not 7"),
    ({"kind": ["awake"]}, "piece 1 (A1): kind must be one of egg, sleeping, awake"),
    ({"kind": {"a": 1}}, "piece 1 (A1): kind must be one of egg, sleeping, awake"),
])
def test_a_bad_piece_is_refused_naming_the_piece_and_field(piece: dict, message: str) -> None:
    raw = {"id": "A1", "kind": "awake", "connectors": [], **piece}
    with pytest.raises(CatalogError) as err:
        Catalog.from_json({"pieces": [raw]}, "my-set.json")
    assert str(err.value).startswith("my-set.json, piece 1")
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("text", "message"), [
    ("null", ": a catalog is an object with a list of pieces"),
    ('{"pieces": [], "name": ["x"]}', ': name must be the set\'s name (text), not ["x"]'),
    ('{"pieces": ' + "9" * 5000 + "}", " is not a catalog (it holds a number too long to read)"),
    (json.dumps({"pieces": ONE_PIECE, "sizes_mm": {"disc": {"diameter": 10**400}}}),
     ": sizes_mm.disc.diameter must be positive mm"),
])
def test_a_bad_catalog_file_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "my-set.json"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(bad)
    assert str(err.value).startswith(f"{bad}{message}")
