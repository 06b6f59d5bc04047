"""The host side of the serial egg: find it, greet it, read it, and survive it going away.

Shaped like a trustworthy printer link (OctoPrint's comm layer): one reader
thread owns the port and walks a small state machine::

    disconnected -> connecting -> handshaking -> connected -> lost -> (back off) -> connecting
                                                    ^            |
                                                    +-- hello ---+  (a silent egg, asked again)

Reads and writes have timeouts; a read error or a write timeout ends the
session, and the thread opens the port again with growing back-off. A silent
egg (no heartbeat for three periods) on a port that still reads is lost but
asked for a hello on that same port: what it says on waking (a bean drawn
while its loop stalled) is still read, where opening the port again would
flush it. Only no hello within the handshake time ends that session too.
Every change and every problem goes upward as an :class:`InputEvent`
(``device_status`` / ``device_error``) and in :meth:`EggLink.status`. Lines
the protocol does not allow (a bad checksum, too long, a field written wrong)
are dropped and counted, and the last one's reason is in the status; gaps in
the sequence numbers are reported as lost messages. The pure frame reader
lives in :mod:`companion.inputs.egg_frames`.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any

import serial
import serial.tools.list_ports

from companion.errors import PATH_ECHO, clipped
from companion.inputs import egg_fields
from companion.inputs import events as ev
from companion.inputs.egg_colours import ColourReading, EggColours
from companion.inputs.egg_fields import FieldError
from companion.inputs.egg_frames import EggMessage, FrameReader, LinkStats, warn_dropped
from companion.inputs.events import InputEvent
from companion.inputs.source import Emit, SourceStatus, Unreachable
from firmware import eggproto

log = logging.getLogger(__name__)

PICO_MICROPYTHON = (0x2E8A, 0x0005)  # Raspberry Pi RP2040 running MicroPython
DEFAULT_IDS: tuple[tuple[int, int], ...] = (PICO_MICROPYTHON,)
SOURCE = "egg"
REFUSAL_REPORT_S = 1.0  # a storm of bad lines updates the page's status at most this often
# Messages that stand for something a player did: refusing one may lose it, so say so.
PLAYER_MESSAGES = {eggproto.SHAKE: "a shake", eggproto.DRAW: "a bean drawn",
                   eggproto.BUTTON: "a press of the egg's button"}


def _open_failure(e: Exception) -> str:
    """Why a port did not open, without naming it again: pyserial's text names it twice
    ("could not open port P: [Errno 2] No such file or directory: 'P'")."""
    code = getattr(e, "errno", None)
    if not isinstance(code, int):
        # A path that opens but is no terminal (a plain file): pyserial words the termios
        # error it was raised over as "Could not configure port: (25, '...')".
        args = getattr(e.__cause__ or e.__context__, "args", ())
        code = args[0] if len(args) == 2 and isinstance(args[0], int) else None
    if code == errno.ENOTTY:
        return "it is not a serial port"
    return os.strerror(code) if isinstance(code, int) else str(e)


class LinkState(StrEnum):
    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    HANDSHAKING = "handshaking"
    CONNECTED = "connected"
    LOST = "lost"


def find_egg_port(
    ids: Iterable[tuple[int, int]] = DEFAULT_IDS,
    ports: Iterable[Any] | None = None,
) -> str | None:
    """The device path of the first USB serial port with one of ``ids`` as VID:PID."""
    wanted = set(ids)
    found = serial.tools.list_ports.comports() if ports is None else ports
    for port in sorted(found, key=lambda p: p.device):
        if (port.vid, port.pid) in wanted:
            return port.device
    return None


class SessionEnd(Exception):
    """Why a session with the egg ended; the reader thread reconnects after it."""

    def __init__(self, reason: str, *, error: bool = False) -> None:
        super().__init__(reason)
        self.error = error


class EggLink:
    """The serial egg as an input source (see the module docstring for the life cycle).

    ``port`` is a device path, or None / "auto" to look for the egg by USB
    VID:PID. ``colours`` (settable later, e.g. after calibration) lets each
    drawn bean be matched to a player. ``heartbeat_timeout`` defaults to three
    of the heartbeat periods the egg announces in its HELLO. ``port_option``
    is how the command that made the link lets the user name the port.
    ``on_unreachable`` is told why the egg cannot be reached, once each time it is
    lost or not found (not at every retry), for a terminal to say so.
    """

    def __init__(
        self,
        port: str | None = None,
        *,
        colours: EggColours | None = None,
        ids: Sequence[tuple[int, int]] = DEFAULT_IDS,
        baudrate: int = 115200,
        read_timeout: float = 0.1,
        write_timeout: float = 1.0,
        handshake_timeout: float = 2.0,
        heartbeat_timeout: float | None = None,
        backoff: Sequence[float] = (0.5, 1.0, 2.0, 5.0),
        long_press: float = 1.0,
        list_ports: Callable[[], Iterable[Any]] | None = None,
        port_option: str = "--egg PORT",
        on_unreachable: Callable[[str], None] | None = None,
    ) -> None:
        self.port = None if port in (None, "auto") else port
        self.colours = colours
        self.ids = tuple(ids)
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self.handshake_timeout = handshake_timeout
        self.heartbeat_timeout = heartbeat_timeout
        self.backoff = tuple(backoff)
        self.long_press = long_press
        self.port_option = port_option
        self.unreachable = Unreachable(on_unreachable)
        # Why the port last failed to open (None once one opened): a missing device, a
        # folder or a plain file, which a command that cannot wait may give up on at once.
        self.open_failure: str | None = None
        self.stats = LinkStats()
        self.hello: dict[str, Any] = {}
        self.sensor_flags = ""
        self._list_ports = list_ports
        self._emit: Emit | None = None
        self._state = LinkState.DISCONNECTED
        self._message = "not started"
        self._reported: tuple[str, str] | None = None
        self._lock = threading.Lock()
        self._write_lock = threading.RLock()  # re-entered: HI numbered 0 and sent in one hold
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._serial: serial.Serial | None = None
        self._write_failure: str | None = None
        self._seq = 0
        self._port_in_use = ""
        self._refusals_reported = 0
        self._refusal_report_at = 0.0

    # --- the InputSource protocol -------------------------------------------------

    def start(self, emit: Emit) -> None:
        if self._thread is not None:
            return
        self._emit = emit
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="egg-link", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=self.read_timeout + self.write_timeout + 2)
            self._thread = None
        self._set(LinkState.DISCONNECTED, "stopped")

    def status(self) -> SourceStatus:
        with self._lock:
            state, message = self._state, self._message
        if state == LinkState.CONNECTED:
            missing = [what for flag, what in (("A", "accelerometer, so shakes are off"),
                                               ("C", "colour sensor, so draws are off"))
                       if self.sensor_flags and flag not in self.sensor_flags]
            if missing:
                message += "; it has no working " + " and no ".join(missing)
            if self.stats.refused:
                message += (f"; {self.stats.refused} line(s) from the egg refused, the last: "
                            f"{self.stats.last_refused}")
        return SourceStatus(state.value, message)

    @property
    def state(self) -> LinkState:
        with self._lock:
            return self._state

    # --- commands to the egg --------------------------------------------------------

    def set_led(self, mode: str) -> bool:
        """Light the egg's LED: "on", "off" or "blink". False if the egg is not connected."""
        if mode not in ("on", "off", "blink"):
            raise ValueError(f"LED mode must be on, off or blink, not {mode!r}")
        return self.state == LinkState.CONNECTED and self._send(eggproto.LED, mode)

    def ping(self, token: str = "p") -> bool:
        return self.state == LinkState.CONNECTED and self._send(eggproto.PING, token)

    def _send(self, kind: str, *fields: object) -> bool:
        """Write one command; a failure is noted for the reader thread, which ends the session."""
        with self._write_lock:
            ser = self._serial
            if ser is None:
                return False
            line = eggproto.encode(self._seq, kind, fields)
            self._seq = eggproto.next_seq(self._seq)
            try:
                ser.write(line)
                ser.flush()
            except serial.SerialTimeoutException:
                self._write_failure = f"write timed out after {self.write_timeout} s"
                return False
            except (serial.SerialException, OSError) as e:
                self._write_failure = f"write failed: {e}"
                return False
            return True

    # --- the reader thread ----------------------------------------------------------

    def _run(self) -> None:
        attempt = 0
        while not self._stopping.is_set():
            try:
                if self._attempt():
                    attempt = 0
            except Exception as e:  # a bug must not silence the egg for the rest of the game
                log.exception("egg: the link failed")
                self._set(LinkState.DISCONNECTED, f"the egg link failed ({e!r}); retrying",
                          report="error")
            delay = self.backoff[min(attempt, len(self.backoff) - 1)]
            attempt += 1
            self._stopping.wait(delay)

    def _attempt(self) -> bool:
        """Find the egg and run one session with it; True if it got as far as connected."""
        ports = self._list_ports() if self._list_ports else None
        port = self.port or find_egg_port(self.ids, ports)
        if port is not None:
            return self._connect(port)
        ids = ", ".join(f"{v:04X}:{p:04X}" for v, p in self.ids)
        self._set(LinkState.DISCONNECTED, f"no egg found (looking for USB id {ids}): plug it "
                  f"in, or name its port with {self.port_option}", report="disconnected")
        return False

    def _connect(self, port: str) -> bool:
        """One session on ``port``; True if it got as far as connected."""
        self._port_in_use = port
        shown = clipped(port, PATH_ECHO)  # the port as given, which may be any text
        self._set(LinkState.CONNECTING, f"opening {shown}")
        try:
            ser = serial.Serial(port, self.baudrate, timeout=self.read_timeout,
                                write_timeout=self.write_timeout)
        except (serial.SerialException, OSError, ValueError) as e:
            self.open_failure = f"cannot open the egg's port {shown}: {_open_failure(e)}"
            self._set(LinkState.DISCONNECTED, self.open_failure, report="disconnected")
            return False
        self.open_failure = None
        reader = FrameReader(self.stats)
        connected = False
        try:
            with self._write_lock:
                self._serial, self._write_failure = ser, None
                self._seq = 0  # the host numbers its commands from 0 in each connection
            self._handshake(ser, port, reader)
            connected = True
            self._session(ser, reader)
        except SessionEnd as end:
            if self._stopping.is_set():
                return connected
            if connected:
                self._set(LinkState.LOST, f"lost the egg on {port} ({end}); reconnecting",
                          report="disconnected")
            else:
                self._set(LinkState.DISCONNECTED, f"the egg on {port}: {end}",
                          report="error" if end.error else "disconnected")
        finally:
            with self._write_lock:
                self._serial = None
            try:
                ser.close()
            except (serial.SerialException, OSError):
                log.debug("egg: closing %s failed", port, exc_info=True)
        return connected

    def _read(self, ser: serial.Serial) -> bytes:
        if self._stopping.is_set():
            raise SessionEnd("stopped")
        if self._write_failure:
            raise SessionEnd(self._write_failure)
        try:
            return ser.read(max(1, ser.in_waiting))
        except (serial.SerialException, OSError) as e:
            raise SessionEnd(f"read failed: {e}") from e

    def _handshake(self, ser: serial.Serial, port: str, reader: FrameReader) -> None:
        self._set(LinkState.HANDSHAKING, f"waiting for the egg on {port} to say hello")
        try:
            ser.reset_input_buffer()  # whatever the egg said to nobody before we opened the port
        except (serial.SerialException, OSError) as e:
            raise SessionEnd(f"read failed: {e}") from e
        start = time.monotonic()
        asked_again = False
        self._send(eggproto.HI, eggproto.PROTOCOL_VERSION)
        while True:
            messages = reader.feed(self._read(ser))
            for i, msg in enumerate(messages):
                if msg.kind == eggproto.HELLO:
                    self._greeted(msg)
                    for later in messages[i + 1:]:
                        self._dispatch(later)
                    return
            waited = time.monotonic() - start
            if not asked_again and waited > self.handshake_timeout / 2:
                asked_again = self._send(eggproto.HI, eggproto.PROTOCOL_VERSION)
            if waited > self.handshake_timeout:
                heard = f"; it said {reader.last_noise!r}" if reader.last_noise else ""
                if self.stats.last_refused and reader.stats.refused:
                    heard += f"; the last line refused: {self.stats.last_refused}"
                raise SessionEnd(f"no hello within {self.handshake_timeout:g} s{heard} "
                                 "(is the egg firmware on it? see docs/hardware.md)", error=True)

    def _session(self, ser: serial.Serial, reader: FrameReader) -> None:
        last_heard = time.monotonic()
        asked_at: float | None = None  # when the silent egg was asked for a hello
        asked_twice = False
        while True:
            messages = reader.feed(self._read(ser))
            now = time.monotonic()
            if messages:
                last_heard = now
            for msg in messages:
                self._dispatch(msg)  # a HELLO in reply makes the link connected again
            self._report_refusals(now)
            if asked_at is not None:
                if self.state == LinkState.CONNECTED:
                    asked_at = None
                    continue
                waited = now - asked_at
                if not asked_twice and waited > self.handshake_timeout / 2:
                    asked_twice = self._ask_again()
                if waited > self.handshake_timeout:
                    raise SessionEnd(f"no heartbeat for {self._heartbeat_timeout():.1f} s, "
                                     f"and no hello within {self.handshake_timeout:g} s of "
                                     "asking")
            elif now - last_heard > self._heartbeat_timeout():
                # A silent egg on a port that still reads is asked again on that port, not
                # dropped: closing it would throw away what the egg says when it wakes (a
                # bean drawn while its loop was stalled). What it says before its hello is
                # dispatched as usual; only no hello at all ends the session.
                self._set(LinkState.LOST, f"lost the egg on {self._port_in_use} (no heartbeat "
                          f"for {self._heartbeat_timeout():.1f} s); asking it again",
                          report="disconnected")
                asked_at, asked_twice = now, False
                self._ask_again(first=True)

    def _ask_again(self, first: bool = False) -> bool:
        """Send HI; the first, numbered 0 as a new connection's first command is (under the
        same hold of the lock, so that no LED or ping command takes the number)."""
        with self._write_lock:
            if first:
                self._seq = 0
            return self._send(eggproto.HI, eggproto.PROTOCOL_VERSION)

    def _heartbeat_timeout(self) -> float:
        if self.heartbeat_timeout is not None:
            return self.heartbeat_timeout
        return 3 * self.hello.get("heartbeat_ms", 1000) / 1000

    def _greeted(self, msg: EggMessage) -> None:
        """Take in a HELLO: at the handshake, or again later (an egg that restarted)."""
        try:
            greeting = egg_fields.parse(msg.kind, msg.fields)
        except FieldError as e:
            self._refused(f"HELLO: {e}")
            raise SessionEnd(f"its hello is malformed: {e}", error=True) from e
        assert isinstance(greeting, egg_fields.Hello)
        if greeting.protocol != eggproto.PROTOCOL_VERSION:
            raise SessionEnd(
                f"the egg speaks protocol {greeting.protocol} but this companion speaks "
                f"{eggproto.PROTOCOL_VERSION}: flash the egg with this version's firmware/",
                error=True,
            )
        if self.state != LinkState.CONNECTED:
            self.stats.connects += 1
        self.hello = {"protocol": greeting.protocol, "firmware": greeting.firmware,
                      "heartbeat_ms": greeting.heartbeat_ms,
                      "capabilities": list(greeting.capabilities)}
        self._set(LinkState.CONNECTED, f"egg connected on {self._port_in_use}: firmware "
                  f"{greeting.firmware}, {'+'.join(greeting.capabilities)}", report="connected")

    # --- messages to events ----------------------------------------------------------

    def _dispatch(self, msg: EggMessage) -> None:
        if msg.gap:
            self._event(ev.DEVICE_ERROR, code="GAP", message=(
                f"{msg.gap} message(s) from the egg were lost; if a bean was just drawn, "
                "check it on the page"))
        if msg.kind == eggproto.HELLO:
            self._greeted(msg)
            return
        try:
            parsed = egg_fields.parse(msg.kind, msg.fields)
        except FieldError as e:
            self._refused(f"{msg.kind}: {e}")
            # Rate-limited as the frame reader's drops are: an egg sending a bad field in
            # every heartbeat must not write a warning ten times a second all game.
            warn_dropped(f"{msg.kind} message with bad fields {msg.fields!r} refused: {e}",
                         self.stats.bad_fields)
            if msg.kind in PLAYER_MESSAGES:
                self._event(ev.DEVICE_ERROR, code="BADMSG", message=(
                    f"the egg reported {PLAYER_MESSAGES[msg.kind]} in a form this companion "
                    f"refuses ({e}); if it mattered, enter it on the page"))
            return
        self._handle(parsed, msg.kind)

    def _handle(self, msg: egg_fields.Message | None, kind: str) -> None:
        match msg:
            case egg_fields.Heartbeat():
                self.sensor_flags = msg.flags
            case egg_fields.Shake():
                self._event(ev.SHAKE, duration_ms=msg.duration_ms, peak_g=msg.peak_mg / 1000,
                            jolts=msg.jolts)
            case egg_fields.Draw():
                self._bean(msg.number, msg.reading)
            case egg_fields.Button():
                self._event(ev.EGG_BUTTON, held_ms=msg.held_ms,
                            long=msg.held_ms >= self.long_press * 1000)
            case egg_fields.Error():
                log.warning("egg reports %s: %s", msg.code, msg.text)
                self._event(ev.DEVICE_ERROR, code=msg.code,
                            message=f"the egg reports {msg.code}: {msg.text}")
            case egg_fields.Pong():
                log.debug("egg: pong %s", msg.token)
            case _:
                log.info("egg: ignoring a %s message (newer firmware?)", kind)

    def _refused(self, reason: str) -> None:
        self.stats.bad_fields += 1
        self.stats.last_refused = reason

    def _report_refusals(self, now: float) -> None:
        """Put the count and the last reason of refused lines on the page, not too often
        (and only while connected: the status says a lost egg is lost)."""
        refused = self.stats.refused
        if refused == self._refusals_reported or now - self._refusal_report_at < REFUSAL_REPORT_S:
            return
        if self.state != LinkState.CONNECTED:
            return
        self._refusals_reported, self._refusal_report_at = refused, now
        status = self.status()
        self._reported = (status.state, status.message)
        self._event(ev.DEVICE_STATUS, state=status.state, message=status.message)

    def _bean(self, number: int, reading: ColourReading) -> None:
        data: dict[str, Any] = {"reading": reading.to_dict(), "draw": number}
        colours = self.colours
        if colours is not None:
            match = colours.match(reading)
            data.update(player=match.player, confidence=round(match.confidence, 3),
                        match=match.reason)
        self._event(ev.BEAN, **data)

    def _event(self, kind: str, **data: Any) -> None:
        if self._emit is None:
            return
        try:
            self._emit(InputEvent(SOURCE, kind, data))
        except Exception:  # a broken consumer must not take the reader thread down
            log.exception("egg: the %s event handler failed", kind)

    def _set(self, state: LinkState, message: str, report: str | None = None) -> None:
        with self._lock:
            self._state, self._message = state, message
        if state == LinkState.CONNECTED:
            self.unreachable.reached()
        elif report in ("disconnected", "error"):
            self.unreachable.tell(message)
        if report is not None and self._reported != (report, message):
            self._reported = (report, message)
            log.info("egg: %s", message)
            self._event(ev.DEVICE_STATUS, state=report, message=message)
