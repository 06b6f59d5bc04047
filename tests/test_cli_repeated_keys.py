"""A map, chit set or catalog a user edits by hand, with one key written twice (an area
copied and not renamed, a chit count typed again): JSON keeps the last without a word, so
the file is refused by name instead of one of the two being dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.rules.peloponnesian.mapdata import __file__ as _mapdata_py
from companion.rules.peltapeeps.catalog import CatalogError, load_catalog
from companion.rules.peltapeeps.catalog import __file__ as _catalog_py

GREECE = Path(_mapdata_py).parent / "maps" / "greece.json"
CHITS = Path(_mapdata_py).parent / "data" / "chits.json"
CORE = Path(_catalog_py).parent / "data" / "core-set.json"


def _with_first_key_again(text: str, opening: str, key: str, value: object) -> str:
    """``text`` with ``key: value`` written just after ``opening``: the key then comes twice
    where ``text`` already holds it later on."""
    assert opening in text
    return text.replace(opening, f"{opening}{json.dumps(key)}: {json.dumps(value)}, ", 1)


@pytest.mark.parametrize("option", ["--map", "--chits"])
def test_a_map_or_chit_file_with_a_key_twice_is_refused_naming_it(tmp_path: Path, capsys,
                                                                   option: str) -> None:
    if option == "--map":
        data = json.loads(GREECE.read_text(encoding="utf-8"))
        text = _with_first_key_again(json.dumps(data), '"areas": {', "thrace",
                                     data["areas"]["macedonia"])
        key = "thrace"
    else:
        text = _with_first_key_again(CHITS.read_text(encoding="utf-8"), '"mix": {',
                                     "military", 9)
        key = "military"
    path, log = tmp_path / "edited.json", tmp_path / "g.sqlite"
    path.write_text(text, encoding="utf-8")
    assert main(["new", "--game", "peloponnesian", option, str(path), "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: the key '{key}' is written twice" in err
    assert len(err.strip().splitlines()) == 1


def test_a_catalog_with_a_key_twice_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text(_with_first_key_again(CORE.read_text(encoding="utf-8"), "{", "name",
                                          "my set"), encoding="utf-8")
    with pytest.raises(CatalogError) as refused:
        load_catalog(str(path))
    assert f"{path}: the key 'name' is written twice" in str(refused.value)
