"""detect, calibrate and calibrate-camera from the command line, bad input included."""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.charuco import board_image, board_size_mm
from calibration.profile import PROFILE_VERSION, load_profile
from companion.cli import main
from companion.rules.peepwar.board import cells_of
from vision.render import SceneSpec, render_scene
from vision.render.camera import distort_image, look_at_homography
from vision.render.card_scene import hue_colour, peep_cutout, render_card_scene

PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos" / "jellybeans"


def _one_line_error(capsys, *needles: str) -> None:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    for n in needles:
        assert n in err[0], err[0]


@pytest.fixture
def profile(tmp_path) -> Path:
    p = tmp_path / "profile.json"
    p.write_text(json.dumps({"version": PROFILE_VERSION, "players": [], "colours": {}}))
    return p


def test_detect_prints_the_observation(tmp_path, profile, capsys):
    scene = render_scene(12, SceneSpec(hands=(0, 0)))
    img = tmp_path / "frame.jpg"
    cv2.imwrite(str(img), scene.frame)
    assert main(["detect", str(img), "--game", "peepwar", "--profile", str(profile)]) == 0
    obs = json.loads(capsys.readouterr().out)
    assert obs["game"] == "peepwar"
    # No players' colours in the profile: pieces cannot be read, so no cell is called empty.
    seen_cells = {c for t in obs["tiles"] for c in cells_of((t["q"], t["r"]))}
    assert obs["cells"] == {c: {"occluded": True} for c in seen_cells}
    assert any("no players' colours" in w for w in obs["warnings"])
    got = {(t["id"], t["q"], t["r"]) for t in obs["tiles"]}
    want = {(t.tile_id, t.q, t.r) for t in scene.truth.tiles if t.visible_slots}
    assert got == want
    assert 0 < obs["confidence"] <= 1 and "tiles" in obs["timings_ms"]


def test_detect_black_frame_gives_empty_observation_and_warning(tmp_path, profile, capsys):
    img = tmp_path / "black.png"
    cv2.imwrite(str(img), np.zeros((480, 640, 3), np.uint8))
    assert main(["detect", str(img), "--profile", str(profile)]) == 0
    captured = capsys.readouterr()
    obs = json.loads(captured.out)
    assert obs["tiles"] == [] and any("almost black" in w for w in obs["warnings"])
    assert len(captured.err.strip().splitlines()) == 1


def test_detect_no_tiles_in_view(tmp_path, profile, capsys):
    img = tmp_path / "table.png"
    rng = np.random.default_rng(1)
    table = cv2.resize(rng.integers(40, 200, (12, 16, 3), np.uint8), (640, 480))
    cv2.imwrite(str(img), table)
    assert main(["detect", str(img), "--profile", str(profile)]) == 0
    obs = json.loads(capsys.readouterr().out)
    assert obs["tiles"] == [] and obs["warnings"] == [
        "no tiles in view: check that the camera sees the table and the tiles are lit"]


def test_detect_truncated_image(tmp_path, profile, capsys):
    good = tmp_path / "good.jpg"
    cv2.imwrite(str(good), render_scene(1, SceneSpec(size=(640, 480))).frame)
    bad = tmp_path / "cut.jpg"
    bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    assert main(["detect", str(bad), "--profile", str(profile)]) == 2
    _one_line_error(capsys, "truncated")
    png = tmp_path / "cut.png"
    ok, buf = cv2.imencode(".png", np.zeros((50, 50, 3), np.uint8))
    png.write_bytes(buf.tobytes()[:-30])
    assert main(["detect", str(png), "--profile", str(profile)]) == 2
    _one_line_error(capsys, "truncated")
    text = tmp_path / "notes.jpg"
    text.write_text("not a picture")
    assert main(["detect", str(text), "--profile", str(profile)]) == 2
    _one_line_error(capsys, "not an image")
    assert main(["detect", str(tmp_path / "nope.jpg"), "--profile", str(profile)]) == 2
    _one_line_error(capsys, "not found")


