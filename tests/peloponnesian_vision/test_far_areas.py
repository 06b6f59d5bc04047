"""Far, coarse areas of the printed map: read, not reported occluded; a name covered by
something as pale as paper still is; a dark square that is not a code is not a chit."""

from __future__ import annotations

import cv2
import numpy as np

from vision.peloponnesian.art import code_image
from vision.peloponnesian.layout import NAME_BAND_MM, map_layout
from vision.peloponnesian.read import MapView, frame_scale, read_code, read_map
from vision.render.peloponnesian import render_table

LAY = map_layout(None)
AREAS = list(LAY.areas)
CITIES = ("athens", "sparta", "thebes")
# A counter or two in every area, a face-down chit in every third.
EVERYWHERE = {"counters": {a: {CITIES[i % 3]: 1 + (i // 3) % 2} for i, a in enumerate(AREAS)},
              "chits": {a: [{"player": CITIES[(i + 1) % 3], "type": "hidden"}]
                        for i, a in enumerate(AREAS) if i % 3 == 0}}


def _wrong(data: dict, table: dict) -> list[str]:
    bad = []
    for a in AREAS:
        got = data["areas"].get(a, {})
        chits = sorted((c["type"], c["player"]) for c in got.get("chits", []))
        want = sorted((c["type"], c["player"]) for c in table["chits"].get(a, []))
        if got.get("occluded") or got.get("counters", {}) != table["counters"].get(a, {}) \
                or chits != want:
            bad.append(a)
    return bad


def test_far_areas_under_a_warm_lamp_are_read() -> None:
    # Tilted 42 degrees under a 3000 K lamp: seven areas at under 1 px/mm, where blur mixes a
    # counter's colour with its border and letter (a blue counter looks grey-blue).
    frame = render_table(EVERYWHERE, 52, hand=False, max_tilt_deg=45, kelvin=3000)
    view = MapView(frame.homography, 0)
    far = [a for a in AREAS if frame_scale(view, LAY.areas[a].centre) < 1.0]
    assert len(far) >= 5
    data = read_map(frame.image, LAY).data
    assert _wrong(data, EVERYWHERE) == []


def _paper_over_name(image: np.ndarray, frame, area: str) -> np.ndarray:
    """The frame with the area's name band covered by a patch of its own paper's colour."""
    x0, y0, x1, _ = LAY.areas[area].box
    band = np.array([[[x0, y0], [x1, y0], [x1, y0 + NAME_BAND_MM], [x0, y0 + NAME_BAND_MM]]])
    pts = cv2.perspectiveTransform(band.astype(np.float64), frame.homography)[0]
    below = cv2.perspectiveTransform(np.array([[[x0 + 45, y0 + 22]]], np.float64),
                                     frame.homography)[0, 0]
    x, y = np.round(below).astype(int)
    paper = np.median(image[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3), axis=0)
    out = image.copy()
    cv2.fillConvexPoly(out, np.round(pts).astype(np.int32), paper.tolist(), cv2.LINE_AA)
    return out


def test_a_name_under_a_pale_cover_is_occluded_and_only_that_one() -> None:
    table = {"counters": {"attica": {"athens": 1}}, "chits": {}}
    frame = render_table(table, 3, hand=False, max_tilt_deg=20)
    covered = _paper_over_name(frame.image, frame, "attica")
    data = read_map(covered, LAY).data
    assert data["areas"]["attica"] == {"occluded": True}
    assert [a for a, r in data["areas"].items() if r.get("occluded")] == ["attica"]
    assert read_map(frame.image, LAY).data["areas"]["attica"] == {"counters": {"athens": 1}}


def test_a_dark_square_with_a_gap_in_its_border_is_not_a_chit() -> None:
    quad = np.array([[10, 10], [60, 10], [60, 60], [10, 60]], np.float32)
    img = code_image("military", 10).astype(np.float32) / 255
    assert read_code(img, quad)[0] == "military"
    img[25:35, 10:20] = 1.0  # one module of the border is paper: not a printed code
    assert read_code(img, quad)[0] is None
