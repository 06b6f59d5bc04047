"""A single bean of one player among a cell-mate's pieces whose colour is its runner-up,
by a close colour call (``assembly.lone_beans``): likelier the cell-mate's bean in shade
or glare, so the cell is asked about, and nothing read changes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vision.peepwar.cell_warnings import Warned
from vision.peepwar.passes.assembly import LONE_BEAN_MARGIN, CellRead, lone_beans

UNSURE = 0.8  # Peep War's doubtful_below: a cell read under it is asked about


def _state(cell: CellRead, runner_up: str, player: str = "orange",
           margin: float = 1.5) -> SimpleNamespace:
    said: list[str] = []
    beans = [("0,0/1", player, 0.9, runner_up, margin)]
    # The cell-mate's beans, read clearly.
    beans += [("0,0/1", p, 0.9, "", 9.0) for p, n in cell.troops.items() if p != player
              for _ in range(n)]
    st = SimpleNamespace(cells={"0,0/1": cell}, beans_counted=beans, warnings=said)
    st.kinds = []
    st.warn = lambda name, text, kind: (said.append(f"cell {name}: {text}"), st.kinds.append(kind))
    return st


def test_a_lone_bean_in_its_cell_mates_runner_up_colour_is_asked_about() -> None:
    cell = CellRead(troops={"yellow": 3, "orange": 1})
    st = _state(cell, runner_up="yellow")
    lone_beans(st)
    assert cell.confidence < UNSURE
    assert cell.troops == {"yellow": 3, "orange": 1}  # read as it was: the referee says
    assert st.warnings == ["cell 0,0/1: one orange bean among yellow's pieces: "
                           "perhaps yellow's"]
    assert st.kinds == [Warned.LONE_BEAN]


def test_a_cell_mates_peep_alone_is_enough_company() -> None:
    cell = CellRead(troops={"orange": 1}, peeps={"yellow": 1})
    lone_beans(_state(cell, runner_up="yellow"))
    assert cell.confidence < UNSURE


def test_a_clear_colour_call_stays_sure() -> None:
    cell = CellRead(troops={"yellow": 3, "orange": 1})
    lone_beans(_state(cell, runner_up="yellow", margin=LONE_BEAN_MARGIN))
    assert cell.confidence == 1.0


@pytest.mark.parametrize("cell, runner_up", [
    (CellRead(troops={"yellow": 3, "orange": 1}), "red"),  # its runner-up is not in the cell
    (CellRead(troops={"yellow": 3, "orange": 2}), "yellow"),  # two of them: a real fight
    (CellRead(troops={"yellow": 3, "orange": 1}, peeps={"orange": 1}), "yellow"),  # its peep
    (CellRead(troops={"orange": 1}), "yellow"),  # alone in its cell
    (CellRead(troops={"yellow": 3, "orange": 1}), ""),  # a dark bean read whole: no runner-up
    (CellRead(troops={"yellow": 3, "orange": 1}, occluded=True), "yellow"),
])
def test_other_cells_stay_sure(cell: CellRead, runner_up: str) -> None:
    st = _state(cell, runner_up)
    lone_beans(st)
    assert cell.confidence == 1.0
    assert st.warnings == []