@pytest.mark.parametrize("args, words", [
    (["--home", "red=0"], ["--home: Peep War's reader takes no --home", "petri"]),
    (["--game", "petri", "--map", "greece.json"], ["--map: Petri's reader takes no --map",
                                                   "peloponnesian"]),
])
def test_detect_refuses_an_option_its_game_does_not_take(tmp_path, profile, capsys, args,
                                                        words):
    # Taken quietly, it would be ignored: the reading would not be what was asked for.
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.zeros((48, 64, 3), np.uint8))
    assert main(["detect", str(frame), "--profile", str(profile), *args]) == 2
    _one_line_error(capsys, *words)


@pytest.mark.parametrize("ext", [".jpg", ".png"])
def test_detect_reads_a_photo_with_data_after_the_picture(tmp_path, profile, capsys, ext):
    # Phones append data after the picture (a motion photo's video, maker trailers); such
    # photos were once refused as truncated because the end marker was not near the end.
    frame = render_scene(1, SceneSpec(size=(640, 480))).frame
    picture = cv2.imencode(ext, frame)[1].tobytes()
    # The trailer holds an end marker of each kind, as an appended video or thumbnail may.
    trailer = b"ftypmp42" + np.random.default_rng(5).bytes(4096) + b"\xff\xd9IEND"
    whole = tmp_path / f"phone{ext}"
    whole.write_bytes(picture + trailer)
    assert main(["detect", str(whole), "--profile", str(profile)]) == 0
    assert json.loads(capsys.readouterr().out)["tiles"]  # the picture itself was read
    # The same picture cut short is still refused, trailer or not.
    for cut in (picture[:len(picture) // 2], picture[:-3], picture[:len(picture) // 2] + trailer):
        short = tmp_path / f"short{ext}"
        short.write_bytes(cut)
        assert main(["detect", str(short), "--profile", str(profile)]) == 2
        _one_line_error(capsys, "truncated")


def _tiff_header(order: str, width: int, height: int, big: bool = False) -> bytes:
    """The header of a TIFF (or BigTIFF) of one 8-bit grey strip of width x height, its
    pixels to follow right after."""
    end = "little" if order == "II" else "big"

    def n(v: int, size: int) -> bytes:
        return v.to_bytes(size, end)

    def directory(pixels_at: int) -> bytes:
        tags = [(256, long_kind, width), (257, 3, height), (258, 3, 8), (259, 3, 1),
                (262, 3, 1), (273, long_kind, pixels_at), (277, 3, 1),
                (278, long_kind, height), (279, long_kind, width * height)]
        return n(len(tags), 8 if big else 2) + b"".join(
            n(tag, 2) + n(kind, 2) + n(1, count_size)
            + (n(v, 2) + bytes(value_size - 2) if kind == 3 else n(v, value_size))
            for tag, kind, v in tags) + bytes(value_size)

    long_kind, count_size, value_size = (16, 8, 8) if big else (4, 4, 4)
    head = order.encode() + (n(43, 2) + n(8, 2) + n(0, 2) + n(16, 8) if big
                             else n(42, 2) + n(8, 4))
    return head + directory(len(head) + len(directory(0)))


def _huge_headers() -> dict[str, bytes]:
    """Small files whose headers claim pictures of 256 megapixels or more, one per format
    whose size the reader reads."""
    webp_lossy = bytearray(cv2.imencode(".webp", np.zeros((64, 64, 3), np.uint8),
                                        [cv2.IMWRITE_WEBP_QUALITY, 80])[1].tobytes())
    assert webp_lossy[12:16] == b"VP8 "
    webp_lossy[26:30] = (16000).to_bytes(2, "little") * 2  # frame width and height

    def riff(chunk: bytes) -> bytes:
        return b"RIFF" + (len(chunk) + 4).to_bytes(4, "little") + b"WEBP" + chunk

    side = (15999).to_bytes(3, "little")
    return {
        "tiff-intel.tif": _tiff_header("II", 30000, 30000) + bytes(64),
        "tiff-motorola.tiff": _tiff_header("MM", 30000, 30000) + bytes(64),
        "bigtiff.tif": _tiff_header("II", 30000, 30000, big=True) + bytes(64),
        "lossy-webp-named.jpg": bytes(webp_lossy),
        "lossless.webp": riff(b"VP8L" + (5).to_bytes(4, "little") + b"\x2f"
                              + (15999 | 15999 << 14).to_bytes(4, "little")),
        "extended.webp": riff(b"VP8X" + (10).to_bytes(4, "little") + bytes(4) + side + side),
        "top-down.bmp": b"BM" + bytes(12) + (40).to_bytes(4, "little")
                        + (20000).to_bytes(4, "little") + (-20000).to_bytes(4, "little",
                                                                             signed=True)
                        + bytes(64),
        "screen.gif": b"GIF89a" + (20000).to_bytes(2, "little") * 2 + bytes(64),
    }


@pytest.mark.parametrize("name", sorted(_huge_headers()))
def test_detect_refuses_a_huge_picture_of_any_format_before_decoding(tmp_path, profile,
                                                                      capsys, name):
    # Once only PNG and JPEG sizes were read: a 1.8 MB LZW TIFF of 30000x30000 was decoded
    # into gigabytes of memory. The headers here alone are the file.
    img = tmp_path / name
    img.write_bytes(_huge_headers()[name])
    assert main(["detect", str(img), "--profile", str(profile)]) == 2
    _one_line_error(capsys, str(img), "more than 80 megapixels")


def test_detect_reads_tiff_webp_bmp_and_refuses_formats_of_unknown_size(tmp_path, profile,
                                                                        capsys):
    frame = render_scene(1, SceneSpec(size=(640, 480))).frame
    for ext in (".tif", ".webp", ".bmp"):
        img = tmp_path / f"frame{ext}"
        img.write_bytes(cv2.imencode(ext, frame)[1].tobytes())
        assert main(["detect", str(img), "--profile", str(profile)]) == 0, ext
        assert json.loads(capsys.readouterr().out)["tiles"], ext
    for big in (False, True):  # big-endian, as some cameras write
        img = tmp_path / "motorola.tif"
        img.write_bytes(_tiff_header("MM", 640, 480, big) + bytes(640 * 480))
        assert main(["detect", str(img), "--profile", str(profile)]) == 0
        assert any("almost black" in w for w in json.loads(capsys.readouterr().out)["warnings"])
    # A PPM's size is not read before decoding, so it is not decoded at all.
    img = tmp_path / "frame.ppm"
    img.write_bytes(cv2.imencode(".ppm", frame)[1].tobytes())
    assert main(["detect", str(img), "--profile", str(profile)]) == 2
    _one_line_error(capsys, "frame.ppm is not an image this program reads "
                    "(JPEG, PNG, TIFF, WebP, BMP or GIF)")


def _png_claiming(width: int, height: int) -> bytes:
    """A valid 1x1 PNG whose header (IHDR, CRC fixed) claims width x height."""
    png = bytearray(cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes())
    png[16:24] = width.to_bytes(4, "big") + height.to_bytes(4, "big")
    png[29:33] = zlib.crc32(bytes(png[12:29])).to_bytes(4, "big")  # over type and data
    return bytes(png)


def test_a_camera_folder_skips_a_huge_picture_with_a_note(tmp_path):
    # Once the folder source decoded with cv2.imread, past the image module's size checks.
    from companion.frames import FolderSource

    (tmp_path / "a-bomb.png").write_bytes(_png_claiming(30000, 30000))
    good = np.full((120, 160, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "b-good.png"), good)
    source = FolderSource(tmp_path)
    assert source.read() is None
    assert source.faults == 1
    assert source.status().message == (
        f"skipped a-bomb.png: image {tmp_path / 'a-bomb.png'} is 30000x30000, "
        "more than 80 megapixels: use a smaller photo")
    assert np.array_equal(source.read(), good)
    assert source.status().message == "image 2 of 2: b-good.png"
    assert source.read() is None and source.finished


# The smallest GIF there is: 1x1, one colour (OpenCV reads GIFs too).
GIF_1X1 = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00"
           b"\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


@pytest.mark.parametrize(("name", "shape"), [
    ("dot.png", (1, 1)), ("row.png", (1, 4000)), ("column.png", (4000, 1)),
    ("small.jpg", (63, 640)), ("dot.gif", None)])
@pytest.mark.parametrize("command", ["detect", "calibrate"])
def test_tiny_or_thin_photo_is_refused_in_one_line(tmp_path, profile, capsys, name, shape,
                                                    command):
    # Once a traceback from cv2.resize: the marker search shrank a side to 0 pixels.
    img = tmp_path / name
    if shape is None:
        img.write_bytes(GIF_1X1)
        shape = (1, 1)
    else:
        cv2.imwrite(str(img), np.full((*shape, 3), 128, np.uint8))
    args = (["--profile", str(profile)] if command == "detect"
            else ["--players", "red,blue", "--out", str(tmp_path / "p.json")])
    assert main([command, str(img), *args]) == 2
    _one_line_error(capsys, f"is {shape[1]}x{shape[0]}, too small", "at least 64 pixels")


def test_marker_search_takes_a_frame_one_pixel_thin():
    # Callers other than the CLI hand frames straight in; shrinking must not reach 0 px.
    from vision.markers import detect_markers
    for shape in [(1, 4000, 3), (4000, 1, 3), (1, 1, 3)]:
        assert len(detect_markers(np.zeros(shape, np.uint8))) == 0


def test_detect_refuses_other_profile_versions(tmp_path, capsys):
    img = tmp_path / "f.png"
    cv2.imwrite(str(img), np.zeros((100, 100, 3), np.uint8))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"version": 2, "players": []}))
    assert main(["detect", str(img), "--profile", str(old)]) == 2
    _one_line_error(capsys, "version 2 profile", "version 1")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["detect", str(img), "--profile", str(broken)]) == 2
    _one_line_error(capsys, "not valid JSON")
    assert main(["detect", str(img)]) == 2
    _one_line_error(capsys, "--profile")
    assert main(["detect", str(img), "--game", "chess", "--profile", str(old)]) == 2
    _one_line_error(capsys, "--game")


