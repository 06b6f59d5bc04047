"""Which of the rules' hand pixels stay a hand's in cells the hand net calls clear
(``occlusion.find_hands``): a hand reaching in is followed, the pieces it touches are not."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from vision.peepwar import hand_net
from vision.peepwar.passes import occlusion

W, H = 120, 60  # mosaic pixels of a strip of three cells
PLAYERS = ["red", "blue"]
NONE = len(PLAYERS)  # the pixel label of no player's colour (skin, shadow, table)


def _find_hands(occluder: np.ndarray, label: np.ndarray, monkeypatch: pytest.MonkeyPatch,
                next_p: float = 0.02) -> SimpleNamespace:
    """``find_hands`` over a strip of cells "hand" (x < 40, where the net sees a hand),
    "next" (40-79; the net's chance of a hand there ``next_p``) and "far" (80 on, which it
    calls clear), with the rules' hand pixels ``occluder`` and the pixels' players
    ``label``."""
    cells = np.zeros((H, W), np.int16)
    cells[:, 40:80] = 1
    cells[:, 80:] = 2
    st = SimpleNamespace(
        m=SimpleNamespace(cell_map=cells, cell_names=["hand", "next", "far"]),
        px=SimpleNamespace(label=label, players=PLAYERS), egg=np.zeros((H, W), np.uint8),
        occluder=np.zeros((H, W), np.uint8), hand_p=None,
        hand_kept=np.zeros((H, W), np.uint8))
    monkeypatch.setattr(occlusion, "find_occluders_and_reach",
                        lambda *_: (occluder.copy(), np.zeros((H, W), np.uint8)))
    monkeypatch.setattr(hand_net, "available", lambda: True)
    monkeypatch.setattr(hand_net, "hand_probabilities",
                        lambda _: {"hand": 0.95, "next": next_p, "far": 0.01})
    occlusion.find_hands(st)
    return st


def test_a_fingertip_past_the_cell_the_net_sees_stays_the_hands(monkeypatch) -> None:
    occluder = np.zeros((H, W), np.uint8)
    occluder[15:45, 5:40] = 1  # the palm
    occluder[25:33, 40:52] = 1  # a finger over the next cell: skin, no player's colour
    label = np.full((H, W), NONE, np.uint8)
    st = _find_hands(occluder, label, monkeypatch)
    assert st.hand_kept[25:33, 40:52].all()
    assert st.occluder[25:33, 40:52].all()


@pytest.mark.parametrize("next_p", [0.02, 0.3])
def test_a_heap_of_pieces_the_hand_touches_is_no_hand(monkeypatch, next_p: float) -> None:
    # The palm touches a heap of red beans across the next cell and into the far one; the
    # rules take the heap (as thick as a hand), with the shadows between its beans, into
    # the hand's region.
    occluder = np.zeros((H, W), np.uint8)
    occluder[15:45, 5:40] = 1
    occluder[20:40, 40:100] = 1
    label = np.full((H, W), NONE, np.uint8)
    label[20:40, 40:100] = 0  # red beans ...
    label[20:40, 60:62] = NONE  # ... with shadows between them
    label[20:40, 86:88] = NONE
    st = _find_hands(occluder, label, monkeypatch, next_p)
    assert st.hand_kept[15:45, 5:40].all()  # the hand itself
    assert not st.hand_kept[:, 40:].any()
    assert not st.occluder[:, 80:].any()  # where the net sees no hand, the heap is pieces
    # (Where it is unsure, the rules' pixels stay for the rules to judge the cell by.)
    assert st.occluder[20:40, 40:80].all() == (next_p >= occlusion.CLEAR_BELOW)


def test_a_fingertip_beyond_a_piece_it_lies_on_stays_the_hands(monkeypatch) -> None:
    # A finger crosses a red bean lying at the cell line: past the bean, the finger's
    # skin is still followed from the hand (through the bean only in the hand's cell).
    occluder = np.zeros((H, W), np.uint8)
    occluder[15:45, 5:40] = 1
    occluder[25:33, 40:60] = 1
    label = np.full((H, W), NONE, np.uint8)
    label[25:33, 34:40] = 0  # the bean, in the hand's cell
    st = _find_hands(occluder, label, monkeypatch)
    assert st.hand_kept[25:33, 40:60].all()
