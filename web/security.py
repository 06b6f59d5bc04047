"""What keeps the page safe on a home network: known host names, no cross-site posts,
the page's token and the pass-phrase, compared in constant time.

Shared by the table page (:mod:`web.app`) and every game's panel and page.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from pathlib import Path

from flask import Flask, Response, jsonify, request

TOKEN_HEADER = "X-Companion-Token"
PASS_HEADER = "X-Companion-Passphrase"
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def protect(app: Flask) -> None:
    """Known host names only, no POSTs from other sites, and safe response headers."""
    names = _own_names()

    @app.before_request
    def known_host() -> Response | None:
        # A page from another site reaching us through DNS rebinding names its own host.
        host = _host_name(request.host)
        if not _is_ip(host) and host not in names:
            return refuse(400, f"unknown host name {host!r}: open the page by this machine's "
                           "name or address")
        origin = request.headers.get("Origin")
        if request.method == "POST" and origin and _host_name(
                origin.split("://", 1)[-1]) != host:
            return refuse(403, "this request came from another site")
        return None

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp


def same(sent: str, expected: str) -> bool:
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


def refuse(status: int, message: str) -> Response:
    resp = jsonify({"ok": False, "error": message})
    resp.status_code = status
    return resp


def page_file(option: str, value: object, folder: Path | None) -> str:
    """The file a request names for ``option`` (a map), if it lies directly in ``folder``,
    the one the server's owner keeps such files in; ValueError otherwise.

    Whoever has the pass-phrase may start a game, but should not learn which files exist
    elsewhere on the server: a path outside (a subfolder too, or a value that is no name at
    all, like 5) is refused by its name alone, with the same words whether or not it exists.
    """
    if folder is not None:
        if isinstance(value, str):
            try:
                base = folder.resolve()
                path = (base / value).resolve()  # a symlink out of the folder counts as out
                if path.parent == base and not path.is_dir():
                    return str(path)
            except (OSError, RuntimeError, ValueError):
                pass  # a NUL byte or a symlink loop: refused as any name outside is
        raise ValueError(f'{option} must be the {option} data, "" for the shipped one, or a '
                         "file in the folder of the companion's settings file; the page reads "
                         "no other file on the server")
    raise ValueError(f'{option} must be the {option} data or "" for the shipped one; the page '
                     "reads no file on the server")
