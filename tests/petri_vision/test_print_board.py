"""The printable Petri board: its layout, its PNG at exact dpi, and the command line."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.kit_layout import CARD_MARKER_IDS, MARKERS_PER_TILE, MAX_TILES, PETRI_MARKER_IDS
from vision.markers import detect_markers
from vision.petri.holes import HOLE_NAMES, TIPS, home_of, on_star
from vision.petri.print_board import board_image, board_layout
from vision.png_dpi import read_png_dpi

ROOT = Path(__file__).resolve().parents[2]


def _companion(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_star_has_121_holes_six_homes_of_ten():
    assert len(HOLE_NAMES) == 121 == len(set(HOLE_NAMES))
    homes = [home_of(*map(int, n.split(","))) for n in HOLE_NAMES]
    assert homes.count(None) == 61
    assert all(homes.count(k) == 10 for k in range(6))
    assert [home_of(*t) for t in TIPS] == list(range(6))
    assert not on_star(5, 0) and on_star(5, -1)


def test_layout_holes_are_pitch_apart_and_on_the_sheet():
    layout = board_layout()
    pts = np.array([layout.holes[n] for n in HOLE_NAMES])
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert np.allclose(d.min(axis=1), layout.pitch_mm)
    assert (pts > 20).all() and (pts[:, 0] < layout.width_mm - 20).all()
    assert (pts[:, 1] < layout.height_mm - 20).all()
    centre = layout.holes["0,0"]
    assert centre == (layout.width_mm / 2, layout.height_mm / 2)
    # Neighbours by the standard's D: (1, 0) is 20 mm away, (8, -4) is home 0's tip, right.
    assert math.isclose(math.dist(layout.holes["1,0"], centre), 20.0)
    assert layout.holes["8,-4"][0] > centre[0] and math.isclose(layout.holes["8,-4"][1], centre[1])


def test_marker_ids_clash_with_nothing_and_all_are_found():
    assert set(PETRI_MARKER_IDS) == set(board_layout().markers)
    assert min(PETRI_MARKER_IDS) >= MAX_TILES * MARKERS_PER_TILE
    assert not set(PETRI_MARKER_IDS) & set(CARD_MARKER_IDS)
    img = board_image(2.0)
    hits = detect_markers(img)
    assert sorted(hits.ids.tolist()) == list(PETRI_MARKER_IDS)


def test_print_command_writes_png_at_dpi_and_the_json(tmp_path):
    out = _companion("print", "petri-board", "--dpi", "60", "--out", "b.png", "--json", "b.json",
                     cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "b.png" in out.stdout
    data = (tmp_path / "b.png").read_bytes()
    assert math.isclose(read_png_dpi(data), 60.0, rel_tol=1e-3)
    img = cv2.imread(str(tmp_path / "b.png"))
    assert img.shape[:2] == (round(297 / 25.4 * 60), round(420 / 25.4 * 60))
    spec = json.loads((tmp_path / "b.json").read_text())
    assert set(spec) == {"width_mm", "height_mm", "pitch_mm", "holes"}
    assert (spec["width_mm"], spec["height_mm"], spec["pitch_mm"]) == (420.0, 297.0, 20.0)
    assert sorted(spec["holes"]) == sorted(HOLE_NAMES)
    # The printed ring of hole 0,0 is where the JSON says, at that dpi.
    x, y = spec["holes"]["3,-1"]
    px = img[round(y * 60 / 25.4), round(x * 60 / 25.4)]
    assert px.max() < 128  # the dot in the hole's middle


def test_print_command_bad_input_is_one_line(tmp_path):
    out = _companion("print", "petri-board", "--dpi", "60", "--out", "b.png", cwd=tmp_path)
    assert out.returncode != 0
    assert out.stderr.strip().splitlines() == ["companion print: error: print petri-board "
                                               "needs --json"]
    out = _companion("print", "petri-board", "--dpi", "5", "--out", "b.png", "--json", "b.json",
                     cwd=tmp_path)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "--dpi 5 is out of range" in out.stderr
    out = _companion("print", "petri-board", "--dpi", "60", "--out", "no/such/dir/b.png",
                     "--json", "b.json", cwd=tmp_path)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
