"""Reading a PeltaPeeps layout from one photo: pieces, faces, catalog pieces, joins.

The steps (each in its own module):

1. :mod:`~vision.peltapeeps.discs` — the table's colour from the photo's border,
   a mask of what is not table, the disc size from it, and candidate discs from
   a circle search at a scale where a disc is about :data:`WORK_RADIUS` px.
   No printed kit is needed: the disc itself (DISC_RADIUS_MM) is the scale.
   The mask's size is checked against sizes tried as hypotheses (each scored by
   the round rims its circles show: :func:`_size_scores`); when the rims found
   (step 3) show another size, or that most discs are not whole (acrylic goes on
   past their rims), the search runs again at other sizes.
   Round things of one colour no team has are pointed out in a warning.
2. :mod:`~vision.peltapeeps.colours` — the lamp's colour (there is no white
   card) and each disc's team from the profile's colour models.
3. :mod:`~vision.peltapeeps.rims` — each disc's centre from its rim and its
   connectors; where two discs of one colour (or alike) touch, the readings the
   full-resolution photo allows, each with its cost. Its face
   (:mod:`~vision.peltapeeps.face`): up or down from how its painted marks look,
   in doubt when they could be either.
4. :mod:`~vision.peltapeeps.identify` — the catalog piece per disc, one of each
   per team (an assignment), and its turn; the contacts the colours could not
   tell and any clash (no legal layout has one) settled for the whole layout.
5. Joins: for every two touching discs, the rules engine's own contact test
   (:func:`companion.rules.peltapeeps.layout.contact`) on the recovered poses.
6. :mod:`~vision.peltapeeps.glare` — patches of the lamp's reflection among the
   pieces, where colour is lost, each named in a warning.

Doubtful pieces are named in warnings (where, and what is in doubt) rather
than guessed silently.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.profile import Profile
from companion.rules.peltapeeps.catalog import Catalog, Piece
from companion.rules.peltapeeps.layout import Placed, contact
from vision.errors import PhotoError
from vision.peltapeeps import colours, discs, face, glare, identify, rims
from vision.peltapeeps.geometry import PieceGeometry, lying, outline
from vision.peltapeeps.reading import ROUGH, LayoutReading, SeenJoin, SeenPiece
from vision.srgb import SRGB_TO_LINEAR

WORK_RADIUS = 22.0  # px: discs are found and read with about this radius
MIN_PIXELS = 320 * 240
TEAM_MARGIN = 1.5  # nearest minus second team distance below which a team is in doubt
OUTLINE_POINTS = 96
MIN_RIM_SHARE = 0.25  # a disc's rim shows round at least this share of the way round
MIN_RIM_SHARE_TABLE_HUE = 0.38  # ... or this share when it has the table's hue
ROUGH_COST = 0.6  # a piece whose connectors cost more than this fits only roughly
RIM_FIT_OK = 0.55  # discs found at the right size show their rim this much (median) ...
OTHER_SIZES = (1.6, 1 / 1.6)  # ... else these sizes (times the first) are tried too


def _check_frame(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
            or frame.dtype != np.uint8:
        shape = getattr(frame, "shape", None)
        raise PhotoError(f"not a colour photo (got {type(frame).__name__} {shape}): "
                        "give a BGR 8-bit image as read by OpenCV")
    if frame.shape[0] * frame.shape[1] < MIN_PIXELS:
        raise PhotoError(f"the photo is too small ({frame.shape[1]}x{frame.shape[0]}): "
                        "use at least 320x240 (a photo of a layout is best at 2000x1500 or more)")
    return frame


@functools.lru_cache(maxsize=16)
def _geometry(catalog: Catalog) -> PieceGeometry:
    return PieceGeometry.from_sizes(catalog.sizes)


def _catalog_for(catalog: Catalog | Mapping[str, Catalog], team: str) -> Catalog:
    if isinstance(catalog, Catalog):
        return catalog
    if team not in catalog:
        raise PhotoError(f"no catalog for team {team!r}: give one per profile colour")
    return catalog[team]


def _disc_colours(lin: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """Camera colour of each candidate: the darker half of its centre (least lamp glare)."""
    off = np.linspace(-0.6, 0.6, 9)
    gx, gy = np.meshgrid(off, off)
    keep = np.hypot(gx, gy) <= 0.6
    ox, oy = gx[keep], gy[keep]
    h, w = lin.shape[:2]
    if not len(cands):
        return np.zeros((0, 3), np.float32)
    # Every candidate at once (thousands on a patterned table), medians bit for bit
    # as np.median takes them one candidate at a time.
    x, y, r = cands[:, 0:1], cands[:, 1:2], cands[:, 2:3]
    px = np.clip((x + ox * r).astype(int), 0, w - 1)
    py = np.clip((y + oy * r).astype(int), 0, h - 1)
    v = lin[py, px]  # (N, samples, 3)
    lum = v.sum(axis=-1)
    darker = lum <= rims.row_medians(lum)[:, None]
    return np.stack([rims.row_medians(v[..., c], darker) for c in range(3)], axis=1
                    ).astype(np.float32)


def _where(d: rims.Disc, scale: float) -> str:
    return f"near ({d.x * scale:.0f}, {d.y * scale:.0f})"


def read_layout(frame_bgr: np.ndarray, profile: Profile,
                catalog: Catalog | Mapping[str, Catalog]) -> LayoutReading:
    """Every piece of a PeltaPeeps layout in one photo, and which pieces join.

    ``profile`` gives the teams' colours (its players are the team colours);
    ``catalog`` is one piece set for every team or a set per team. Raises
    :class:`vision.errors.PhotoError` for input that is not a photo.
    """
    t0 = time.perf_counter()
    frame = _check_frame(frame_bgr)
    models = colours.team_models(profile)
    if not models.teams:
        raise PhotoError("the profile has no team colours: calibrate with a piece of each team")
    h, w = frame.shape[:2]
    reading = LayoutReading([], [], (w, h))

    s1 = min(1.0, discs.WORK_SIDE / max(h, w))
    small = cv2.resize(frame, (round(w * s1), round(h * s1)), interpolation=cv2.INTER_AREA) \
        if s1 < 1 else frame
    feats = discs.features(small)
    table = discs.table_model(feats)
    mask = discs.piece_mask(feats, table)
    radius1 = discs.estimate_radius(mask) if mask.mean() > 0.002 else None
    if radius1 is None:
        return _nothing(reading, t0)

    lut = colours.chroma_table(models)
    radius1 = _disc_size(small, models, lut, table, radius1)
    for _ in range(3):
        got = _find(frame, radius1 / s1, models, lut, table)
        if not got.discs:
            _strangers(got, reading.warnings)
            return _nothing(reading, t0)
        # A disc size misjudged from the mask (a dark pupil splits a disc's peak)
        # shows in the rims found: look again at the scale they give.
        size = float(np.median([d.r for d in got.discs])) / min(WORK_RADIUS, radius1 / s1)
        if 0.85 < size < 1.18:
            break
        radius1 = radius1 * size
    if _rim_fit(got.discs) < RIM_FIT_OK:
        # Discs read at the wrong size (a cluster makes the mask's size too small or
        # large) show the acrylic going on past most of their rims: try other sizes.
        others = [_find(frame, radius1 / s1 * f, models, lut, table) for f in OTHER_SIZES]
        got = max([g for g in others if g.discs] + [got], key=lambda g: _rim_fit(g.discs))
    found, back, gains = got.discs, got.back, got.gains
    _strangers(got, reading.warnings)
    grey_full = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    for d in found:
        # The catalog's sizes say where each disc's connectors show, in shares of the
        # radius the photo shows it at.
        d.geometry = _geometry(_catalog_for(catalog, models.teams[d.team]))
        d.marks = face.face_marks(frame, d, gains, lut, back)
        d.face_up = d.marks.up
    pairs = rims.neighbours(found)
    contacts = rims.connectors(found, grey_full, back, pairs)
    # Each touching pair with the direction from the first to the second (image degrees).
    touching = [(i, j, rims.pair_frame(found[i], found[j])[1]) for i, j in pairs]

    pieces, placed = _identify(found, touching, contacts, models.teams, catalog, back,
                               reading.warnings)
    pieces, placed = _apart(found, touching, pieces, placed, back, reading.warnings)
    reading.pieces = pieces
    reading.joins = _joins(found, touching, placed, catalog, back, reading.warnings)
    _glare(feats, table, found, back * s1, s1, reading.warnings)
    reading.seconds = time.perf_counter() - t0
    return reading


def _glare(feats: np.ndarray, table: discs.TableModel, found: list[rims.Disc],
           to_small: float, s1: float, warnings: list[str]) -> None:
    """A warning for each patch of the lamp's reflection among the pieces: what lies
    under it has lost its colour, so pieces there may be missing or misread."""
    if not found:
        return
    radius = float(np.median([d.r for d in found])) * to_small
    for x, y in glare.glare_patches(feats, table, radius,
                                    [(d.x * to_small, d.y * to_small) for d in found]):
        warnings.append(f"the lamp's reflection washes out the pieces near ({x / s1:.0f}, "
                        f"{y / s1:.0f}): pieces there may be missing or misread; move the "
                        "lamp or the camera and take the photo again")


@dataclass
class _Search:
    """What one search at one disc size found (positions in work px)."""

    discs: list[rims.Disc]
    back: float = 1.0  # work px -> photo px
    gains: np.ndarray = field(default_factory=lambda: np.ones(3))  # the lamp's colour
    strangers: list[tuple[float, float]] = field(default_factory=list)  # round, no team's colour


def _find(frame: np.ndarray, radius: float, models: colours.TeamModels,
          lut: colours.ChromaTable, table: discs.TableModel) -> _Search:
    """The discs (refined, checked) with the photo scaled so ``radius`` (photo px)
    becomes WORK_RADIUS, and round things of one colour that is neither the
    table's nor any team's."""
    h, w = frame.shape[:2]
    s2 = min(1.0, WORK_RADIUS / radius)
    work = cv2.resize(frame, (round(w * s2), round(h * s2)), interpolation=cv2.INTER_AREA) \
        if s2 < 1 else frame
    back = 1.0 / s2  # work px -> photo px
    grey = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    cands = discs.find_discs(grey, radius * s2)
    lin = SRGB_TO_LINEAR[work]
    if not len(cands):
        return _Search([], back)
    cols = _disc_colours(lin, cands)
    # Candidates the colour of the table are not pieces: keep them out of the lamp's colour.
    light = np.cbrt(np.maximum(cols @ np.array([0.0722, 0.7152, 0.2126], np.float32), 0))
    light /= table.shading(cands[:, 0], cands[:, 1], work.shape[1], work.shape[0])
    tableish = discs.is_table(colours.chroma(cols), light, table)
    cands, cols = cands[~tableish], cols[~tableish]
    if not len(cands):
        return _Search([], back)
    gains = colours.white_balance(cols, models, lut)
    best, dist, second, dist2 = colours.classify(cols, gains, models)
    found = [rims.Disc(float(x), float(y), float(r), int(t), float(d1), float(d2 - d1), int(t2))
             for (x, y, r), t, d1, t2, d2 in zip(cands, best, dist, second, dist2, strict=True)
             if d1 < colours.FAR]
    far = [(float(x), float(y), float(r)) for (x, y, r), d1 in zip(cands, dist, strict=True)
           if d1 >= colours.FAR]
    rims.refine(lin, found, gains, lut, table)
    found = _keep_discs(found, lin, table, gains, lut)
    more = rims.missed(lin, found, gains, lut, table, float(np.median(cands[:, 2])))
    if more:
        rims.refine(lin, more, gains, lut, table)
        _, dist, second, dist2 = colours.classify(
            _disc_colours(lin, np.array([[d.x, d.y, d.r] for d in more])), gains, models)
        for d, d1, t2, d2 in zip(more, dist, second, dist2, strict=True):
            d.team_distance, d.team_margin, d.runner_up = float(d1), float(d2 - d1), int(t2)
        found = _keep_discs(found + more, lin, table, gains, lut)
    return _Search(found, back, gains, _plain_round(lin, far, found))


STRANGER_SPREAD = 0.06  # chromaticity spread (std) of one plain colour round a disc
STRANGER_APART = 1.6  # radii from every disc read: not an arc between pieces


def _plain_round(lin: np.ndarray, cands: list[tuple[float, float, float]],
                 found: list[rims.Disc]) -> list[tuple[float, float]]:
    """Candidates clear of the discs read whose body is one plain colour all round."""
    out: list[tuple[float, float]] = []
    th = np.linspace(0, 2 * math.pi, 48, endpoint=False)
    ring = np.mean(rims.BODY)
    for x, y, r in cands:
        if any(math.hypot(x - d.x, y - d.y) < STRANGER_APART * max(r, d.r) for d in found) \
                or any(math.hypot(x - a, y - b) < 2 * r for a, b in out):
            continue
        px = rims.sample_at(lin, (x + ring * r * np.cos(th)).astype(np.float32),
                            (y + ring * r * np.sin(th)).astype(np.float32))
        if float(colours.chroma(px).std(axis=0).max()) < STRANGER_SPREAD:
            out.append((x, y))
    return out


def _strangers(got: _Search, warnings: list[str]) -> None:
    """A warning for each round thing of no team's colour: a piece not calibrated?"""
    for x, y in got.strangers:
        warnings.append(f"something round near ({x * got.back:.0f}, {y * got.back:.0f}) "
                        "is no team's colour in the profile: if it is a piece, calibrate "
                        "with a piece of its colour ('companion calibrate') and read again")


