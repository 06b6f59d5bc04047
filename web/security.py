"""What keeps the page safe on a home network: known host names, no cross-site posts,
the page's token and the pass-phrase, compared in constant time.

Shared by the table page (:mod:`web.app`) and every game's panel and page.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket

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
