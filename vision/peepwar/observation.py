"""The observation JSON of the table standard (section 4), from what vision found.

``tiles`` holds every tile placed on the lattice; ``cells`` stays empty until
pieces are read (next stage). Extra keys (confidence, poses, timings, warnings)
are allowed by the standard and help the referee judge a frame.
"""

from __future__ import annotations

from vision.peepwar.tiles import TableView


def observation(view: TableView, game: str = "peepwar", timings_ms: dict | None = None,
                warnings: list[str] | None = None) -> dict:
    tiles = [
        {
            "id": t.tile_id,
            "q": t.q,
            "r": t.r,
            "rotation": t.rotation,
            "confidence": t.confidence,
            "pose_mm": [round(t.pose.x, 1), round(t.pose.y, 1), round(t.pose.angle_deg, 1)],
            "offset_mm": round(t.offset_mm, 1),
            "markers": len(t.markers_seen),
        }
        for t in view.tiles
    ]
    return {
        "game": game,
        "tiles": tiles,
        "cells": {},
        "confidence": view.confidence,
        "warnings": list(warnings or []) + list(view.warnings),
        "markers_found": view.markers_found,
        "timings_ms": {k: round(v, 2) for k, v in (timings_ms or {}).items()},
    }


def comparable(cell: dict | None) -> tuple | None:
    """A cell of an observation (or of a scene's truth) in a form two readings compare by:
    None when it holds nothing, ``("occluded",)``, or whether it has a Supply Center and
    each player's troops and peep. Confidence and warnings are left out.

    >>> comparable({"supply_center": False, "pieces": {}, "confidence": 0.7}) is None
    True
    >>> comparable({"supply_center": True, "pieces": {"red": {"troops": 2, "peep": False}}})
    (True, (('red', 2, False),))
    >>> comparable({"occluded": True, "confidence": 0.6})
    ('occluded',)
    """
    if not cell:
        return None
    if cell.get("occluded"):
        return ("occluded",)
    pieces = tuple(sorted((p, v["troops"], bool(v["peep"]))
                          for p, v in cell.get("pieces", {}).items() if v["troops"] or v["peep"]))
    if not pieces and not cell.get("supply_center"):
        return None
    return (bool(cell.get("supply_center")), pieces)
