"""A colour card printed for another number of players than --players names is said so."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from calibration.colour import CalibrationError, calibrate_colours
from vision.render.card_scene import hue_colour, render_card_scene
from vision.render.cutouts import cut_beans

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = next((p for p in (ROOT / ".." / "shared" / "photos" / "jellybeans",
                           ROOT / ".." / ".." / "shared" / "photos" / "jellybeans")
               if p.is_dir()), None)
pytestmark = pytest.mark.skipif(PHOTOS is None, reason="real jellybean photos not found")
FLAVOURS = ["watermelon-DSC_0009", "lemon_lime-DSC_0503", "sunkist_tangerine-DSC_0007",
            "wild_blackberry-DSC_0001"]


def _card(players: int, seed: int):
    beans = [cut_beans(cv2.imread(str(PHOTOS / f"{f}.jpg")))[0] for f in FLAVOURS[:players]]
    return render_card_scene(seed, beans, [hue_colour(h) for h in (55, 330, 220, 120)[:players]],
                             5000)


@pytest.mark.parametrize("seed", [0, 1])
def test_three_players_on_a_two_slot_card_are_told_the_card_has_two_slots(seed: int) -> None:
    photo = _card(2, seed)
    with pytest.raises(CalibrationError, match=r"the card in the photo has two slots .* "
                       r"--players names 3 players: print a card for 3 with 'companion "
                       r"print card --players 3'"):
        calibrate_colours(photo, ["red", "blue", "green"])
    models, _ = calibrate_colours(photo, ["red", "blue"])  # the right count reads as before
    assert set(models) == {"red", "blue"}


def test_two_players_on_a_three_slot_card_are_told_to_name_everyone() -> None:
    with pytest.raises(CalibrationError, match="one for 3 to 4 players, but --players names 2"):
        calibrate_colours(_card(3, 0), ["red", "blue"])


def test_four_players_on_a_three_slot_card_are_told_slot_four_is_not_printed() -> None:
    # Cards for 3 and 4 players have one size: the missing slot's bare paper tells them apart.
    with pytest.raises(CalibrationError, match=r"slot 4 \(yellow\) is not printed on the card "
                       r"in the photo: it is a card for 3 players"):
        calibrate_colours(_card(3, 1), ["red", "blue", "green", "yellow"])
    models, _ = calibrate_colours(_card(4, 1), ["red", "blue", "green", "yellow"])
    assert len(models) == 4
