"""The capped read that map and chit files go through: a device with no end stops at the cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.bounded_read import NotText, TooLarge, read_at_most, read_text_at_most


def test_a_file_at_the_cap_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 10)
    assert read_at_most(path, 10) == b"x" * 10
    assert read_at_most(path, 9) is None


def test_dev_zero_which_has_no_size_stops_at_the_cap() -> None:
    # /dev/zero reports size 0 to stat() and never ends: only a bounded read refuses it.
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    assert read_at_most("/dev/zero", 1000) is None


def test_a_missing_file_raises_oserror_for_the_caller_to_word(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_at_most(tmp_path / "nowhere.json", 10)


def test_text_past_the_cap_or_not_utf8_raises_the_standard_line(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 2_000_001)
    with pytest.raises(TooLarge) as big:
        read_text_at_most(path, 2_000_000, "map")
    assert str(big.value) == f"{path} is too large to be a map (more than 2 MB)"
    path.write_bytes("café".encode("latin-1"))
    with pytest.raises(NotText) as latin:
        read_text_at_most(path, 100, "map", name="f.json")
    assert str(latin.value) == "f.json is not a text file (not UTF-8)"
    path.write_bytes("café".encode())
    assert read_text_at_most(path, 100, "map") == "café"
