"""The page's server on a real port: streams without a thread each, a silent connection
closed, an oversized body refused before it is read, and a clean stop."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
from pathlib import Path

from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peepwar import PeepWar
from companion.web_server import MAX_BODY, GreenServer, listen
from web.app import create_app


def _os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def _server(tmp_path: Path, **kw) -> tuple[GreenServer, Referee, GameLog]:
    log = GameLog(tmp_path / "g.sqlite")
    referee = Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
    server = GreenServer(listen("127.0.0.1", 0), lambda waits: create_app(referee, waits=waits),
                         **kw)
    server.start()
    return server, referee, log


def _first_update(sock_file) -> dict:
    while True:
        line = sock_file.readline()
        assert line, "the stream ended"
        if line.startswith(b"data: "):
            return json.loads(line[6:])


def test_forty_watchers_take_no_thread_each_and_all_get_each_change(tmp_path: Path) -> None:
    server, referee, log = _server(tmp_path)
    try:
        before = _os_threads()
        socks = []
        for _ in range(40):
            s = socket.create_connection(("127.0.0.1", server.server_port), timeout=10)
            s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            socks.append((s, s.makefile("rb")))
        for _, f in socks:
            assert _first_update(f)["version"] == referee.version
        assert _os_threads() <= before + 8  # at most the pool of view threads
        referee.play_text("hex 1,0", "test")
        for _, f in socks:
            update = _first_update(f)
            assert update["version"] == referee.version
            assert {"q": 1, "r": 0, "owner": "red"} in update["state"]["tiles"]
        for s, f in socks:
            f.close()
            s.close()
    finally:
        server.shutdown()
        log.close()
    assert not server.thread.is_alive()


def test_a_silent_connection_is_closed_and_others_are_served(tmp_path: Path, capfd) -> None:
    server, _referee, log = _server(tmp_path, idle_s=1.0)
    try:
        slow = socket.create_connection(("127.0.0.1", server.server_port), timeout=10)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
        conn.request("GET", "/api/state")
        assert conn.getresponse().status == 200
        t0 = time.monotonic()
        said = b""
        while chunk := slow.recv(1000):  # until the server closes it
            said += chunk
        assert time.monotonic() - t0 < 5
        assert said == b"", said
    finally:
        server.shutdown()
        log.close()
    assert "Traceback" not in capfd.readouterr().err  # nothing for the terminal


def test_a_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    server, _referee, log = _server(tmp_path)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
        conn.putrequest("POST", "/api/command")
        conn.putheader("Content-Length", str(MAX_BODY + 1))
        conn.putheader("Content-Type", "application/json")
        conn.endheaders()
        resp = conn.getresponse()
        assert resp.status == 413 and "larger than" in json.loads(resp.read())["error"]
    finally:
        server.shutdown()
        log.close()
