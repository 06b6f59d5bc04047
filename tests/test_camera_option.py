"""``--camera``: a value that names no camera is refused in one line before the game log is
opened, never on a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main

HUGE = "9" * 5000  # past the 4,300 digits int() reads


def _serve(tmp_path: Path, monkeypatch, capsys, camera: str) -> str:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no settings of this machine's
    log = tmp_path / "g.sqlite"
    assert main(["serve", "--camera", camera, "--port", "0", "--log", str(log)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("companion serve: error: ") and err.count("\n") == 1
    assert not log.exists()
    return err


@pytest.mark.parametrize("camera", [HUGE, "²", "/tmp/" + "v" * 5000 + ".mp4"])
def test_a_camera_no_index_can_be_is_one_line(tmp_path: Path, monkeypatch, capsys,
                                              camera: str) -> None:
    # int() refused the digits in Python's words ("Exceeds the limit (4300 digits)",
    # "invalid literal for int()"), and a name too long for the system ended the command
    # on a traceback from the look for a folder of that name.
    err = _serve(tmp_path, monkeypatch, capsys, camera)
    assert ("not a webcam index, device, URL, video file or folder" in err
            or "no video file at" in err), err[:300]
    assert "int()" not in err and "sys." not in err


@pytest.mark.parametrize("camera", ["x" * 5000, HUGE, "/tmp/" + "v" * 5000 + ".mp4",
                                    "/tmp/" + "/".join(["w" * 200] * 19) + ".mp4"])
def test_a_runaway_camera_is_quoted_cut_on_one_line(tmp_path: Path, monkeypatch, capsys,
                                                    camera: str) -> None:
    # It was repeated whole: a 5,000-character line.
    err = _serve(tmp_path, monkeypatch, capsys, camera)
    assert len(err) < 250 and "…" in err, err
