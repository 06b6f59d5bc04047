"""Learning a table from corrections: cells the players corrected adapt the colour models.

A correction says what truly stands in one cell of one frame. Its pixels are labelled
from that (:func:`labelled_pixels`): the cell's foreground, less Supply Centers' discs
and hands, each pixel given to the nearest of the players the correction names, and
within a player to their peep where a peep's body was found (or where their peep model
fits better), else to their bean. Each (player, bean or peep) keeps the labelled pixels'
mean and covariance in calibration's features (:mod:`calibration.colour`), tied to the
card model it adapts by that model's fingerprint: a new calibration leaves old examples
without a model to adapt.

:func:`adapt` then moves each card model towards its examples, and no further than they
warrant:

- the card counts as PRIOR_WEIGHT corrected cells, every example (one cell) as one,
  however many pixels it holds: a heap of beans teaches no more than one bean;
- an example whose colour lies nearer another player's card model than its own (a
  correction naming the wrong player), or farther than GATE_MAX from its own, is not
  learned from;
- the mean moves at most TRUST_PER_EXAMPLE a learned example (in the model's reading
  spread, Mahalanobis), TRUST_MAX in all; the spread stays the card's (widened by the
  spread between examples, a model claimed shadows and its neighbours' colours, and read
  the 3D generator's tuning frames worse: ``bench/correction_learning.py``).

So one wrong correction can move a model by a third of the way to it and at most one
reading spread, never onto another player's colour (:data:`MIN_SEPARATION` is 2.5
spreads of the card's own, tighter, models).

And a model moves only where the moved model reads the table's examples better
(:func:`misassigned`: fewer of the examples' pixels, drawn from each example's mean and
spread, given to another player or to none): the card's own model stays while it reads
them right, and a model moved towards one player's shade is refused when it would take
another player's examples with it. Without that check, on the path-traced generator's
game nights, models moved towards shade took the neighbouring colour's shaded beans
(a purple bean read as blue) and the bean counts worsened with every corrected frame.

The bean net, the reader's learned part, is calibrated to the table the same way: each
corrected cell keeps the heat of every bean the net finds there (read down to
``bean_net.DOUBT_LOW``) beside the true count per player, and the bean threshold becomes
the one that would have counted the corrected frames best (:func:`bean_threshold`). Greyish
beans keep their own, lower, threshold.

Corrected cells are the ones read wrongly, so on their own they only say which way a
threshold would mend them, never what it would break: one frame with two beans missed
under 0.5 taught 0.43, and that threshold then read phantom beans all over the next
frames. So a correction also keeps the beans of the frame's other cells, as read when it
was made (:attr:`CellExample.confirmed`): cells the players left alone are taken as read
right (one that was in truth wrong only holds the threshold nearer where it was). And the
threshold is the table's, not a frame's: it moves only when it counts more corrected
frames better than worse, and then towards the card's as if that were PRIOR_WEIGHT frames.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.colour import ColourModel
from calibration.profile import Profile
from vision.peepwar import bean_net
from vision.peepwar.mosaic import build_mosaic
from vision.peepwar.passes import beans as beans_pass
from vision.peepwar.piece_pixels import READ_SPREAD, UNKNOWN_DISTANCE, pixel_features
from vision.peepwar.pieces import frame_state
from vision.peepwar.tiles import find_tiles

PRIOR_WEIGHT = 2.0
TRUST_PER_EXAMPLE = 1.0
TRUST_MAX = 4.0
GATE_MAX = 8.0
MIN_PIXELS = 12  # fewer labelled pixels of one piece kind teach nothing (a bean is ~200)
LIGHT_KEEP = (3, 92)  # lightness percentiles kept: no highlights, no dark crevices
CROP_GROW_PX = 4
KINDS = ("bean", "peep")
THRESHOLDS = np.round(np.arange(0.3, 0.91, 0.05), 2)  # the bean thresholds a table may learn
MIN_FRAMES_AGREE = 2  # corrected frames a threshold must count better, net, to be learned
# Fixed draws from a standard normal: an example's pixels, drawn from its mean and spread,
# when a model's adaptation is checked against the table's other examples (misassigned).
_DRAWS = np.random.default_rng(0).standard_normal((48, 3))


@dataclass(frozen=True)
class Labelled:
    """One example's pixels of one player's bean or peep: what they teach that model."""

    player: str
    kind: str  # "bean" or "peep"
    model: str  # fingerprint of the card model it adapts
    pixels: int
    mean: np.ndarray
    cov: np.ndarray

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "kind": self.kind, "model": self.model,
                "pixels": self.pixels, "mean": np.round(self.mean, 5).tolist(),
                "cov": np.round(self.cov, 7).tolist()}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Labelled:
        mean, cov = np.asarray(data["mean"], float), np.asarray(data["cov"], float)
        if mean.shape != (3,) or cov.shape != (3, 3) or data["kind"] not in KINDS:
            raise ValueError("not a labelled sample")
        return Labelled(str(data["player"]), str(data["kind"]), str(data["model"]),
                        int(data["pixels"]), mean, cov)


def fingerprint(model: ColourModel) -> str:
    """A short name for a card model: examples adapt only the model they were taken for."""
    text = json.dumps(model.to_json(), sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def _reading_cov(model: ColourModel) -> np.ndarray:
    return model.cov + np.diag(READ_SPREAD**2)


def _mahalanobis(model: ColourModel, x: np.ndarray) -> float:
    d = np.asarray(x, float) - model.mean
    return float(np.sqrt(d @ np.linalg.solve(_reading_cov(model), d)))


@dataclass(frozen=True)
class BeanCount:
    """One corrected cell's beans of one player: the true count, and the heat of every
    peak the net read as that player's bean there (down to ``bean_net.DOUBT_LOW``)."""

    player: str
    truth: int
    heats: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "truth": self.truth,
                "heats": [round(h, 3) for h in self.heats]}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> BeanCount:
        return BeanCount(str(data["player"]), int(data["truth"]),
                         tuple(float(h) for h in data["heats"]))

    def error(self, threshold: float) -> int:
        return abs(sum(h >= threshold for h in self.heats) - self.truth)


