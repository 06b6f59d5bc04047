"""The PeltaPeeps score-sheet page: a photo of a layout, what was read in it, and the totals.

The page draws every piece and join read from the photo over it; a player taps
a piece to correct its team, catalog piece or face (or removes it), taps a join
to say whether it really is one, and ticks the pieces each team still holds.
After each change the page posts the corrected reading and the server scores
it with :func:`vision.peltapeeps.reading.score_reading` — the page never adds
anything up itself.

One blueprint serves both uses: ``companion score peltapeeps PHOTO --page``
wraps it around one photo in a small app (:func:`create_score_app`), and the
live app (:func:`web.app.create_app`) mounts it at ``/score`` where photos are
uploaded and read with the service's colour profile. POSTs go through the
hosting app's guard (the page's token, and the pass-phrase from other hosts).

>>> team_css("red"), team_css("teal"), team_css("Red Team")[:1]
('#cd202c', '#1a9e9e', '#')
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, render_template, request, url_for

from companion.errors import UserError, clipped, quoted
from companion.rules.json_values import unknown_fields
from companion.rules.peltapeeps.catalog import (
    DEFAULT_SET,
    KIND_NAMES,
    Catalog,
    CatalogError,
    default_catalog,
)
from vision.errors import VisionError
from vision.peltapeeps.reading import (
    LayoutReading,
    ReadingError,
    score_reading,
    unplayed_pieces,
)
from vision.peltapeeps.verdict import LONE_SHARE, Verdict, judge, outcome, to_check
from web.panels import PageContext, PagePanel
from web.request_body import NotJsonType, json_body
from web.security import LOOPBACK, TOKEN_HEADER, protect, same

Guard = Callable[[], Response | None]
Reader = Callable[[Any, Any, Catalog], LayoutReading]  # (frame BGR, Profile, Catalog)

MAX_PIECES = 200  # 6 teams of 16 pieces, and room for a reader's false finds
MAX_SCORE_BYTES = 2_000_000
MAX_UPLOAD_BYTES = 40_000_000
SHOWN_WIDTH = 2000  # the photo is served at most this wide; the overlay keeps photo pixels
KEEP_PHOTOS = 4  # uploaded photos held in memory, oldest dropped first

# Drawing colours for the usual acrylic colours; any other team gets one from PALETTE.
TEAM_CSS = {"red": "#cd202c", "orange": "#f88018", "yellow": "#e8c51c", "green": "#2ca848",
            "blue": "#225cd6", "purple": "#8034b0", "pink": "#e8559a", "white": "#f4f4f4",
            "black": "#222222", "teal": "#1a9e9e", "brown": "#8a5a2b", "grey": "#8a8a8a",
            "gray": "#8a8a8a", "cyan": "#22b8d8", "magenta": "#c0279a", "lime": "#8ccc2c"}
PALETTE = ("#6b4fbb", "#c2571a", "#0f7c6c", "#a8326e", "#52630f", "#1f5f8f")


def team_css(team: str) -> str:
    """The colour the page draws a team's pieces in."""
    key = team.strip().lower()
    if key in TEAM_CSS:
        return TEAM_CSS[key]
    return PALETTE[sum(key.encode()) % len(PALETTE)]


@dataclass
class ScoredPhoto:
    """One photo the page can show: the image (JPEG) and what was read in it."""

    jpeg: bytes
    reading: LayoutReading
    catalog: Catalog
    name: str = "photo"
    teams: list[str] = field(default_factory=list)  # colours a piece may be given
    seats: list[tuple[str, str]] | None = None
    unplayed: dict[str, list[str]] | None = None
    id: str = field(default_factory=lambda: secrets.token_urlsafe(9))

    def allowed_teams(self) -> list[str]:
        return list(dict.fromkeys([*self.teams, *self.reading.teams(),
                                   *(t for _, t in self.seats or ())]))


class ScoreInputError(ValueError):
    """A score request the page should not have sent; the message names the field."""


