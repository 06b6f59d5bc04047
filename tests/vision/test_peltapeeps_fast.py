"""The PeltaPeeps reader's shortcuts give bit for bit what the plain computations give.

The reader's speed-ups (many discs at once, lookups instead of arithmetic) must
not change a single reading, so each is checked against the computation it
replaces, on random data with ties and empty rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.peltapeeps import rims


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_medians_match_numpy_bit_for_bit(dtype) -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        rows, width = rng.integers(1, 20), rng.integers(1, 200)
        values = (rng.random((rows, width)) * 3).astype(dtype)
        values[:, ::3] = np.round(values[:, ::3], 1)  # ties
        keep = rng.random((rows, width)) < rng.random()
        got = rims._row_medians(values, keep)
        everything = rims._row_medians(values)
        for k in range(rows):
            assert everything[k].tobytes() == np.asarray(np.median(values[k]), dtype).tobytes()
            if keep[k].any():
                want = np.asarray(np.median(values[k][keep[k]]), dtype)
                assert got[k].tobytes() == want.tobytes()
            else:
                assert np.isnan(got[k])