@dataclass
class CellExample:
    """What one correction gives: the labelled samples, the bean counts, the cell's crop
    (PNG), why nothing was learned when nothing was, and the bean counts of the frame's
    other cells as they were read (``confirmed``: cell -> counts)."""

    samples: list[Labelled]
    crop: bytes
    note: str = ""
    counts: list[BeanCount] | None = None
    confirmed: dict[str, list[BeanCount]] = field(default_factory=dict)


def labelled_pixels(frame: np.ndarray, profile: Profile, place: str,
                    truth: Any) -> CellExample:
    """The pixels of cell ``place`` in ``frame``, labelled by ``truth`` (a
    :class:`~companion.rules.peepwar.observation.CellReading`), read with ``profile`` (the
    models as adapted so far: they only split pixels between the players ``truth`` names)."""
    if frame.ndim != 3 or frame.shape[2] < 3 or not profile.colours:
        return CellExample([], b"", "no colour frame or no players' colours")
    frame = frame[:, :, :3]
    view = find_tiles(frame, profile.intrinsics)
    if view.homography is None or not view.tiles:
        return CellExample([], b"", "no tiles in the frame")
    if view.streak_px is not None:  # smeared colours and heats would teach the blur
        return CellExample([], b"", "the frame is blurred: nothing learnt from it")
    mosaic = build_mosaic(frame, view)
    if place not in mosaic.cell_names:
        return CellExample([], b"", f"cell {place} is not in the frame")
    index = mosaic.cell_names.index(place)
    in_cell = mosaic.cell_map == index
    crop = _crop(mosaic.image, in_cell)
    players = [p for p, v in truth.pieces.items()
               if (v.troops or v.peep) and p in profile.colours
               and profile.colours[p].peep is not None]
    counts, confirmed = _bean_counts(mosaic, profile, place, truth)
    if not players:
        return CellExample([], crop, "the cell holds no player's pieces", counts, confirmed)
    st = frame_state(mosaic, profile)
    fg = st.px.fg.astype(np.uint8)
    core = cv2.erode(fg, np.ones((3, 3), np.uint8)) > 0  # no pixels mixed with the paper
    use = in_cell & core & (st.egg == 0) & (st.occluder == 0)
    flat = np.flatnonzero(use)
    if len(flat) < MIN_PIXELS:
        return CellExample([], crop, "too few piece pixels in the cell", counts, confirmed)
    feats = pixel_features(st.px, flat)
    models = {p: profile.colours[p] for p in players}
    if len(players) == 1:
        owner = np.zeros(len(flat), np.intp)
    else:
        d = np.stack([np.minimum(*(np.linalg.norm(_whiten(m, feats), axis=1)
                                   for m in (models[p].bean, models[p].peep)))
                      for p in players], axis=1)
        owner = np.argmin(d, axis=1)
    body = st.body.ravel()[flat] > 0
    peepish = st.px.peepish.ravel()[flat]
    samples = []
    for k, p in enumerate(players):
        mine = owner == k
        has = truth.pieces[p]
        if has.peep and has.troops:
            on_body = mine & body
            peep = on_body if on_body.sum() >= MIN_PIXELS else mine & peepish
        else:
            peep = mine if has.peep else np.zeros_like(mine)
        for kind, sel in (("bean", mine & ~peep), ("peep", peep)):
            card = getattr(profile.colours[p], kind)
            found = _stats(feats[sel])
            if found is not None and card is not None:
                samples.append(Labelled(p, kind, "", *found))
    return CellExample(samples, crop, "" if samples else "too few piece pixels in the cell",
                       counts, confirmed)