SIZE_STEP = 1.45  # the disc sizes tried apart (ratio)
SIZE_RADIUS = 12.0  # px: each size is tried with discs about this big
SIZE_TOP = 48  # strongest circles tried at each size
SIZE_MIN = 0.012  # smallest disc radius tried, a share of the photo's long side
SIZE_MAX = 0.125  # largest


def _size_scores(small: np.ndarray, models: colours.TeamModels, lut: colours.ChromaTable,
                 table: discs.TableModel, low: float) -> list[tuple[float, float]]:
    """(radius in ``small``'s px, score) for a ladder of disc sizes from ``low`` up.

    Each size is a hypothesis tried on its own: the strongest circles of about that
    radius, each kept when its colour is a team's all round its body and its rim is
    round where the colour stops. The score is the area those discs explain (radius
    squared times the share of the rim found where it should be): at the right size
    whole discs with round rims; at half size pieces of discs whose colour goes on
    past their "rims"; at twice the size circles round several discs and table.
    """
    h, w = small.shape[:2]
    side = max(h, w)
    out = []
    r = max(low, SIZE_MIN * side)
    while r <= SIZE_MAX * side:
        s = min(1.0, SIZE_RADIUS / r)
        img = cv2.resize(small, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) \
            if s < 1 else small
        grey = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
        cands = discs.find_discs(grey, r * s)
        lin = SRGB_TO_LINEAR[img]
        cols = _disc_colours(lin, cands)
        # Circles the colour of the table are not pieces (a pattern's printed circles).
        light = np.cbrt(np.maximum(cols @ np.array([0.0722, 0.7152, 0.2126], np.float32), 0))
        light /= table.shading(cands[:, 0], cands[:, 1], img.shape[1], img.shape[0])
        piece = ~discs.is_table(colours.chroma(cols), light, table)
        cands, cols = cands[piece][:SIZE_TOP], cols[piece][:SIZE_TOP]
        score = 0.0
        if len(cands):
            gains = colours.white_balance(cols, models, lut)
            best, dist, _, _ = colours.classify(cols, gains, models)
            found = [rims.Disc(float(x), float(y), float(rr), int(t))
                     for (x, y, rr), t, d1 in zip(cands, best, dist, strict=True)
                     if d1 < colours.FAR]
            rims.refine(lin, found, gains, lut, table, rounds=1)
            score = sum(d.rim_share * (d.r / s) ** 2 for d in _keep_discs(found, lin, table))
        out.append((r, score))
        r *= SIZE_STEP
    return out


