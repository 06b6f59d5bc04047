"""Stand-in for MicroPython's ``machine`` module: ``Pin`` and ``I2C`` on a scriptable board.

Put this folder first on ``sys.path`` and the firmware's ``from machine
import I2C, Pin`` gets these. A test reaches the same ``board`` to press the
egg's button, read its LED, and script the simulated sensors on the I2C bus
(see ``simsensors``). ``reset_board()`` gives each test a fresh board; pins
and buses made before keep the board they were made on.
"""

import errno
import threading


class Bus:
    """One I2C bus: the targets that answer on it, by 7-bit address."""

    def __init__(self):
        self.devices = {}
        self.lock = threading.Lock()

    def attach(self, address: int, device):
        self.devices[address] = device
        return device

    def target(self, address: int):
        device = self.devices.get(address)
        if device is None or not device.present:
            raise OSError(errno.EIO, f"no I2C target answers at 0x{address:02X}")
        return device


class Board:
    """What is wired to the stand-in Pico: input levels, output levels, I2C buses."""

    def __init__(self):
        self.levels = {}  # input pin id -> level driven from outside
        self.outputs = {}  # output pin id -> level the firmware drives
        self.output_changes = {}  # output pin id -> how many times it changed
        self.buses = {}

    def bus(self, bus_id: int = 0) -> Bus:
        return self.buses.setdefault(bus_id, Bus())

    def drive(self, pin_id, level: int) -> None:
        self.levels[pin_id] = 1 if level else 0


board = Board()


def reset_board() -> Board:
    global board
    board = Board()
    return board


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, pin_id, mode=-1, pull=-1, *, value=None):
        self.id = pin_id
        self.mode = mode
        self._board = board
        if mode == Pin.IN and pin_id not in self._board.levels:
            self._board.levels[pin_id] = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self.value(value)

    def value(self, x=None):
        b = self._board
        if x is None:
            if self.mode == Pin.OUT:
                return b.outputs.get(self.id, 0)
            return b.levels.get(self.id, 0)
        level = 1 if x else 0
        if b.outputs.get(self.id) != level:
            b.output_changes[self.id] = b.output_changes.get(self.id, 0) + 1
        b.outputs[self.id] = level
        return None

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def toggle(self):
        self.value(1 - self.value())


class I2C:
    """The subset of ``machine.I2C`` the firmware uses; a missing target raises OSError(EIO)."""

    def __init__(self, bus_id, *, scl=None, sda=None, freq=400000):
        self._bus = board.bus(bus_id)
        self.freq = freq

    def scan(self):
        with self._bus.lock:
            return sorted(a for a, d in self._bus.devices.items() if d.present)

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        with self._bus.lock:
            self._bus.target(addr).write(bytes([memaddr]) + bytes(buf))

    def readfrom_mem(self, addr, memaddr, nbytes, *, addrsize=8):
        with self._bus.lock:
            device = self._bus.target(addr)
            device.write(bytes([memaddr]))
            return device.read(nbytes)

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        buf[:] = self.readfrom_mem(addr, memaddr, len(buf))

    def writeto(self, addr, buf, stop=True):
        with self._bus.lock:
            self._bus.target(addr).write(bytes(buf))
        return len(buf)

    def readfrom(self, addr, nbytes, stop=True):
        with self._bus.lock:
            return self._bus.target(addr).read(nbytes)
