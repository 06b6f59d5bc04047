"""The Flask app: the table page, its live updates and its controls.

Viewing is open to whoever can reach the server. Anything that changes the
game needs the page's anti-forgery token in a header (so another site cannot
post to it), and, from any host but this machine, the pass-phrase printed in
the terminal when the server started.
"""

from __future__ import annotations

import hmac
import io
import ipaddress
import json
import queue
import secrets
import socket
import time
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from companion.observation import Pieces
from companion.referee import Referee
from companion.rules.base import IllegalAction
from companion.rules.peepwar.board import parse_cell
from companion.rules.peltapeeps.catalog import Catalog
from web.board_svg import board_svg, player_style
from web.scoresheet import scoresheet_blueprint, settings_profile

TOKEN_HEADER = "X-Companion-Token"
MAX_FAILURES = 5  # wrong pass-phrases from one address before it must wait
PASS_HEADER = "X-Companion-Passphrase"
KEEPALIVE_S = 15.0
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


class Camera:
    """What the page needs of the camera loop: the latest annotated JPEG and recent data."""

    def latest_jpeg(self) -> bytes | None:
        return None

    def debug_files(self) -> dict[str, bytes]:
        return {}


def protect(app: Flask) -> None:
    """Known host names only, no POSTs from other sites, and safe response headers."""
    names = _own_names()

    @app.before_request
    def known_host() -> Response | None:
        # A page from another site reaching us through DNS rebinding names its own host.
        host = _host_name(request.host)
        if not _is_ip(host) and host not in names:
            return _refuse(400, f"unknown host name {host!r}: open the page by this machine's "
                           "name or address")
        origin = request.headers.get("Origin")
        if request.method == "POST" and origin and _host_name(
                origin.split("://", 1)[-1]) != host:
            return _refuse(403, "this request came from another site")
        return None

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp


def create_app(referee: Referee, *, passphrase: str | None = None,
               camera: Camera | None = None, on_event: Callable[[str], None] | None = None,
               score_profile: str | None = None, score_catalog: Catalog | None = None
               ) -> Flask:
    """The app for one referee. ``passphrase`` None means only this machine may change the game.

    Pass-phrase rules: requests from loopback addresses never need it; from
    any other address a mutating request needs it in ``X-Companion-Passphrase``.
    ``score_profile`` is the colour profile /score reads photos with (default: the settings');
    ``score_catalog`` a set of the user's own that /score offers beside the shipped ones.
    """
    app = Flask(__name__)
    app.config["SECRET_KEY"] = secrets.token_hex(32)
    token = secrets.token_urlsafe(24)
    cam = camera or Camera()

    failures: dict[str, tuple[int, float]] = {}
    protect(app)

    def remote_is_local() -> bool:
        return (request.remote_addr or "") in LOOPBACK

    def guard() -> Response | None:
        sent = request.headers.get(TOKEN_HEADER, "")
        if not _same(sent, token):
            return _refuse(403, "this request did not come from the companion's page; reload it")
        if remote_is_local():
            return None
        if passphrase is None:
            return _refuse(403, "changes are only taken from the machine running the companion")
        who = request.remote_addr or "?"
        count, until = failures.get(who, (0, 0.0))
        if time.monotonic() < until:
            return _refuse(429, f"too many wrong pass-phrases: wait {until - time.monotonic():.0f}"
                           " s and try again")
        if not _same(request.headers.get(PASS_HEADER, ""), passphrase):
            count += 1
            wait = 2.0 ** (count - MAX_FAILURES) if count >= MAX_FAILURES else 0.0
            failures[who] = (count, time.monotonic() + wait)
            return _refuse(401, "enter the pass-phrase shown in the companion's terminal")
        failures.pop(who, None)
        return None

    def act(fn: Callable[[dict[str, Any]], Any]) -> Callable[[], Response]:
        def view() -> Response:
            refused = guard()
            if refused is not None:
                return refused
            body = request.get_json(silent=True) or {}
            if not isinstance(body, dict):
                return _refuse(400, "send a JSON object")
            try:
                result = fn(body)
            except IllegalAction as e:
                return _refuse(409, str(e))
            except (ValueError, KeyError, TypeError) as e:
                return _refuse(400, f"bad request: {e}")
            if on_event:
                on_event(view.__name__)
            return jsonify({"ok": True, "result": result, "version": referee.version})
        view.__name__ = fn.__name__
        return view

    @app.get("/")
    def index() -> str:
        snap = referee.snapshot()
        return render_template(
            "index.html", token=token, snapshot=snap,
            needs_passphrase=not remote_is_local(), can_change=remote_is_local() or bool(
                passphrase),
        )

    @app.get("/api/state")
    def state() -> Response:
        snap = referee.snapshot()
        snap["style"] = player_style(snap["state"]["players"])
        return jsonify(snap)

    @app.get("/board.svg")
    def board() -> Response:
        snap = referee.snapshot()
        flagged = {p.split(":")[0] for p in snap["problems"]}
        return Response(board_svg(snap["state"], flagged), mimetype="image/svg+xml")

    @app.get("/api/stream")
    def stream() -> Response:
        def events() -> Iterator[str]:
            q = referee.subscribe()
            try:
                yield _sse(_full(referee))
                while True:
                    try:
                        q.get(timeout=KEEPALIVE_S)
                    except queue.Empty:
                        yield ": keep-alive\n\n"
                        continue
                    while not q.empty():  # coalesce a burst into one update
                        q.get_nowait()
                    yield _sse(_full(referee))
            finally:
                referee.unsubscribe(q)
        resp = Response(events(), mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    @app.get("/video.mjpg")
    def video() -> Response:
        def frames() -> Iterator[bytes]:
            last = None
            while True:
                jpeg = cam.latest_jpeg()
                if jpeg is not None and jpeg is not last:
                    last = jpeg
                    yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                           + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
                time.sleep(0.1)
        return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame")

    @app.get("/api/debug-bundle")
    def debug_bundle() -> Response:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("snapshot.json", json.dumps(referee.snapshot(), indent=2))
            z.writestr("log.json", json.dumps(referee.log.entries(referee.game.id), indent=2))
            obs = referee.last_observation
            if obs is not None:
                z.writestr("last_observation.json", json.dumps(obs.to_dict(), indent=2))
            for name, data in cam.debug_files().items():
                z.writestr(name, data)
        resp = Response(buf.getvalue(), mimetype="application/zip")
        resp.headers["Content-Disposition"] = (
            f'attachment; filename="companion-debug-game{referee.game.id}.zip"')
        return resp

    def end(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.end("page")]

    def undo(body: dict[str, Any]) -> list[str]:
        undone = referee.undo_turn("page") if body.get("turn") else referee.undo(1, "page")
        if not undone:
            raise IllegalAction("there is nothing to undo")
        return [a.kind for a in undone]

    def command(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.play_text(str(body["text"]), "page")]

    def draw(body: dict[str, Any]) -> list[str]:
        owner = body.get("owner")
        return [e.text for e in referee.draw(str(owner) if owner else None, "page")]

    def eat(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.eat(str(body["what"]), "page")]

    def peep_beans(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.peep_beans(bool(body["commit"]), "page")]

    def accept(body: dict[str, Any]) -> list[str]:
        return [e.text for e in referee.accept("page")]

    def correct(body: dict[str, Any]) -> str:
        cell = str(parse_cell(str(body["cell"])))
        pieces = {}
        raw = body.get("pieces") or {}
        if not isinstance(raw, dict):
            raise ValueError("pieces must map each player to {troops, peep}")
        for player, v in raw.items():
            if not isinstance(v, dict):
                raise ValueError(f"pieces of {player} must be {{troops, peep}}")
            troops = int(v.get("troops", 0))
            if not 0 <= troops <= 5:
                raise ValueError(f"{player}'s troops must be 0 to 5")
            if troops or v.get("peep"):
                pieces[str(player)] = Pieces(troops, bool(v.get("peep")))
        referee.correct(cell, pieces, bool(body.get("supply_center", False)))
        return cell

    def new_game(body: dict[str, Any]) -> int:
        players = body.get("players") or list(referee.state.players)
        if isinstance(players, str):
            players = [p.strip() for p in players.split(",") if p.strip()]
        referee.new_game([str(p) for p in players], int(body.get("edition", 2005)))
        return referee.game.id

    app.register_blueprint(scoresheet_blueprint(
        guard, token, profile=settings_profile if score_profile is None else score_profile,
        catalog=score_catalog, home="/"), url_prefix="/score")

    for name, fn in [("end", end), ("undo", undo), ("command", command), ("draw", draw),
                     ("eat", eat), ("peep-beans", peep_beans), ("accept", accept),
                     ("correct", correct), ("new", new_game)]:
        app.add_url_rule(f"/api/{name}", f"api_{fn.__name__}", act(fn), methods=["POST"])

    return app


def _same(sent: str, expected: str) -> bool:
    return hmac.compare_digest(sent.encode("utf-8", "replace"), expected.encode("utf-8"))


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _own_names() -> set[str]:
    name = socket.gethostname().lower()
    short = name.split(".")[0]
    return {"localhost", name, short, f"{short}.local", f"{short}.lan", f"{short}.home"}


def _full(referee: Referee) -> dict[str, Any]:
    snap = referee.snapshot()
    snap["style"] = player_style(snap["state"]["players"])
    flagged = {p.split(":")[0] for p in snap["problems"]}
    snap["svg"] = board_svg(snap["state"], flagged)
    snap["sent_at"] = time.time()
    return snap


def _sse(data: dict[str, Any]) -> str:
    return f"event: update\nid: {data['version']}\ndata: {json.dumps(data)}\n\n"


def _refuse(status: int, message: str) -> Response:
    resp = jsonify({"ok": False, "error": message})
    resp.status_code = status
    return resp