SIZE_AGREE = 1.45  # the mask's size within this ratio of the best hypothesis: kept


def _disc_size(small: np.ndarray, models: colours.TeamModels, lut: colours.ChromaTable,
               table: discs.TableModel, from_mask: float) -> float:
    """The disc radius (``small``'s px) to search at: the mask's when the size
    hypotheses agree with it, else the best hypothesis (glare, paint or a patterned
    table spoil the mask)."""
    scores = _size_scores(small, models, lut, table, 0.0)
    k = int(np.argmax([v for _, v in scores]))
    best, top = scores[k]
    if top <= 0 or best / SIZE_AGREE < from_mask < best * SIZE_AGREE:
        return from_mask
    if 0 < k < len(scores) - 1:
        # The peak between its neighbours (a parabola in log radius).
        a, c = scores[k - 1][1], scores[k + 1][1]
        den = a - 2 * top + c
        if den < 0:
            best *= SIZE_STEP ** float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))
    return best


def _rim_fit(found: list[rims.Disc]) -> float:
    """How well the discs' rims sit where their colour stops (the median share of angles)."""
    return float(np.median([d.rim_share for d in found]))


def _nothing(reading: LayoutReading, t0: float) -> LayoutReading:
    reading.warnings.append("no pieces found in the photo")
    reading.seconds = time.perf_counter() - t0
    return reading


