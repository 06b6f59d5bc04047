"""Colours the camera clipped: a channel at the clip level only says it was at least
that bright, so a team is matched at the values that channel may really have had."""

from __future__ import annotations

import numpy as np
import pytest

from vision.peltapeeps import colours
from vision.render.peltapeeps import TEAM_COLOURS, profile_for_teams
from vision.srgb import SRGB_TO_LINEAR

GAINS = np.array([1.0, 1.3, 1.8])  # a warm lamp through a camera without white balance


@pytest.fixture(scope="module")
def models() -> colours.TeamModels:
    return colours.team_models(profile_for_teams(
        {t: TEAM_COLOURS[t] for t in ("red", "orange", "yellow")}))


def _exposed(team: str, exposure: float) -> np.ndarray:
    """The camera's linear BGR of ``team``'s acrylic under :data:`GAINS`, clipped at 1."""
    rgb = TEAM_COLOURS[team]
    lin = SRGB_TO_LINEAR[np.array([[rgb[::-1]]], np.uint8)][0, 0]
    return np.minimum(lin * GAINS * exposure, 1.0).astype(np.float32)[None]


@pytest.mark.parametrize("exposure", [1.5, 2.0, 3.0])
def test_a_yellow_disc_whose_red_and_green_clipped_is_still_yellow(models, exposure) -> None:
    x = _exposed("yellow", exposure)
    assert (x[0, 1:] == 1.0).all()  # green and red both cut off
    best, dist, second, dist2 = colours.classify(x, GAINS, models)
    assert models.teams[best[0]] == "yellow" and dist[0] < colours.FAR
    assert dist2[0] - dist[0] > 1.5  # and clearly not orange


def test_an_unclipped_colour_is_matched_as_it_shows(models) -> None:
    x = _exposed("red", 1.0) * 0.5  # well exposed: no channel near the clip level
    assert not list(colours.uncensored(x))
    plain, _ = colours.glare_distance(colours.chroma(x / GAINS), models)
    assert colours.classify(x, GAINS, models)[1][0] == pytest.approx(plain.min())


def test_a_clipped_channel_is_tried_higher_at_a_cost(models) -> None:
    x = _exposed("orange", 1.0)  # red at the clip level, green and blue kept
    [(idx, scaled, cost)] = list(colours.uncensored(x))
    assert idx.tolist() == [0] and scaled.shape == (1, len(colours.CLIP_FACTORS) - 1, 3)
    assert (scaled[0, :, 2] > x[0, 2]).all() and (scaled[0, :, :2] == x[0, :2]).all()
    assert cost == pytest.approx(colours.CLIP_COST * np.log(scaled[0, :, 2] / x[0, 2]))
    lut = colours.chroma_table(models)
    cell, extra = colours.team_cells(x, GAINS, lut)
    plain = lut.flat_index(*colours.chroma_planes(x, GAINS))
    assert lut.distance.ravel()[cell] + extra <= lut.distance.ravel()[plain]


def test_rim_samples_of_a_clipped_yellow_are_labelled_yellow_at_a_cost(models) -> None:
    # As the reader labels rim samples: the plain reading is no team's (beyond FAR);
    # read at the values its clipped channels may have had, it is yellow, and the cost
    # of that reading counts in its distance.
    lut = colours.chroma_table(models)
    x = _exposed("yellow", 1.5)
    plain = lut.flat_index(*colours.chroma_planes(x, GAINS))
    assert lut.distance.ravel()[plain][0] >= colours.FAR
    cell, extra = colours.team_cells(x, GAINS, lut)
    assert models.teams[lut.team.ravel()[cell][0]] == "yellow"
    assert extra[0] > 0 and lut.distance.ravel()[cell][0] + extra[0] < colours.FAR

