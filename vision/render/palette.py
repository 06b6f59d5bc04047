"""Players' piece colours for rendered games, and colours for eggs and tokens.

Each family pairs a jellybean colour with a marshmallow peep colour of the same
hue, as players choose them at a real table, and names the photographed flavour
(``../shared/photos/jellybeans``) whose real bean pixels can stand in for the
rendered beans. Colours are sRGB in R, G, B order, as web pages write them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.srgb import SRGB_TO_LINEAR

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Family:
    name: str
    bean: RGB
    peep: RGB
    flavour: str | None  # photo file prefix of a matching real flavour, if there is one


FAMILIES: tuple[Family, ...] = (
    Family("red", (196, 28, 40), (244, 128, 168), None),
    Family("orange", (246, 118, 24), (250, 166, 66), "sunkist_tangerine"),
    Family("yellow", (240, 206, 28), (248, 228, 96), "sunkist_lemon"),
    Family("green", (98, 188, 48), (150, 214, 108), "margarita"),
    Family("blue", (38, 98, 200), (118, 170, 240), None),
    Family("purple", (92, 38, 112), (176, 128, 214), "wild_blackberry"),
)

# Plastic eggs and tokens come in any colour, players' colours included.
EGG_COLOURS: tuple[RGB, ...] = (
    (250, 150, 190), (120, 200, 240), (250, 230, 110), (160, 230, 140), (200, 160, 240),
    (250, 180, 100), (230, 60, 60), (60, 120, 220),
)


def family(name: str) -> Family:
    for f in FAMILIES:
        if f.name == name:
            return f
    raise KeyError(f"no colour family {name!r}: use one of {', '.join(f.name for f in FAMILIES)}")


def linear_bgr(rgb) -> np.ndarray:
    """An sRGB (R, G, B) 0..255 triple as linear BGR float32 (reflectance, white = 1)."""
    r, g, b = (int(round(v)) for v in rgb)
    return SRGB_TO_LINEAR[np.array([b, g, r], np.uint8)].astype(np.float32)


def piece_colours(value) -> tuple[RGB, RGB]:
    """(bean, peep) sRGB from a player's colour: one (R, G, B), or a (bean, peep) pair.

    One colour gives beans of that colour and peeps of a lighter shade of it, as
    marshmallow peeps are paler than the beans of their colour.
    """
    arr = np.asarray(value, float)
    if arr.shape == (3,):
        bean = tuple(int(v) for v in arr)
        peep = tuple(int(round(v + 0.45 * (255 - v))) for v in arr)
        return bean, peep  # type: ignore[return-value]
    if arr.shape == (2, 3):
        return (tuple(int(v) for v in arr[0]), tuple(int(v) for v in arr[1]))  # type: ignore[return-value]
    raise ValueError("a player's colour is (R, G, B) or ((R, G, B) of beans, (R, G, B) of peeps)")