def _keep_discs(found: list[rims.Disc], lin: np.ndarray, table: discs.TableModel,
                gains: np.ndarray | None = None, lut: colours.ChromaTable | None = None
                ) -> list[rims.Disc]:
    """Drop candidates that are not a disc (between pieces) and duplicates of one disc.

    A disc shows its own colour all round its body and a round rim over part of
    its edge (neighbours and connectors take the rest); with the lamp's colour
    (``gains``, ``lut``), a part of the body washed by a reflection counts as its
    own (:func:`vision.peltapeeps.rims.washed_body`). A candidate the table's
    hue (a bright patch of table, or a glare-washed piece of the table's colour)
    must show more of a round rim.
    """
    if not found:
        return []
    hue = discs.table_hue(colours.chroma(_disc_colours(
        lin, np.array([[d.x, d.y, d.r] for d in found]))), table)
    good = []
    washed = rims.washed_body(lin, found, gains, lut) if gains is not None \
        and lut is not None else np.zeros(len(found))
    for d, tableish, wash in zip(found, hue, washed, strict=True):
        assert d.labels is not None
        inner = d.labels[:, rims.BODY_COLUMNS]
        need = MIN_RIM_SHARE_TABLE_HUE if tableish else MIN_RIM_SHARE
        if (inner == d.team).mean() + wash < 0.8 or d.rim_share < need:
            continue
        good.append(d)
    good.sort(key=lambda d: -d.rim_share)
    out: list[rims.Disc] = []
    for d in good:
        if all(math.hypot(d.x - o.x, d.y - o.y) > 1.4 * max(d.r, o.r) for o in out):
            out.append(d)
    return out