def _bean_counts(mosaic: Any, profile: Profile, place: str,
                 truth: Any) -> tuple[list[BeanCount], dict[str, list[BeanCount]]]:
    """The corrected cell's counts: per player (not greyish) with beans in it, truly or as
    read, the true count and the heats of the beans the net finds there when every peak
    down to DOUBT_LOW counts. And the same for every other cell with a bean found, under no
    hand, the count as read at the threshold in force taken for the truth."""
    st = frame_state(mosaic, profile)
    occluded = {mosaic.cell_names[int(i)] for i in np.unique(mosaic.cell_map[st.occluder > 0])
                if 0 <= int(i) < len(mosaic.cell_names)}
    st.bean_threshold = [bean_net.DOUBT_LOW] * len(st.px.players)
    beans_pass.count_beans(st)
    # The thresholds the reader held this frame to (its peaks' own, unless learnt).
    in_force = dict(zip(
        st.px.players, beans_pass.thresholds_for(st, bean_net.frame_threshold(st.peak_heats)),
        strict=True))
    heats: dict[str, dict[str, list[float]]] = {}
    for cell, player, heat, *_ in st.beans_counted:
        heats.setdefault(cell, {}).setdefault(player, []).append(heat)
    grey = dict(zip(st.px.players, beans_pass._greyish(st), strict=True))

    def counts(cell: str, truths: dict[str, int]) -> list[BeanCount]:
        found = heats.get(cell, {})
        return [BeanCount(p, truths.get(p, 0), tuple(sorted(found.get(p, []), reverse=True)))
                for p in sorted(set(truths) | set(found)) if p in grey and not grey[p]]

    confirmed = {cell: counts(cell, {p: sum(h >= in_force[p] for h in hs)
                                     for p, hs in found.items()})
                 for cell, found in heats.items() if cell != place and cell not in occluded}
    if place in occluded:
        return [], confirmed  # a hand there: what the net sees is not the cell's
    truths = {p: int(v.troops) for p, v in truth.pieces.items() if v.troops}
    return counts(place, truths), {c: n for c, n in confirmed.items() if n}


@dataclass
class FrameCounts:
    """One corrected frame's bean counts: its corrected cells', and its other cells' as
    read, which the players let stand (``confirmed``)."""

    corrected: list[BeanCount]
    confirmed: list[BeanCount] = field(default_factory=list)

    def error(self, threshold: float) -> int:
        """Beans miscounted in this frame's cells had ``threshold`` been the table's."""
        return sum(c.error(threshold) for c in (*self.corrected, *self.confirmed))


