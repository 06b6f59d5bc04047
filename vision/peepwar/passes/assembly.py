"""The last pass of the piece reader: every cell's findings as the observation gives them.

A cell's counts and flags are built up by the passes before (:mod:`.supply_centers`,
:mod:`.occlusion`, :mod:`.peeps`, :mod:`.beans`), each lowering its confidence for a close
call and warning about it by name; this pass warns about counts the rules do not allow
and drops a Supply Center read in a cell that cannot hold one. :meth:`CellRead.to_json` is
the cell as the observation lists it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion.rules.peepwar.board import parse_cell
from vision.peepwar.cell_warnings import Warned

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

# A cell's confidence after a doubtful bean, a peak that may be one more, or a peep in its
# owner's bean colour.
DOUBT_CONFIDENCE = 0.7
# More troops than a player may have in a cell are still reported (the camera may be
# right), with a warning for the referee.
MAX_LEGAL_TROOPS = 5
# A lone bean among pieces of its runner-up's colour is asked about under this colour
# margin (the median of its pixels'; a bean under 1.0 is asked about anywhere). On
# development frames of both generators (2D 0-199, 3D 40500-40649), lone beans between
# 1.0 and 2.0 were misread 20 times in 30 on the path-traced frames (none in 2D); from
# 2.0 up, 7 times in 69 (and none of 90 in 2D).
LONE_BEAN_MARGIN = 2.0


@dataclass
class CellRead:
    """What the reader found in one cell."""

    troops: dict[str, int] = field(default_factory=dict)
    peeps: dict[str, int] = field(default_factory=dict)
    supply_center: bool = False
    occluded: bool = False
    confidence: float = 1.0

    def lower(self, c: float) -> None:
        self.confidence = min(self.confidence, c)

    def to_json(self) -> dict | None:
        """The cell as the observation lists it; None for an empty cell read surely (left
        out). An empty cell in doubt is listed with no pieces and its confidence."""
        if self.occluded:
            return {"occluded": True, "confidence": round(self.confidence, 3)}
        players = sorted(set(self.troops) | set(self.peeps))
        pieces = {p: {"troops": self.troops.get(p, 0), "peep": self.peeps.get(p, 0) > 0}
                  for p in players if self.troops.get(p, 0) or self.peeps.get(p, 0)}
        if not pieces and not self.supply_center and self.confidence >= 1.0:
            return None
        return {"supply_center": self.supply_center, "pieces": pieces,
                "confidence": round(self.confidence, 3)}


def finish(st: FrameState) -> None:
    """Warn about more troops than the rules allow in a cell; a Supply Center stands only
    in a central cell."""
    for name, cell in st.cells.items():
        if cell.occluded:
            continue
        for p, n in cell.troops.items():
            if n > MAX_LEGAL_TROOPS:
                st.warn(name, f"{p} has {n} troops here (more than {MAX_LEGAL_TROOPS})",
                        Warned.TOO_MANY_TROOPS)
        if cell.supply_center and not parse_cell(name).is_central:
            cell.supply_center = False
    lone_beans(st)


def lone_beans(st: FrameState) -> None:
    """Ask about a cell where one player's single bean (and no peep of theirs) lies among
    another player's pieces whose colour is the bean's runner-up round it, by a margin
    under LONE_BEAN_MARGIN: a bean of the cell-mate's colour in shade or glare (yellow in
    shadow looks orange) is likelier than a lone bean of the neighbouring colour. Nothing
    read changes; the referee says."""
    for name, player, _heat, second, margin in st.beans_counted:
        cell = st.cells[name]
        if cell.occluded or not second or player == second or margin >= LONE_BEAN_MARGIN:
            continue
        if cell.troops.get(player, 0) != 1 or cell.peeps.get(player, 0):
            continue
        if cell.troops.get(second, 0) or cell.peeps.get(second, 0):
            cell.lower(DOUBT_CONFIDENCE)
            st.warn(name, f"one {player} bean among {second}'s pieces: perhaps {second}'s",
                    Warned.LONE_BEAN)
