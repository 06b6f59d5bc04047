"""The camera view on a real port: a few viewers at a time, a placeholder with no camera,
and no thread left behind by a viewer that went away."""

from __future__ import annotations

import http.client
import os
import socket
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.service import Service, ServiceOptions
from web.app import MAX_VIDEO_VIEWERS, VIDEO_RESEND_S


@pytest.fixture
def service(tmp_path: Path):
    svc = Service(ServiceOptions(port=0, log=tmp_path / "g.sqlite", players=["red", "blue"]))
    svc.start()
    yield svc
    svc.stop()


def _open_video(port: int) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/video.mjpg")
    return conn.getresponse()


def _first_jpeg(resp: http.client.HTTPResponse) -> bytes:
    length = 0
    while True:
        line = resp.fp.readline()
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        elif line == b"\r\n" and length:
            return resp.fp.read(length)


def _os_threads() -> int:
    """Threads of this process as the system counts them (gevent's pool threads too)."""
    return len(os.listdir("/proc/self/task"))


def _settle(limit: int, seconds: float = 10.0) -> int:
    end = time.monotonic() + seconds
    while _os_threads() > limit and time.monotonic() < end:
        time.sleep(0.1)
    return _os_threads()


def test_with_no_camera_the_view_shows_a_placeholder_picture(service) -> None:
    resp = _open_video(service.port)
    assert resp.status == 200
    jpeg = _first_jpeg(resp)
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[:2] == (360, 640)
    resp.close()


def test_viewers_beyond_the_limit_get_a_clear_503_and_a_slot_frees_when_one_leaves(
        service) -> None:
    port = service.port
    open_ = [_open_video(port) for _ in range(MAX_VIDEO_VIEWERS)]
    assert all(r.status == 200 for r in open_)
    for r in open_:
        _first_jpeg(r)
    extra = _open_video(port)
    assert extra.status == 503
    assert "camera view is open on" in extra.read().decode()
    open_[0].close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        again = _open_video(port)
        if again.status == 200:
            break
        again.read()
        time.sleep(0.2)
    assert again.status == 200
    again.close()
    for r in open_[1:]:
        r.close()


def test_aborted_camera_requests_leave_no_thread_behind(service) -> None:
    port = service.port
    before = _settle(0, 0)
    for _ in range(300):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /video.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        s.close()
    after = _settle(before + 10)  # the server's pool of view threads is 8
    assert after <= before + 10, f"{after} threads after 300 aborted views (from {before})"
    # Every slot comes back once the views notice their viewer left: a write to a closed
    # connection fails at the latest on the second still picture sent after it closed.
    time.sleep(3 * VIDEO_RESEND_S + 1)
    resps = [_open_video(port) for _ in range(MAX_VIDEO_VIEWERS)]
    assert [r.status for r in resps] == [200] * MAX_VIDEO_VIEWERS
    for r in resps:
        r.close()
