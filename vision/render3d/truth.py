"""The truth of a 3D scene, in the same terms as the 2D renderer's (``vision.render.scene``):
tiles with id and lattice position, every occupied cell's pieces per player and Supply
Center, and the share of each cell a hand hides — plus JSON to cache it beside the frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vision.geometry import Pose2D


@dataclass(frozen=True)
class TruthTile:
    tile_id: int
    q: int
    r: int
    pose: Pose2D  # the printed tile as it lies (table frame)
    rotation: int  # sixths of a turn the print is turned
    visible_slots: tuple[int, ...]  # markers fully in view and not hidden


@dataclass
class Truth3D:
    tiles: list[TruthTile]
    cells: dict[str, dict]  # {cell: {"supply_center": bool, "pieces": {p: {troops, peep}}}}
    hand_cover: dict[str, float]  # share of each cell's picture under a hand (> 0 only)
    players: list[str]
    params: dict = field(default_factory=dict)
    pieces: list[dict] = field(default_factory=list)  # kind, player, cell, centre_mm, z_mm
    kelvin: float = 0.0  # of the strongest light
    # Share of each cell's picture that falls outside the frame (> 0 only): a reader cannot
    # read what the camera does not show, so such a cell may be read occluded.
    out_of_frame: dict[str, float] = field(default_factory=dict)

    @property
    def looks(self) -> dict:
        """Players by name (the 2D truth's ``looks``): every 3D bean is a rendered one."""
        return {p: None for p in self.players}

    def to_json(self) -> dict:
        return {
            "tiles": [{"tile_id": t.tile_id, "q": t.q, "r": t.r,
                       "pose": [t.pose.x, t.pose.y, t.pose.angle_deg], "rotation": t.rotation,
                       "visible_slots": list(t.visible_slots)} for t in self.tiles],
            "cells": self.cells, "hand_cover": self.hand_cover, "players": self.players,
            "params": self.params, "pieces": self.pieces, "kelvin": self.kelvin,
            "out_of_frame": self.out_of_frame,
        }

    @classmethod
    def from_json(cls, data: dict) -> Truth3D:
        tiles = [TruthTile(int(t["tile_id"]), int(t["q"]), int(t["r"]), Pose2D(*t["pose"]),
                           int(t["rotation"]), tuple(t["visible_slots"])) for t in data["tiles"]]
        return cls(tiles, data["cells"], {k: float(v) for k, v in data["hand_cover"].items()},
                   list(data["players"]), data.get("params", {}), data.get("pieces", []),
                   float(data.get("kelvin", 0.0)),
                   {k: float(v) for k, v in data.get("out_of_frame", {}).items()})
