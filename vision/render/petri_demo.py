"""What ``companion demo --game petri`` photographs the table with (the game's bundle names it).

One board, one fixed camera and one lamp for the whole demo (drawn from the
demo's seed: wood with marbles, plastic with pegs or the printed sheet), the
pieces of each state the scripted players leave, and the colour profile that
reads them, made by the real calibration from a rendered photo of the colour
card with one marble (or peg) of each player on it, as a user would make it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from calibration.colour import calibrate_card
from calibration.profile import Profile
from vision.render.petri import PLAYERS, STYLES, render_card, render_petri

KELVIN = 4500.0
MAX_TILT_DEG = 30.0  # a webcam on a stand looks down at the table, not along it


class PetriDemoScene:
    """Photos of Petri states drawn with the renderer's own colours, and their profile."""

    def __init__(self, players: list[str], seed: int = 0,
                 size: tuple[int, int] = (1280, 720)) -> None:
        unknown = [p for p in players if p not in PLAYERS]
        if unknown:
            raise ValueError(f"the demo renders players named {', '.join(PLAYERS)}")
        self.seed = seed
        self.size = size
        self.style = STYLES[seed % len(STYLES)]
        glass = self.style != "plastic"
        keys = list(players)
        found = calibrate_card(render_card(seed, keys, KELVIN, glass), keys)
        self.profile = Profile(keys, found.models, extra={"card_white": found.white.tolist()})

    def render(self, state: Mapping[str, Any], frame_no: int) -> np.ndarray:
        """The table holding ``state`` (``Petri.state_to_dict``), photographed once more."""
        position = (state["board"], state["homes"])
        return render_petri(self.seed, style=self.style, size=self.size, hand=False,
                            kelvin=KELVIN, max_tilt_deg=MAX_TILT_DEG, position=position,
                            shot=frame_no).image


def demo_scene(players: list[str], seed: int = 0) -> PetriDemoScene:
    return PetriDemoScene(players, seed)
