"""Where the reader looks around a disc, from the catalog's piece sizes.

The reader measures each disc's radius in the photo and samples around it in
shares of that radius, so the photo's scale drops out: what it needs from the
catalog is each connector's size against the disc's (a tab 8 mm wide on a
25 mm radius spans 18° of the rim, whatever the camera). Every place and width
below is a fixed proportion of those sizes, chosen so that the shipped sets
(:data:`~vision.peltapeeps.geometry.DEFAULT_GEOMETRY`) look where the reader
always looked:

>>> z = zones(DEFAULT_GEOMETRY)
>>> z.cut, z.tab, z.tab_run_deg
((0.85, 0.93), (1.06, 1.16), (7.0, 30.0))
>>> z.cut_min_deg, z.block_deg, z.curve_sides_deg, z.shape_half_deg
(8.0, 24.0, (11.0, 22.0), 27.0)

A set with smaller connectors moves the zones nearer the rim and narrows the runs:

>>> from companion.rules.peltapeeps.catalog import Sizes
>>> small = zones(PieceGeometry.from_sizes(Sizes.from_json({"tab": {"width": 6, "depth": 4},
...     "notch": {"width": 6, "depth": 4}})))
>>> small.cut, small.tab, small.tab_run_deg
((0.9, 0.95), (1.04, 1.11), (5.2, 22.5))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from vision.peltapeeps.geometry import DEFAULT_GEOMETRY, PieceGeometry

MIN_ZONE = 0.05  # a zone spans at least this share of the radius (the polar grid's step: 0.03)


@dataclass(frozen=True)
class Zones:
    """Where and how wide, in shares of the radius and degrees round the disc."""

    cut: tuple[float, float]  # inside the rim: a notch or curve shows there
    tab: tuple[float, float]  # outside the rim: a tab shows there
    tab_run_deg: tuple[float, float]  # a tab's run in the tab zone, narrowest to widest
    cut_min_deg: float  # a cut's run in the cut zone is at least this wide
    tab_cut_apart_deg: float  # a seen tab and a cut nearer than this are one cut
    beside_deg: tuple[float, float]  # beside a contact, off its line: the neighbour's body
    block_deg: float  # a contact's reach round the rim (its connectors are read as a pair)
    centre_deg: float  # a cut's middle: the table shows here in an empty notch
    curve_sides_deg: tuple[float, float]  # a curve's sides, beyond a tab sitting in it
    shape_half_deg: float  # a cut's depth profile is compared this far either side
    notch_depth: float  # share of the radius: where a seated tab's tip lies
    tab_half_width: float  # share of the radius


def _round(v: float) -> float:
    return round(v, 2)


@functools.cache
def zones(g: PieceGeometry = DEFAULT_GEOMETRY) -> Zones:
    """The zones for pieces of shape ``g``."""
    cut_depth = g.share(min(g.notch_depth_mm, g.curve_depth_mm))
    tab_out = g.share(g.tab_out_mm)
    tab_deg = g.width_deg("tab")
    notch_deg = g.width_deg("notch")
    curve_half = g.width_deg("curve") / 2
    # The shipped sets: tab and notch 18.4 degrees wide, curve 43.1, both cut 0.24 R deep.
    cut = (1 - 0.625 * cut_depth, 1 - 0.2917 * cut_depth)
    if cut[1] - cut[0] < MIN_ZONE:
        cut = (cut[1] - MIN_ZONE, cut[1])
    tab = (1 + 0.25 * tab_out, 1 + 0.6667 * tab_out)
    if tab[1] - tab[0] < MIN_ZONE:
        tab = (tab[0], tab[0] + MIN_ZONE)
    return Zones(
        cut=(_round(cut[0]), _round(cut[1])),
        tab=(_round(tab[0]), _round(tab[1])),
        tab_run_deg=(round(0.3802 * tab_deg, 1), round(1.6295 * tab_deg, 1)),
        cut_min_deg=round(0.4346 * min(notch_deg, 2 * curve_half), 1),
        tab_cut_apart_deg=round(1.0864 * tab_deg, 1),
        beside_deg=(round(0.3259 * tab_deg, 1), round(1.0864 * tab_deg, 1)),
        block_deg=round(max(1.3036 * tab_deg, 1.1147 * curve_half), 1),
        centre_deg=round(0.7605 * notch_deg / 2, 1),
        curve_sides_deg=(round(1.1949 * max(tab_deg, notch_deg) / 2, 1),
                         round(1.0218 * curve_half, 1)),
        shape_half_deg=round(1.2541 * curve_half, 1),
        notch_depth=g.share(g.notch_depth_mm),
        tab_half_width=g.share(g.tab_width_mm / 2),
    )
