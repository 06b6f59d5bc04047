"""The live service: referee, inputs, camera and web server wired together.

Used by ``companion serve`` and ``companion demo``. I/O lives here and in the
sources; the referee and the rules stay pure of it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import os
import queue
import secrets
import signal
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import games
from companion.camera_loop import CameraLoop
from companion.errors import UserError, quoted
from companion.gamelog import GameLog, default_log_path
from companion.heap import give_back_freed_memory
from companion.inputs.events import DEVICE_STATUS, InputEvent
from companion.lan import page_urls, terminal_qr
from companion.referee import Referee
from companion.rules.peltapeeps.catalog import Catalog, CatalogError, load_catalog
from companion.settings import load_settings
from companion.web_server import GreenServer, listen
from web.app import Camera, create_app

log = logging.getLogger(__name__)

WORDS = ("apple", "bean", "chick", "daisy", "egg", "fern", "gum", "hat", "ink", "jam", "kite",
         "lime", "mint", "nut", "oat", "pear", "quill", "rose", "sugar", "tulip", "umber",
         "violet", "wren", "yarn", "zest", "amber", "basil", "cocoa", "dune", "ember", "fig",
         "grape")


def make_passphrase() -> str:
    # 6 words of 32 (30 bits); the page also slows down repeated wrong guesses.
    return "-".join(secrets.choice(WORDS) for _ in range(6))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class ServiceOptions:
    host: str = "127.0.0.1"
    port: int = 8080
    log: Path | None = None
    game: str = "peepwar"
    players: list[str] = field(default_factory=lambda: ["red", "blue"])
    options: dict[str, Any] = field(default_factory=dict)  # the game's own (edition, ...)
    new_game: bool = False
    # The choices given on the command line ("players" and game options' names), not left
    # to defaults: an unfinished game made with others is refused rather than resumed
    # with them quietly dropped.
    given: tuple[str, ...] = ()
    auto_accept: bool = True
    egg_seed: int | None = None
    score_profile: str | None = None  # PeltaPeeps colours for /score (None: the settings')
    score_catalog: str = ""  # a PeltaPeeps catalog JSON /score also offers ("" = shipped sets)
    page_files: Path | None = None  # the folder whose maps a new game from the page may name


def _score_catalog(path: str) -> Catalog | None:
    """The PeltaPeeps set named for the score-sheet page, read now so a bad file says so
    at start."""
    if not path:
        return None
    try:
        return load_catalog(path)
    except CatalogError as e:
        raise UserError(f"the PeltaPeeps catalog for the score-sheet page: {e}; fix it or "
                        "leave catalog in [peltapeeps] of the settings empty") from None


def _check_port(port: int) -> None:
    if not 0 <= port <= 65535:
        raise UserError(f"--port must be 0 to 65535, not {quoted(port)}")


TRIM_EVERY_S = 30.0  # how often the running service gives freed memory back (companion.heap)


def listen_for_page(host: str, port: int) -> socket.socket:
    """The page's listening socket; UserError saying what to change when it cannot be had.
    ``companion serve`` binds it before the game is opened or made and hands it to the
    :class:`Service`, so a port taken meanwhile cannot leave a new, empty game behind."""
    _check_port(port)
    try:
        return listen(host, port)
    except (OSError, ValueError) as e:  # ValueError: a host no address can be made of
        why = getattr(e, "strerror", None) or str(e)
        raise UserError(f"cannot listen on {host}:{port} ({why}); the port may be in use or "
                        "the address not this machine's: choose another --port or --host"
                        ) from e


def bound_service(opts: ServiceOptions) -> Service:
    """A :class:`Service` over the page's socket, bound first (:func:`listen_for_page`): a port
    checked and let go could be taken before the page listens, after the game is opened or
    made, and leave a new, empty game in the log. The socket is closed if the service
    cannot be made."""
    sock = listen_for_page(opts.host, opts.port)
    try:
        return Service(opts, sock)
    except BaseException:
        sock.close()
        raise


def _settings_profile() -> str:
    """The PeltaPeeps colour profile named in the settings file, read at each upload."""
    return load_settings().score_profile


class Service:
    """Everything running: stop() ends it cleanly (the game log is always up to date)."""

    def __init__(self, opts: ServiceOptions, sock: socket.socket | None = None) -> None:
        """``sock``: the page's listening socket, already bound (:func:`listen_for_page`);
        None binds one at :meth:`start`."""
        _check_port(opts.port)  # before any game is opened or made
        self._sock = sock
        self._catalog = _score_catalog(opts.score_catalog)  # so is a bad catalog
        self.opts = opts
        self.log = GameLog(opts.log or default_log_path())
        self.referee = Referee(self.log, self._game(), auto_accept=opts.auto_accept,
                               egg_seed=opts.egg_seed)
        self.passphrase = None if is_loopback(opts.host) else make_passphrase()
        self.sources: list[Any] = []
        self.camera: CameraLoop | None = None
        self.camera_view: Camera | None = None  # a view with no loop (the demo's renderer)
        self._inputs: queue.Queue[InputEvent | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._server: GreenServer | None = None
        self._extra_stop: list[Callable[[], None]] = []
        self.join_urls: list[str] = []  # the page's addresses for other devices

    def _game(self):
        try:
            bundle = games.find(self.opts.game)
        except games.UnknownGame as e:
            raise UserError(str(e)) from e

        def wanted() -> Any:
            try:
                return bundle.new_rules(self.opts.players, self.opts.options)
            except ValueError as e:
                raise UserError(str(e)) from e

        if not self.opts.new_game:
            latest = self.log.latest_game_id()
            if latest is not None:
                game = self.log.open(latest)
                if not game.rules.is_over(game.state) and game.rules.name == bundle.name:
                    if self.opts.given:  # only what was given can differ from the game's
                        self._check_resumed(latest, game.rules, wanted())
                    return game
        return self.log.new_game(wanted())

    def _check_resumed(self, game_id: int, resumed: Any, wanted: Any) -> None:
        """UserError when a choice given on the command line differs from the unfinished
        game's, which would be resumed with that choice dropped; both rules normalise the
        values ("2001" and 2001, a map file and its contents)."""
        old, new = resumed.options(), wanted.options()
        files = {o.name for o in games.find(resumed.name).options if o.file}
        differ: list[tuple[str, str, str]] = []  # (flag, the game's, the command line's)
        for name in self.opts.given:
            if old.get(name) == new.get(name):
                continue
            if name == "players":
                differ.append(("--players", ", ".join(old.get(name) or ()),
                               ", ".join(new.get(name) or ())))
            elif name in files:  # a file's contents: named, not shown
                differ.append((f"--{name}", f"another {name}", f"the {name} given"))
            else:
                differ.append((f"--{name.replace('_', '-')}", f"{name} {old.get(name)}",
                               f"{name} {new.get(name)}"))
        if differ:
            def both(parts: list[str]) -> str:
                return " and ".join(parts)

            raise UserError(
                f"game {game_id} in {self.log.path} is unfinished, with "
                f"{both([d[1] for d in differ])}: add --new to start a game with "
                f"{both([d[2] for d in differ])}, or leave out {both([d[0] for d in differ])} "
                "to go on with it")

    # --- parts ------------------------------------------------------------------------

    def add_source(self, source: Any) -> None:
        """An input source (buttons, egg): its events go to the referee on a worker thread."""
        self.sources.append(source)

    def set_camera(self, loop: CameraLoop) -> None:
        self.camera = loop

    def on_stop(self, fn: Callable[[], None]) -> None:
        self._extra_stop.append(fn)

    # --- running ----------------------------------------------------------------------

    def start(self) -> str:
        profile = self.opts.score_profile
        score_page = {"profile": _settings_profile if profile is None else profile,
                      "catalog": self._catalog}
        camera = self.camera or self.camera_view or Camera()
        if self._sock is None:
            self._sock = listen_for_page(self.opts.host, self.opts.port)
        sock = self._sock
        self.join_urls = page_urls(self.opts.host, sock.getsockname()[1])
        join = self.join_urls[0] if self.join_urls else None
        self._server = GreenServer(sock, lambda waits: create_app(
            self.referee, passphrase=self.passphrase, page_options={"peltapeeps": score_page},
            camera=camera, waits=waits, join_url=join, files=self.opts.page_files))
        self._server.start()
        self._spawn(self._dispatch, "inputs")
        self._spawn(self._housekeeping, "housekeeping")
        for source in self.sources:
            source.start(self._inputs.put)
            status = source.status()
            self._inputs.put(InputEvent(getattr(source, "source_name", "buttons"), DEVICE_STATUS,
                                        {"state": status.state, "message": status.message}))
        if self.camera:
            self.camera.start()
        return self.url

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_port

    @property
    def url(self) -> str:
        assert self._server is not None
        host = self.opts.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        return f"http://{shown}:{self._server.server_port}/"

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def _housekeeping(self) -> None:
        # Each frame read leaves freed temporaries (mosaics, masks, the nets' inputs) that
        # the C library keeps in the heap, scattered: over hours the service would hold
        # tens of MB it does not use. Returned now and then, not after every frame.
        while not self._stopping.wait(TRIM_EVERY_S):
            give_back_freed_memory()

    def _dispatch(self) -> None:
        while True:
            ev = self._inputs.get()
            if ev is None:
                return
            try:
                self.referee.handle_input(ev)
            except Exception as e:  # one bad event must not silence the buttons and egg
                log.exception("input event %s failed", ev)
                self.referee.report(f"{ev.source}: {ev.kind} could not be handled ({e})",
                                    ev.source)

    def stop(self) -> None:
        self._stopping.set()
        for fn in self._extra_stop:
            fn()
        if self.camera:
            self.camera.stop()
        for source in self.sources:
            source.stop()
        self._inputs.put(None)
        if self._server:
            self._server.shutdown()
        if self._sock is not None:
            # The server detaches the socket it takes, so this closes one it never took (a
            # start that failed, or never came): the port is free again whatever happened.
            self._sock.close()
        self.log.close()


def open_browser(url: str) -> bool:
    """Open the page when this machine can show one; False when it cannot."""
    if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


def run_until_interrupted(stop: Callable[[], None], seconds: float | None = None) -> None:
    """Block until Ctrl-C or SIGTERM (or for ``seconds``), then ``stop``."""
    done = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (a service manager, kill) ends it as cleanly as Ctrl-C does.
        previous = signal.signal(signal.SIGTERM, lambda _sig, _frame: done.set())
    try:
        with contextlib.suppress(KeyboardInterrupt):
            done.wait(seconds)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        stop()


def banner(service: Service, extra: str = "") -> str:
    lines = [f"Table Companion is serving the table page at {service.url}"]
    if service.join_urls:
        lines.append(f"Other devices on the home network: {' or '.join(service.join_urls)}"
                     " (a tablet may scan this code)")
        lines.append(terminal_qr(service.join_urls[0]))
    elif service.opts.host in ("0.0.0.0", "::"):
        lines.append("No home-network address was found on this machine's interfaces: "
                     "other devices use its address or name with the port above")
    if service.passphrase:
        lines.append(f"Other devices may watch; to change the game they need the pass-phrase: "
                     f"{service.passphrase}")
    lines.append(f"Game {service.referee.game.id} is logged in {service.log.path}")
    if extra:
        lines.append(extra)
    lines.append("Stop with Ctrl-C (the game is saved after every action).")
    return "\n".join(lines)


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=2)