def _identify(found: list[rims.Disc], touching: list[tuple[int, int, float]],
              contacts: list[rims.ContactInDoubt], teams: list[str],
              catalog: Catalog | Mapping[str, Catalog], back: float, warnings: list[str]
              ) -> tuple[list[SeenPiece], dict[int, Placed]]:
    pieces: list[SeenPiece] = []
    placed: dict[int, Placed] = {}
    names = [teams[d.team] for d in found]
    catalogs = {t: _catalog_for(catalog, t) for t in names}
    marks = [d.marks or face.FaceMarks(0.0, 0.0, 0.0, 0.0) for d in found]
    evidence = [m.evidence for m in marks]
    free = [d.free_connectors for d in found]
    matches, chosen = identify.identify_pieces(
        free, names, catalogs, evidence,
        [m.painted for m in marks], contacts, touching)
    for d, cons in zip(found, rims.with_contacts(free, contacts, chosen), strict=True):
        d.connectors = cons
    for i, (d, team, ev, (m, _cost)) in enumerate(
            zip(found, names, evidence, matches, strict=True)):
        cat = catalogs[team]
        if m is None:
            warnings.append(f"a piece {_where(d, back)}: more {team} pieces than the "
                            f"catalog holds; left out")
            continue
        conf = 1.0
        if m.cost > ROUGH_COST:
            conf *= 0.5
            warnings.append(f"a piece {_where(d, back)}: its connectors fit {team} "
                            f"{m.piece} only roughly")
        if d.team_margin < TEAM_MARGIN and len(teams) > 1:
            conf *= 0.6
            warnings.append(f"a piece {_where(d, back)}: team between {team} and "
                            f"{teams[d.runner_up]}")
        if abs(ev) < 0.3:
            conf *= 0.8
            warnings.append(f"a piece {_where(d, back)}: face up or down is unclear")
        if _rests_on_doubt(d, cat.piece(m.piece), m):
            # The labels saw a cut or tab the piece lacks, set aside because its colour
            # looks like the lamp's light or a tinted shadow: if it is real, the piece
            # is another (or no piece at all: round things that are not pieces show
            # such rims all round).
            conf *= 0.8
            warnings.append(f"a piece {_where(d, back)}: its rim shows a cut or tab that "
                            f"{team} {m.piece} lacks, taken for the lamp's light")
        if any(c[1] != "tab" and c[3] < rims.SURE_SHAPE for c in d.connectors):
            # The photo fits a notch and a curve about as well somewhere on its rim: the
            # catalog chose, and the choice may name the wrong piece.
            conf *= 0.8
            warnings.append(f"a piece {_where(d, back)}: a cut in its rim could be a notch "
                            f"or a curve; read as {team} {m.piece}")
        uid = f"{team}:{m.piece}"
        cons = [(c.angle, c.type) for c in cat.piece(m.piece).connectors]
        shape = outline(lying(cons, m.rotation, m.face_up), OUTLINE_POINTS, d.geometry)
        r_px = d.r * back
        radius_mm = d.geometry.radius_mm
        ox, oy = d.to_image(shape[:, 0] / radius_mm, shape[:, 1] / radius_mm)
        pts = tuple((round(float(x) * back, 1), round(float(y) * back, 1))
                    for x, y in zip(ox, oy, strict=True))
        pieces.append(SeenPiece(uid, team, m.piece, m.face_up,
                                (round(d.x * back, 1), round(d.y * back, 1)),
                                round(r_px, 2), m.rotation, round(conf, 3), pts))
        placed[i] = Placed(uid, team, m.piece, d.x, d.y, m.rotation, m.face_up)
    return pieces, placed


