"""The commands' file arguments: random bytes, non-UTF-8, JSON of any shape, folders and
missing paths as a profile, image, catalog or script give one clear line, never a traceback;
and output to a full disk is one line too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.profile import save_profile
from companion.cli import main
from vision.render.game_scene import families_colours, profile_for_colours
from vision.render.peltapeeps import PeltaSpec, profile_for_teams, render_layout

ROOT = Path(__file__).resolve().parents[1]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["version", "players", "colours", "bean", "peep", "camera", "notes",
                         "pieces", "name", "id", "red", "blue"]) | st.text(max_size=5),
        inner, max_size=4), max_leaves=12)
contents = (st.binary(max_size=300)
            | st.sampled_from([b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", b"\x89PNG\r\n\x1a\n",
                               b"\xff\xfe\xfd", b"", b"{", b"[" * 3000, b"hex 1,0\nend\n"])
            | json_values.map(lambda v: json.dumps(v).encode()))
kinds = st.sampled_from(["file", "file", "file", "folder", "missing"])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("good")
    profile = d / "profile.json"
    save_profile(profile_for_colours(families_colours(["red", "blue"])), profile)
    photo = d / "photo.jpg"
    cv2.imwrite(str(photo), np.full((120, 160, 3), 90, np.uint8))
    scene = render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))
    layout, teams = d / "layout.jpg", d / "teams.json"
    cv2.imwrite(str(layout), scene.frame)
    save_profile(profile_for_teams(scene.colours), teams)
    return {"profile": profile, "photo": photo, "dir": d, "layout": layout, "teams": teams}


def _path(tmp: Path, kind: str, data: bytes, n: int) -> str:
    p = tmp / f"arg{n}.bin"
    if kind == "file":
        p.write_bytes(data)
    elif kind == "folder":
        p.mkdir()
    return str(p)


def _commands(bad: str, good: dict[str, Path], log: Path, out: Path) -> list[list[str]]:
    profile, photo = str(good["profile"]), str(good["photo"])
    return [
        ["detect", photo, "--profile", bad],
        ["detect", bad, "--profile", profile],
        ["score", "peltapeeps", photo, "--profile", bad],
        ["score", "peltapeeps", bad, "--profile", profile, "--set", "core"],
        ["score", "peltapeeps", photo, "--profile", profile, "--catalog", bad],
        ["calibrate-camera", bad, "--profile", str(out)],
        ["calibrate-camera", photo, "--profile", bad],
        ["calibrate", bad, "--players", "red,blue", "--out", str(out)],
        ["play", "--script", bad, "--log", str(log)],
        ["resume", "--script", bad, "--log", str(log)],
        ["games", "--log", bad],
        ["replay", "--log", bad],
        ["settings", "--file", bad],
    ]


@pytest.mark.slow
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(kind=kinds, data=contents, which=st.integers(0, 12))
def test_no_file_argument_gives_a_traceback(files, tmp_path_factory, capsys, kind, data,
                                            which) -> None:
    tmp = tmp_path_factory.mktemp("fuzz")
    log = tmp / "g.sqlite"
    assert main(["new", "--log", str(log)]) == 0
    bad = _path(tmp, kind, data, 0)
    argv = _commands(bad, files, log, tmp / "out.json")[which]
    capsys.readouterr()
    try:
        code = main(argv)  # an exception escaping here is the traceback a user would see
    except SystemExit as e:  # argparse's own usage error
        code = e.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code not in (0, None):
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines and lines[-1].startswith(("companion ", "usage:")), err


def _run(args: list[str], stdout=subprocess.PIPE, env: dict | None = None
         ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_a_photo_given_as_the_profile_is_one_line_in_every_command(files, tmp_path) -> None:
    photo = str(files["photo"])
    for args in (["detect", photo, "--profile", photo],
                 ["score", "peltapeeps", photo, "--profile", photo],
                 ["calibrate-camera", photo, "--profile", photo],
                 ["serve", "--camera", str(tmp_path), "--profile", photo, "--port", "0",
                  "--log", str(tmp_path / "g.sqlite")]):
        r = _run(args, env={"XDG_CONFIG_HOME": str(tmp_path)})
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert "a photo given as the profile?" in r.stderr
    assert not (tmp_path / "g.sqlite").exists()  # serve refused before opening a game log


def test_a_profile_with_a_number_too_long_to_read_is_one_line(files, tmp_path) -> None:
    # json turns a number of more than 4300 digits into a plain ValueError, not a
    # JSONDecodeError: the profile's one reader says it is not valid JSON all the same.
    long = tmp_path / "long.json"
    long.write_text('{"version": ' + "9" * 5000 + "}")
    photo = str(files["photo"])
    for args in (["score", "peltapeeps", photo, "--profile", str(long)],
                 ["serve", "--camera", str(tmp_path), "--profile", str(long), "--port", "0",
                  "--log", str(tmp_path / "g.sqlite")]):
        r = _run(args, env={"XDG_CONFIG_HOME": str(tmp_path)})
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, (args, r.stderr)
        assert r.stderr.endswith(f"profile {long} is not valid JSON: run companion calibrate "
                                 "again to make a new one\n"), (args, r.stderr)
    assert not (tmp_path / "g.sqlite").exists()


def test_a_profile_naming_a_player_without_colours_is_one_line(files, tmp_path) -> None:
    data = json.loads(files["profile"].read_text())
    data["players"].append("green")
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps(data))
    r = _run(["detect", str(files["photo"]), "--profile", str(bad)])
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "names the player 'green' but has no colours" in r.stderr


def test_a_profile_with_the_version_as_text_says_so(files, tmp_path) -> None:
    data = json.loads(files["profile"].read_text())
    data["version"] = "1"
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps(data))
    r = _run(["detect", str(files["photo"]), "--profile", str(bad)])
    assert r.returncode == 2
    assert '"version": "1", not the number 1' in r.stderr


def test_output_to_a_full_disk_is_one_line(files, tmp_path) -> None:
    log = str(tmp_path / "g.sqlite")
    assert _run(["new", "--log", log]).returncode == 0
    profile, photo = str(files["profile"]), str(files["photo"])
    for args in (["games", "--log", log], ["replay", "--log", log],
                 ["odds", "--attacker", "3", "--defender", "2"], ["detect", photo, "--profile",
                                                                   profile],
                 ["settings"], ["score", "peltapeeps", str(files["layout"]), "--profile",
                                str(files["teams"]), "--json"]):
        with open("/dev/full", "w") as full:
            r = _run(args, stdout=full, env={"XDG_CONFIG_HOME": str(tmp_path)})
        assert "Traceback" not in r.stderr, (args, r.stderr)
        assert r.returncode != 0 and "cannot write the output (No space left on device)" in (
            r.stderr), (args, r.stderr)


def test_a_profile_past_the_size_cap_is_one_line(files, tmp_path, capsys) -> None:
    # Valid JSON (a real profile after whitespace), so only the size can refuse it: a file
    # past the ceiling is refused without being read whole.
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 16_000_001 + files["profile"].read_bytes())
    assert main(["detect", str(files["photo"]), "--profile", str(big)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"profile {big} is too large to be a calibration profile (more than 16 MB)" in err


@pytest.mark.parametrize("command", [
    ["detect", "/dev/zero", "--profile", "{profile}"],
    ["score", "peltapeeps", "/dev/zero", "--profile", "{teams}"],
    ["calibrate", "/dev/zero", "--players", "red,blue", "--out", "{out}"],
    ["calibrate-camera", "/dev/zero", "--profile", "{out}"],
])
def test_a_device_given_as_the_photo_is_refused_not_read_without_end(files, tmp_path, capsys,
                                                                      command) -> None:
    # /dev/zero has no size to check first: it was read whole, until memory ran out.
    argv = [w.format(profile=files["profile"], teams=files["teams"], out=tmp_path / "o.json")
            for w in command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "/dev/zero is too large to be a photo (more than 256 MB)" in err
    assert not (tmp_path / "o.json").exists()


TOO_LONG = "/tmp/" + "n" * 5000  # one name past any file system's limit (255 bytes)


@pytest.mark.parametrize("words", [
    ["play", "--log", "{bad}"], ["new", "--log", "{bad}"], ["resume", "--log", "{bad}"],
    ["undo", "--log", "{bad}"], ["games", "--log", "{bad}"], ["replay", "--log", "{bad}"],
    ["settings", "--file", "{bad}"], ["settings", "--init", "--file", "{bad}"],
    ["serve", "--settings", "{bad}", "--port", "0"],
    ["serve", "--log", "{bad}", "--port", "0"],
    ["calibrate-camera", "{photo}", "--profile", "{bad}"],
    ["calibrate", "{photo}", "--players", "red,blue", "--out", "{bad}"],
    ["calibrate-egg", "--port", "/dev/null", "--players", "red,blue", "--profile", "{bad}"],
    ["play", "--script", "{bad}", "--log", "{log}"],
    ["score", "peltapeeps", "{photo}", "--profile", "{bad}"],
    ["detect", "{photo}", "--profile", "{bad}"],
    ["print", "peepwar-tile", "--id", "0", "--out", "{bad}.png"],
])
def test_a_path_too_long_for_the_system_is_one_short_line(files, tmp_path, monkeypatch, capsys,
                                                          words: list[str]) -> None:
    # Path.exists() raises for such a name instead of answering no: most of these ended on
    # a traceback, and the others repeated all 5,000 characters.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no settings of this machine's
    args = [w.format(bad=TOO_LONG, photo=files["photo"], log=tmp_path / "g.sqlite")
            for w in words]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion {words[0]}: error: ") and err.count("\n") == 1, err
    assert len(err) < 300 and err.count("nnnnnnnnnn") < 30 and "…" in err, err
    assert "File name too long" in err, err


def test_settings_init_under_a_file_is_one_line(tmp_path, capsys) -> None:
    # The folder to make is a file: it ended on a traceback (FileExistsError).
    (tmp_path / "afile").write_text("x")
    assert main(["settings", "--init", "--file", str(tmp_path / "afile" / "s.toml")]) == 2
    assert capsys.readouterr().err == (
        f"companion settings: error: cannot write the settings file {tmp_path}/afile/s.toml: "
        "File exists\n")


@pytest.mark.parametrize(("change", "said"), [
    (lambda d: d["players"].append("x" * 5000), "names the player 'xxx"),
    (lambda d: d.update(version="x" * 5000), '"version": "xxx'),
    (lambda d: d.update(version=10 ** 4000), "is a version 1000"),
    (lambda d: d["colours"]["red"]["bean"].update(mean=["x" * 5000, 0, 0]), "is damaged ("),
    (lambda d: d.update(egg={"players": {"red": [["x" * 5000, 0]]}}), "needs 3 numbers"),
    (lambda d: d.update(egg={"players": {"red": [["x" * 5000, 0, 0]]}}), "are malformed ("),
])
def test_a_runaway_value_in_a_profile_is_one_short_line(files, tmp_path, change, said) -> None:
    # The player's name, the version or the value that is no number was repeated whole.
    from calibration.profile import ProfileError, load_profile
    from companion.errors import UserError
    from companion.inputs.egg_colours import load_egg_colours

    data = json.loads(files["profile"].read_text())
    change(data)
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps(data))
    with pytest.raises((ProfileError, UserError)) as e:
        load_egg_colours(bad) if "egg" in data else load_profile(bad)
    line = str(e.value).split(str(bad), 1)[1]  # past the path, as long as the tmp folder
    assert said in line and "\n" not in line and len(line) < 250, line[:300]


@pytest.mark.parametrize(("item", "options"), [
    ("card", ["--players", "2", "--out", "{d}/card.png", "--json", "{json}"]),
    ("petri-board", ["--out", "{d}/board.png", "--json", "{json}"]),
])
@pytest.mark.parametrize("json_is", ["folder", "in no folder"])
def test_print_with_a_json_it_cannot_write_writes_nothing(tmp_path, capsys, item, options,
                                                          json_is) -> None:
    # The PNG was written, then the JSON failed: a card without its layout, and an error.
    layout = tmp_path / "layout.json" if json_is == "folder" else tmp_path / "no" / "l.json"
    if json_is == "folder":
        layout.mkdir()
    args = [w.format(d=tmp_path, json=layout) for w in options]
    assert main(["print", item, *args]) == 2
    err = capsys.readouterr().err
    said = (f"--json {layout} is a folder: name a file to write" if json_is == "folder" else
            f"--json {layout}: there is no folder {layout.parent} to write it in")
    assert err == f"companion print: error: {said} (nothing was written)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == (
        ["layout.json"] if json_is == "folder" else [])


@pytest.mark.parametrize("depth", ["in it", "below it"])
@pytest.mark.parametrize("option", ["out", "json"])
def test_print_into_a_file_named_as_its_folder_says_it_is_not_a_folder(
        tmp_path, capsys, option, depth) -> None:
    # 'there is no folder X to write it in' when X is there, as a file.
    afile = tmp_path / "afile"
    afile.write_text("kept")
    name = "x.png" if option == "out" else "x.json"
    target = afile / name if depth == "in it" else afile / "sub" / name
    paths = {"out": tmp_path / "card.png", "json": tmp_path / "card.json", option: target}
    assert main(["print", "card", "--players", "2", "--out", str(paths["out"]),
                 "--json", str(paths["json"])]) == 2
    assert capsys.readouterr().err == (f"companion print: error: --{option} {target}: {afile} "
                                       "is not a folder (nothing was written)\n")
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]
    assert afile.read_text() == "kept"


@pytest.mark.parametrize(("item", "options", "layout_is"), [
    ("card", ["--players", "2"], "the card layout"),
    ("petri-board", ["--dpi", "50"], "the board's layout"),
    ("peloponnesian-map", ["--dpi", "50"], "the map's layout"),
])
def test_print_failing_at_the_layout_leaves_no_picture(tmp_path, capsys, item, options,
                                                       layout_is) -> None:
    # Past the checks, the layout cannot be written (its file's place beside it is taken by
    # a folder): the picture is not put in place either, for the kit's card and for the
    # games' sheets alike (``print`` writes what a game's sheet draws).
    taken = f".companion-print-{os.getpid()}-1.part"
    (tmp_path / taken).mkdir()
    assert main(["print", item, *options, "--out", str(tmp_path / "pic.png"),
                 "--json", str(tmp_path / "layout.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion print: error: cannot write {layout_is} to ")
    assert err.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == [taken]


def test_print_card_writes_a_layout_whose_name_is_as_long_as_the_system_allows(
        tmp_path, capsys) -> None:
    # The layout went first to its name with ".part" added: past 255 bytes, so a card whose
    # layout's name is 251-255 bytes long was refused ("File name too long").
    layout = tmp_path / ("n" * 250 + ".json")
    assert main(["print", "card", "--players", "2", "--out", str(tmp_path / "card.png"),
                 "--json", str(layout)]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.png", layout.name]
    assert json.loads(layout.read_text(encoding="utf-8"))


@pytest.mark.parametrize("before", ["nothing", "an older card and layout"])
def test_print_card_failing_to_put_the_layout_in_place_takes_the_card_back(
        tmp_path, capsys, monkeypatch, before) -> None:
    # Both files were written beside their places; the card was put in place, then the
    # layout's rename failed: the card is taken back and what was there before put back.
    card, layout = tmp_path / "card.png", tmp_path / "layout.json"
    if before != "nothing":
        card.write_bytes(b"old card")
        layout.write_text("old layout")
    real = os.replace

    def replace(src, dst):
        if Path(dst) == layout:
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr("companion.cli.printkit.os.replace", replace)
    assert main(["print", "card", "--players", "2", "--out", str(card),
                 "--json", str(layout)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion print: error: cannot write the card layout to ")
    assert "(Permission denied)" in err and err.count("\n") == 1
    if before == "nothing":
        assert list(tmp_path.iterdir()) == []
    else:
        assert sorted(p.name for p in tmp_path.iterdir()) == ["card.png", "layout.json"]
        assert card.read_bytes() == b"old card"
        assert layout.read_text() == "old layout"


def test_print_card_over_older_files_leaves_no_links_beside_them(tmp_path, capsys) -> None:
    card, layout = tmp_path / "card.png", tmp_path / "layout.json"
    card.write_bytes(b"old card")
    layout.write_text("old layout")
    assert main(["print", "card", "--players", "2", "--out", str(card),
                 "--json", str(layout)]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.png", "layout.json"]
    assert card.read_bytes().startswith(b"\x89PNG")
    assert json.loads(layout.read_text(encoding="utf-8"))
