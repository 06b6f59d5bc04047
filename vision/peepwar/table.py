"""One frame to the whole observation: tiles, then the pieces in every cell.

:func:`read_table` is what ``companion detect`` and the live service call. It
never raises on a bad frame: what cannot be read is left out or reported
``occluded``, with warnings saying why.
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from calibration.profile import Profile
from companion.heap import give_back_freed_memory
from companion.rules.peepwar.board import cells_of
from vision import deblur
from vision.lens import Intrinsics
from vision.peepwar import bean_net, covered_tiles, doubt_model, piece_pixels
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.observation import observation
from vision.peepwar.pieces import read_pieces
from vision.peepwar.tiles import Layout, TableView, find_tiles

# A cell's confidence at most, in a frame whose tiles were found only in a sharpened copy
# (TableView.streak_px): its pieces are read from the smeared frame, where touching beans
# merge and a bean's edge runs into the next; the referee is asked, not told. Its empty
# cells, so doubted, are listed too (CellRead.to_json).
BLURRED_CONFIDENCE = 0.7


def read_table(frame: np.ndarray, profile: Profile,
               intrinsics: Intrinsics | None = None) -> dict:
    """The observation JSON (table standard, section 4) of ``frame``, cells included.

    ``intrinsics`` defaults to the profile's camera. Besides ``tiles`` and
    ``cells`` the result holds ``confidence`` (tiles and cells together),
    ``warnings`` and ``timings_ms`` (tiles, mosaic, pieces).
    """
    return read_table_view(frame, profile, intrinsics)[0]


def prepare_reader(profile: Profile) -> None:
    """Load the bean net and build ``profile``'s colour tables: what a service does once at
    start, so that a missing model fails there and the first frame costs no more than the
    next. Raises :class:`vision.peepwar.bean_net.ModelError` if the net (or the doubt model)
    cannot be read."""
    prepare_rules(profile)
    if profile.colours:
        doubt_model.load()


def prepare_rules(profile: Profile) -> None:
    """:func:`prepare_reader` but for the doubt model: what reading by the rules alone needs
    (the doubt model's own training reads so, whatever model file lies beside it)."""
    covered_tiles.prepare()
    deblur.prepare()
    if profile.colours:
        bean_net.load()
        piece_pixels.prepare(profile)
    give_back_freed_memory()  # the tables' temporaries, which a service would hold for hours


def read_table_view(frame: np.ndarray, profile: Profile, intrinsics: Intrinsics | None = None,
                    layout: Layout | None = None) -> tuple[dict, TableView]:
    """:func:`read_table`, and the table geometry it found (for drawing overlays).
    ``layout``: where tiles lay in earlier frames, to place them by when the Neutral tile
    is hidden (:func:`vision.peepwar.tiles.find_tiles`)."""
    t0 = time.perf_counter()
    if frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)  # a PNG's alpha says nothing of the table
    view = find_tiles(frame, intrinsics if intrinsics is not None else profile.intrinsics,
                      layout=layout)
    t1 = time.perf_counter()
    timings = {"tiles": (t1 - t0) * 1000}
    warnings: list[str] = []
    cells: dict[str, dict] = {}
    cell_conf: list[float] = []
    if view.tiles and view.homography is not None:
        unread = (
            "the profile has no players' colours, so pieces are not read: run companion "
            "calibrate with the colour card" if not profile.colours else
            "the frame has no colour, so pieces (told apart by their colours) are not read: "
            "give the camera's colour frames" if frame.ndim != 3 or frame.shape[2] != 3 else None)
        if unread:
            # No cell is called empty that was not looked at.
            warnings.append(unread)
            cells = {name: {"occluded": True} for name in _all_cells(view)}
        else:
            mosaic = build_mosaic(frame, view)
            t2 = time.perf_counter()
            reading = read_pieces(mosaic, profile)
            t3 = time.perf_counter()
            timings["mosaic"] = (t2 - t1) * 1000
            timings["pieces"] = (t3 - t2) * 1000
            for name, cell in reading.cells.items():
                if view.streak_px is not None:
                    cell.lower(BLURRED_CONFIDENCE)
                cell_conf.append(cell.confidence)
                data = cell.to_json()
                if data is not None:
                    cells[name] = data
            warnings.extend(reading.warnings)
    obs = observation(view, "peepwar", timings, warnings)
    obs["cells"] = dict(sorted(cells.items(), key=lambda kv: _order(kv[0])))
    if cell_conf:
        obs["confidence"] = round(float(min(view.confidence, float(np.mean(cell_conf)))), 3)
    obs["timings_ms"]["total"] = round((time.perf_counter() - t0) * 1000, 2)
    return obs, view


def _all_cells(view) -> list[str]:
    return [c for t in view.tiles for c in cells_of((t.q, t.r))]


def _order(name: str) -> tuple:
    tile, slot = name.split("/")
    q, r = (int(v) for v in tile.split(","))
    return (q, r, -1 if slot == "c" else int(slot))
