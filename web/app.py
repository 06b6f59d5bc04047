"""The Flask app: the table page of any game, its live updates and its controls.

Viewing is open to whoever can reach the server. Anything that changes the
game needs the page's anti-forgery token in a header (so another site cannot
post to it), and, from any host but this machine, the pass-phrase printed in
the terminal when the server started. What is particular to a game — its
board picture, its panel and routes — comes from the game's bundle
(:mod:`companion.games`, :mod:`web.panels`).
"""

from __future__ import annotations

import io
import json
import secrets
import sqlite3
import threading
import time
import zipfile
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion import games
from companion.errors import UserError, clipped
from companion.gamelog import entries_seen_by, is_busy
from companion.referee import Referee
from companion.rules.base import IllegalAction
from companion.rules.json_values import unknown_fields
from companion.rules.style import player_style
from web.panels import PageContext, PagePanel
from web.request_body import MAX_BODY, MAX_ECHO, NotJsonType, json_body
from web.security import LOOPBACK, PASS_HEADER, TOKEN_HEADER, page_file, protect, refuse, same
from web.streams import Slots, Waits, no_camera_jpeg

MAX_FAILURES = 5  # wrong pass-phrases from one address before it must wait
KEEPALIVE_S = 15.0
MAX_COMMAND = 500  # characters in a typed command
MAX_VIDEO_VIEWERS = 3  # camera views open at once; each costs the Pi JPEG bandwidth
VIDEO_FRAME_S = 0.1  # how often a camera view looks for a new frame
VIDEO_RESEND_S = 2.0  # a still picture is sent again, so a viewer that left is noticed


class Camera:
    """What the page needs of the camera loop: the latest annotated JPEG and recent data."""

    def latest_jpeg(self) -> bytes | None:
        return None

    def debug_files(self) -> dict[str, bytes]:
        return {}


