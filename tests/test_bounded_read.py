"""The capped read that map and chit files go through: a device with no end stops at the cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.bounded_read import read_at_most


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
