"""Colour calibration on rendered cards carrying real bean pixels, under three lights."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.colour import (
    MIN_SEPARATION,
    CalibrationError,
    calibrate_colours,
    features,
    linear,
    piece_features,
    read_card,
    separation,
)
from vision.card_art import BEAN_SPOT_R_MM
from vision.render.card_scene import hue_colour, render_card_scene
from vision.render.cutouts import Cutout, cut_beans

PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos" / "jellybeans"
pytestmark = pytest.mark.skipif(
    not PHOTOS.is_dir(), reason=f"real jellybean photos not found at {PHOTOS} (../shared)"
)

FLAVOURS = ["watermelon-DSC_0009", "lemon_lime-DSC_0503", "sunkist_tangerine-DSC_0007",
            "wild_blackberry-DSC_0001"]
PEEP_HUES = [55, 330, 220, 120]  # yellow, pink, blue, green peeps
KEYS = ["red", "blue", "green", "yellow"]
LIGHTS = (2700, 4500, 6500)  # warm lamp, mixed, daylight


@cache
def bean(flavour: str, index: int = 0) -> Cutout:
    photo = cv2.imread(str(PHOTOS / f"{flavour}.jpg"))
    return cut_beans(photo)[index]


@cache
def calibrated(kelvin: int):
    beans = [bean(f) for f in FLAVOURS]
    peeps = [hue_colour(h) for h in PEEP_HUES]
    photo = render_card_scene(kelvin, beans, peeps, kelvin)
    return photo, calibrate_colours(photo, KEYS)


def test_real_beans_are_cut_from_the_photos():
    for flavour in FLAVOURS:
        cut = bean(flavour)
        assert cut.alpha.max() == pytest.approx(1.0, abs=0.01)
        assert 80 < cut.length_px < 220  # a bean is about 20 mm; the photos show ~3-8 px/mm


@pytest.mark.parametrize("kelvin", LIGHTS)
def test_each_light_gives_distinct_models(kelvin):
    _, (models, _) = calibrated(kelvin)
    assert list(models) == KEYS
    for a in KEYS:
        for b in KEYS:
            if a < b:
                assert separation(models[a].bean, models[b].bean) >= MIN_SEPARATION
                assert separation(models[a].peep, models[b].peep) >= MIN_SEPARATION


def test_models_agree_across_light_temperatures():
    """White balance from the card: the same bean under warm and cold light, same model."""
    ref = calibrated(6500)[1][0]
    for kelvin in (2700, 4500):
        models = calibrated(kelvin)[1][0]
        for key in KEYS:
            assert separation(models[key].bean, ref[key].bean) < 1.0
            assert separation(models[key].peep, ref[key].peep) < 1.0


def test_pixels_under_warm_light_classify_with_daylight_models():
    daylight = calibrated(6500)[1][0]
    photo, _ = calibrated(2700)
    reading = read_card(photo, len(KEYS))
    right = total = 0
    for key, slot in zip(KEYS, reading.layout.slots, strict=True):
        feats, _ = piece_features(reading, slot.bean_mm, (BEAN_SPOT_R_MM, BEAN_SPOT_R_MM),
                                  200.0)
        dists = np.stack([daylight[k].bean.distance(feats) for k in KEYS], axis=1)
        votes = np.bincount(np.argmin(dists, axis=1), minlength=len(KEYS))
        assert votes.argmax() == KEYS.index(key)  # the bean as a whole: right player
        mean_d = [daylight[k].bean.distance(feats.mean(axis=0))[0] for k in KEYS]
        assert int(np.argmin(mean_d)) == KEYS.index(key)
        right += votes[KEYS.index(key)]
        total += votes.sum()
    assert right / total > 0.85  # pixel by pixel (two dark flavours overlap a little)


def test_two_beans_of_one_flavour_are_refused():
    beans = [bean("watermelon-DSC_0009"), bean("watermelon-DSC_0011", 1)]
    peeps = [hue_colour(55), hue_colour(220)]
    photo = render_card_scene(3, beans, peeps, 5000)
    with pytest.raises(CalibrationError, match="red's and blue's beans look too alike"):
        calibrate_colours(photo, ["red", "blue"])


def test_an_empty_slot_is_refused():
    beans = [bean(FLAVOURS[0]), None]
    peeps = [hue_colour(55), hue_colour(220)]
    photo = render_card_scene(4, beans, peeps, 5000)
    with pytest.raises(CalibrationError, match=r"slot 2 \(blue\) has no bean"):
        calibrate_colours(photo, ["red", "blue"])
    photo = render_card_scene(4, [bean(FLAVOURS[0]), bean(FLAVOURS[1])], [hue_colour(55), None],
                              5000)
    with pytest.raises(CalibrationError, match=r"slot 2 \(blue\) has no peep"):
        calibrate_colours(photo, ["red", "blue"])


def test_a_photo_without_the_card_is_refused():
    blank = np.full((600, 800, 3), 180, np.uint8)
    with pytest.raises(CalibrationError, match="corner markers"):
        calibrate_colours(blank, ["red", "blue"])


def test_features_ignore_exposure_in_chromaticity():
    px = linear(np.array([[[40, 120, 200]]], np.uint8)).reshape(1, 3)
    a, b = features(px)[0], features(px * 0.4)[0]
    assert a[:2] == pytest.approx(b[:2], abs=1e-6)  # float32 linear input
    assert b[2] < a[2]
