"""Following the page's server-sent events from Python, as a browser tab does.

Used by the latency benchmark and the end-to-end tests: each ``data:`` line of
``/api/stream`` is decoded and handed to a callback on a daemon thread.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable
from typing import Any


def follow_events(port: int, on_data: Callable[[dict[str, Any]], None],
                  host: str = "127.0.0.1", path: str = "/api/stream",
                  timeout: float = 30.0) -> threading.Thread:
    """Start a thread that calls ``on_data`` with every event the page would receive."""

    def run() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        conn.request("GET", path)
        resp = conn.getresponse()
        while True:
            line = resp.fp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                on_data(json.loads(line[6:]))

    thread = threading.Thread(target=run, name="event-stream", daemon=True)
    thread.start()
    return thread
