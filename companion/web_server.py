"""The page's web server: gevent's WSGI server on a thread of its own, without monkey-patching.

Why this shape: the page holds many long-lived connections (each tab's live
updates, a few camera views) that mostly wait. On gevent each is a greenlet,
not a thread. But the referee, the camera loop, the egg's serial link and the
buttons are real threads that share locks and queues with the page, and
OpenCV and pyserial block in C: gevent's monkey-patching would turn those
threads into greenlets of one loop, where one blocking call stops them all.
So nothing is patched, and the two worlds meet at three narrow places:

- Each request's Flask view runs on a small pool of real threads
  (``hub.threadpool``), so a view may take the referee's lock or read a photo
  while the server keeps serving; its body was read beforehand by the server.
- The streams (:mod:`web.streams`) iterate on the server's loop and wait with
  :class:`GreenWaits`: gevent's sleep, and a wake-up the referee's threads send
  through the loop's thread-safe ``async_`` watcher; what they send (a
  snapshot of the game) is computed on the thread pool.
- Stopping is asked of the loop with ``run_callback_threadsafe``.

Connections are bounded (``max_connections``); a connection that sends or takes
nothing for ``idle_s`` is closed (a slowloris client, a tab on a dead link).
"""

from __future__ import annotations

import io
import logging
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

WORKERS = 8  # real threads running views; a photo upload takes one for seconds
MAX_CONNECTIONS = 400  # open at once: watchers, camera views, requests
IDLE_S = 60.0  # a connection silent this long (no request, no write taken) is closed
MAX_BODY = 41_000_000  # the largest body read (a photo for the score sheet is up to 40 MB)
BIG_BODY = 1_000_000  # bodies above this are read at most two at a time (memory)


class GreenWaits:
    """:class:`web.streams.Waits` for streams running on the server's gevent loop."""

    def __init__(self, hub: Any) -> None:
        import gevent.event

        self._hub = hub
        self._event = gevent.event.Event()
        self._wake = hub.loop.async_()
        self._wake.start(self._woken)
        self._watched: set[int] = set()
        self._lock = threading.Lock()

    def _woken(self) -> None:
        # On the loop: every stream waiting on the old event wakes; later waits get a new one.
        import gevent.event

        event, self._event = self._event, gevent.event.Event()
        event.set()

    def sleep(self, seconds: float) -> None:
        import gevent

        gevent.sleep(seconds)

    def run(self, fn: Callable[[], Any]) -> Any:
        return self._hub.threadpool.apply(fn)

    def changes(self, referee: Any) -> _GreenChanges:
        with self._lock:
            if id(referee) not in self._watched:
                self._watched.add(id(referee))
                referee.on_change(lambda _reason: self._wake.send())  # thread-safe
        return _GreenChanges(self, referee)

    def close(self) -> None:
        self._wake.stop()
        self._wake.close()


class _GreenChanges:
    def __init__(self, waits: GreenWaits, referee: Any) -> None:
        self._waits = waits
        self._referee = referee
        self._q = referee.subscribe()

    def wait(self, timeout: float) -> bool:
        if self._q.empty():
            # No switch between the check and the wait: a wake-up cannot be missed.
            self._waits._event.wait(timeout)
        if self._q.empty():
            return False
        while not self._q.empty():  # coalesce a burst into one update
            self._q.get_nowait()
        return True

    def close(self) -> None:
        self._referee.unsubscribe(self._q)


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound now so a taken port is reported before anything runs."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=128)


