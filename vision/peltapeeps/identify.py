"""Which catalog piece each disc is, from the connectors seen around it.

A disc's connectors (angle, type) are compared with every catalog piece of its
team, face up and face down (mirrored), at every turn that lines one seen
connector up with one catalogued connector of the same type. The cost of a
match counts connectors seen but not catalogued, catalogued but not seen, and
type mistakes; the face (and for a face-up piece, asleep or not) the paint
suggests adds a cost when contradicted. Each piece appears once per team, so the
team's discs and its pieces are matched by the cheapest assignment
(:func:`vision.peltapeeps.assign.assign`).

The whole layout is read at once (:func:`identify_pieces`): contacts the colours
could not tell keep every reading, a clash (which no legal layout has) costs, and
a search keeps whichever readings and pieces cost least together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import median

from companion.rules.peltapeeps.catalog import Catalog, Piece
from companion.rules.peltapeeps.layout import fits
from vision.peltapeeps.assign import assign
from vision.peltapeeps.rims import SURE_SHAPE, ContactInDoubt, Seen, with_contacts

ANGLE_TOL = 16.0  # degrees between a seen and a catalogued connector
MISSING = 1.0  # a connector on one side only
WRONG_TYPE = 0.8  # two connectors that line up but differ in type
NOT_IN_SET = 20.0  # a disc left without a piece of the set
# The paint's hint at a face-up piece's kind, learnt from the photo (PaintStyle):
KIND_COST = 1.5  # the most a face-up piece's paint may cost it against its kind
KIND_SURE = 0.8  # connectors that name a disc's kind by this much more teach the paint
KIND_FACE = 0.5  # ... on a disc at least this surely face up (face evidence)
KIND_SAMPLES = 1  # discs of each kind (closed eyes, open faces) needed to learn from
PAINT_SPREAD = 0.2  # least spread of log painted share within a kind
PAINT_FLOOR = 0.003  # added to a painted share before its logarithm


@dataclass(frozen=True)
class Match:
    piece: str
    face_up: bool
    rotation: float  # degrees: catalogue angle (mirrored face down) + rotation = seen angle
    cost: float  # connector cost, without the face


def _cost_at(seen: Sequence[Seen], cat: list[tuple[float, str]],
             rot: float) -> tuple[float, float]:
    """(cost, refined rotation) of ``cat`` turned by ``rot`` against ``seen``."""
    used = [False] * len(cat)
    cost, offsets = 0.0, []
    turned = [ca + rot for ca, _ in cat]  # computed once, not once per seen connector
    for ang, typ, sure, type_sure in seen:
        best, bj = ANGLE_TOL, -1
        for j, ca in enumerate(turned):
            if used[j]:
                continue
            g = abs((ang - ca + 180) % 360 - 180)  # angle_gap, inlined: this loop is hot
            if g < best:
                best, bj = g, j
        if bj < 0:
            cost += MISSING * sure
            continue
        used[bj] = True
        offsets.append(((ang - cat[bj][0] - rot + 180) % 360) - 180)
        if cat[bj][1] != typ:
            # A cut whose shape fits a notch and a curve about as well is either.
            cost += WRONG_TYPE * sure * type_sure
        cost += best / (4 * ANGLE_TOL)  # prefer the turn that lines up best
    cost += MISSING * used.count(False)
    refined = rot + (sum(offsets) / len(offsets) if offsets else 0.0)
    return cost, refined % 360


def _alike(seen_type: str, type_sure: float, cat_type: str) -> bool:
    """Whether a connector seen may be one of ``cat_type`` (a cut in doubt is either cut)."""
    return seen_type == cat_type or (type_sure < SURE_SHAPE and "tab" not in (seen_type,
                                                                               cat_type))


def best_match(seen: Sequence[Seen], piece: Piece, face_up: bool) -> Match:
    cat = [(c.angle, c.type) for c in piece.face(face_up)]
    rots = {(s[0] - ca) % 360 for s in seen for ca, ct in cat if _alike(s[1], s[3], ct)}
    rots |= {(s[0] - ca) % 360 for s in seen for ca, _ in cat} if not rots else set()
    if not rots:
        rots = {0.0}
    best = None
    for rot in sorted(rots):
        cost, refined = _cost_at(seen, cat, rot)
        if best is None or cost < best[0]:
            best = (cost, refined)
    assert best is not None
    return Match(piece.id, face_up, round(best[1], 2), round(best[0], 3))


@dataclass(frozen=True)
class PaintStyle:
    """How much of the centre one set's paint covers on each kind of face, as one
    photo shows it: a Sleeping PeltaPeep's closed eyes cover less than the open eyes
    or scales of the other pieces, by an amount that is the set's own (closed eyes
    over about 5% of the centre in one set, 11% in another, open eyes over 16% or
    24%). Each kind's log painted share is taken as normal about its own centre with
    one spread, and a piece's cost is how much less likely its kind makes the paint
    than the other kind (a log-likelihood ratio, which grows steadily with the
    paint's distance), capped at :data:`KIND_COST`.

    >>> style = PaintStyle(closed=math.log(0.05), open_=math.log(0.2), spread=0.3)
    >>> style.cost("sleeping", 0.05), style.cost("awake", 0.05), style.cost("egg", 0.2)
    (0.0, 1.5, 0.0)
    >>> 0 < style.cost("sleeping", 0.1) < 1  # half way (in log), either kind costs little
    True
    """

    closed: float  # centre of log painted share, Sleeping PeltaPeeps
    open_: float  # ... of the pieces with open eyes or scales
    spread: float  # of log painted share about either centre

    def cost(self, kind: str, paint: float) -> float:
        """What ``paint`` (the painted share of a face-up disc) costs a piece of ``kind``."""
        if not math.isfinite(paint):
            return 0.0
        x = math.log(max(paint, 0.0) + PAINT_FLOOR)
        closer = ((x - self.open_) ** 2 - (x - self.closed) ** 2) / (2 * self.spread**2)
        against = -closer if kind == "sleeping" else closer
        return min(KIND_COST, max(0.0, against))


def _spread(values: Sequence[float]) -> tuple[float, float]:
    """Median and robust spread (scaled median absolute deviation, at least
    :data:`PAINT_SPREAD`) of ``values``."""
    mid = median(values)
    return mid, max(PAINT_SPREAD, 1.4826 * median(abs(x - mid) for x in values))


def paint_style(rows: Sequence[tuple[list[Match], list[float]]], pieces: Sequence[Piece],
                evidence: Sequence[float], paint: Sequence[float]) -> PaintStyle | None:
    """The paint style one set shows in this photo, from its discs whose connectors
    alone name their kind (the best piece of another kind costs :data:`KIND_SURE`
    more) and that surely lie face up; None while either kind has fewer than
    :data:`KIND_SAMPLES` such discs (the paint then says nothing about the kind).

    ``rows`` are each disc's matches and costs against ``pieces`` (:func:`_row`
    without the paint).
    """
    shares: dict[bool, list[float]] = {True: [], False: []}
    for (ms, cs), ev, p in zip(rows, evidence, paint, strict=True):
        if not (cs and ev >= KIND_FACE and math.isfinite(p)):  # NaN evidence teaches nothing
            continue
        best = min(range(len(cs)), key=cs.__getitem__)
        sleeping = pieces[best].kind == "sleeping"
        other = min((c for c, pc in zip(cs, pieces, strict=True)
                     if (pc.kind == "sleeping") != sleeping), default=math.inf)
        # Costs are rounded to thousandths, and one type mistake is exactly KIND_SURE.
        if ms[best].face_up and other - cs[best] >= KIND_SURE - 1e-6:
            shares[sleeping].append(math.log(max(p, 0.0) + PAINT_FLOOR))
    if min(len(v) for v in shares.values()) < KIND_SAMPLES:
        return None
    (closed, s_closed), (open_, s_open) = _spread(shares[True]), _spread(shares[False])
    return PaintStyle(closed, open_, math.sqrt((s_closed**2 + s_open**2) / 2))


def _row(cons: Sequence[Seen], ev: float, paint: float | None,
         pieces: Sequence[Piece], face_weight: float, style: PaintStyle | None = None
         ) -> tuple[list[Match], list[float]]:
    """One disc against every piece: the best match of each and its cost with the face
    (and, where the photo has taught ``style``, with the paint)."""
    row_m, row_c = [], []
    for p in pieces:
        options = []
        for up in (True, False):
            m = best_match(cons, p, up)
            contra = max(0.0, -ev) if up else max(0.0, ev)
            kind = 0.0
            if up and style is not None and paint is not None and ev >= KIND_FACE:
                kind = style.cost(p.kind, paint)
            options.append((m.cost + face_weight * contra + kind, m))
        c, m = min(options, key=lambda o: o[0])
        row_m.append(m)
        row_c.append(c)
    return row_m, row_c


def _assign_rows(rows: Sequence[tuple[list[Match], list[float]]]
                 ) -> tuple[list[tuple[Match | None, float]], float]:
    """One piece per disc at the least total cost (surplus discs go without, at a price)."""
    n = len(rows)
    if not n:
        return [], 0.0
    k = len(rows[0][1])
    cols = assign([list(c) + [NOT_IN_SET] * n for _, c in rows])
    out: list[tuple[Match | None, float]] = []
    for (ms, cs), j in zip(rows, cols, strict=True):
        out.append((ms[j], cs[j]) if j < k else (None, NOT_IN_SET))
    return out, sum(c for _, c in out)


SEARCH_LIMIT = 3.0  # contact readings costlier than this are not tried
MAX_PASSES = 4
CLASH_COST = 1.5  # a tab against a plain edge or a tab, a curve on a notch: no legal layout has one
FACING_DEG = 25.0  # a connector this near the line to a touching disc faces it
BANNED = 100.0  # the cost that keeps a disc off a piece while another is tried


def nearest_connector(piece: Piece, face_up: bool, rotation: float, towards: float,
                      within: float = FACING_DEG) -> tuple[float, str] | None:
    """The connector of ``piece`` (lying with ``face_up`` and ``rotation``) nearest the
    direction ``towards`` (degrees), if within ``within``: how far it is off (``towards``
    minus its angle, signed) and its type."""
    best = None
    for c in piece.face(face_up):
        gap = (towards - c.angle - rotation + 180) % 360 - 180
        if abs(gap) <= within and (best is None or abs(gap) < abs(best[0])):
            best = (gap, c.type)
    return best


def _facing(m: Match, piece: Piece, towards: float) -> str | None:
    near = nearest_connector(piece, m.face_up, m.rotation, towards)
    return None if near is None else near[1]


def _styles(free: Sequence[Sequence[Seen]], teams: Sequence[str],
            catalogs: Mapping[str, Catalog], evidence: Sequence[float],
            paint: Sequence[float] | None, face_weight: float) -> dict[int, PaintStyle]:
    """Each set's paint style (:func:`paint_style`), learnt from the connectors its discs
    show by colour alone; teams playing one set share its style."""
    if paint is None:
        return {}
    by_set: dict[int, list[int]] = {}  # teams playing one set (the same Catalog)
    for i, t in enumerate(teams):
        by_set.setdefault(id(catalogs[t]), []).append(i)
    styles = {}
    for key, idx in by_set.items():
        pieces = list(catalogs[teams[idx[0]]].pieces)
        rows = [_row(free[i], evidence[i], None, pieces, face_weight) for i in idx]
        style = paint_style(rows, pieces, [evidence[i] for i in idx], [paint[i] for i in idx])
        if style is not None:
            styles[key] = style
    return styles


def identify_pieces(free: Sequence[Sequence[Seen]], teams: Sequence[str],
                    catalogs: Mapping[str, Catalog], face_evidence: Sequence[float],
                    paint: Sequence[float] | None = None,
                    contacts: Sequence[ContactInDoubt] = (),
                    touching: Sequence[tuple[int, int, float]] = (),
                    face_weight: float = 2.5
                    ) -> tuple[list[tuple[Match | None, float]], list[int]]:
    """Each disc's piece (None when its team shows more discs than pieces) and its cost,
    and the reading chosen for each contact in doubt.

    ``free`` are each disc's connectors told by colour, ``teams`` its team and
    ``catalogs`` each team's set; ``face_evidence`` per disc runs from -1 (surely
    face down) to 1 (surely up); ``paint`` (share of the centre painted) hints at
    the kind of a disc surely face up: a Sleeping PeltaPeep's closed eyes cover less
    than open eyes or scales, by as much as the photo shows for its set
    (:class:`PaintStyle`; until it shows it, no hint). ``contacts``
    (``a``/``b`` index the discs) are where the colours cannot tell the
    connectors, each with the readings the photo allows.
    ``touching`` are all pairs of touching discs (``i``, ``j``, the direction from
    ``i`` to ``j`` in image degrees).

    Each piece appears once per team, so a team's discs and pieces are matched by
    the cheapest assignment. A layout that clashes somewhere (a tab against a
    plain edge or a tab, a curve on a notch) is no legal layout, so each clash costs
    :data:`CLASH_COST`. Starting from every contact's likeliest reading, each
    other reading is tried in turn, and each disc in a clash is tried without the
    piece it was given; a change is kept when the whole reading then costs less,
    until nothing changes.

    >>> from companion.rules.peltapeeps.catalog import default_catalog
    >>> from vision.peltapeeps.rims import ContactOption, ContactInDoubt
    >>> cat = {"red": default_catalog("full")}  # A3 has one tab, E6 one notch
    >>> plain_edges = ContactOption(0.0, None, None)
    >>> tab_in_notch = ContactOption(0.3, (0.0, "tab", 0.7, 1.0), (180.0, "notch", 0.7, 1.0))
    >>> doubt = ContactInDoubt(0, 1, (plain_edges, tab_in_notch))
    >>> matches, chosen = identify_pieces([[], []], ["red", "red"], cat, [1.0, 1.0],
    ...                                   contacts=[doubt])
    >>> [m.piece for m, _ in matches], chosen
    (['A3', 'E6'], [1])
    """
    by_team: dict[str, list[int]] = {}
    for i, t in enumerate(teams):
        by_team.setdefault(t, []).append(i)
    pieces = {t: list(catalogs[t].pieces) for t in by_team}
    styles = _styles(free, teams, catalogs, face_evidence, paint, face_weight)
    rows: dict[tuple[int, tuple[Seen, ...]], tuple[list[Match], list[float]]] = {}
    assigned: dict[tuple, tuple[list[tuple[Match | None, float]], float]] = {}

    def evaluate(chosen: list[int], bans: frozenset[tuple[int, str]]
                 ) -> tuple[float, list[tuple[Match | None, float]], list[int]]:
        keys = [(i, tuple(cs)) for i, cs in enumerate(with_contacts(free, contacts, chosen))]
        out: list[tuple[Match | None, float]] = [(None, 0.0)] * len(free)
        total = sum(c.options[k].cost for c, k in zip(contacts, chosen, strict=True))
        for t, idx in by_team.items():
            for i in idx:
                if keys[i] not in rows:
                    rows[keys[i]] = _row(keys[i][1], face_evidence[i],
                                         None if paint is None else paint[i], pieces[t],
                                         face_weight, styles.get(id(catalogs[t])))
            banned = tuple(sorted((i, pid) for i, pid in bans if teams[i] == t))
            team_key = (t, banned, *(keys[i] for i in idx))
            if team_key not in assigned:
                plain = [rows[keys[i]] for i in idx]
                got, _ = _assign_rows([
                    (ms, [c + BANNED * ((i, m.piece) in bans) for m, c in zip(ms, cs, strict=True)])
                    for i, (ms, cs) in zip(idx, plain, strict=True)])
                # What the pieces given cost, bans aside.
                real = [(m, NOT_IN_SET if m is None else cs[ms.index(m)])
                        for (m, _), (ms, cs) in zip(got, plain, strict=True)]
                assigned[team_key] = (real, sum(c for _, c in real))
            got, cost = assigned[team_key]
            total += cost
            for i, m in zip(idx, got, strict=True):
                out[i] = m
        clashing = []
        for i, j, towards in touching:
            mi, mj = out[i][0], out[j][0]
            if mi is None or mj is None:
                continue
            ti = _facing(mi, catalogs[teams[i]].piece(mi.piece), towards)
            tj = _facing(mj, catalogs[teams[j]].piece(mj.piece), towards + 180)
            if fits(ti, tj) == "clash":
                total += CLASH_COST
                clashing += [i, j]
        return total, out, clashing

    chosen: list[int] = [0] * len(contacts)
    bans: frozenset[tuple[int, str]] = frozenset()
    best, matches, clashing = evaluate(chosen, bans)
    for _ in range(MAX_PASSES):
        changed = False
        for n, c in enumerate(contacts):
            for k, opt in enumerate(c.options):
                if k == chosen[n] or opt.cost > SEARCH_LIMIT:
                    continue
                trial = chosen[:n] + [k] + chosen[n + 1:]
                total, got, clash = evaluate(trial, bans)
                if total < best - 1e-6:
                    best, matches, clashing, chosen, changed = total, got, clash, trial, True
        for i in dict.fromkeys(clashing):
            m = matches[i][0]
            if m is None or (i, m.piece) in bans:
                continue
            trial_bans = bans | {(i, m.piece)}
            total, got, clash = evaluate(chosen, trial_bans)
            if total < best - 1e-6:
                best, matches, clashing, bans, changed = total, got, clash, trial_bans, True
        if not changed:
            break
    return matches, chosen
