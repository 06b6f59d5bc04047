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

if TYPE_CHECKING:
    from vision.peepwar.passes.state import FrameState

# A cell's confidence after a doubtful bean, a peak that may be one more, or a peep in its
# owner's bean colour.
DOUBT_CONFIDENCE = 0.7
# More troops than a player may have in a cell are still reported (the camera may be
# right), with a warning for the referee.
MAX_LEGAL_TROOPS = 5


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
                st.warn(name, f"{p} has {n} troops here (more than {MAX_LEGAL_TROOPS})")
        if cell.supply_center and not parse_cell(name).is_central:
            cell.supply_center = False
