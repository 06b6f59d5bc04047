"""The bean net's training targets and augmentation agree with how the reader decodes the
net's answer (no torch needed: these parts are numpy)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import bean_net
from vision.training import train_bean_net
from vision.training.train_bean_net import WINDOW, _augment, _targets


def _logits(heat: np.ndarray) -> np.ndarray:
    p = np.clip(heat, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


@pytest.mark.parametrize("seed", range(5))
def test_targets_decoded_as_the_reader_does_give_back_every_centre(seed):
    """A net answering exactly the training targets is read back to the true centres."""
    rng = np.random.default_rng(seed)
    # Beans are at least 13 mm apart (13 mm wide): centres on a jittered 16 px grid.
    grid = np.stack(np.meshgrid(np.arange(8, WINDOW - 8, 16), np.arange(8, WINDOW - 8, 16)),
                    axis=-1).reshape(-1, 2).astype(np.float32)
    centres = grid[rng.random(len(grid)) < 0.5] + rng.uniform(-1.5, 1.5, (1, 2))
    heat, off, _ = _targets([centres.astype(np.float32)], WINDOW)
    out = np.concatenate([_logits(heat)[:, None], off], axis=1)[0]
    found = bean_net.peaks(out, bean_net.THRESHOLD)
    assert len(found) == len(centres)
    got = np.array([[p.x, p.y] for p in found])
    for c in centres:
        assert np.min(np.linalg.norm(got - c, axis=1)) < 1e-4


@pytest.mark.parametrize("seed", range(8))
def test_turns_and_mirrors_move_the_centres_with_the_pixels(seed, monkeypatch):
    """One lit pixel at a bean's centre: after any turn, mirror and crop, the centre the
    targets are made from is still where the pixel is."""
    monkeypatch.setattr(train_bean_net, "BOXED", 0.0)  # no blanking: the pixel stays
    rng = np.random.default_rng(seed)
    cut = WINDOW + 16
    win = np.zeros((1, bean_net.CHANNELS, cut, cut), np.uint8)
    x, y = (int(v) for v in rng.integers(30, cut - 30, 2))
    win[0, 3, y, x] = 255
    centre = np.array([[x, y]], np.float32)
    w, _, cents = _augment(win, np.zeros((1, cut, cut), np.uint8), [centre], rng)
    ys, xs = np.nonzero(w[0, 3])
    assert cents[0].tolist() == [[float(xs[0]), float(ys[0])]]
