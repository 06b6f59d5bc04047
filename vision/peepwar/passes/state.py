"""What the piece reader's passes share over one frame: the mosaic, the players' pixel
classes and colour tables, the masks each pass leaves for the next (Supply Centers' discs,
occluders, peeps' bodies, regions of pieces), and every cell's findings as they are built
up, with the warnings given so far.

Also the lookups on the mosaic several passes make: the cell under a point, or near it,
and the disc of pixels round a point.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from calibration.profile import Profile
from vision.peepwar import bean_net
from vision.peepwar.cell_warnings import Warned
from vision.peepwar.mosaic import Mosaic
from vision.peepwar.passes.assembly import CellRead
from vision.peepwar.piece_pixels import PixelClasses

if TYPE_CHECKING:
    from vision.peepwar.passes.peeps import FoundPeep

# A piece centred this near another cell is on the border between them: warned, and its
# cell's confidence lowered.
BORDER_WARN_MM = 1.5


class CountedBean(NamedTuple):
    """A bean counted: its cell and player, the net's heat at it, the runner-up player
    round it ("" if none) and the colour margin it was read by."""

    cell: str
    player: str
    heat: float
    runner_up: str
    margin: float


class FrameState:
    """One frame's reading in progress; each pass (``vision.peepwar.passes.*``) reads and
    adds to it."""

    def __init__(self, mosaic: Mosaic, px: PixelClasses, profile: Profile) -> None:
        self.m = mosaic
        self.px = px
        self.profile = profile
        self.s = mosaic.px_per_mm
        self.cells = {name: CellRead() for name in mosaic.cell_names}
        self.warnings: list[str] = []
        # What each warning about a cell (as said in warnings) is about: its cell and kind,
        # once for each time it was said. A warning taken back leaves warnings but stays
        # here: read it through cell_warnings.
        self.warned_of: dict[str, list[tuple[str, Warned]]] = {}
        h, w = mosaic.cell_map.shape
        self.egg = np.zeros((h, w), np.uint8)  # Supply Centers' discs: no pieces there
        self.egg_core = np.zeros((h, w), np.uint8)  # ... their parts no peep leans over
        # ... and where their domes cover the table as the camera sees them (beyond the
        # disc, away from the camera, when it is tilted)
        self.egg_dome = np.zeros((h, w), np.uint8)
        self.occluder = np.zeros((h, w), np.uint8)
        self.hand_p: dict[str, float] | None = None  # each cell's, when the hand net judged
        self.hand_kept = np.zeros((h, w), np.uint8)  # the rules' hands the net confirmed
        self.body = np.zeros((h, w), np.uint8)  # peeps found
        self.eggs: list[tuple[float, float, float]] = []  # Supply Centers: x, y, radius (px)
        # Central cells where none was found: the region round the tile's centre (foreground,
        # closed and filled) and its box's top-left corner.
        self.no_supply_center: dict[str, tuple[np.ndarray, int, int]] = {}
        # Peeps found: cell, player, x, y (px), and the warnings they gave.
        self.peeps_at: list[tuple[str, str, float, float, list[str]]] = []
        self.beans_at: list[tuple[float, float]] = []  # centres (px) of beans at peaks >= 0.5
        self.counted_at: list[tuple[float, float]] = []  # centres (px) of every bean counted
        # Cores as thick as a peep's but in its owner's bean colour, and their pixels (flat
        # mosaic indices).
        self.maybe_peeps: list[tuple[FoundPeep, np.ndarray]] = []
        # Regions of pieces (count, labels, stats as connectedComponentsWithStats gives).
        self.regions: tuple[int, np.ndarray, np.ndarray] = (
            1, np.zeros((h, w), np.uint16), np.zeros((1, 5), np.int32))
        self.net_planes: bean_net.Planes | None = None  # made once the peeps are found
        self.bean_threshold: list[float] = []  # each player's, once the beans pass asks
        self.beans_counted: list[CountedBean] = []
        self.peak_heats: list[float] = []  # every peak of the net, down to MIXTURE_FLOOR
        # Whose bean lies at a mosaic pixel (x, y), as the beans pass read it for many peaks
        # at once (passes.beans._whose: player, margin, runner-up); while it counts.
        self.whose_at: dict[tuple[int, int], tuple[int, float, int]] = {}

    def mm2(self, px_count: float) -> float:
        return px_count / (self.s * self.s)

    def warn(self, cell: str, text: str, kind: Warned) -> None:
        """Warn about ``cell`` in words (``text``), of ``kind``."""
        said = f"cell {cell}: {text}"
        self.warnings.append(said)
        self.warned_of.setdefault(said, []).append((cell, kind))

    def cell_warnings(self) -> list[tuple[str, Warned]]:
        """The cell and kind of every warning about a cell still given (one taken back
        from warnings is not; of a text said n times and taken back k times, the last
        n - k said stay, as ``list.remove`` takes the first)."""
        out = []
        for said, n in Counter(self.warnings).items():
            if said in self.warned_of:
                out.extend(self.warned_of[said][-n:])
        return out

    def on_border(self, ci: int, foot: tuple[float, float], piece: str) -> None:
        """``piece`` (as a warning names it: "a red bean", "red's peep") counted in cell
        ``ci``, its foot at mosaic point ``foot``: if another cell lies within
        BORDER_WARN_MM, both cells are warned about and asked about, since the piece may be
        the other cell's, which was read without it."""
        other = near_border(self.m, foot, ci)
        if other < 0:
            return
        name, there = self.m.cell_names[ci], self.m.cell_names[other]
        self.warn(name, f"{piece} on the border with {there}", Warned.ON_BORDER)
        self.warn(there, f"{piece} on the border with {name}, read there", Warned.ON_BORDER)
        self.cells[name].lower(0.6)
        self.cells[there].lower(0.6)

    def foot(self, at: tuple[float, float], middle_mm: float) -> tuple[float, float]:
        """The table point (mosaic px) under a piece whose middle, ``middle_mm`` above the
        table, is seen at mosaic point ``at``: a tilted camera sees the middle beyond the
        foot, away from it, which can carry a piece near a cell line over it. ``at`` itself
        when the camera's place is not known."""
        cam = self.m.camera
        z = middle_mm * self.s
        if cam is None or z >= cam.height:
            return at
        x, y = cam.foot(np.array([at], float), z)[0]
        return float(x), float(y)

    def disc(self, x: int, y: int, radius_mm: float
             ) -> tuple[tuple[slice, slice], np.ndarray]:
        """The mosaic's box round (x, y) of half-side ``radius_mm`` (cut at the mosaic's
        edge), and which of its pixels lie within that radius."""
        H, W = self.px.label.shape
        r = int(math.ceil(radius_mm * self.s))
        y0, x0 = max(y - r, 0), max(x - r, 0)
        sl = (slice(y0, min(y + r + 1, H)), slice(x0, min(x + r + 1, W)))
        return sl, round_window(r)[y0 - y + r:sl[0].stop - y + r, x0 - x + r:sl[1].stop - x + r]


