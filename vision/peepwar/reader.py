"""Peep War's camera reader, as the game's bundle names it: frame in, observation out.

With a colour profile it reads the tiles and the pieces in every cell
(:func:`vision.peepwar.table.read_table_view`). Without one (or one without
players' colours) the pieces cannot be read, so every cell is reported as
unknown (occluded) rather than empty: the camera then follows setup and the
hexes only, and the players report the rest on the page.

Cells corrected on the page are learned from (:meth:`PeepWarReader.learn`): each is
kept as a labelled example beside the profile (:mod:`calibration.examples`) and the
players' colour models adapt to them (:mod:`vision.peepwar.learning`), now and at every
start with that profile.

The reader also remembers where each tile lay whenever the Neutral tile was in view, so a
hand or a cup over the Neutral tile does not blank the board: the tiles are placed by
those they remember (:func:`vision.peepwar.tiles.find_tiles`), as long as the remembered
tiles in view still lie where they did.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.examples import MAX_EXAMPLES, ExamplesError, ExampleStore, examples_path
from companion.rules.peepwar.board import cells_of
from companion.rules.peepwar.observation import PeepWarObservation
from vision.kit_layout import NEUTRAL_ID
from vision.peepwar import learning
from vision.peepwar.cells import cell_outlines
from vision.peepwar.observation import observation
from vision.peepwar.table import prepare_reader, read_table_view
from vision.peepwar.tiles import TableView, find_tiles

log = logging.getLogger(__name__)
MAX_LESSONS = 4 * MAX_EXAMPLES  # samples and counts kept in memory (several a cell)


class PeepWarReader:
    """Reads frames of one table with one profile; remembers the last geometry for overlays.

    ``card`` is the profile as calibrated, ``profile`` the one frames are read with: the
    card adapted to the examples learned (``examples``: by default the store beside the
    profile's file; none for a profile that was not read from a file)."""

    def __init__(self, profile: Any, examples: ExampleStore | None = None) -> None:
        self.card = profile
        self.intrinsics = profile.intrinsics if profile else None
        if examples is None and profile is not None and profile.source is not None:
            examples = ExampleStore(examples_path(profile.source))
        self.examples = examples
        self.samples: list[learning.Labelled] = []
        # Per corrected frame (by digest): the cells corrected in it, their bean counts,
        # and its other cells' as read, which the players let stand.
        self.frames: dict[str, _FrameLessons] = {}
        if examples is not None and profile is not None:
            try:
                for ex in examples.all():
                    samples, counts = _lessons(ex.summary)
                    self.samples += samples
                    digest = ex.summary.get("frame") if isinstance(ex.summary, dict) else None
                    # (An example kept before frames were noted is a frame of its own.)
                    self._keep(digest if isinstance(digest, str) else f"example {ex.id}",
                               ex.place, counts, _confirmed(ex.summary))
            except ExamplesError as e:  # a damaged file costs what was learned, not the game
                log.warning("%s; reading with the card's colours only", e)
        self.profile = (learning.adapt(profile, self.samples, self._frame_counts())
                        if profile is not None else None)
        if self.profile is not None:
            prepare_reader(self.profile)  # a missing model fails here, at start, not at a frame
        self._view: TableView | None = None
        self.layout: dict[int, tuple[int, int, int]] = {}  # tile id -> (q, r, rotation)

    def read(self, frame: np.ndarray) -> dict[str, Any]:
        """The observation JSON (table standard, section 4), with confidence and timings."""
        if self.profile is not None:  # without players' colours it says so, cells unknown
            data, self._view = read_table_view(frame, self.profile, layout=self.layout)
            self._remember(self._view)
            return data
        view = find_tiles(frame, self.intrinsics, layout=self.layout)
        self._view = view
        self._remember(view)
        data = observation(view)
        data["cells"] = {c: {"occluded": True} for t in view.tiles for c in cells_of((t.q, t.r))}
        return data

    def _remember(self, view: TableView) -> None:
        """Keep where the tiles lie when the Neutral tile itself placed them (a frame placed
        by remembered tiles teaches nothing new, and could carry a small error along)."""
        if any(t.tile_id == NEUTRAL_ID for t in view.tiles):
            self.layout.update({t.tile_id: (t.q, t.r, t.rotation) for t in view.tiles})

    def learn(self, frame: np.ndarray, place: str, truth: Any) -> str:
        """Learn from a correction: ``truth`` (a cell's
        :class:`~companion.rules.peepwar.observation.CellReading`) is what stands in cell
        ``place`` of ``frame``. The example is kept (when the profile has a file) and the
        colour models adapt at once. Says what was learned, or why nothing was."""
        if self.profile is None or not self.card.colours:
            return "nothing learned: the profile has no players' colours"
        found = learning.labelled_pixels(frame, self.profile, place, truth)
        samples = learning.tag(found.samples, self.card)
        counts = found.counts or []
        digest = hashlib.sha1(np.ascontiguousarray(frame)).hexdigest()[:16]
        if self.examples is not None and found.crop:
            try:
                self.examples.add(place, _truth_json(truth), found.crop,
                                  {"samples": [s.to_json() for s in samples],
                                   "beans": [c.to_json() for c in counts],
                                   "frame": digest,
                                   "confirmed": {cell: [c.to_json() for c in n]
                                                 for cell, n in found.confirmed.items()}})
            except ExamplesError as e:
                log.warning("%s", e)
        if not samples and not counts:
            return f"nothing learned from cell {place}: {found.note}"
        self.samples += samples
        del self.samples[:-MAX_LESSONS]
        self._keep(digest, place, counts, found.confirmed)
        self.profile = learning.adapt(self.card, self.samples, self._frame_counts())
        prepare_reader(self.profile)
        taught = [f"{s.player}'s {s.kind} ({s.pixels} px)" for s in samples] + [
            f"{c.player}'s bean count" for c in counts]
        return f"learned from cell {place}: " + ", ".join(taught)

    @property
    def counts(self) -> list[learning.BeanCount]:
        """The bean counts of every corrected cell kept."""
        return [c for lessons in self.frames.values() for c in lessons.counts]

    def _keep(self, digest: str, place: str, counts: list[learning.BeanCount],
              confirmed: dict[str, list[learning.BeanCount]]) -> None:
        """Note a correction of cell ``place`` in the frame ``digest``: its counts, and that
        the cell no longer counts as confirmed there. The frame's confirmed cells are as its
        first correction found them: later ones read it with a threshold already moved,
        which the players never saw."""
        lessons = self.frames.pop(digest, None) or _FrameLessons(set(), [], {})
        lessons.corrected.add(place)
        lessons.counts += counts
        if confirmed and not lessons.confirmed:
            lessons.confirmed = confirmed
        self.frames[digest] = lessons  # the newest last
        while len(self.frames) > MAX_EXAMPLES:
            del self.frames[next(iter(self.frames))]

    def _frame_counts(self) -> list[learning.FrameCounts]:
        return [learning.FrameCounts(lessons.counts,
                                     [c for cell, counts in lessons.confirmed.items()
                                      if cell not in lessons.corrected for c in counts])
                for lessons in self.frames.values()]

    def detect(self, frame: np.ndarray) -> PeepWarObservation:
        return PeepWarObservation.from_dict(self.read(frame))

    def annotate(self, frame: np.ndarray, obs: object = None) -> np.ndarray:
        """The frame with the cells found drawn over it (for the page's camera view)."""
        view = self._view
        if view is None or not view.tiles:
            return frame
        out = frame.copy()
        for outline in cell_outlines(view).values():
            pts = np.round(outline).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [pts], True, (0, 200, 255), 2, cv2.LINE_AA)
        return out


