"""The printed Peloponnesian map read back from rendered frames, with real OpenCV."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.demo_camera import RenderedCamera
from companion.demo_table import ScriptedTable
from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peloponnesian.game import GAME
from vision.peloponnesian.art import HIDDEN, chit_types, code_image
from vision.peloponnesian.layout import map_layout
from vision.peloponnesian.read import NO_MAP, PART_OUT, TOO_SMALL, read_code, read_map
from vision.render.peloponnesian import render_table

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TABLE = {"counters": {"attica": {"athens": 2}, "laconia": {"sparta": 1},
                      "boeotia": {"thebes": 1, "athens": 1}},
         "chits": {"boeotia": [{"player": "sparta", "type": "military"},
                               {"player": "athens", "type": "pericles"}],
                   "megara": [{"player": "thebes", "type": HIDDEN}]}}


def _truth(frame) -> dict:
    return {a: {"counters": frame.counters.get(a, {}),
                "chits": sorted((c["type"], c["player"]) for c in frame.chits.get(a, []))}
            for a in map_layout(None).areas}


def _seen(data: dict) -> dict:
    return {a: {"counters": data["areas"].get(a, {}).get("counters", {}),
                "chits": sorted((c["type"], c["player"])
                                for c in data["areas"].get(a, {}).get("chits", []))}
            for a in map_layout(None).areas}


def test_every_code_reads_as_its_chit_and_two_wrong_modules_are_refused() -> None:
    for chit in chit_types():
        img = code_image(chit, 10).astype(np.float32) / 255
        quad = np.array([[10, 10], [60, 10], [60, 60], [10, 60]], np.float32)
        assert read_code(img, quad)[0] == chit
    img = code_image("military", 10).astype(np.float32) / 255
    img[20:40, 20:30] = 1 - img[20:40, 20:30]  # two modules flipped
    assert read_code(img, np.array([[10, 10], [60, 10], [60, 60], [10, 60]], np.float32))[0] != \
        "military"


def test_the_printed_map_json_follows_the_standard() -> None:
    lay = map_layout(None)
    data = lay.to_json()
    assert set(data["areas"]) == set(GAME.new_rules(["sparta", "athens", "thebes"]).map.areas)
    for a in data["areas"].values():
        xs, ys = zip(*a["polygon_mm"], strict=True)
        assert min(xs) >= 0 and max(xs) <= data["width_mm"] and max(ys) <= data["height_mm"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_table_is_read_exactly(seed: int) -> None:
    frame = render_table(TABLE, seed, hand=False)
    data = read_map(frame.image, map_layout(None)).data
    assert data["warnings"] in ([], [TOO_SMALL])
    assert _seen(data) == _truth(frame)


def test_areas_under_a_hand_are_occluded_or_right() -> None:
    frame = render_table(TABLE, 5, hand=True)
    data = read_map(frame.image, map_layout(None)).data
    truth, seen = _truth(frame), _seen(data)
    assert frame.touched
    for a in map_layout(None).areas:
        if data["areas"].get(a, {}).get("occluded"):
            assert a in frame.touched
        else:
            assert seen[a] == truth[a], a


@pytest.mark.parametrize("seed", [1, 3])
def test_chits_read_through_defocus_and_haze(seed: int) -> None:
    """A soft, hazy frame lifts a code's black over the dark threshold: its outline falls
    apart into pieces too small to be judged, each once unexplained, and the area read
    occluded. Each chit is found by its mean darkness instead, and read once."""
    frame = render_table(TABLE, seed, hand=False)
    soft = cv2.GaussianBlur(frame.image, (0, 0), 1.5).astype(np.float32)
    hazy = (0.8 * soft + 0.2 * 255 * np.array([0.95, 0.97, 1.0])).astype(np.uint8)
    seen, truth = _seen(read_map(hazy, map_layout(None)).data), _truth(frame)
    for area in ("boeotia", "megara"):
        assert seen[area] == truth[area], area


def test_a_dark_square_that_is_no_code_stays_unexplained() -> None:
    """Only a code read exactly explains its pixels: a plain dark square of a code's size in
    a chit's place keeps its area occluded, however blurred."""
    frame = render_table({"counters": {}, "chits": {}}, 1, hand=False)
    lay = map_layout(None)
    view = read_map(frame.image, lay).view
    x0, y0, x1, y1 = lay.areas["megara"].box
    cx, cy = x0 + 31.0, y0 + 29.5  # Thebes' chit spot
    square = np.array([[[cx - 7.5, cy - 7.5], [cx + 7.5, cy - 7.5], [cx + 7.5, cy + 7.5],
                        [cx - 7.5, cy + 7.5]]], np.float64)
    px = cv2.perspectiveTransform(square, view.homography)[0]
    image = frame.image.copy()
    cv2.fillPoly(image, [np.round(px).astype(np.int32)], (60, 60, 60))
    soft = cv2.GaussianBlur(image, (0, 0), 1.5)
    assert read_map(soft, lay).data["areas"]["megara"] == {"occluded": True}