def bean_threshold(frames: Iterable[FrameCounts]) -> float | None:
    """The bean threshold these corrected frames teach (None: no corrected counts).

    A threshold is a candidate when, against the card's, it counts the beans of more
    corrected frames better than worse, by MIN_FRAMES_AGREE frames at least: the table's
    threshold is the table's, so one frame, however badly read, is not evidence of it. Of
    the candidates, the one that counts all the frames' cells best (the nearest the card's
    of equals), shrunk towards the card's as if that were PRIOR_WEIGHT frames.

    >>> missed = BeanCount("red", 3, (0.9, 0.8, 0.45))  # corrected: one bean under 0.5
    >>> bean_threshold([FrameCounts([missed])])  # one frame moves nothing
    0.5
    >>> round(bean_threshold([FrameCounts([missed])] * 2), 3)  # two, half of the way
    0.475
    >>> calm = [BeanCount("red", 1, (0.9, 0.46))] * 3  # let stand: a 0.46 peak is no bean
    >>> bean_threshold([FrameCounts([missed], calm)] * 2)
    0.5
    """
    frames = [f for f in frames if f.corrected]
    if not frames:
        return None
    base = bean_net.THRESHOLD
    before = [f.error(base) for f in frames]
    best, best_error = base, sum(before)
    for t in sorted(map(float, THRESHOLDS), key=lambda t: abs(t - base)):
        after = [f.error(t) for f in frames]
        better = sum(a < b for a, b in zip(after, before, strict=True))
        worse = sum(a > b for a, b in zip(after, before, strict=True))
        if better - worse >= MIN_FRAMES_AGREE and sum(after) < best_error:
            best, best_error = t, sum(after)
    n = len(frames)
    return base + (best - base) * n / (n + PRIOR_WEIGHT)


def _whiten(model: ColourModel, feats: np.ndarray) -> np.ndarray:
    chol = np.linalg.cholesky(np.linalg.inv(_reading_cov(model)))
    return (feats - model.mean) @ chol


def _stats(feats: np.ndarray) -> tuple[int, np.ndarray, np.ndarray] | None:
    if len(feats) < MIN_PIXELS:
        return None
    lo, hi = np.percentile(feats[:, 2], LIGHT_KEEP)
    core = feats[(feats[:, 2] >= lo) & (feats[:, 2] <= hi)]
    if len(core) < MIN_PIXELS:
        core = feats
    return len(core), core.mean(axis=0), np.cov(core, rowvar=False)


def _crop(image: np.ndarray, in_cell: np.ndarray) -> bytes:
    x, y, w, h = cv2.boundingRect(in_cell.view(np.uint8))
    g = CROP_GROW_PX
    y0, x0 = max(y - g, 0), max(x - g, 0)
    ok, png = cv2.imencode(".png", image[y0:y + h + g, x0:x + w + g])
    return png.tobytes() if ok else b""


def tag(samples: Iterable[Labelled], card: Profile) -> list[Labelled]:
    """``samples`` tied to the card models they adapt (by fingerprint)."""
    out = []
    for s in samples:
        model = getattr(card.colours[s.player], s.kind) if s.player in card.colours else None
        if model is not None:
            out.append(replace(s, model=fingerprint(model)))
    return out


def adapt(card: Profile, samples: Iterable[Labelled],
          frames: Iterable[FrameCounts] = ()) -> Profile:
    """``card`` with every colour model adapted to the samples taken for it and the bean
    threshold to the corrected frames' bean counts (see the module's docstring for how
    far); models without samples are the card's own."""
    by_model: dict[tuple[str, str], list[Labelled]] = {}
    for s in samples:
        by_model.setdefault((s.player, s.kind), []).append(s)
    learned = bean_threshold(
        FrameCounts([c for c in f.corrected if c.player in card.colours],
                    [c for c in f.confirmed if c.player in card.colours]) for f in frames)
    # Kept only once the corrections have moved it: until then each frame's own threshold
    # (from its peaks) stands.
    if learned is not None and abs(learned - bean_net.THRESHOLD) > 1e-9:
        card = replace(card, extra={**card.extra, beans_pass.LEARNED_THRESHOLD: learned})
    if not by_model:
        return card
    colours = dict(card.colours)
    candidates: list[tuple[str, str, ColourModel]] = []
    examples: list[Labelled] = []  # every example taken for the card's own models
    for (player, kind), found in by_model.items():
        if player not in card.colours:
            continue
        model = getattr(card.colours[player], kind)
        if model is None:
            continue
        mine = fingerprint(model)
        examples += [s for s in found if s.model == mine]
        others = [getattr(c, kind) for p, c in card.colours.items()
                  if p != player and getattr(c, kind) is not None]
        kept = [s for s in found if s.model == mine and _plausible(model, others, s.mean)]
        if kept:
            candidates.append((player, kind, adapted(model, kept)))
    # An adapted model is kept only where it reads the table's examples better than the
    # models kept so far: fewer of their pixels given to another player or to none. A model
    # the card already reads right is not moved (moving it could only take pixels from
    # someone), and one moved towards one player's shade must not take another player's
    # shade with it. The most taught first.
    wrong = misassigned(colours, examples)
    for player, kind, new in sorted(candidates, key=lambda c: -len(by_model[c[:2]])):
        trial = {**colours, player: replace(colours[player], **{kind: new})}
        trial_wrong = misassigned(trial, examples)
        if trial_wrong < wrong - 1e-9:
            colours, wrong = trial, trial_wrong
    return replace(card, colours=colours)


