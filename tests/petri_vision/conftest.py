"""Profiles made as a user makes them: a rendered photo of the colour card with one marble
(or peg) of each player on its bean spot, through the real calibration."""

from __future__ import annotations

import pytest

from calibration.colour import calibrate_card
from calibration.profile import Profile
from vision.render.petri import PLAYERS, render_card

KELVIN = 4500.0


def card_profile(glass: bool, kelvin: float = KELVIN, keys: list[str] | None = None) -> Profile:
    keys = keys or list(PLAYERS)
    found = calibrate_card(render_card(7, keys, kelvin, glass), keys)
    return Profile(keys, found.models, extra={"card_white": found.white.tolist()})


@pytest.fixture(scope="session")
def marbles() -> Profile:
    return card_profile(True)


@pytest.fixture(scope="session")
def pegs() -> Profile:
    return card_profile(False)