ZEROS = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
NANS = [[math.nan] * 3] * 3
LENS = [[900, 0, 640], [0, 900, 360], [0, 0, 1]]


@pytest.mark.parametrize(("camera", "words"), [
    # Once ZeroDivisionError in Intrinsics.for_size.
    ({"camera_matrix": ZEROS, "dist_coeffs": [0.1, 0, 0, 0], "size": [0, 0]},
     "camera size [0, 0] must be positive"),
    # Once numpy's "SVD did not converge" while finding tiles.
    ({"camera_matrix": ZEROS, "dist_coeffs": [0.1, 0, 0, 0], "size": [160, 120]},
     "camera focal lengths must be positive"),
    ({"camera_matrix": NANS, "dist_coeffs": [0.1, 0, 0, 0], "size": [160, 120]},
     "camera intrinsics hold NaN or Infinity"),
    ({"camera_matrix": LENS, "dist_coeffs": [math.inf, 0, 0, 0], "size": [1280, 720]},
     "camera intrinsics hold NaN or Infinity"),
    ({"camera_matrix": LENS, "dist_coeffs": [0.1, 0, 0, 0], "size": [math.inf, 720]},
     "camera size must be [width, height] in whole pixels"),
    ({"camera_matrix": [[10**400, 0, 640], [0, 900, 360], [0, 0, 1]],
      "dist_coeffs": [0.1, 0, 0, 0], "size": [1280, 720]}, "a number too large"),
    ({"camera_matrix": [[900, 0, 640], [0, 900, 360], [1, 1, 1]],
      "dist_coeffs": [0.1, 0, 0, 0], "size": [1280, 720]}, "camera matrix is not a camera's"),
])
def test_detect_refuses_damaged_camera_intrinsics_in_one_line(tmp_path, capsys, camera,
                                                               words):
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), render_scene(12, SceneSpec(hands=(0, 0))).frame)  # tiles in view
    damaged = tmp_path / "profile.json"
    damaged.write_text(json.dumps({"version": PROFILE_VERSION, "players": [], "colours": {},
                                   "camera": camera}))
    assert main(["detect", str(img), "--profile", str(damaged)]) == 2
    _one_line_error(capsys, f"profile {damaged} is damaged", words)


