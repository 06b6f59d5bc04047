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