def _rests_on_doubt(d: rims.Disc, piece: Piece, m: identify.Match) -> bool:
    """Whether ``m`` fits ``d``'s connectors well only because connectors the colours
    doubt (those told by colour with sureness under 1) cost it less: were they sure,
    ``piece`` would fit only roughly (cost over :data:`ROUGH_COST`) at any turn. The
    readings chosen at contacts keep their own sureness."""
    doubted = {c for c in d.free_connectors if c[2] < 1.0}
    if m.cost > ROUGH_COST or not doubted:
        return False
    sure = [(a, t, 1.0, ts) if (a, t, s, ts) in doubted else (a, t, s, ts)
            for a, t, s, ts in d.connectors]
    return identify.best_match(sure, piece, m.face_up).cost > ROUGH_COST


LAYOUT_SHARE = 0.75  # this share of the pieces touching others: the photo shows a layout
NO_PIECE = 0.35  # ... and this unsure also has no clear team colour (0.5 x 0.6)


def _apart(found: list[rims.Disc], touching: list[tuple[int, int, float]],
           pieces: list[SeenPiece], placed: dict[int, Placed], back: float,
           warnings: list[str]) -> tuple[list[SeenPiece], dict[int, Placed]]:
    """Leave out "pieces" of a layout that are none: round things whose cut-outs fit
    no piece well, either apart from the layout or with no clear team colour.

    A layout is one group of pieces joined together, so where nearly every piece
    touches another, a round thing touching none whose cut-outs fit the catalog only
    roughly is no piece in play (a patch of the table of a team's colour, a bean);
    nor is one that fits roughly and whose colour lies between two teams' (a hole
    in the layout showing the table, ringed by the pieces round it). Each is named
    in a warning, to be added on the page if it is a piece after all. Pieces lying
    apart in a photo of no layout are all kept (the verdict judges them).
    """
    touched = {i for i, _, _ in touching} | {j for _, j, _ in touching}
    if len(placed) < 3 or sum(i in touched for i in placed) < LAYOUT_SHARE * len(placed):
        return pieces, placed
    by_uid = {p.uid: p for p in pieces}
    drop = {}
    for i, pl in placed.items():
        conf = by_uid[pl.uid].confidence
        if i not in touched and conf <= ROUGH:
            drop[i] = "touches no piece of the layout and fits no piece of the set well"
        elif conf < NO_PIECE:
            drop[i] = "fits no piece of the set well and is no team's colour clearly"
    for i, why in sorted(drop.items()):
        warnings.append(f"something round {_where(found[i], back)} {why}: left out (if it "
                        f"is a piece, add it on the page)")
    gone = {placed[i].uid for i in drop}
    return ([p for p in pieces if p.uid not in gone],
            {i: pl for i, pl in placed.items() if i not in drop})


