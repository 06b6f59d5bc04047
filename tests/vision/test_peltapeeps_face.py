"""Face up or down from how a disc's marks look (vision/peltapeeps/face.py), on drawn discs.

Each disc is drawn in linear light (glossy acrylic, a lamp's slope, camera grain,
a little blur) and read by the real OpenCV path, 400x400 px with the disc 150 px
across its radius (a 12 MP photo's detail).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.peltapeeps import colours, face, rims
from vision.render.peltapeeps import TEAM_COLOURS, linear_colour, profile_for_teams

SIZE, CX, CY, R = 400, 200.0, 200.0, 150.0
MM = R / 25.0  # px per mm on a 50 mm disc
OLD_PAINT_SHARE = 0.06  # the painted share the reader once took for face up


@pytest.fixture(scope="module")
def lut() -> colours.ChromaTable:
    profile = profile_for_teams({t: TEAM_COLOURS[t] for t in ("yellow", "blue")})
    return colours.chroma_table(colours.team_models(profile))


def _disc(team: str, grain: float, seed: int, blur_px: float = 1.2,
          marks: list[tuple[np.ndarray, float]] = (), ghost: np.ndarray | None = None,
          glare: float = 0.0) -> np.ndarray:
    """A disc of ``team``'s acrylic (linear light, a lamp's slope across it) with
    ``marks`` (a mask and its linear grey) painted on, or the ``ghost`` of marks
    under the sheet (a soft shade 10% darker), the lamp's white reflection
    (``glare``), then blur, grain and sRGB."""
    rng = np.random.default_rng(seed)
    acrylic = linear_colour(TEAM_COLOURS[team]).astype(np.float32)  # BGR
    ramp = np.linspace(0.75, 1.1, SIZE, dtype=np.float32)[None, :, None]
    lin = np.broadcast_to(acrylic, (SIZE, SIZE, 3)) * ramp + glare
    for mask, grey in marks:
        m = mask[..., None].astype(np.float32)
        lin = lin * (1 - m) + grey * m
    if ghost is not None:
        soft = cv2.GaussianBlur(ghost.astype(np.float32), (0, 0), 0.8 * MM)
        lin = lin * (1 - 0.10 * soft[..., None])
    lin = cv2.GaussianBlur(np.ascontiguousarray(lin), (0, 0), blur_px)
    lin = lin * (1 + grain * rng.standard_normal(lin.shape).astype(np.float32))
    return (np.clip(lin, 0, 1) ** (1 / 2.2) * 255).astype(np.uint8)


def _closed_eyes(width_mm: float) -> np.ndarray:
    """Two short straight lids, 7 mm long, ``width_mm`` wide, as a Sleeping PeltaPeep's."""
    mask = np.zeros((SIZE, SIZE), np.uint8)
    for side in (-1, 1):
        x = int(CX + side * 6.5 * MM)
        cv2.line(mask, (x, int(CY - 8 * MM)), (x, int(CY - 1 * MM)), 1,
                 max(1, round(width_mm * MM)))
    return mask.astype(bool)


def _read(frame: np.ndarray, lut: colours.ChromaTable) -> face.FaceMarks:
    return face.face_marks(frame, rims.Disc(CX, CY, R), np.ones(3), lut)


@pytest.mark.parametrize(("team", "grey"), [("yellow", 0.02), ("blue", 0.8)])
def test_closed_eyes_of_thin_lines_read_face_up(lut, team: str, grey: float) -> None:
    # Black lids on yellow, white lids on blue: thin lines that cover about 3% of
    # the centre, which the painted share alone (6% for face up) read face down.
    marks = _read(_disc(team, 0.03, 1, marks=[(_closed_eyes(1.1), grey)]), lut)
    assert marks.painted < OLD_PAINT_SHARE
    assert marks.up and marks.evidence > 0.3


@pytest.mark.parametrize(("team", "grain"), [("yellow", 0.03), ("yellow", 0.12), ("blue", 0.08)])
def test_a_plain_back_reads_face_down(lut, team: str, grain: float) -> None:
    # The sheet's grain, however coarse, is no mark: no stroke, no blurred step.
    marks = _read(_disc(team, grain, 2), lut)
    assert not marks.up and marks.evidence == -1.0


def test_a_pale_grainy_back_under_the_lamp_reads_face_down(lut) -> None:
    # The lamp's reflection washes the sheet nearly white, so its grain steps far
    # from the little colour left: a tenth of the centre "painted", read face up by
    # the painted share alone. Blurred a little, the grain is gone and no stroke shows.
    marks = _read(_disc("blue", 0.08, 4, glare=0.7), lut)
    assert marks.painted > OLD_PAINT_SHARE
    assert not marks.up and marks.evidence == -1.0


def test_paint_seen_through_the_sheet_is_not_a_face(lut) -> None:
    # Face down the eyes show faintly and softly through the acrylic.
    beak = np.hypot(*np.mgrid[-CY:SIZE - CY, -CX:SIZE - CX]) < 4 * MM
    eyes = _closed_eyes(1.1) | beak
    marks = _read(_disc("blue", 0.02, 3, ghost=eyes), lut)
    assert not marks.up and marks.evidence == -1.0


def test_a_glare_slope_is_not_paint_but_paint_is(lut) -> None:
    # A face-down disc under the lamp: far brighter on one side than the other.
    acrylic = linear_colour(TEAM_COLOURS["yellow"]) * 0.8  # BGR, linear
    ramp = np.linspace(0.0, 0.45, SIZE, dtype=np.float32)[None, :, None]
    lin = np.broadcast_to(acrylic, (SIZE, SIZE, 3)) * (0.7 + ramp) + ramp
    frame = np.ascontiguousarray((np.clip(lin, 0, 1) ** (1 / 2.2) * 255).astype(np.uint8))
    assert _read(frame, lut).evidence == -1.0
    # Face up, the same disc shows its painted eyes.
    for x in (160, 240):
        cv2.circle(frame, (x, 180), 22, (235, 235, 235), -1)
        cv2.circle(frame, (x + 6, 180), 9, (20, 20, 20), -1)
    assert _read(frame, lut).evidence == 1.0