class GreenServer:
    """The app served on its own thread; :meth:`stop` ends it, open streams included.

    ``make_app(waits)`` builds the WSGI app given how its streams wait; it is
    called on the server's thread, where the gevent loop lives.
    """

    def __init__(self, sock: socket.socket, make_app: Callable[[Any], Any], *,
                 workers: int = WORKERS, max_connections: int = MAX_CONNECTIONS,
                 idle_s: float = IDLE_S) -> None:
        self.server_port: int = sock.getsockname()[1]
        self._sock = sock
        self._make_app = make_app
        self._workers = workers
        self._max_connections = max_connections
        self._idle_s = idle_s
        self._ready = threading.Event()
        self._hub: Any = None
        self._server: Any = None
        self._failed: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="web", daemon=True)

    def start(self) -> None:
        self.thread.start()
        self._ready.wait(30)
        if self._failed is not None:
            raise self._failed

    def _run(self) -> None:
        import gevent
        import gevent.lock
        import gevent.pool
        import gevent.socket
        from gevent.pywsgi import LoggingLogAdapter, WSGIHandler, WSGIServer

        try:
            hub = gevent.get_hub()  # this thread's own loop
            hub.threadpool.maxsize = self._workers
            waits = GreenWaits(hub)
            app = self._make_app(waits)
            big = gevent.lock.Semaphore(2)
            idle_s = self._idle_s

            class Handler(WSGIHandler):
                def handle(self) -> None:
                    self.socket.settimeout(idle_s)  # reads and writes: a silent peer goes
                    try:
                        super().handle()
                    except OSError as e:  # the peer went silent or away: not worth a trace
                        log.debug("connection from %s ended: %s", self.client_address, e)

                def _handle_client_error(self, ex: BaseException) -> Any:
                    if isinstance(ex, (TimeoutError, ConnectionError)):  # slowloris, gone
                        log.debug("connection from %s ended: %s", self.client_address, ex)
                        self.close_connection = True
                        return None
                    return super()._handle_client_error(ex)

            listener = gevent.socket.socket(fileno=self._sock.detach())
            self._server = WSGIServer(
                listener, _Threaded(app, hub, big), handler_class=Handler,
                spawn=gevent.pool.Pool(self._max_connections), log=None,
                error_log=LoggingLogAdapter(log, logging.DEBUG))
            self._server.start()
            self._hub = hub
        except BaseException as e:  # reported by start() on the caller's thread
            self._failed = e
            self._ready.set()
            return
        self._ready.set()
        try:
            self._server.serve_forever()
        finally:
            waits.close()

    def shutdown(self, timeout: float = 2.0) -> None:
        """Stop listening, close every connection (streams too) and end the thread."""
        if self._hub is None or not self.thread.is_alive():
            return
        import gevent

        # stop() waits for the open connections: on a greenlet of the loop, not its callback.
        self._hub.loop.run_callback_threadsafe(
            lambda: gevent.spawn(self._server.stop, timeout=timeout))
        self.thread.join(timeout + 5)


class _Threaded:
    """WSGI: read the body on the loop, run the view on the thread pool, stream on the loop."""

    def __init__(self, app: Any, hub: Any, big: Any) -> None:
        self.app = app
        self.hub = hub
        self.big = big

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0:
            return _plain(start_response, "400 Bad Request",
                          "the request's Content-Length is not a number of bytes")
        if length > MAX_BODY:
            return _plain(start_response, "413 Content Too Large",
                          f"the request is larger than the companion takes ({MAX_BODY:,} bytes)")
        chunked = environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked"
        if length > BIG_BODY or chunked:
            with self.big:
                body = environ["wsgi.input"].read(MAX_BODY + 1)
        else:
            body = environ["wsgi.input"].read(length) if length else b""
        if len(body) > MAX_BODY:
            return _plain(start_response, "413 Content Too Large",
                          f"the request is larger than the companion takes ({MAX_BODY:,} bytes)")
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        started: list[tuple[Any, ...]] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None
                    ) -> Callable[[bytes], None]:
            started[:] = [(status, headers, exc_info)]
            return _no_write

        result = self.hub.threadpool.apply(self.app, (environ, capture))
        start_response(*started[0])
        return result  # iterated here on the loop; streams wait cooperatively


def _no_write(_data: bytes) -> None:
    raise RuntimeError("the page's views return their body; write() is not supported")


def _plain(start_response: Callable[..., Any], status: str, text: str) -> list[bytes]:
    import json

    body = json.dumps({"ok": False, "error": text}).encode()
    start_response(status, [("Content-Type", "application/json"),
                            ("Content-Length", str(len(body))), ("Connection", "close")])
    return [body]
