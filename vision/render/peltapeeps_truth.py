"""A rendered layout's ground truth as the reading a perfect reader would give.

Tests and the score-sheet page's own tests use it to exercise everything after
the reader (scoring, the page, the CLI's table) on a real rendered photo
without depending on how well the reader does.

>>> from vision.render.peltapeeps import render_layout
>>> scene = render_layout(3)
>>> reading = truth_reading(scene)
>>> len(reading.pieces) == len(scene.truth.pieces), len(reading.joins) == len(scene.truth.joins)
(True, True)
"""

from __future__ import annotations

import numpy as np

from vision.geometry import apply_h
from vision.peltapeeps.geometry import MM_PER_UNIT, lying, outline
from vision.peltapeeps.reading import LayoutReading, SeenJoin, SeenPiece
from vision.render.peltapeeps import PeltaScene


def truth_reading(scene: PeltaScene, outline_steps: int = 96) -> LayoutReading:
    """What the photo shows, from the renderer's ground truth: pieces, outlines and joins."""
    truth = scene.truth
    pieces = []
    for t in truth.pieces:
        piece = scene.rules.catalogs[t.team].piece(t.piece)
        cons = lying([(c.angle, c.type) for c in piece.connectors], t.rotation, t.face_up)
        centre_mm = np.array([t.x, t.y]) * MM_PER_UNIT
        shape = apply_h(truth.homography, outline(cons, outline_steps) + centre_mm)
        pieces.append(SeenPiece(
            t.uid, t.team, t.piece, t.face_up, t.centre_px, t.radius_px, t.rotation,
            outline_px=tuple((round(float(x), 1), round(float(y), 1)) for x, y in shape)))
    where = {p.uid: p.centre_px for p in pieces}
    joins = [SeenJoin(a, b, "join", ((where[a][0] + where[b][0]) / 2,
                                     (where[a][1] + where[b][1]) / 2))
             for a, b in truth.joins]
    h, w = scene.frame.shape[:2]
    return LayoutReading(pieces, joins, (w, h))