def misassigned(colours: Mapping[str, Any], examples: Iterable[Labelled]) -> float:
    """How many of ``examples``' pixels (in examples: each counts as one, its pixels drawn
    from its mean and spread) the reader would not give to their own player: nearer another
    player's colour models (the nearer of bean and peep, in the models' reading spread), or
    farther than UNKNOWN_DISTANCE from their own player's.

    >>> from calibration.profile import PlayerColours
    >>> red = ColourModel(np.array([0.3, 0.1, 0.5]), np.eye(3) * 1e-4, 100)
    >>> orange = ColourModel(np.array([0.2, 0.2, 0.6]), np.eye(3) * 1e-4, 100)
    >>> shade = Labelled("red", "bean", "", 100, np.array([0.3, 0.1, 0.4]), np.eye(3) * 1e-5)
    >>> misassigned({"red": PlayerColours(red, None),
    ...              "orange": PlayerColours(orange, None)}, [shade])
    0.0
    >>> misassigned({"red": PlayerColours(orange, None),  # the models swapped
    ...              "orange": PlayerColours(red, None)}, [shade])
    1.0
    """
    players = list(colours)
    examples = [ex for ex in examples if ex.player in colours]
    if not examples:
        return 0.0
    # Every example's draws at once (E x DRAWS x 3); a degenerate spread draws its mean.
    covs = np.stack([ex.cov for ex in examples]) + 1e-9 * np.eye(3)
    roots = np.linalg.cholesky(np.where(np.linalg.eigvalsh(covs)[:, :1, None] > 0, covs,
                                        1e-9 * np.eye(3)))
    pts = (np.stack([ex.mean for ex in examples])[:, None, :]
           + np.einsum("dk,ejk->edj", _DRAWS, roots)).reshape(-1, 3)
    own = np.repeat([players.index(ex.player) for ex in examples], len(_DRAWS))
    dist = np.full((len(players), len(pts)), np.inf)
    for k, p in enumerate(players):
        for m in (colours[p].bean, colours[p].peep):
            if m is not None:
                d = pts - m.mean
                inv = np.linalg.inv(_reading_cov(m))
                np.minimum(dist[k], np.einsum("ij,jk,ik->i", d, inv, d), out=dist[k])
    wrong = (np.argmin(dist, axis=0) != own) | (dist[own, np.arange(len(pts))]
                                                 > UNKNOWN_DISTANCE**2)
    return float(wrong.reshape(len(examples), -1).mean(axis=1).sum())


def _plausible(model: ColourModel, others: list[ColourModel], mean: np.ndarray) -> bool:
    """Is ``mean`` this model's colour at all: not nearer another player's, not far off?"""
    own = _mahalanobis(model, mean)
    return own <= GATE_MAX and all(own <= _mahalanobis(o, mean) for o in others)


def adapted(model: ColourModel, samples: list[Labelled]) -> ColourModel:
    """``model`` moved towards ``samples`` (every one already judged plausible)."""
    k = len(samples)
    w = PRIOR_WEIGHT + k
    mean = (PRIOR_WEIGHT * model.mean + sum(s.mean for s in samples)) / w
    read = _reading_cov(model)
    shift = mean - model.mean
    dist = float(np.sqrt(shift @ np.linalg.solve(read, shift)))
    trust = min(TRUST_PER_EXAMPLE * k, TRUST_MAX)
    if dist > trust:
        mean = model.mean + shift * (trust / dist)
    return ColourModel(mean, model.cov, model.pixels + sum(s.pixels for s in samples))
