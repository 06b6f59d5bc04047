"""Computer vision for the table: the printable kit, finding tiles and cells in a frame.

The data flow is pure: a frame goes to :func:`vision.tiles.find_tiles`, which
returns every tile with its lattice position and one table-to-image homography;
:mod:`vision.cells` turns that into cell outlines and rectified top-down views.
Nothing here reads a camera or writes files except :mod:`vision.image_io`.

:func:`read_table` (in :mod:`vision.table`) does it all for one frame: tiles,
then the pieces in every cell, as the observation JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from calibration.profile import Profile
    from vision.lens import Intrinsics


def read_table(frame: np.ndarray, profile: Profile, intrinsics: Intrinsics | None = None) -> dict:
    """The observation JSON of ``frame`` (see :func:`vision.table.read_table`).

    Imported on first use, so ``import vision.tiles`` alone stays light.
    """
    from vision.table import read_table as _read_table

    return _read_table(frame, profile, intrinsics)