def score_request(body: Any, photo: ScoredPhoto) -> dict[str, Any]:
    """Score a corrected reading sent by the page: the sheet and what the page shows beside it.

    ``body`` is ``{"reading": {...}, "seats": [[player, team], ...] | null,
    "unplayed": {team: [piece ids]} | null}``; teams left out of ``unplayed``
    keep their default (the catalog minus the pieces seen).
    """
    if not isinstance(body, Mapping):
        raise ScoreInputError("send a JSON object with the reading")
    extra = unknown_fields(body, ("photo", "reading", "seats", "unplayed"))
    if extra:
        # A misspelt "seat" or "unplayd" ignored would score every team as its own player,
        # or the catalog's default pieces as unplayed, without a word.
        raise ScoreInputError(f"a score request holds photo, reading, seats and unplayed, "
                              f"not {extra}")
    raw = body.get("reading")
    if not isinstance(raw, Mapping):
        raise ScoreInputError("the request has no reading: send {\"reading\": {...}}")
    pieces, joins = raw.get("pieces"), raw.get("joins")
    if not isinstance(pieces, list) or not isinstance(joins, list):
        raise ScoreInputError("a reading needs a list of pieces and a list of joins")
    if len(pieces) > MAX_PIECES or len(joins) > 6 * MAX_PIECES:
        raise ScoreInputError(f"a reading holds at most {MAX_PIECES} pieces and their joins")
    reading = LayoutReading.from_json(raw)
    ids: set[str] = set()
    for p in reading.pieces:
        if p.uid in ids:
            # A join names its pieces by id: with two pieces of one id it could be either's.
            raise ScoreInputError(f"two pieces have the id {quoted(p.uid)}: give each piece "
                                  "its own id")
        ids.add(p.uid)
    allowed = photo.allowed_teams()
    for p in reading.pieces:
        if p.team not in allowed:
            raise ScoreInputError(f"piece {clipped(p.uid)}: {quoted(p.team)} is not one of "
                                  f"the colours {', '.join(allowed)}")
    seats = parse_seats(body.get("seats"), allowed)
    unplayed = _unplayed(body.get("unplayed"), photo.catalog, allowed)
    return score_result(reading, photo.catalog, seats, unplayed)