GOOD_COV = [[40.0, 0, 0], [0, 40.0, 0], [0, 0, 40.0]]


@pytest.mark.parametrize(("bean", "words"), [
    # Once read without complaint: every distance NaN, so the frame read "no pieces".
    ({"mean": [math.nan, 20.0, 5.0], "cov": GOOD_COV}, "holds NaN or Infinity"),
    ({"mean": [60.0, 20.0, 5.0], "cov": [[math.inf, 0, 0], [0, 1, 0], [0, 0, 1]]},
     "holds NaN or Infinity"),
    ({"mean": [60.0, 20.0, 5.0], "cov": [[0.0] * 3] * 3}, "not positive definite"),
    ({"mean": [60.0, 20.0, 5.0], "cov": [[-4.0, 0, 0], [0, 4, 0], [0, 0, 4]]},
     "not positive definite"),
    # Once an OverflowError traceback: an integer past the float range, and Infinity pixels.
    ({"mean": [60.0, 20.0, 5.0], "cov": [[10**400, 0, 0], [0, 40.0, 0], [0, 0, 40.0]]},
     "a number too large"),
    ({"mean": [60.0, 20.0, 5.0], "cov": GOOD_COV, "pixels": math.inf},
     "pixels must be a whole number"),
])
def test_detect_refuses_a_damaged_colour_model_in_one_line(tmp_path, capsys, bean, words):
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), render_scene(12, SceneSpec(hands=(0, 0))).frame)
    damaged = tmp_path / "profile.json"
    good = {"mean": [50.0, -10.0, 30.0], "cov": GOOD_COV}
    damaged.write_text(json.dumps({"version": PROFILE_VERSION, "players": ["red", "blue"],
                                   "colours": {"red": {"bean": bean},
                                               "blue": {"bean": good}}}))
    assert main(["detect", str(img), "--profile", str(damaged)]) == 2
    _one_line_error(capsys, f"profile {damaged} is damaged", words)


