"""A whole egg on the host: the real firmware in a thread, simulated sensors, a real pty.

Import this with ``tests/fakes`` and ``firmware/`` first on ``sys.path`` (the
test modules do), so the firmware's ``import machine`` finds the stand-in.
The egg is reached through a fixed path, a symlink to the pty's slave, the
way udev's /dev/serial/by-id names a USB serial device: unplugging removes
it, plugging in again points it at a new pty, and the host sees what it
would see with a real cable.
"""

import os
import queue
import threading
import time
import types
from pathlib import Path

import eggconfig
import eggloop
import machine
from ptylink import Pty
from simsensors import SimADXL345, SimLIS3DH, SimTCS34725


def egg_config(**changes):
    """The shipped eggconfig with ``changes`` (e.g. a short HEARTBEAT_MS) applied."""
    values = {k: getattr(eggconfig, k) for k in dir(eggconfig) if k.isupper()}
    values.update(changes)
    return types.SimpleNamespace(**values)


class EggRig:
    def __init__(self, port_path: Path, *, accel: str = "lis3dh", colour: bool = True,
                 **config) -> None:
        self.port = Path(port_path)
        self.board = machine.reset_board()
        bus = self.board.bus(0)
        self.accel = None
        if accel == "lis3dh":
            self.accel = bus.attach(0x18, SimLIS3DH())
        elif accel == "adxl345":
            self.accel = bus.attach(0x53, SimADXL345())
        self.colour = bus.attach(0x29, SimTCS34725()) if colour else None
        self.cfg = egg_config(**config)
        self.pty = None
        self._stop = threading.Event()
        self._thread = None

    # --- the cable -----------------------------------------------------------------

    def __enter__(self):
        self.plug_in()
        return self

    def __exit__(self, *exc) -> None:
        self.unplug()

    def plug_in(self) -> None:
        self.pty = Pty()
        tmp = self.port.with_suffix(".new")
        os.symlink(self.pty.path, tmp)
        os.replace(tmp, self.port)
        self.start_firmware()

    def unplug(self) -> None:
        self.stop_firmware()
        if self.port.is_symlink():
            self.port.unlink()
        if self.pty is not None:
            self.pty.unplug()
            self.pty = None

    # --- the firmware ----------------------------------------------------------------

    def start_firmware(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=eggloop.main,
            kwargs={"link": self.pty.link, "cfg": self.cfg, "stop": self._stop.is_set},
            name="egg-firmware", daemon=True,
        )
        self._thread.start()

    def stop_firmware(self) -> None:
        """The egg goes silent (a hung or crashed Pico) but stays plugged in."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            assert not self._thread.is_alive(), "the firmware loop did not stop"
            self._thread = None

    # --- the physical world ------------------------------------------------------------

    def press_button(self, pin=None) -> None:
        self.board.drive(self.cfg.BUTTON_PIN if pin is None else pin, 0)

    def release_button(self, pin=None) -> None:
        self.board.drive(self.cfg.BUTTON_PIN if pin is None else pin, 1)

    def led(self) -> int:
        return self.board.outputs.get(self.cfg.LED_PIN, 0)


class EventLog:
    """Collects InputEvents from a source's thread; tests wait on it for the one they expect."""

    def __init__(self) -> None:
        self.queue = queue.Queue()
        self.seen = []

    def put(self, event) -> None:
        self.queue.put(event)

    def wait(self, kind: str, timeout: float = 10.0, where=lambda e: True):
        """The next event of ``kind`` matching ``where``; fails the test on timeout."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                event = self.queue.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(event)
            if event.kind == kind and where(event):
                return event
        kinds = [(e.kind, dict(e.data)) for e in self.seen[-8:]]
        raise AssertionError(f"no {kind} event within {timeout} s; last seen: {kinds}")

    def drain(self, wait: float = 0.0) -> list:
        time.sleep(wait)
        out = []
        while not self.queue.empty():
            out.append(self.queue.get_nowait())
        self.seen.extend(out)
        return out
