"""The coloured acrylic the path-traced PeltaPeeps pieces and the card's swatches are cut
from: one set of shades and one range of surface roughness, so that the card calibrates the
colours the pieces show."""

from __future__ import annotations

RGB = tuple[int, int, int]

# Coloured acrylic sheet (sRGB), this generator's own choice of shades.
ACRYLIC: dict[str, RGB] = {
    "red": (196, 24, 36), "orange": (240, 112, 20), "yellow": (250, 200, 16),
    "green": (20, 150, 74), "blue": (16, 74, 186), "purple": (112, 44, 160),
}
ACRYLIC_ROUGHNESS = (0.02, 0.12)  # a laser-cut sheet's faces, polished to lightly frosted

__all__ = ["ACRYLIC", "ACRYLIC_ROUGHNESS", "RGB"]