def _card_beans() -> list:
    """Two real beans (a tangerine and a lemon-lime one) cut from the jellybean photos."""
    from vision.render.cutouts import cut_beans

    return [cut_beans(cv2.imread(str(PHOTOS / f"{f}.jpg")))[0]
            for f in ("sunkist_tangerine-DSC_0007", "lemon_lime-DSC_0503")]


def _card_photo(path, beans: list) -> None:
    cv2.imwrite(str(path), render_card_scene(9, beans, [hue_colour(330), hue_colour(220)], 3200))


@pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"jellybean photos not found at {PHOTOS}")
def test_calibrate_writes_a_versioned_profile_and_refuses_lookalikes(tmp_path, capsys):
    beans = _card_beans()
    photo = tmp_path / "card.jpg"
    _card_photo(photo, beans)
    out = tmp_path / "p.json"
    egg = {"players": {"red": [0.55, 0.25, 0.22]}, "max_distance": 0.06}  # from calibrate-egg
    out.write_text(json.dumps({"version": 1, "players": [], "colours": {}, "egg": egg}))
    assert main(["calibrate", str(photo), "--players", "red,blue", "--out", str(out)]) == 0
    assert "(egg colours kept)" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["version"] == 1 and data["players"] == ["red", "blue"]
    assert data["egg"] == egg
    assert set(data["colours"]["red"]) == {"bean", "peep"}
    assert load_profile(out).colours["blue"].bean.pixels > 100
    capsys.readouterr()
    _card_photo(photo, [beans[0], beans[0]])
    assert main(["calibrate", str(photo), "--players", "red,blue", "--out", str(out)]) == 2
    _one_line_error(capsys, "too alike")
    assert main(["calibrate", str(photo), "--players", "red,red", "--out", str(out)]) == 2
    _one_line_error(capsys, "twice")


@pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"jellybean photos not found at {PHOTOS}")
def test_calibrate_never_replaces_a_game_log_or_photo_named_as_out(tmp_path, capsys):
    # A slip of the tab key (--out games.sqlite) replaced the game log with a profile, with
    # only a warning: the game was lost.
    import sqlite3

    from companion.gamelog import GameLog
    from companion.rules.peepwar import PeepWar, PlaceTile

    photo = tmp_path / "card.jpg"
    _card_photo(photo, _card_beans())
    log = tmp_path / "games.sqlite"
    with GameLog(log) as games:
        games.new_game(PeepWar()).play(PlaceTile("red", 1, 0))
    layout = tmp_path / "card.json"
    layout.write_text(json.dumps({"spots": [[1, 2]], "size_mm": [100, 150]}))
    settings = tmp_path / "settings.toml"
    settings.write_text("[server]\nport = 8080\n")
    for out, words in [(log, "not text"), (photo, "not text"), (tmp_path, "cannot be read"),
                       (layout, "no profile's"), (settings, "not JSON")]:
        before = out.read_bytes() if out.is_file() else None
        assert main(["calibrate", str(photo), "--players", "red,blue", "--out", str(out)]) == 2
        _one_line_error(capsys, "is not a colour profile", words, "nothing was written")
        assert (out.read_bytes() if out.is_file() else None) == before
    with sqlite3.connect(log) as db:
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1
    damaged = tmp_path / "p.json"  # a profile cut short is still replaced
    damaged.write_text('{"version": 1, "players": ["red"')
    assert main(["calibrate", str(photo), "--players", "red,blue", "--out", str(damaged)]) == 0
    assert load_profile(damaged).players == ["red", "blue"]