def test_no_map_and_half_a_map_say_so() -> None:
    blank = np.full((720, 1280, 3), 90, np.uint8)
    data = read_map(blank, map_layout(None)).data
    # Nothing of the map seen: every area unknown (occluded), not empty.
    assert data["areas"] == {a: {"occluded": True} for a in map_layout(None).areas}
    assert data["warnings"] == [NO_MAP]
    half = render_table(TABLE, 2, hand=False, shift=(0.45, 0.0), max_tilt_deg=10)
    data = read_map(half.image, map_layout(None)).data
    assert PART_OUT in data["warnings"]
    out = [a for a, r in data["areas"].items() if r.get("occluded")]
    assert out and len(out) < len(map_layout(None).areas)


def _companion(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_detect_prints_the_observation_and_bad_input_is_one_line(tmp_path: Path) -> None:
    frame = render_table(TABLE, 1, hand=False)
    cv2.imwrite(str(tmp_path / "f.png"), frame.image)
    (tmp_path / "p.json").write_text(json.dumps({"version": 1, "players": [], "colours": {}}))
    out = _companion("detect", "f.png", "--game", "peloponnesian", "--profile", "p.json",
                     cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["areas"]["attica"] == {"counters": {"athens": 2}}
    cv2.imwrite(str(tmp_path / "empty.png"), np.full((720, 1280, 3), 90, np.uint8))
    out = _companion("detect", "empty.png", "--game", "peloponnesian", "--profile", "p.json",
                     cwd=tmp_path)
    assert NO_MAP in json.loads(out.stdout)["warnings"]
    assert len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("companion detect: warning: ")
    (tmp_path / "bad.json").write_text("{")
    out = _companion("detect", "f.png", "--game", "peloponnesian", "--profile", "p.json",
                     "--map", "bad.json", cwd=tmp_path)
    assert out.returncode != 0 and len(out.stderr.strip().splitlines()) == 1


def test_print_writes_the_map_its_json_and_the_pieces(tmp_path: Path) -> None:
    out = _companion("print", "peloponnesian-map", "--dpi", "60", "--out", "m.png", "--json",
                     "m.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "m.json").read_text())["width_mm"] == 420.0
    assert cv2.imread(str(tmp_path / "m.png")).shape[:2] == (702, 992)
    out = _companion("print", "peloponnesian-map", "--paper", "a4", "--dpi", "60", "--out",
                     "m.pdf", cwd=tmp_path)
    assert out.returncode == 0 and (tmp_path / "m.pdf").read_bytes().count(b"/Type /Page ") == 4
    out = _companion("print", "peloponnesian-pieces", "--dpi", "60", "--out", "p.png",
                     cwd=tmp_path)
    assert out.returncode == 0 and (tmp_path / "p.png").exists()
    out = _companion("print", "peloponnesian-map", "--paper", "a2", "--out", "m.png",
                     cwd=tmp_path)
    assert out.stderr.strip().splitlines() == [
        "companion print: error: --paper a2 is unknown: use a3 (one sheet) or a4 (four tiled "
        "pages)"]


def test_the_demo_plays_turns_through_the_camera(tmp_path: Path) -> None:
    with GameLog(tmp_path / "g.sqlite") as log:
        rules = GAME.new_rules(["sparta", "athens", "thebes"])
        referee = Referee(log, log.new_game(rules), egg_seed=1)
        camera = RenderedCamera(referee, ["sparta", "athens", "thebes"], seed=2, fix_after_s=0)
        table = ScriptedTable(referee, seed=2, show=camera.show)
        while referee.state.turn < 2 and table.actions < 200:
            table.step()
        assert referee.state.turn >= 2
        assert camera.frames >= 5
        sources = {e["source"] for e in log.entries(referee.game.id)}
        assert "camera" in sources  # the set-up placements were read from the rendered photos
        assert camera.latest_jpeg() is not None


def test_a_map_too_big_for_the_sheet_is_one_clear_error() -> None:
    from vision.errors import VisionError
    from vision.peloponnesian.reader import PeloReader

    areas = {f"a{i}": {"name": f"A{i}", "at": [10 + 12 * i, 100]} for i in range(31)}
    data = {"areas": areas, "links": [[f"a{i}", f"a{i + 1}"] for i in range(30)],
            "homes": {"sparta": "a0", "athens": "a1", "thebes": "a2"}, "delphi": "a3"}
    with pytest.raises(VisionError, match="the map has 31 areas; the printed sheet holds at "
                       "most 30"):
        PeloReader(None, data)
