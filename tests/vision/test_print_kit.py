"""The printable kit: exact sizes, stated dpi, layouts that the detector reads back."""

from __future__ import annotations

import json
import re
import zlib

import cv2
import numpy as np
import pytest

from companion import games
from companion.cli import main
from companion.cli.printkit import GAME_SHEET_HELP
from companion.games import SHEET_OPTIONS, Game
from companion.rules.base import Ruleset
from companion.rules.peepwar.board import ACROSS_FLATS_MM, R_MM
from vision.card_art import card_layout
from vision.kit_layout import MARKERS_PER_TILE, tile_slots
from vision.markers import detect_markers
from vision.pdf_pages import PT_PER_MM
from vision.peepwar.tile_art import tile_image
from vision.png_dpi import read_png_dpi
from vision.print_files import Printed


def _dark_runs(line: np.ndarray) -> list[int]:
    """Indices where dark pixels start or end along a 1-D gray profile."""
    dark = line < 100
    return list(np.nonzero(np.diff(dark.astype(int)))[0])


def test_tile_png_states_its_dpi_and_has_exact_hexagon(tmp_path, capsys):
    out = tmp_path / "t5.png"
    assert main(["print", "peepwar-tile", "--id", "5", "--dpi", "200", "--out", str(out)]) == 0
    data = out.read_bytes()
    assert read_png_dpi(data) == pytest.approx(200, rel=1e-4)
    img = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    h, w = img.shape
    ppmm = 200 / 25.4
    # Down the centre column the first and last dark pixels are the top and bottom cut lines
    # (flat-top hexagon: 180 mm across flats, vertically).
    col = img[:, w // 2]
    dark = np.nonzero(col < 100)[0]
    across_flats_px = dark[-1] - dark[0]
    assert across_flats_px == pytest.approx(ACROSS_FLATS_MM * ppmm, abs=3)
    assert (dark[0] + dark[-1]) / 2 == pytest.approx(h / 2, abs=1.5)
    # Along the centre row the outermost dark pixels are vertices 3 and 0: 2R apart.
    row = img[h // 2, :]
    dark = np.nonzero(row < 100)[0]
    assert dark[-1] - dark[0] == pytest.approx(2 * R_MM * ppmm, abs=3)
    assert (dark[0] + dark[-1]) / 2 == pytest.approx(w / 2, abs=1.5)


def test_printed_markers_sit_where_the_detector_expects_them():
    """Print and detection share one layout: every marker is read back at its slot."""
    ppmm = 3.0
    img = tile_image(9, ppmm)
    hits = detect_markers(img)
    assert sorted(hits.ids.tolist()) == [9 * MARKERS_PER_TILE + s for s in range(12)]
    h, w = img.shape[:2]
    for mid, corners in zip(hits.ids, hits.corners, strict=True):
        expected = tile_slots()[mid % MARKERS_PER_TILE].corners_mm * ppmm + (w / 2 - 0.5,
                                                                             h / 2 - 0.5)
        assert np.abs(corners - expected).max() < 1.5


def test_card_png_and_json_follow_the_standard(tmp_path):
    png, js = tmp_path / "card.png", tmp_path / "card.json"
    assert main(["print", "card", "--players", "3", "--dpi", "150", "--out", str(png),
                 "--json", str(js)]) == 0
    data = json.loads(js.read_text())
    assert set(data) == {"width_mm", "height_mm", "slots"}
    assert [s["slot"] for s in data["slots"]] == [1, 2, 3]
    assert all(set(s) == {"slot", "bean_mm", "peep_mm"} for s in data["slots"])
    img = cv2.imread(str(png))
    assert img.shape[1] == round(data["width_mm"] * 150 / 25.4)
    assert img.shape[0] == round(data["height_mm"] * 150 / 25.4)
    # pHYs counts whole pixels per metre, so 150 dpi reads back as 150.012
    assert read_png_dpi(png.read_bytes()) == pytest.approx(150, rel=1e-4)
    # The bean spot of slot 2 is printed in the spot grey at its stated centre.
    x, y = data["slots"][1]["bean_mm"]
    assert abs(int(img[round(y * 150 / 25.4), round(x * 150 / 25.4), 0]) - 128) < 3


def _pdf_pages(data: bytes) -> tuple[list[list[float]], list[str]]:
    boxes = [[float(v) for v in m.split()] for m in re.findall(rb"/MediaBox \[([^\]]+)\]", data)]
    contents = []
    for m in re.finditer(rb"<< /Length (\d+) /Filter /FlateDecode >>\nstream\n", data):
        n = int(m.group(1))
        contents.append(zlib.decompress(data[m.end():m.end() + n]).decode("latin-1"))
    return boxes, contents


@pytest.mark.parametrize(("paper", "size_pt"), [("a4", (595.276, 841.89)),
                                                ("letter", (612.0, 792.0))])
def test_kit_pdf_pages_are_exact_with_scale_bars(tmp_path, paper, size_pt):
    out = tmp_path / "kit.pdf"
    assert main(["print", "kit", "--paper", paper, "--players", "2", "--dpi", "60",
                 "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    # Every xref offset points at its object.
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    offsets = [int(v) for v in re.findall(rb"(\d{10}) 00000 n", data[xref:])]
    for i, off in enumerate(offsets, start=1):
        assert data[off:].startswith(f"{i} 0 obj".encode())
    boxes, contents = _pdf_pages(data)
    assert len(boxes) == 3 * 2 + 1 + 2
    for box in boxes[:7]:  # tiles: landscape
        assert box[2:] == pytest.approx([size_pt[1], size_pt[0]], abs=0.01)
    for box in boxes[7:]:
        assert box[2:] == pytest.approx(list(size_pt), abs=0.01)
    bar = 100 * PT_PER_MM
    for text in contents:
        lines = re.findall(r"([\d.]+) ([\d.]+) m ([\d.]+) ([\d.]+) l S", text)
        lengths = [np.hypot(float(c) - float(a), float(d) - float(b)) for a, b, c, d in lines]
        assert any(abs(length - bar) < 0.01 for length in lengths), "no 100 mm scale bar"
    # The tile's cut hexagon is a vector path of the exact circumradius.
    first = contents[0]
    hexagon = re.search(r"((?:[\d.]+ [\d.]+ [ml] ){6})h S", first).group(1).split()
    pts = np.array([[float(hexagon[i]), float(hexagon[i + 1])] for i in range(0, 18, 3)])
    radii = np.linalg.norm(pts - pts.mean(axis=0), axis=1) / PT_PER_MM
    assert radii == pytest.approx([R_MM] * 6, abs=0.01)
    assert card_layout(2).height_mm * PT_PER_MM < size_pt[1]


def test_print_errors_are_one_line(tmp_path, capsys):
    assert main(["print", "peepwar-tile", "--id", "64", "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "0..63" in err[0]
    assert main(["print", "card", "--players", "9", "--out", "a.png", "--json", "a.json"]) == 2
    assert "1..6" in capsys.readouterr().err
    assert main(["print", "kit", "--paper", "a3", "--players", "2", "--out", "k.pdf"]) == 2
    assert "a4 or letter" in capsys.readouterr().err
    assert main(["print", "peepwar-tile", "--id", "1", "--out",
                 str(tmp_path / "missing" / "x.png")]) == 2
    assert "cannot write" in capsys.readouterr().err


# An option the item does not use: ignored, petri-board --paper a4 would print an A3 board
# without a word.
OPTIONS_NOT_TAKEN = [
    (["petri-board", "--paper", "a4", "--out", "b.png", "--json", "b.json"],
     "print petri-board takes --dpi, --out and --json, not --paper"),
    (["peloponnesian-pieces", "--out", "p.png", "--json", "p.json", "--map", "m.json"],
     "print peloponnesian-pieces takes --dpi and --out, not --json and --map"),
    (["peepwar-tile", "--id", "1", "--paper", "a4", "--out", "t.png"],
     "print peepwar-tile takes --id, --dpi and --out, not --paper"),
    (["card", "--players", "2", "--map", "m.json", "--out", "c.png", "--json", "c.json"],
     "print card takes --players, --dpi, --out and --json, not --map"),
    (["kit", "--players", "2", "--json", "k.json", "--out", "k.pdf"],
     "print kit takes --players, --dpi, --out and --paper, not --json"),
    (["charuco", "--id", "3", "--out", "c.png"], "print charuco takes --dpi and --out, not --id"),
]
# The suffix names the format: a PDF named m.png would open as nothing, or as an error.
SUFFIXES_OF_ANOTHER_FORMAT = [
    (["peloponnesian-map", "--paper", "a4", "--out", "m.png"],
     "--out m.png ends in .png, but the map on four A4 pages (--paper a4) is written as a PDF: "
     "name it m.pdf"),
    (["peloponnesian-map", "--out", "m.pdf"],
     "--out m.pdf ends in .pdf, but the map on one A3 sheet (--paper a3; a4 makes four pages "
     "as a PDF) is written as a PNG: name it m.png"),
    (["peloponnesian-map", "--out", "m.png", "--json", "m.txt"],
     "--json m.txt ends in .txt, but the map's layout is written as JSON: name it m.json"),
    (["peloponnesian-pieces", "--out", "p.pdf"],
     "--out p.pdf ends in .pdf, but the sheet of pieces is written as a PNG: name it p.png"),
    (["petri-board", "--out", "b.pdf", "--json", "b.json"],
     "--out b.pdf ends in .pdf, but the board is written as a PNG: name it b.png"),
    (["peepwar-tile", "--id", "1", "--out", "t.jpg"],
     "--out t.jpg ends in .jpg, but the tile is written as a PNG: name it t.png"),
    (["card", "--players", "2", "--out", "c.png", "--json", "c"],
     "--json c has no suffix, but the card's layout is written as JSON: name it c.json"),
    (["kit", "--players", "2", "--out", "k.png"],
     "--out k.png ends in .png, but the kit is written as a PDF: name it k.pdf"),
    (["charuco", "--out", "c.pdf"],
     "--out c.pdf ends in .pdf, but the board is written as a PNG: name it c.png"),
]


@pytest.mark.parametrize(("args", "error"), OPTIONS_NOT_TAKEN + SUFFIXES_OF_ANOTHER_FORMAT)
def test_an_option_not_taken_or_a_name_of_another_format_is_refused_before_writing(
        tmp_path, capsys, monkeypatch, args, error) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["print", *args, "--dpi", "50"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"companion print: error: {error}\n"
    assert list(tmp_path.iterdir()) == []


def test_kit_without_paper_is_an_a4_pdf(tmp_path, capsys) -> None:
    out = tmp_path / "kit.pdf"
    assert main(["print", "kit", "--players", "1", "--dpi", "50", "--out", str(out)]) == 0
    assert "a4 pages" in capsys.readouterr().out
    boxes, _ = _pdf_pages(out.read_bytes())
    assert boxes[-1][2:] == pytest.approx([595.276, 841.89], abs=0.01)


def _plain_sheet(args) -> Printed:
    return Printed(f"sheet written to {args.out}", (("the sheet", args.out, b"sheet\n"),))


class _SheetGame(Game):
    name = "sheetonly"
    title = "Sheet only"
    ruleset = Ruleset
    printables = (("plain-sheet", "a sheet with no dpi", f"{__name__}:_plain_sheet", ("out",)),)


def test_a_game_sheet_that_takes_no_dpi_prints(tmp_path, capsys) -> None:
    games.register(_SheetGame())
    try:
        assert main(["print", "plain-sheet", "--out", str(tmp_path / "s.txt")]) == 0
    finally:
        games.unregister(_SheetGame.name)
    assert capsys.readouterr().out == f"sheet written to {tmp_path / 's.txt'}\n"
    assert (tmp_path / "s.txt").read_bytes() == b"sheet\n"


@pytest.mark.parametrize(("takes", "error"), [
    (("out", "players"), "'players' is no option of a game's sheet; they are dpi, out, json, "
                         "paper and map"),
    (("paper",), "'paper' needs its help given, (name, help): what it takes and its default"),
])
def test_a_game_sheet_listing_an_option_it_cannot_take_is_refused_at_its_class(
        takes, error) -> None:
    with pytest.raises(TypeError) as e:
        type("Bad", (Game,), {"printables": (("bad", "a bad sheet", "x:y", takes),)})
    assert str(e.value) == f"Bad.printables, bad: {error}"


def test_every_option_a_game_sheet_takes_has_help_but_paper_its_own() -> None:
    assert set(GAME_SHEET_HELP) == set(SHEET_OPTIONS) - {"paper"}


@pytest.mark.parametrize("out", ["k" * 5000, "k." + "x" * 5000, "d/" * 2500])
def test_a_runaway_out_of_another_format_is_named_once_and_cut(tmp_path, capsys, monkeypatch,
                                                               out: str) -> None:
    # The name was said twice, whole: once as given and once with the suffix put right.
    monkeypatch.chdir(tmp_path)
    assert main(["print", "peepwar-tile", "--id", "1", "--out", out, "--dpi", "50"]) == 2
    out_text, err = capsys.readouterr()
    assert out_text == "" and err.count("\n") == 1 and len(err) < 400, err
    assert err.endswith("name it a file ending in .png\n") and "…" in err, err
    assert list(tmp_path.iterdir()) == []
