"""``companion score peltapeeps PHOTO``: the table, --json, --page, and one line per bad input.

The rendered photo is saved as a JPEG; the profile is made from a rendered
calibration card, as a user makes one. Tests marked "needs the reader" run the
real photo reader (vision.peltapeeps.read.read_layout); the others check the
command's own work (arguments, errors, the table) without it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import save_profile
from companion.cli import main
from companion.cli.score import format_sheet
from companion.rules.peltapeeps.catalog import default_catalog
from companion.rules.peltapeeps.layout import Placed
from companion.rules.peltapeeps.rules import PeltaPeeps
from vision.peltapeeps.reading import ROUGH, LayoutReading, score_reading
from vision.render.peltapeeps import (
    TEAM_COLOURS,
    PeltaSpec,
    profile_for_teams,
    render_layout,
    render_state,
)
from vision.render.peltapeeps_truth import truth_reading
from web.scoresheet import score_result


@pytest.fixture(scope="module")
def scene():
    return render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))  # blue and green


@pytest.fixture(scope="module")
def files(scene, tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("score")
    photo, profile = d / "layout.jpg", d / "profile.json"
    cv2.imwrite(str(photo), scene.frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    save_profile(profile_for_teams(scene.colours), profile)
    catalog = d / "catalog.json"
    catalog.write_text(json.dumps(default_catalog("full").to_json()))
    return {"photo": photo, "profile": profile, "catalog": catalog, "dir": d}


def _run(capsys, *args: str) -> tuple[int, str, str]:
    rc = main(["score", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def _by_team(scene) -> dict[str, dict[str, int]]:
    return {t: scene.truth.sheet[p] for p, t in scene.truth.seats}


def _bad(capsys, files, tmp: Path) -> list[tuple[list[str], str]]:
    notimage = tmp / "notes.jpg"
    notimage.write_text("a shopping list")
    badprofile = tmp / "bad-profile.json"
    badprofile.write_text("{not json")
    badcat = tmp / "bad-catalog.json"
    badcat.write_text(json.dumps({"pieces": [{"id": "X1", "kind": "dragon"}]}))
    badcons = tmp / "bad-connectors.json"  # connectors not iterable: one line
    badcons.write_text(json.dumps({"pieces": [{"id": "a", "kind": "awake", "connectors": 5}]}))
    nullcat = tmp / "null-catalog.json"
    nullcat.write_text("null")
    badsizes = tmp / "bad-sizes.json"
    sized = default_catalog("full").to_json()
    sized["sizes_mm"]["notch"]["width"] = [9, 7]
    badsizes.write_text(json.dumps(sized))
    bigcat = tmp / "big-catalog.json"  # valid JSON after the spaces: only its size is wrong
    bigcat.write_text(" " * 1_000_001 + json.dumps(default_catalog("full").to_json()))
    latincat = tmp / "latin-catalog.json"
    latincat.write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    photo, profile = str(files["photo"]), str(files["profile"])
    bare = tmp / "bare-table.png"
    cv2.imwrite(str(bare), np.full((600, 800, 3), (90, 110, 130), np.uint8))
    return [
        (["peltapeeps", str(bare), "--profile", profile], "no pieces found in"),
        (["peltapeeps", photo, "--profile", profile, "--unplayed", "blue:E1,blue:E1"],
         "names blue:E1 twice"),
        (["chess", photo, "--profile", profile], "knows peltapeeps, not 'chess'"),
        (["peltapeeps", photo], "score needs --profile"),
        (["peltapeeps", str(tmp / "missing.jpg"), "--profile", profile], "not found"),
        (["peltapeeps", str(notimage), "--profile", profile], "is not an image"),
        (["peltapeeps", photo, "--profile", str(badprofile)], "is not valid JSON"),
        (["peltapeeps", photo, "--profile", str(tmp / "none.json")], "not found"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(badcat)],
         "kind must be one of"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(badsizes)],
         "sizes_mm.notch.width must be positive mm, low before high"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(badcons)],
         "bad-connectors.json, piece 1 (a): connectors must be a list"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(nullcat)],
         "null-catalog.json: a catalog is an object with a list of pieces"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(tmp / "no.json")],
         "no catalog at"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(bigcat)],
         "big-catalog.json is too large to be a catalog (more than 1 MB)"),
        (["peltapeeps", photo, "--profile", profile, "--catalog", str(latincat)],
         "latin-catalog.json is not a text file (not UTF-8)"),
        # A device with no end is refused at the ceiling, before memory runs out.
        (["peltapeeps", photo, "--profile", profile, "--catalog", "/dev/zero"],
         "/dev/zero is too large to be a catalog (more than 1 MB)"),
        (["peltapeeps", photo, "--profile", profile, "--seats", "Ann=red,Bob=blue"],
         "unknown colour 'red' in --seats"),
        (["peltapeeps", photo, "--profile", profile, "--seats", "Ann=blue,Bob=blue"],
         "each colour belongs to one player"),
        (["peltapeeps", photo, "--profile", profile, "--seats", "Ann"], "is not NAME=COLOUR"),
        (["peltapeeps", photo, "--profile", profile, "--unplayed", "blue:Z9"],
         "unplayed piece blue:Z9 is not in the catalog"),
        (["peltapeeps", photo, "--profile", profile, "--unplayed", "blue:E1",
          "--unplayed-none"], "not both"),
        (["peltapeeps", photo, "--profile", profile, "--set", "huge"],
         "the default sets are 'core' and 'full', not 'huge'"),
        (["peltapeeps", photo, "--profile", profile, "--set", "core", "--catalog",
          str(files["catalog"])], "not both"),
    ]


def test_every_bad_input_is_one_line(capsys, files, tmp_path: Path) -> None:
    for args, words in _bad(capsys, files, tmp_path):
        rc, out, err = _run(capsys, *args)
        assert rc == 2, args
        assert out == "", args
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("companion score: error: "), (args, err)
        assert words in lines[0], (args, lines[0])
        assert "Traceback" not in err


RUNAWAY = "x" * 5000
PIECES = "E1, E2, E3, S1, S2, A1, A2, A3, E4, E5, E6, S3, S4, A4, A5, A6"


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--seats", RUNAWAY, f"--seats entry '{'x' * 59}…' is not NAME=COLOUR"),
    ("--seats", "Ann=" + RUNAWAY, f"unknown colour '{'x' * 59}…' in --seats"),
    ("--unplayed", RUNAWAY, f"--unplayed entry '{'x' * 59}…' is not COLOUR:PIECE"),
    ("--unplayed", RUNAWAY + ":E1", f"unknown colour '{'x' * 59}…' in --unplayed"),
    ("--unplayed", "blue:" + RUNAWAY,
     f"unplayed piece blue:{'x' * 59}… is not in the catalog: its pieces are {PIECES}\n"),
    ("--seats", f"A{RUNAWAY}=blue,B{RUNAWAY}=blue",
     f"blue is given to A{'x' * 38}… and B{'x' * 38}…: each colour belongs to one player"),
    ("--set", RUNAWAY, f"the default sets are 'core' and 'full', not '{'x' * 59}…'"),
    ("game", RUNAWAY, f"companion score knows peltapeeps, not '{'x' * 59}…'"),
])
def test_a_runaway_value_is_echoed_cut_on_one_line(capsys, files, option: str, value: str,
                                                   words: str) -> None:
    # It was repeated whole: a 5,000-character error line.
    photo, profile = str(files["photo"]), str(files["profile"])
    args = ([value, photo, "--profile", profile] if option == "game"
            else ["peltapeeps", photo, "--profile", profile, option, value])
    rc, out, err = _run(capsys, *args)
    assert rc == 2 and out == ""
    assert err.startswith("companion score: error: ") and words in err
    # One line of under 200 characters, but for the catalog's 16 piece names of the piece's.
    assert err.count("\n") == 1 and len(err.replace(PIECES, "")) < 200, err


def test_a_catalog_too_large_is_said_once(capsys, files) -> None:
    # The fault is the whole line: not wrapped in a second, vaguer one.
    rc, out, err = _run(capsys, "peltapeeps", str(files["photo"]), "--profile",
                        str(files["profile"]), "--catalog", "/dev/zero")
    assert (rc, out) == (2, "")
    assert err == ("companion score: error: /dev/zero is too large to be a catalog "
                   "(more than 1 MB)\n")


def test_a_bad_input_is_one_line_from_the_real_command(files) -> None:
    proc = subprocess.run([sys.executable, "-m", "companion", "score", "peltapeeps",
                           str(files["dir"] / "missing.jpg"), "--profile",
                           str(files["profile"])], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "missing.jpg not found" in proc.stderr


def test_the_table_shows_every_line_of_the_sheet(scene) -> None:
    reading, cat = truth_reading(scene), default_catalog("full")
    seats = [("Ann", "blue"), ("Bob", "green")]
    result = score_result(reading, cat, seats, None)
    assert result["sheet"] == score_reading(reading, cat, seats)
    text = format_sheet(result, "layout.jpg")
    lines = text.splitlines()
    assert lines[0] == "PeltaPeeps score for layout.jpg"
    assert lines[1] == "Set: default full set, 16 pieces a colour"
    assert f"; {len(scene.truth.joins)} joins" in lines[2]
    truth = _by_team(scene)
    for name, key in [("JOIN points", "joins"), ("Same-team bonus", "bonus"),
                      ("Face-up points", "face_up"), ("Unplayed pieces", "unplayed"),
                      ("Unplayed PeltaPeeps", "unplayed_peeps"), ("Total", "total")]:
        row = next(line for line in lines if line.startswith(name))
        assert [int(v) for v in row[len(name):].split()] == [truth["blue"][key],
                                                            truth["green"][key]]
    header = next(line for line in lines if line.split() == ["Ann", "Bob"])
    assert header
    best = max(truth["blue"]["total"], truth["green"]["total"])
    assert re.search(rf"(Ann|Bob|Ann and Bob) (wins|tie) with {best} point", text)
    assert text.count("Not in play: ") == 1


def test_a_line_resting_on_a_piece_read_unsure_is_named(scene) -> None:
    from dataclasses import replace

    reading, cat = truth_reading(scene), default_catalog("full")
    seats = [("Ann", "blue"), ("Bob", "green")]
    assert "read unsure" not in format_sheet(score_result(reading, cat, seats, None), "layout.jpg")
    joined = {(j.a, j.b) for j in reading.joins if j.kind == "join"}
    # A blue piece joined to a green one: Bob's joins count on it too.
    blue, green = next((a, b) if a.startswith("blue") else (b, a) for a, b in joined
                       if {a.split(":")[0], b.split(":")[0]} == {"blue", "green"})
    sure = list(reading.pieces)
    # Only its face in doubt: its connectors, and so its joins, stand.
    reading.pieces = [replace(p, confidence=0.8) if p.uid == blue else p for p in sure]
    assert score_result(reading, cat, seats, None)["to_check"] == {"Ann": [blue]}
    # Its cut-outs fit only roughly: it may be another piece, with other joins.
    reading.pieces = [replace(p, confidence=ROUGH) if p.uid == blue else p for p in sure]
    result = score_result(reading, cat, seats, None)
    assert result["to_check"] == {"Ann": [blue], "Bob": [blue]}
    lines = format_sheet(result, "layout.jpg").splitlines()
    assert f"check Ann's line: it rests on pieces read unsure ({blue})" in lines
    assert f"check Bob's line: it rests on pieces read unsure ({blue})" in lines
    assert green not in str(result["to_check"])


# --- with the reader (vision/peltapeeps/read.py) --------------------------------------------

def test_prints_the_breakdown_from_the_photo(capsys, scene, files) -> None:
    # Needs the reader. How exactly it reads is the bench's business; here the table must
    # agree with the command's own JSON, and the JSON's sheet with its reading.
    common = ["peltapeeps", str(files["photo"]), "--profile", str(files["profile"]),
              "--catalog", str(files["catalog"])]
    rc, out, err = _run(capsys, *common)
    assert rc == 0, err
    rc, js, _ = _run(capsys, *common, "--json")
    data = json.loads(js)
    reading = LayoutReading.from_json(data)
    assert reading.pieces and set(reading.teams()) <= set(scene.colours)
    assert data["sheet"] == score_reading(reading, default_catalog("full"))
    assert data["sheet"] == _by_team(scene)  # this layout is one the reader gets exactly right
    lines = out.splitlines()
    players = next(line for line in lines if line.split() and
                   set(line.split()) == set(data["sheet"])).split()
    for name, key in [("JOIN points", "joins"), ("Face-up points", "face_up"),
                      ("Total", "total")]:
        row = next(line for line in lines if line.startswith(name))
        assert [int(v) for v in row[len(name):].split()] == [data["sheet"][p][key]
                                                            for p in players]
    assert "Pieces seen: " in lines[2] and f"; {data['join_count']} join" in lines[2]


def test_json_with_seats_and_nothing_unplayed(capsys, scene, files) -> None:
    # Needs the reader.
    rc, out, _ = _run(capsys, "peltapeeps", str(files["photo"]), "--profile",
                      str(files["profile"]), "--json", "--seats", "Ann=blue,Bob=green",
                      "--unplayed-none")
    assert rc == 0
    data = json.loads(out)
    assert {"pieces", "joins", "sheet", "warnings", "image_size", "unplayed", "to_check"} \
        <= set(data)
    # Each player's own unsure pieces, and any other player's piece joined to theirs that
    # fits only roughly.
    conf = {p["uid"]: p["confidence"] for p in data["pieces"]}
    joins = [(j["a"], j["b"]) for j in data["joins"] if j["kind"] == "join"]
    want: dict[str, set[str]] = {}
    for player, team in data["seats"]:
        mine = {u for u in conf if u.startswith(f"{team}:")}
        rest = {u for u in mine if conf[u] < 1}
        rest |= {b for a, b in joins + [(b, a) for a, b in joins]
                 if a in mine and conf[b] <= ROUGH}
        if rest:
            want[player] = rest
    assert {k: set(v) for k, v in data["to_check"].items()} == want
    assert list(data["sheet"]) == ["Ann", "Bob"]
    assert data["seats"] == [["Ann", "blue"], ["Bob", "green"]]
    assert data["sheet"]["Ann"]["unplayed"] == data["sheet"]["Bob"]["unplayed"] == 0
    assert data["unplayed"] == {"blue": [], "green": []}
    reading = LayoutReading.from_json(data)
    assert data["sheet"] == score_reading(reading, default_catalog("full"),
                                          [("Ann", "blue"), ("Bob", "green")],
                                          {"blue": [], "green": []})


def test_page_serves_the_score_sheet_until_stopped(files) -> None:
    # Needs the reader.
    proc = subprocess.Popen([sys.executable, "-m", "companion", "score", "peltapeeps",
                             str(files["photo"]), "--profile", str(files["profile"]), "--page",
                             "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = None
        for line in proc.stdout:
            m = re.search(r"(http://127\.0\.0\.1:\d+/score/)", line)
            if m:
                url = m.group(1)
                break
        assert url, proc.stderr.read()
        html = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "PeltaPeeps score sheet" in html and "layout.jpg" in html
    finally:
        proc.terminate()
        proc.wait(10)


# --- photos that are no layout, or may not be (vision/peltapeeps/verdict.py) ----------------

PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "photos" / "jellybeans"
RED_BLUE = {t: TEAM_COLOURS[t] for t in ("red", "blue")}


def _spread_out(catalog: dict | None, ids: list[str], seed: int) -> np.ndarray:
    """A photo of red and blue pieces lying three radii apart: none touches another."""
    rules = PeltaPeeps(seats=[("ann", "red"), ("bob", "blue")], catalog=catalog)
    layout = {}
    for i, pid in enumerate(ids * 2):
        team = "red" if i < len(ids) else "blue"
        layout[f"{team}:{pid}"] = Placed(f"{team}:{pid}", team, pid, (i % 4) * 3.0,
                                         (i // 4) * 3.0, 37.0 * i, i % 3 != 0)
    state = replace(rules.new_state(), layout=layout)
    return render_state(rules, state, RED_BLUE, seed, PeltaSpec(size=(2000, 1500))).frame


@pytest.fixture(scope="module")
def not_layouts(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("not-layouts")
    profile, discs, loose = d / "red-blue.json", d / "plain-discs.jpg", d / "loose.jpg"
    save_profile(profile_for_teams(RED_BLUE), profile)
    # Round acrylic of the teams' colours with no connectors: no piece of any set.
    plain = {"name": "plain discs", "pieces": [{"id": f"D{i}", "kind": "egg",
                                                "connectors": []} for i in range(6)]}
    cv2.imwrite(str(discs), _spread_out(plain, [f"D{i}" for i in range(6)], 3))
    # Real pieces, each read sure, but lying apart: not a finished layout.
    cv2.imwrite(str(loose), _spread_out(None, ["E1", "S1", "A2", "E4", "S3", "A5"], 4))
    return {"profile": profile, "discs": discs, "loose": loose}


def _refused(capsys, photo: Path, profile: Path, *extra: str) -> str:
    rc, out, err = _run(capsys, "peltapeeps", str(photo), "--profile", str(profile), *extra)
    assert (rc, out) == (2, ""), err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    return lines[0]


def test_round_things_that_are_no_pieces_are_refused(capsys, not_layouts) -> None:
    # Needs the reader: it finds twelve discs of the teams' colours, none fitting a piece.
    for extra in ((), ("--json",)):
        line = _refused(capsys, not_layouts["discs"], not_layouts["profile"], *extra)
        assert line == (f"companion score: error: {not_layouts['discs']} does not look like a "
                        "PeltaPeeps layout: 12 of the 12 round things read as pieces fit no "
                        "piece of the set well or have no clear team colour; photograph the "
                        "whole layout from above, in even light, with the profile made for "
                        "these pieces (or correct it with --page)")


@pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"jellybean photos not found at {PHOTOS}")
def test_a_photo_of_jellybeans_is_refused(capsys, not_layouts) -> None:
    # Needs the reader. Fourteen coconut beans, read with red and blue acrylic's profile: the
    # reader takes them for blue discs whose cut-outs fit no piece (the photo of issue 32).
    photo = PHOTOS / "coconut-DSC_0037.jpg"
    line = _refused(capsys, photo, not_layouts["profile"])
    assert "does not look like a PeltaPeeps layout" in line
    assert "round things read as pieces fit no piece of the set well" in line


def test_pieces_lying_apart_lead_with_the_doubt_and_name_no_winner(capsys, not_layouts) -> None:
    # Needs the reader: twelve pieces read sure, none touching another.
    common = ["peltapeeps", str(not_layouts["loose"]), "--profile", str(not_layouts["profile"])]
    rc, out, err = _run(capsys, *common)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == ("warning: the photo may not show a PeltaPeeps layout: 12 of the 12 "
                        "pieces read touch no other piece, but a layout is one connected "
                        "group; no winner is named")
    assert lines[1].startswith("PeltaPeeps score for ")
    assert "No winner named: check the photo (--page shows what was read)" in lines
    assert " wins " not in out and " tie " not in out
    rc, js, _ = _run(capsys, *common, "--json")
    data = json.loads(js)
    assert data["verdict"]["level"] == "doubtful" and data["winner"] is None
    assert data["headline"].startswith("no winner named: the photo may not show")


@pytest.fixture(scope="module")
def core_files(tmp_path_factory) -> dict[str, Path]:
    """A photo of a layout of the core set's pieces only (E1-E3, S1, S2, A1-A3), which
    both sets hold: read with either, it is the same layout."""
    scene = render_layout(14, PeltaSpec(teams=(2, 2), rounds=(3, 4)))
    assert {p.piece for p in scene.truth.pieces} <= {p.id for p in default_catalog("core").pieces}
    d = tmp_path_factory.mktemp("core")
    photo, profile = d / "layout.jpg", d / "profile.json"
    cv2.imwrite(str(photo), scene.frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    save_profile(profile_for_teams(scene.colours), profile)
    return {"photo": photo, "profile": profile}


def test_the_full_set_is_the_default_and_the_sheet_names_the_set(capsys, core_files) -> None:
    # Needs the reader. The engine, the command and the page default to one set.
    assert PeltaPeeps(seats=[("a", "blue"), ("b", "green")]).set_label == \
        "default full set, 16 pieces a colour"
    files = core_files
    common = ["peltapeeps", str(files["photo"]), "--profile", str(files["profile"])]
    rc, out, _ = _run(capsys, *common)
    assert rc == 0 and out.splitlines()[1] == "Set: default full set, 16 pieces a colour"
    full = json.loads(_run(capsys, *common, "--json")[1])
    core = json.loads(_run(capsys, *common, "--json", "--set", "core")[1])
    assert full["set"] == "default full set, 16 pieces a colour"
    assert core["set"] == "default core set, 8 pieces a colour"
    # Same photo: 8 more pieces a colour are unplayed with the full set.
    for team in full["sheet"]:
        assert full["sheet"][team]["unplayed"] == core["sheet"][team]["unplayed"] - 8


@pytest.mark.slow
@pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"jellybean photos not found at {PHOTOS}")
@pytest.mark.parametrize("teams", [("red", "blue"), tuple(TEAM_COLOURS)])
def test_no_photo_of_jellybeans_is_taken_for_a_layout(teams) -> None:
    # Every real jellybean photo, read with two teams' profile and with all six: the
    # reader may take beans for discs, but never for pieces it is sure of (the verdict
    # refuses the photo rather than print a sheet).
    from vision.image_io import read_image
    from vision.peltapeeps.read import read_layout
    from vision.peltapeeps.verdict import NOT_A_LAYOUT, judge

    profile = profile_for_teams({t: TEAM_COLOURS[t] for t in teams})
    catalog = default_catalog("full")
    verdicts = {p.name: judge(read_layout(read_image(p), profile, catalog)).level
                for p in sorted(PHOTOS.glob("*.jpg"))}
    assert len(verdicts) >= 10
    assert {name for name, level in verdicts.items() if level != NOT_A_LAYOUT} == set()


@pytest.mark.parametrize("kind", ["too long", "under a file", "missing"])
def test_a_runaway_catalog_path_is_named_once_and_cut(capsys, files, kind: str) -> None:
    # The OS error's own text names the path again: a 5,000-character path was said twice.
    runaway = {"too long": "/" + "c" * 5000,  # one name past the system's limit
               "under a file": str(files["photo"]) + "/c" * 1500,  # not a folder
               "missing": "/" + "/".join(["c" * 200] * 19)}[kind]  # a real length, no file
    rc, out, err = _run(capsys, "peltapeeps", str(files["photo"]), "--profile",
                        str(files["profile"]), "--catalog", runaway)
    assert (rc, out) == (2, "")
    assert err.startswith("companion score: error: ") and err.count("\n") == 1, err
    assert len(err) < 300 and len(re.findall("[c/]{20,}", err)) == 1 and "…" in err, err
    assert "Errno" not in err


def test_a_runaway_catalog_name_is_quoted_cut(capsys, files, tmp_path: Path) -> None:
    # The catalog's name, from the file, was repeated whole: a 5,000-character line.
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"name": RUNAWAY, "pieces": []}))
    rc, out, err = _run(capsys, "peltapeeps", str(files["photo"]), "--profile",
                        str(files["profile"]), "--catalog", str(empty))
    assert (rc, out) == (2, "")
    assert err == f"companion score: error: the catalog '{'x' * 59}…' has no pieces\n"


@pytest.mark.parametrize("kind", ["too long", "under a file", "missing"])
def test_a_runaway_photo_path_is_named_once_and_cut(capsys, files, kind: str) -> None:
    # The photo's path was repeated whole: a 5,000-character line.
    runaway = {"too long": "/" + "p" * 5000,
               "under a file": str(files["photo"]) + "/p" * 1500,
               "missing": "/" + "/".join(["p" * 200] * 19)}[kind]
    rc, out, err = _run(capsys, "peltapeeps", runaway, "--profile", str(files["profile"]))
    assert (rc, out) == (2, "")
    assert err.startswith("companion score: error: ") and err.count("\n") == 1, err
    assert len(err) < 300 and len(re.findall("[p/]{20,}", err)) == 1 and "…" in err, err