def _charuco_views(k: np.ndarray, dist: np.ndarray, size: tuple[int, int]) -> list[np.ndarray]:
    """Photos of the board from several angles through one lens."""
    s = 4.0
    art = board_image(s)
    bw, bh = board_size_mm()
    to_mm = np.array([[1 / s, 0, 0.5 / s - 20], [0, 1 / s, 0.5 / s - 20], [0, 0, 1]])
    world = cv2.copyMakeBorder(art, 80, 80, 80, 80, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    views = []
    poses = [(0, 0, 0, 0), (30, 0, 60, 40), (30, 90, -60, 40), (35, 200, 60, -40),
             (25, 300, -60, -40), (40, 45, 0, 0)]
    for i, (tilt, yaw, dx, dy) in enumerate(poses):
        # Aim beside the board's centre now and then, so it covers the frame's edges too.
        target = np.array([bw / 2 + dx, bh / 2 + dy])
        hom = look_at_homography(k, target, 330.0, math.radians(tilt),
                                 math.radians(yaw), math.radians(15 * i))
        frame = cv2.warpPerspective(world, hom @ to_mm, size, flags=cv2.INTER_LINEAR,
                                    borderValue=(90, 90, 90))
        views.append(distort_image(frame, k, dist))
    return views


def test_calibrate_camera_recovers_the_lens(tmp_path, capsys):
    size = (960, 720)
    k = np.array([[820.0, 0, 479.5], [0, 820.0, 359.5], [0, 0, 1]])
    dist = np.array([-0.2, 0.05, 0.0, 0.0, 0.0])
    paths = []
    for i, view in enumerate(_charuco_views(k, dist, size)):
        paths.append(tmp_path / f"v{i}.png")
        cv2.imwrite(str(paths[-1]), view)
    prof = tmp_path / "cam.json"
    egg = {"players": {"red": [0.55, 0.25, 0.22]}, "max_distance": 0.06}  # from calibrate-egg
    prof.write_text(json.dumps({"version": 1, "players": [], "colours": {}, "egg": egg}))
    assert main(["calibrate-camera", *map(str, paths), "--profile", str(prof)]) == 0
    assert json.loads(prof.read_text())["egg"] == egg
    assert "camera calibrated from 6 of 6 photos" in capsys.readouterr().out
    intr = load_profile(prof).intrinsics
    assert intr.camera_matrix[0, 0] == pytest.approx(820, rel=0.03)
    assert intr.camera_matrix[0, 2] == pytest.approx(479.5, abs=15)
    # The lens model, judged by what it does: ideal points across the middle of the frame
    # map to where the true lens puts them, within a pixel.
    from vision.lens import distort_points

    grid = np.stack(np.meshgrid(np.linspace(240, 720, 8), np.linspace(150, 570, 6)), -1)
    ideal = grid.reshape(-1, 2)
    fitted = distort_points(ideal, intr.camera_matrix, intr.dist_coeffs)
    true = distort_points(ideal, k, dist)
    assert np.abs(fitted - true).max() < 1.5
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 960, 3), 200, np.uint8))
    assert main(["calibrate-camera", str(blank), str(paths[0]), "--profile", str(prof)]) == 2
    _one_line_error(capsys, "found in 1 of 2 photos")


def test_peep_understudy_shape():
    cut = peep_cutout(hue_colour(55), np.random.default_rng(0), 4.0)
    ys, xs = np.nonzero(cut.alpha > 0.5)
    assert (ys.max() - ys.min()) / 4.0 == pytest.approx(60, abs=2)
    assert (xs.max() - xs.min()) / 4.0 == pytest.approx(35, abs=2)
