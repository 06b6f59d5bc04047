"""The table's colours and the disc size on drawn photos (real OpenCV, no renderer).

A patterned table is several colours, not one wide one; the disc size comes from
size hypotheses scored by the round rims they explain when the piece mask is
split by painted marks.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.peltapeeps import colours, discs, read, rims
from vision.render.light import to_srgb
from vision.render.peltapeeps import TEAM_COLOURS, linear_colour, profile_for_teams
from vision.srgb import SRGB_TO_LINEAR


def _noisy(lin: np.ndarray, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return to_srgb(np.clip(lin + rng.normal(0, 0.008, lin.shape).astype(np.float32), 0, 1))


def _chroma_of(lin_bgr: tuple[float, float, float]) -> np.ndarray:
    f = discs.features(to_srgb(np.array([[lin_bgr]], np.float32)))
    return f[0, 0]


def test_a_check_of_two_colours_is_two_colours_not_all_between() -> None:
    # Red-ish and blue-ish checks: one colour fitted to them has its median between
    # them and a spread reaching both, so a purple piece would be "table".
    red, blue, purple = (0.08, 0.1, 0.5), (0.5, 0.1, 0.08), (0.3, 0.08, 0.3)
    lin = np.zeros((300, 400, 3), np.float32)
    for y in range(0, 300, 25):
        for x in range(0, 400, 25):
            lin[y:y + 25, x:x + 25] = red if (x + y) // 25 % 2 else blue
    table = discs.table_model(discs.features(_noisy(lin)))
    assert table.modes is not None and len(table.modes) >= 2
    for colour, want in ((red, True), (blue, True), (purple, False)):
        f = _chroma_of(colour)
        assert bool(discs.is_table(f[None, :2], f[None, 2], table)[0]) is want, colour
    # The old single-colour test called the purple table: the reason for the modes.
    one = discs.TableModel(table.chroma, table.spread, table.light_hi, table.light)
    f = _chroma_of(purple)
    assert bool(discs.is_table(f[None, :2], f[None, 2], one)[0])


def test_printed_shapes_on_a_plain_ground_are_table_and_a_plain_table_is_one_colour() -> None:
    grey, magenta = (0.2, 0.2, 0.2), (0.45, 0.1, 0.45)
    lin = np.full((300, 400, 3), grey, np.float32)
    plain = discs.table_model(discs.features(_noisy(lin)))
    assert plain.modes is None
    for x in range(10, 400, 60):
        for y in (6, 294):
            cv2.circle(lin, (x, y), 14, magenta, -1)
    for y in range(40, 280, 60):
        for x in (6, 394):
            cv2.circle(lin, (x, y), 14, magenta, -1)
    table = discs.table_model(discs.features(_noisy(lin)))
    assert table.modes is not None
    f = _chroma_of(magenta)
    assert bool(discs.is_table(f[None, :2], f[None, 2], table)[0])
    f = _chroma_of(grey)
    assert bool(discs.is_table(f[None, :2], f[None, 2], table)[0])


def test_disc_size_from_rims_when_painted_dots_split_the_mask() -> None:
    # Discs 48 px across their radius, densely painted with white dots, on a light
    # table: the mask's distance peaks sit between the dots, far below a radius.
    teams = ("red", "blue")
    lin = np.full((750, 1000, 3), (0.55, 0.6, 0.62), np.float32)
    radius = 48
    centres = [(250, 250, 0), (346, 250, 1), (298, 333, 0), (600, 400, 1), (696, 400, 0),
               (500, 560, 1), (800, 560, 0)]
    for x, y, t in centres:
        cv2.circle(lin, (x, y), radius, linear_colour(TEAM_COLOURS[teams[t]]).tolist(), -1,
                   cv2.LINE_AA)
        for dx in range(-30, 31, 10):
            for dy in range(-30, 31, 10):
                if dx * dx + dy * dy <= 30 * 30:
                    cv2.circle(lin, (x + dx, y + dy), 3, (0.9, 0.9, 0.9), -1)
    small = _noisy(lin)
    feats = discs.features(small)
    table = discs.table_model(feats)
    from_mask = discs.estimate_radius(discs.piece_mask(feats, table))
    assert from_mask is not None and from_mask < 0.6 * radius  # the failure being fixed
    models = colours.team_models(profile_for_teams({t: TEAM_COLOURS[t] for t in teams}))
    lut = colours.chroma_table(models)
    size = read._disc_size(small, models, lut, table, from_mask)
    assert 0.8 * radius < size < 1.25 * radius
    # A mask that agrees with the hypotheses is kept as it is.
    assert read._disc_size(small, models, lut, table, 0.95 * radius) == 0.95 * radius


def _kept_when_washed(teams: tuple[str, str], washed: np.ndarray, share: float
                      ) -> Callable[..., bool]:
    """A disc of ``teams[0]`` whose right side a reflection washes (``share`` of the light
    of colour ``washed``, linear BGR) on a grey table; whether a disc read at (x, y) is
    kept (with the lamp's colour, or without it: ``washing`` False)."""
    lut = colours.chroma_table(colours.team_models(profile_for_teams(
        {t: TEAM_COLOURS[t] for t in teams})))
    lin = np.full((300, 400, 3), (0.30, 0.32, 0.34), np.float32)
    own = linear_colour(TEAM_COLOURS[teams[0]])
    disc = np.zeros(lin.shape[:2], np.uint8)
    cv2.circle(disc, (120, 150), 40, 1, -1)
    lin[disc > 0] = own
    disc[:, :125] = 0
    lin[disc > 0] = (1 - share) * own + share * washed
    srgb = _noisy(lin)
    lin = SRGB_TO_LINEAR[srgb]
    table = discs.table_model(discs.features(srgb))
    gains = np.ones(3)

    def kept(x: float, y: float, washing: bool = True) -> bool:
        found = [rims.Disc(x, y, 38.0, 0)]
        rims.refine(lin, found, gains, lut, table)
        return bool(read._keep_discs(found, lin, table, *((gains, lut) if washing else ())))

    return kept


def test_a_disc_half_washed_by_a_reflection_is_kept_and_bare_table_is_not() -> None:
    # A window's reflection whitens one side of a glossy disc with a sharp edge: that
    # side is whiter than the disc's own acrylic, like white paint or a pale table,
    # but brighter than the rest of the disc.
    kept = _kept_when_washed(("red", "blue"), np.float32([0.95, 0.95, 0.95]), 0.7)
    assert kept(121.0, 149.0)
    assert not kept(121.0, 149.0, washing=False)  # taken for paint or table: dropped
    assert not kept(300.0, 150.0)  # bare table


def test_a_disc_washed_white_by_a_lamp_of_another_colour_is_kept(monkeypatch) -> None:
    # Two lights: the white balance is set by the window, and a warm lamp's reflection
    # washes one side of a green disc near white, but a warm white, off green's own glare
    # line (nearer another team's). That side is still the disc's acrylic under glare.
    kept = _kept_when_washed(("green", "orange"), np.float32([0.80, 0.93, 0.99]), 0.9)
    assert kept(121.0, 149.0)
    assert not kept(300.0, 150.0)  # bare table
    # Counting as washed only samples on the disc's own glare line drops the disc.
    monkeypatch.setattr(rims, "WHITE_END", 2.0)
    assert not kept(121.0, 149.0)


def test_a_table_lit_brighter_under_the_lamp_than_at_its_border_is_still_table() -> None:
    # A lamp above the middle of a pinkish table: by the pieces the table is far
    # brighter than anywhere on the photo's border. Measured against the border's
    # lightness the bright table by an orange disc was "not table" and, being nearer
    # orange than yellow, the disc's own colour: its rim vanished and it was dropped.
    teams = ("orange", "yellow")
    lut = colours.chroma_table(colours.team_models(profile_for_teams(
        {t: TEAM_COLOURS[t] for t in teams})))
    h, w = 450, 600
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pool = 0.55 + 1.1 * np.exp(-((xs - 300) ** 2 + (ys - 225) ** 2) / (2 * 170.0**2))
    lin = np.empty((h, w, 3), np.float32)
    lin[:] = (0.10, 0.05, 0.35)  # a pinkish red, linear BGR
    cv2.circle(lin, (300, 225), 40, linear_colour(TEAM_COLOURS["orange"]).tolist(), -1,
               cv2.LINE_AA)
    lin *= pool[..., None]
    srgb = _noisy(np.clip(lin, 0, 1))
    lin = SRGB_TO_LINEAR[srgb]
    feats = discs.features(srgb)
    table = discs.table_model(feats)
    centre, corner = table.shading(np.array([300.0, 5.0]), np.array([225.0, 5.0]), w, h)
    assert centre > 1.15 * corner
    # Bare table beside the disc is table; the disc itself is not.
    f = feats[225, 300 + 60]
    shade = table.shading(np.array([360.0]), np.array([225.0]), w, h)
    assert bool(discs.is_table(f[None, :2], f[None, 2] / shade, table)[0])
    f = feats[225, 300]
    assert not bool(discs.is_table(f[None, :2], f[None, 2] / table.shading(
        np.array([300.0]), np.array([225.0]), w, h), table)[0])
    gains = np.ones(3)

    def kept(model: discs.TableModel) -> list[rims.Disc]:
        found = [rims.Disc(302.0, 223.0, 38.0, 0)]
        rims.refine(lin, found, gains, lut, model)
        return read._keep_discs(found, lin, model, gains, lut)

    (disc,) = kept(table)
    assert abs(disc.x - 300) < 2 and abs(disc.y - 225) < 2 and abs(disc.r - 40) < 2.5
    assert disc.rim_share > 0.9
    flat = discs.TableModel(table.chroma, table.spread, table.light_hi, table.light,
                            table.modes, table.mode_spread)
    assert not kept(flat)  # the failure being fixed


def test_the_pale_shapes_of_a_print_are_table_though_lighter_than_its_ground() -> None:
    # Pale grey shapes printed on a magenta ground: each colour of the table has its
    # own bright end, so a grey pixel is held to the grey's, not the magenta's.
    ground, pale = (0.16, 0.05, 0.30), (0.45, 0.45, 0.45)
    lin = np.full((300, 400, 3), ground, np.float32)
    for x in range(0, 400, 50):
        lin[:, x:x + 18] = pale
    table = discs.table_model(discs.features(_noisy(lin)))
    assert table.modes is not None and table.mode_light_hi is not None
    f = _chroma_of(pale)
    assert bool(discs.is_table(f[None, :2], f[None, 2], table)[0])
    one_end = discs.TableModel(table.chroma, table.spread, table.light_hi, table.light,
                               table.modes, table.mode_spread)
    assert not bool(discs.is_table(f[None, :2], f[None, 2], one_end)[0])
