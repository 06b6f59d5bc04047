"""Reading what stands in every cell: beans, peeps, Supply Centers, and what is covered.

Works on the table-frame mosaic (:mod:`vision.peepwar.mosaic`), where sizes are known
in millimetres, with per-pixel players from :mod:`vision.peepwar.piece_pixels`. The
reading is a series of passes over one shared state (:mod:`vision.peepwar.passes.state`),
each in its own module under :mod:`vision.peepwar.passes`:

1. **Supply Centers** (:mod:`~vision.peepwar.passes.supply_centers`). An egg half or
   token leaves a round region of foreground thicker than any peep round a central
   cell's middle, or most of its rim when partly under a card; its disc is then set
   aside, so an egg in a player's colour is not read as their pieces.
2. **Occlusion** (:mod:`~vision.peepwar.passes.occlusion`). Hands, arms and sleeves
   (:mod:`vision.peepwar.occlusion`) cover the cells they touch: those cells are
   reported ``occluded``, never empty. So are cells the camera does not fully see.
3. **Peeps** (:mod:`~vision.peepwar.passes.peeps`). Whatever is thicker than a cluster
   of beans can be and mostly in its owner's *peep* colour is a peep's body; touching
   peeps are split, a peep cut by a gap between tiles is joined.
4. **Beans** (:mod:`~vision.peepwar.passes.beans`). The bean net marks each bean's
   centre round every region of pieces; a bean is the player's whose colour lies round
   it, in the cell under its foot (a peep's cell is its foot's too).
5. **Corrections**, once the beans are known: a core in its owner's bean colour with no
   bean near its middle is a peep after all, a peep where a Supply Center should be is
   the Supply Center, a peep with a bean at its middle was a heap of beans.
6. **Assembly.** The cells hands cover are marked occluded (in
   :mod:`~vision.peepwar.passes.occlusion`); counts the rules do not allow are warned
   about (:mod:`~vision.peepwar.passes.assembly`).
7. **A last judge** (:mod:`vision.peepwar.doubt_model`): a cell read surely whose
   measures, weighed together, look like cells read wrongly is asked about.

Every count comes with a confidence and, when it is a close call, a warning
naming the cell ("cell 1,0/2: a bean between red and orange").
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.profile import Profile
from vision.peepwar import bean_net, doubt_model
from vision.peepwar.mosaic import Mosaic
from vision.peepwar.passes import assembly, beans, occlusion, peeps, supply_centers
from vision.peepwar.passes.assembly import CellRead
from vision.peepwar.passes.state import FrameState
from vision.peepwar.piece_pixels import classify

__all__ = ["CellRead", "PieceReading", "bean_planes", "frame_state", "read_pieces", "read_state"]


@dataclass
class PieceReading:
    cells: dict[str, CellRead]
    warnings: list[str]
    players: list[str]


def _prepared(mosaic: Mosaic, profile: Profile) -> FrameState:
    """The state of a reading that has found the Supply Centers, the occluders and the
    peeps."""
    st = FrameState(mosaic, classify(mosaic, profile), profile)
    supply_centers.find_supply_centers(st)
    occlusion.find_hands(st)
    peeps.find_peeps(st)
    return st


def frame_state(mosaic: Mosaic, profile: Profile) -> FrameState:
    """The pixel classes, Supply Centers' discs, hands and peeps' bodies of a mosaic: what a
    correction's pixels are labelled from (:mod:`vision.peepwar.learning`)."""
    return _prepared(mosaic, profile)


def bean_planes(mosaic: Mosaic, profile: Profile) -> bean_net.Planes:
    """The maps the bean net reads (what it is trained on), over the whole mosaic."""
    return beans.planes(_prepared(mosaic, profile))


def read_pieces(mosaic: Mosaic, profile: Profile) -> PieceReading:
    """Every cell of the mosaic: Supply Center, each player's troops and peep, or occluded."""
    st = read_state(mosaic, profile)
    doubt_model.judge(st)
    return PieceReading(st.cells, st.warnings, st.px.players)


def read_state(mosaic: Mosaic, profile: Profile) -> FrameState:
    """The reading of every cell by the rules, before the doubt model's last look: what
    that model learns from (:mod:`vision.peepwar.training.train_doubt_model`)."""
    st = _prepared(mosaic, profile)
    beans.count_beans(st)
    peeps.peeps_not_heaps(st)
    supply_centers.eggs_not_peeps(st)
    supply_centers.covered_eggs_not_peeps(st)
    peeps.heaps_not_peeps(st)
    occlusion.mark_occluded(st)
    supply_centers.pale_centres(st)
    assembly.finish(st)
    return st