def _lessons(summary: dict) -> tuple[list[learning.Labelled], list[learning.BeanCount]]:
    """An example's summary read back: its colour samples and bean counts."""
    samples, counts = [], []
    if not isinstance(summary, dict):
        return samples, counts
    for out, key, parse in ((samples, "samples", learning.Labelled.from_json),
                            (counts, "beans", learning.BeanCount.from_json)):
        for data in summary.get(key, []):
            try:
                out.append(parse(data))
            except (KeyError, TypeError, ValueError):
                continue  # one damaged sample costs itself only
    return samples, counts


@dataclass
class _FrameLessons:
    corrected: set[str]
    counts: list[learning.BeanCount]
    confirmed: dict[str, list[learning.BeanCount]]


def _confirmed(summary: object) -> dict[str, list[learning.BeanCount]]:
    """An example's confirmed cells read back (none from a damaged or older summary)."""
    out: dict[str, list[learning.BeanCount]] = {}
    cells = summary.get("confirmed") if isinstance(summary, dict) else None
    if not isinstance(cells, dict):
        return out
    for cell, counts in cells.items():
        try:
            out[str(cell)] = [learning.BeanCount.from_json(c) for c in counts]
        except (KeyError, TypeError, ValueError):
            continue  # one damaged cell costs itself only
    return out


def _truth_json(truth: Any) -> dict:
    return {"supply_center": bool(truth.supply_center),
            "pieces": {p: {"troops": int(v.troops), "peep": bool(v.peep)}
                       for p, v in truth.pieces.items()}}


def make_reader(profile: Any) -> PeepWarReader:
    """The reader for ``profile`` (None: tiles only); raises VisionError if its model is
    missing."""
    return PeepWarReader(profile)