def _squared(piece: Piece, p: Placed, towards: float) -> float:
    """``p``'s turn, corrected so that its connector nearest ``towards`` (if near enough
    to face it) points exactly there."""
    near = identify.nearest_connector(piece, p.face_up, p.rotation, towards)
    return p.rotation if near is None else (p.rotation + near[0]) % 360


def _joins(found: list[rims.Disc], touching: list[tuple[int, int, float]],
           placed: dict[int, Placed], catalog: Catalog | Mapping[str, Catalog], back: float,
           warnings: list[str]) -> list[SeenJoin]:
    """Every touching pair, judged by the engine's contact rules on the recovered poses.

    The pair is put exactly two radii apart along the seen direction: the photo
    says they touch; which connectors face each other is what matters. A turn read
    a little off (the engine allows :data:`~companion.rules.peltapeeps.layout.ANGLE_TOLERANCE`)
    is squared up first: a connector within
    :data:`~vision.peltapeeps.identify.FACING_DEG` of the other disc faces it.
    A contact no legal layout has (a clash) is named in a warning with the
    engine's reason.
    """
    out = []
    for i, j, ang in touching:
        if i not in placed or j not in placed:
            continue
        a, b = placed[i], placed[j]
        da, db = found[i], found[j]
        piece_a = _catalog_for(catalog, a.team).piece(a.piece)
        piece_b = _catalog_for(catalog, b.team).piece(b.piece)
        pa = Placed(a.uid, a.team, a.piece, 0.0, 0.0,
                    _squared(piece_a, a, ang), a.face_up)
        rad = math.radians(ang)
        pb = Placed(b.uid, b.team, b.piece, 2 * math.cos(rad), 2 * math.sin(rad),
                    _squared(piece_b, b, ang + 180), b.face_up)
        c = contact(piece_a, pa, piece_b, pb)
        if c is None:
            continue
        at = ((da.x + db.x) / 2 * back, (da.y + db.y) / 2 * back)
        if c.kind == "clash":
            warnings.append(f"{a.uid} and {b.uid} near ({at[0]:.0f}, {at[1]:.0f}) cannot lie "
                            f"so: {c.why}")
        x, y = sorted((a.uid, b.uid))
        out.append(SeenJoin(x, y, c.kind, (round(at[0], 1), round(at[1], 1))))
    return out