def score_result(reading: LayoutReading, catalog: Catalog,
                 seats: Sequence[tuple[str, str]] | None = None,
                 unplayed: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """The sheet, what goes beside it (:func:`describe`), and the winner when the reading
    looks like a layout (:func:`vision.peltapeeps.verdict.outcome`): what the command
    prints and the page shows."""
    sheet = score_reading(_face_up_once(reading), catalog, seats, unplayed)
    out = {"sheet": sheet, **describe(reading, catalog, seats, unplayed)}
    return out | outcome(sheet, Verdict(**out["verdict"]))


def _face_up_once(reading: LayoutReading) -> LayoutReading:
    """The reading as the sheet counts face-up points: a piece read twice (two blue E1s,
    which :func:`describe` warns of) scores them once, as a set has one of each; each
    copy's joins still count, as the photo shows them."""
    up: set[tuple[str, str]] = set()
    pieces = []
    for p in reading.pieces:
        if p.face_up and (p.team, p.piece) in up:
            p = replace(p, face_up=False)
        elif p.face_up:
            up.add((p.team, p.piece))
        pieces.append(p)
    return replace(reading, pieces=pieces)


def parse_seats(raw: Any, allowed: Sequence[str]) -> list[tuple[str, str]] | None:
    """Seats as (player, team) pairs, each colour to one player; None for one player a team."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(
            isinstance(s, list | tuple) and len(s) == 2 for s in raw):
        raise ScoreInputError("seats must be a list of [player, colour] pairs")
    if not all(isinstance(x, str) for pair in raw for x in pair):
        raise ScoreInputError("seats must be [name, colour] pairs of text")
    seats = [(p.strip(), t.strip()) for p, t in raw]
    check_layout_seats(seats, allowed)
    return seats or None


def check_layout_seats(seats: Sequence[tuple[str, str]], allowed: Sequence[str]) -> None:
    """The engine's seat rule that holds for any photo of a layout: each colour has one player.

    (Player counts and turn order are the engine's business during a game; a
    photo may show a game of any size.)
    """
    seen: dict[str, str] = {}
    for player, team in seats:
        if not player:
            raise ScoreInputError(f"colour {clipped(team)} needs a player's name")
        if team not in allowed:
            raise ScoreInputError(f"{quoted(team)} is not one of the colours "
                                  f"{', '.join(allowed)}")
        if team in seen:
            # Two names the user typed in one line: each cut shorter than one alone.
            raise ScoreInputError(f"{team} is given to {clipped(seen[team], 40)} and "
                                  f"{clipped(player, 40)}: each colour "
                                  "belongs to one player")
        seen[team] = player


def _unplayed(raw: Any, catalog: Catalog, allowed: Sequence[str]
              ) -> dict[str, list[str]] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ScoreInputError("unplayed must map a colour to a list of piece ids")
    ids = {p.id for p in catalog.pieces}
    out: dict[str, list[str]] = {}
    for team, pieces in raw.items():
        if team not in allowed:
            raise ScoreInputError(f"unplayed pieces of {quoted(team)}: not one of the colours "
                                  f"{', '.join(allowed)}")
        if not isinstance(pieces, list):
            raise ScoreInputError(f"unplayed pieces of {team} must be a list of piece ids")
        for pid in pieces:
            if str(pid) not in ids:
                raise ScoreInputError(f"unplayed piece {team}:{clipped(str(pid))} is not in "
                                      "the catalog "
                                      f"{catalog.name!r}")
        out[str(team)] = list(dict.fromkeys(str(p) for p in pieces))
    return out


def describe(reading: LayoutReading, catalog: Catalog,
             seats: Sequence[tuple[str, str]] | None,
             unplayed: Mapping[str, Sequence[str]] | None) -> dict[str, Any]:
    """Beside the sheet: the set and seats used, each team's unplayed pieces, counts,
    warnings, and whether the reading looks like a layout
    (:func:`vision.peltapeeps.verdict.judge`)."""
    used = list(seats) if seats else [(t, t) for t in reading.teams()]
    seen: dict[str, list[str]] = {t: [] for _, t in used}
    for p in reading.pieces:
        seen.setdefault(p.team, []).append(p.piece)
    left = unplayed_pieces(reading, catalog, [t for _, t in used], unplayed)
    warnings = list(reading.warnings)
    for team, pids in seen.items():
        for pid in sorted({p for p in pids if pids.count(p) > 1}):
            warnings.append(f"{pids.count(pid)} pieces are read as {team} {pid}, but a set has "
                            "one of each: correct the others")
        for pid in left.get(team, []):
            if pid in pids:
                warnings.append(f"{team} {pid} is counted as unplayed but the photo shows it")
    joins = [j for j in reading.joins if j.kind == "join"]
    touching = {u for j in reading.joins for u in (j.a, j.b)}
    alone = [p.uid for p in reading.pieces if p.uid not in touching]
    verdict = judge(reading)
    n = len(reading.pieces)
    if n > 1 and len(alone) <= LONE_SHARE * n:  # more alone: the verdict says so, once
        warnings.extend(f"{u} touches no other piece, but a layout is one connected group"
                        for u in alone)
    return {
        "verdict": verdict.to_json(),
        "to_check": to_check(reading, seats),
        "set": catalog.label(),
        "seats": [list(s) for s in used],
        "unplayed": left,
        "seen": {t: len(v) for t, v in seen.items()},
        "face_up": {t: sum(1 for p in reading.pieces if p.team == t and p.face_up) for t in seen},
        "joins": len({frozenset((j.a, j.b)) for j in joins if j.a != j.b}),
        "warnings": warnings,
    }


def shown_jpeg(frame: Any, quality: int = 88) -> bytes:
    """The photo as the page shows it: at most SHOWN_WIDTH wide (the overlay scales to it)."""
    import cv2

    h, w = frame.shape[:2]
    if w > SHOWN_WIDTH:
        frame = cv2.resize(frame, (SHOWN_WIDTH, round(h * SHOWN_WIDTH / w)),
                           interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the photo could not be encoded for the page")
    return buf.tobytes()


def page_catalog(catalog: Catalog) -> dict[str, Any]:
    return {"name": catalog.name, "pieces": [
        {"id": p.id, "kind": p.kind, "kind_name": KIND_NAMES[p.kind],
         "interfaces": p.interfaces, "peep": p.is_peep} for p in catalog.pieces]}


def _default_reader(frame: Any, profile: Any, catalog: Catalog) -> LayoutReading:
    from vision.peltapeeps.read import read_layout

    return read_layout(frame, profile, catalog)


def _refuse(status: int, message: str) -> Response:
    resp = jsonify({"ok": False, "error": message})
    resp.status_code = status
    return resp


class _Photos:
    """Photos the page can work on, by id: a fixed one, or the last few uploaded."""

    def __init__(self, fixed: ScoredPhoto | None) -> None:
        self._lock = threading.Lock()
        self._photos: OrderedDict[str, ScoredPhoto] = OrderedDict()
        self.fixed = fixed
        if fixed is not None:
            self._photos[fixed.id] = fixed

    def add(self, photo: ScoredPhoto) -> None:
        with self._lock:
            self._photos[photo.id] = photo
            while len(self._photos) > KEEP_PHOTOS:
                self._photos.popitem(last=False)

    def get(self, photo_id: str) -> ScoredPhoto | None:
        with self._lock:
            return self._photos.get(photo_id)


def scoresheet_blueprint(guard: Guard, token: str, *, photo: ScoredPhoto | None = None,
                         profile: str | Callable[[], str] | None = None,
                         catalog: Catalog | None = None, reader: Reader | None = None,
                         home: str | None = None) -> Blueprint:
    """The score-sheet page and its API; mount it with ``url_prefix="/score"``.

    ``photo`` fixes the page on one photo (no uploads). Otherwise photos are
    uploaded and read with the colour profile at ``profile`` (a path, or a
    function giving the path at upload time, "" meaning none is configured)
    and the set the upload asks for: ``catalog`` (the user's own set, offered
    first when given) or a shipped set (the full set unless the upload names
    another). ``home`` is the link back to the main page, if there is one.
    """
    bp = Blueprint("scoresheet", __name__)
    photos = _Photos(photo)
    read = reader or _default_reader

    def profile_path() -> str:
        return (profile() if callable(profile) else profile) or ""

    def profile_problem() -> str | None:
        if photo is not None:
            return None
        try:
            path = profile_path()
        except UserError as e:  # the settings file naming the profile is broken
            return str(e)
        if not path:
            return ("no colour profile is configured: make one with 'companion calibrate' "
                    "and set profile in the [peltapeeps] section of the settings "
                    "('companion settings'), then restart the companion")
        if not Path(path).is_file():
            return (f"the colour profile {path} does not exist: make it with "
                    "'companion calibrate' or fix profile in the settings")
        return None

    def photo_json(p: ScoredPhoto) -> dict[str, Any]:
        return {
            "id": p.id, "name": p.name,
            "url": url_for("scoresheet.photo_jpeg", photo_id=p.id),
            "reading": p.reading.to_json(), "catalog": page_catalog(p.catalog),
            "teams": p.allowed_teams(),
            "colours": {t: team_css(t) for t in p.allowed_teams()},
            "seats": [list(s) for s in p.seats] if p.seats else None,
            "unplayed": p.unplayed,
        }

    @bp.before_request
    def check_posts() -> Response | None:
        return guard() if request.method == "POST" else None

    @bp.get("/")
    def page() -> str:
        result = None
        if photo is not None:
            try:
                result = score_request({"reading": photo.reading.to_json(), "seats": photo.seats,
                                        "unplayed": photo.unplayed}, photo)
            except (ReadingError, ScoreInputError):
                result = None  # the page asks again and shows the error
        initial = {
            "photo": photo_json(photo) if photo is not None else None,
            "result": result,
            "uploads": photo is None,
            "problem": profile_problem(),
            "api": {"score": url_for("scoresheet.score"),
                    "upload": url_for("scoresheet.upload")},
        }
        own_set = f"{catalog.name} ({len(catalog.pieces)} pieces)" if catalog else None
        return render_template("scoresheet.html", token=token, initial=initial, home=home,
                               own_set=own_set, default_set=DEFAULT_SET)

    @bp.get("/photo/<photo_id>.jpg")
    def photo_jpeg(photo_id: str) -> Response:
        p = photos.get(photo_id)
        if p is None:
            return _refuse(404, "that photo is no longer held: upload it again")
        resp = Response(p.jpeg, mimetype="image/jpeg")
        resp.headers["Cache-Control"] = "private, max-age=3600"
        return resp

    @bp.post("/api/score")
    def score() -> Response:
        if (request.content_length or 0) > MAX_SCORE_BYTES:
            return _refuse(413, "the reading sent is too large")
        request.max_content_length = MAX_SCORE_BYTES  # also when no length is announced
        try:
            body = json_body()
        except NotJsonType as e:
            return _refuse(e.status, str(e))
        except ValueError as e:
            return _refuse(400, f"send the corrected reading as a JSON object: {e}")
        p = photos.get(str(body.get("photo", "")))
        if p is None:
            return _refuse(404, "that photo is no longer held: upload it again")
        try:
            result = score_request(body, p)
        except (ReadingError, ScoreInputError) as e:
            return _refuse(400, str(e))
        return jsonify({"ok": True, **result})

    @bp.post("/api/upload")
    def upload() -> Response:
        if photo is not None:
            return _refuse(405, "this page shows one photo; run the command again for another")
        problem = profile_problem()
        if problem:
            return _refuse(409, problem)
        if (request.content_length or 0) > MAX_UPLOAD_BYTES:
            return _refuse(413, f"the photo is larger than {MAX_UPLOAD_BYTES // 1_000_000} MB")
        request.max_content_length = MAX_UPLOAD_BYTES
        f = request.files.get("photo")
        if f is None or not f.filename:
            return _refuse(400, "choose a photo of the layout first")
        wanted = request.form.get("set") or ("custom" if catalog else DEFAULT_SET)
        try:
            cat = catalog if wanted == "custom" and catalog else default_catalog(wanted)
        except CatalogError as e:
            return _refuse(400, str(e))
        import cv2

        from calibration.profile import ProfileError, load_profile
        from vision.image_io import ImageError, decode_image

        try:
            frame = decode_image(f.read(), Path(f.filename).name)
        except ImageError as e:
            return _refuse(400, str(e))
        try:
            prof = load_profile(profile_path())
        except (ProfileError, UserError) as e:
            return _refuse(409, str(e))
        try:
            reading = read(frame, prof, cat)
        except (ReadingError, UserError, VisionError, ValueError, cv2.error) as e:
            return _refuse(400, f"the photo could not be read: {e}")
        p = ScoredPhoto(shown_jpeg(frame), reading, cat, Path(f.filename).name,
                        teams=list(prof.players))
        photos.add(p)
        try:
            result = score_request({"reading": reading.to_json()}, p)
        except (ReadingError, ScoreInputError) as e:
            return _refuse(400, f"the reading could not be scored: {e}")
        return jsonify({"ok": True, "photo": photo_json(p), **result})

    return bp


def create_score_app(photo: ScoredPhoto) -> Flask:
    """A small app around one photo, for ``companion score ... --page`` on 127.0.0.1.

    It keeps the live app's protections: known host names only, no posts from
    other sites, the page's token on every POST, and changes from this machine only.
    """
    app = Flask("web.app")  # the templates and static files beside web/app.py
    token = secrets.token_urlsafe(24)
    protect(app)

    def guard() -> Response | None:
        if not same(request.headers.get(TOKEN_HEADER, ""), token):
            return _refuse(403, "this request did not come from the score-sheet page; reload it")
        if (request.remote_addr or "") not in LOOPBACK:
            return _refuse(403, "changes are only taken from this machine")
        return None

    app.register_blueprint(scoresheet_blueprint(guard, token, photo=photo), url_prefix="/score")

    @app.get("/")
    def index() -> Response:
        resp = Response(status=302)
        resp.headers["Location"] = url_for("scoresheet.page")
        return resp

    return app


def panel(ctx: PageContext) -> PagePanel:
    """PeltaPeeps' page beside the table page, at /score (options: ``profile``, a colour
    profile path or a function giving it; ``catalog``, a set of the user's own)."""
    bp = scoresheet_blueprint(ctx.guard, ctx.token, profile=ctx.options.get("profile"),
                              catalog=ctx.options.get("catalog"), home="/")
    return PagePanel(bp, url_prefix="/score", link=("Score a PeltaPeeps photo", "/score/"))
