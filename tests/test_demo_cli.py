"""``companion demo``'s options: a number it cannot use is one clear error, never a
traceback nor a quiet default."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main


@pytest.mark.parametrize("option", ["--step", "--seconds"])
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_seconds_that_are_no_wait_are_an_argparse_error(tmp_path: Path, capsys, option,
                                                        value) -> None:
    # --step nan used to spin the scripted table with no pause; --seconds inf overflowed
    # the wait in a traceback.
    with pytest.raises(SystemExit) as stop:
        main(["demo", "--text", "--log", str(tmp_path / "d.sqlite"), f"{option}={value}"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f"companion demo: error: argument {option}: must be a number of seconds above 0 and "
        f"at most 604800 (a week), not {value!r}")
    assert not (tmp_path / "d.sqlite").exists()