def cell_at(mosaic: Mosaic, pt) -> int:
    """The cell (index into the mosaic's cell names) under mosaic point ``pt``, or -1."""
    x, y = int(round(pt[0])), int(round(pt[1]))
    h, w = mosaic.cell_map.shape
    if 0 <= x < w and 0 <= y < h:
        return int(mosaic.cell_map[y, x])
    return -1


def nearest(grid: np.ndarray, x: int, y: int, r: int, wanted) -> tuple[int, int] | None:
    """The value of ``grid`` nearest (x, y) within the square of half-side ``r`` where
    ``wanted(window)`` holds, and its squared distance; None if nowhere."""
    y0, x0 = max(y - r, 0), max(x - r, 0)
    win = grid[y0:y + r + 1, x0:x + r + 1]
    ys, xs = np.nonzero(wanted(win))
    if not len(ys):
        return None
    d = (ys + y0 - y) ** 2 + (xs + x0 - x) ** 2
    k = int(np.argmin(d))
    return int(win[ys[k], xs[k]]), int(d[k])


def cell_near(mosaic: Mosaic, pt, reach_px: float) -> int:
    """The cell nearest ``pt`` within ``reach_px``, or -1."""
    x, y = int(round(pt[0])), int(round(pt[1]))
    near = nearest(mosaic.cell_map, x, y, int(math.ceil(reach_px)), lambda win: win >= 0)
    return near[0] if near is not None and near[1] <= reach_px * reach_px else -1


def near_border(mosaic: Mosaic, pt, cell: int) -> int:
    """Another cell within BORDER_WARN_MM of ``pt``, or -1."""
    d = BORDER_WARN_MM * mosaic.px_per_mm
    for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d)):
        other = cell_at(mosaic, (pt[0] + dx, pt[1] + dy))
        if other not in (cell, -1):
            return other
    return -1


@cache
def round_window(r: int) -> np.ndarray:
    """The pixels within ``r`` of the middle of a (2r+1)-square."""
    yy, xx = np.ogrid[-r:r + 1, -r:r + 1]
    window = yy * yy + xx * xx <= r * r
    window.flags.writeable = False  # shared by every caller
    return window