def create_app(referee: Referee, *, passphrase: str | None = None,
               camera: Camera | None = None, on_event: Callable[[str], None] | None = None,
               page_options: Mapping[str, Mapping[str, Any]] | None = None,
               waits: Waits | None = None, join_url: str | None = None,
               files: Path | None = None) -> Flask:
    """The app for one referee. ``passphrase`` None means only this machine may change the game.

    Pass-phrase rules: requests from loopback addresses never need it; from
    any other address a mutating request needs it in ``X-Companion-Passphrase``.
    ``page_options`` gives each game's page its options, by game name (e.g. the
    colour profile PeltaPeeps' score sheet reads photos with). ``waits`` is how the
    long-lived streams wait (the server's kind: threads by default). ``join_url``
    is the page's address for other devices, shown with its QR code. ``files`` is the
    folder whose files (maps, chit sets) a new game from the page may name; None: none.
    """
    app = Flask(__name__)
    app.config["SECRET_KEY"] = secrets.token_hex(32)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    token = secrets.token_urlsafe(24)
    # This server's run: versions count from 0 again after a restart, so the page orders
    # two states by version only when both come from the same run.
    boot = secrets.token_hex(8)
    cam = camera or Camera()
    waits = waits or Waits()
    video_slots = Slots(MAX_VIDEO_VIEWERS)
    join = {"url": join_url, "svg": _qr_svg(join_url)} if join_url else None

    failures: dict[str, tuple[int, float]] = {}
    protect(app)

    def remote_is_local() -> bool:
        return (request.remote_addr or "") in LOOPBACK

    def passphrase_check() -> Response | None:
        """None when this request may see or change more than the live view."""
        if remote_is_local():
            return None
        if passphrase is None:
            return refuse(403, "only the machine running the companion may do this")
        who = request.remote_addr or "?"
        count, until = failures.get(who, (0, 0.0))
        if time.monotonic() < until:
            return refuse(429, f"too many wrong pass-phrases: wait {until - time.monotonic():.0f}"
                           " s and try again")
        if not same(request.headers.get(PASS_HEADER, ""), passphrase):
            count += 1
            wait = 2.0 ** (count - MAX_FAILURES) if count >= MAX_FAILURES else 0.0
            failures[who] = (count, time.monotonic() + wait)
            return refuse(401, "enter the pass-phrase shown in the companion's terminal")
        failures.pop(who, None)
        return None

    def guard() -> Response | None:
        sent = request.headers.get(TOKEN_HEADER, "")
        if not same(sent, token):
            return refuse(403, "this request did not come from the companion's page; reload it")
        if not remote_is_local() and passphrase is None:
            return refuse(403, "changes are only taken from the machine running the companion")
        return passphrase_check()

    @app.errorhandler(413)
    def too_large(_e: Exception) -> Response:
        limit = request.max_content_length or MAX_BODY
        return refuse(413, f"the request is larger than the companion takes ({limit:,} bytes)")

    # The page and scripts read every answer of the API (/api/..., /score/api/...) as JSON:
    # an unknown address or a wrong method is said in the same shape, not as an HTML page.
    def is_api() -> bool:
        return "/api/" in request.path + "/"

    @app.errorhandler(404)
    def not_found(e: HTTPException) -> Response | HTTPException:
        if not is_api():
            return e
        return refuse(404, f"{clipped(request.path, MAX_ECHO)} is no request the companion "
                      "takes: reload the page, or check the address")

    @app.errorhandler(405)
    def wrong_method(e: HTTPException) -> Response | HTTPException:
        if not is_api():
            return e
        allowed = sorted(set(getattr(e, "valid_methods", None) or ()) - {"HEAD", "OPTIONS"})
        resp = refuse(405, f"{clipped(request.path, MAX_ECHO)} takes "
                      f"{' or '.join(allowed) or 'no request'}, not {request.method}")
        resp.headers["Allow"] = ", ".join(getattr(e, "valid_methods", None) or ())
        return resp

    def act(fn: Callable[[dict[str, Any]], Any], fields: Collection[str] | None = None
            ) -> Callable[[], Response]:
        """``fn`` as a guarded POST view; ``fields``, when given, are all its body may hold:
        a misspelt one ({"outcom": ...}) is refused, where ignoring it would do something
        else than asked (the companion's own roll instead of the real dice's)."""
        def view() -> Response:
            refused = guard()
            if refused is not None:
                return refused
            try:
                body = json_body()
            except NotJsonType as e:
                return refuse(e.status, str(e))
            except ValueError as e:
                return refuse(400, str(e))
            extra = unknown_fields(body, fields) if fields is not None else ""
            if extra:
                takes = ", ".join(fields) if fields else "no fields"
                return refuse(400, f"bad request: this takes {takes}, "
                              f"not {clipped(extra, MAX_ECHO)}")
            try:
                result = fn(body)
            except IllegalAction as e:
                return refuse(409, clipped(str(e), MAX_ECHO))
            except (ValueError, KeyError, TypeError, ArithmeticError) as e:
                return refuse(400, f"bad request: {clipped(str(e), MAX_ECHO)}")
            except sqlite3.DatabaseError as e:
                # The log locked by another program, or its disk full: the action was not
                # recorded (each is written in its own transaction first), so it may be sent
                # again; the page says so rather than "Internal Server Error". A lock needs
                # only waiting for, not the disk checked.
                why = clipped(str(e), MAX_ECHO)
                if is_busy(e):
                    return refuse(503, "the game log is busy: another program is writing to "
                                  f"it ({why}); nothing was recorded: try again")
                return refuse(503, f"the game log could not be written ({why}); "
                              "nothing was recorded: try again, and check the disk and that "
                              "no other program holds the log open")
            if on_event:
                on_event(view.__name__)
            return jsonify({"ok": True, "result": result, "version": referee.version,
                            "boot": boot})
        view.__name__ = fn.__name__
        return view

    panels: dict[str, PagePanel] = {}
    for name, game in sorted(games.all_games().items()):
        if game.page is None:
            continue
        context = PageContext(referee, guard, token, act, (page_options or {}).get(name, {}))
        panel = games.load(game.page)(context)
        app.register_blueprint(panel.blueprint, url_prefix=panel.url_prefix or None)
        panels[name] = panel

    @app.get("/")
    def index() -> str:
        snap = _full(referee, boot)
        panel = panels.get(referee.bundle.name)
        return render_template(
            "index.html", token=token, snapshot=snap, bundle=referee.bundle, panel=panel,
            links=[p.link for p in panels.values() if p.link],
            needs_passphrase=not remote_is_local(), can_change=remote_is_local() or bool(
                passphrase), join=join,
        )

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(_full(referee, boot))

    @app.get("/board.svg")
    def board() -> Response:
        snap = _full(referee, boot)
        return Response(snap["svg"], mimetype="image/svg+xml")

    shared = threading.Lock()
    last_update: list[Any] = [None, ""]  # (version, game id), the event: one for every watcher

    def update() -> str:
        # Every watcher gets the same event for a version: build it once, not once each.
        with shared:
            key = (referee.version, referee.game.id)
            if last_update[0] != key:
                last_update[:] = [key, _sse(_full(referee, boot))]
            return last_update[1]

    @app.get("/api/stream")
    def stream() -> Response:
        def events() -> Iterator[str]:
            changes = waits.changes(referee)
            try:
                yield waits.run(update)
                while True:
                    if changes.wait(KEEPALIVE_S):
                        yield waits.run(update)
                    else:
                        yield ": keep-alive\n\n"
            finally:
                changes.close()
        resp = Response(events(), mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    @app.get("/video.mjpg")
    def video() -> Response:
        # The live view, open to watchers like the page itself; a few at a time.
        placeholder = no_camera_jpeg()  # made here, on a view's thread, not in the stream
        if not video_slots.take():
            resp = refuse(503, f"the camera view is open on {MAX_VIDEO_VIEWERS} devices "
                          "already; close it on one of them and reload")
            resp.headers["Retry-After"] = "10"
            return resp
        release = video_slots.release_once()

        def frames() -> Iterator[bytes]:
            last, sent = None, 0.0
            while True:
                jpeg = cam.latest_jpeg() or placeholder
                now = time.monotonic()
                if jpeg is not last or now - sent >= VIDEO_RESEND_S:
                    last, sent = jpeg, now
                    yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                           + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
                waits.sleep(VIDEO_FRAME_S)

        resp = Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame")
        resp.headers["Cache-Control"] = "no-cache"
        # The server closes the response when the viewer goes, even before the first frame.
        resp.call_on_close(release)
        return resp

    @app.get("/api/debug-bundle")
    def debug_bundle() -> Response:
        # Camera frames of someone's home and the game's log: beyond the live view, so from
        # another machine only with the pass-phrase.
        refused = passphrase_check()
        if refused is not None:
            return refused
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("snapshot.json", json.dumps(referee.snapshot(), indent=2))
            # A player with the pass-phrase may download this: the log as a watcher sees it.
            try:
                entries = entries_seen_by(referee.rules, referee.log.entries(referee.game.id),
                                          None)
            except UserError as e:
                # A damaged log is when the bundle is most wanted: the rest still goes,
                # with what is wrong in place of the log.
                z.writestr("log-unreadable.txt", f"{e}\n")
            else:
                z.writestr("log.json", json.dumps(entries, indent=2))
            obs = referee.last_observation
            if obs is not None:
                z.writestr("last_observation.json", json.dumps(obs.to_dict(), indent=2))
            for name, data in cam.debug_files().items():
                z.writestr(name, data)
        resp = Response(buf.getvalue(), mimetype="application/zip")
        resp.headers["Content-Disposition"] = (
            f'attachment; filename="companion-debug-game{referee.game.id}.zip"')
        return resp

    def check(body: dict[str, Any]) -> bool:
        return True  # reached only past the guard: the pass-phrase is right

    def end(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.end("page")]

    def undo(body: dict[str, Any]) -> list[str]:
        turn = body.get("turn", False)
        if not isinstance(turn, bool):
            raise ValueError("turn must be true (the whole turn) or false (one action)")
        undone = referee.undo_turn("page") if turn else referee.undo(1, "page")
        if not undone:
            raise IllegalAction("there is nothing to undo")
        return [a.kind for a in undone]

    def command(body: dict[str, Any]) -> list[str]:
        text = body.get("text")
        if not isinstance(text, str) or len(text) > MAX_COMMAND:
            raise ValueError(f"text must be the typed command (at most {MAX_COMMAND} characters)")
        return [e.text for e in referee.play_text(text, "page", public=True)]

    def action(body: dict[str, Any]) -> list[str]:
        referee.rules.decode_action(body)  # a malformed action is a bad request (400), named
        return [e.text for e in referee.play_data(body, "page", public=True)]

    def roll(body: dict[str, Any]) -> list[str]:
        outcome = body.get("outcome")
        if outcome is not None:
            outcome = referee.rules.decode_action(outcome)
        return [e.text for e in referee.chance(outcome, "page", public=True)]

    def accept(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.accept("page")]

    def correct(body: dict[str, Any]) -> str:
        return referee.correct(body)

    def new_game(body: dict[str, Any]) -> int:
        players = body.get("players") or list(referee.rules.options().get("players", []))
        if isinstance(players, str):
            players = [p.strip() for p in players.split(",") if p.strip()]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ValueError("players must be a list of player names")
        game = body.get("game")
        if game is not None and not isinstance(game, str):
            raise ValueError("game must be a game's name")
        # Absent or null is no options; [] or "" is a mistake, not taken as none.
        options = {} if body.get("options") is None else body["options"]
        if not isinstance(options, dict):
            raise ValueError('options must be an object, e.g. {"edition": 2001}')
        try:
            bundle = games.find(game) if game else referee.bundle
            extra = unknown_fields(body, {"players", "game", "options",
                                          *(o.name for o in bundle.options)})
            if extra:
                raise ValueError(f"{bundle.title} has no option {extra}")
            # A game's options may also come beside the players ({"edition": 2001}).
            options = {**{o.name: body[o.name] for o in bundle.options if o.name in body},
                       **options}
            # A file option's value is its data (an object), "" or None for the shipped one,
            # or else a file name: whatever its type, only page_file may let it through, so
            # 5 or ["x"] is never read as a path from the server's working folder.
            shown: dict[str, str] = {}
            for o in bundle.options:
                value = options.get(o.name)
                if o.file and not isinstance(value, Mapping) and value not in (None, ""):
                    options[o.name] = page_file(o.name, value, files)
                    shown[options[o.name]] = value
            try:
                referee.new_game(players, options, game)
            except games.UnknownGame:
                raise
            except ValueError as e:
                # The page learns the file by the name it gave, not where the server keeps it.
                message = str(e)
                for full, given in shown.items():
                    message = message.replace(full, given)
                raise ValueError(message) from None
        except games.UnknownGame as e:
            raise ValueError(str(e)) from None
        return referee.game.id

    # An action's, a correction's and a new game's fields are checked by what reads them.
    for name, fn, fields in [("end", end, ()), ("undo", undo, ("turn",)),
                             ("command", command, ("text",)), ("action", action, None),
                             ("roll", roll, ("outcome",)), ("accept", accept, ()),
                             ("correct", correct, None), ("new", new_game, None),
                             ("check", check, ())]:
        app.add_url_rule(f"/api/{name}", f"api_{fn.__name__}", act(fn, fields),
                         methods=["POST"])

    return app


def _qr_svg(url: str) -> str:
    import segno  # only for a page other devices join

    return segno.make(url, error="m").svg_inline(scale=4, border=2, title=url)


def _full(referee: Referee, boot: str) -> dict[str, Any]:
    snap = referee.snapshot()
    snap["boot"] = boot
    snap["style"] = player_style(list(snap["options"].get("players", [])))
    # Places named by a problem ("1,0/3: ...") or read with little confidence are flagged.
    flagged = {p.split(":")[0] for p in snap["problems"]} | set(snap["doubtful"])
    snap["svg"] = referee.bundle.board_svg(snap["state"], flagged)
    snap["sent_at"] = time.time()
    return snap


def _sse(data: dict[str, Any]) -> str:
    return f"event: update\nid: {data['version']}\ndata: {json.dumps(data)}\n\n"
