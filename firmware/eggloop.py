"""The egg's main loop: sensors in, protocol lines out, host commands in.

Runs on the Pico under MicroPython, and unchanged on the host in the tests
(with a stand-in ``machine`` module and a pseudo-terminal as the link). A
link is anything with non-blocking ``read() -> bytes`` and ``write(bytes)``;
on the Pico it is the USB serial port.
"""

try:
    from time import sleep_ms, ticks_diff, ticks_ms
except ImportError:  # CPython running the host tests: the MicroPython stand-in provides them
    from utime import sleep_ms, ticks_diff, ticks_ms

import eggproto
from adxl345 import ADXL345
from eggbutton import Debouncer
from eggdraw import DrawDetector
from eggproto import (
    BUTTON,
    DRAW,
    ERROR,
    HEARTBEAT,
    HELLO,
    HI,
    LED,
    MAX_UPTIME_S,
    PING,
    PONG,
    SHAKE,
    LineBuffer,
    ProtocolError,
    clean_field,
    encode,
    next_seq,
)
from eggshake import ShakeDetector
from lis3dh import LIS3DH
from tcs34725 import TCS34725

LED_MODES = ("on", "off", "blink")


class UsbLink:
    """The Pico's USB serial port (MicroPython's stdin and stdout), never blocking."""

    def __init__(self):
        import select
        import sys

        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self) -> bytes:
        data = b""
        while len(data) < 64 and self._poll.poll(0):
            data += self._in.read(1)
        return data

    def write(self, data: bytes) -> None:
        self._out.write(data)


class Egg:
    """One egg: finds its sensors, runs the detectors, speaks the protocol."""

    def __init__(self, link, i2c, button, led, cfg):
        self.link = link
        self.i2c = i2c
        self.button = button
        self.led = led
        self.cfg = cfg
        self.seq = 0
        self.accel = None
        self.colour = None
        self.draws = 0
        self.now = 0  # ms since start; unlike ticks_ms it never wraps
        self._tick = ticks_ms()
        self._next_hb = 0
        self._next_colour = 0
        self._next_retry = 0
        self._led_mode = "off"
        self._missing = {}  # ERR code -> text, for sensors still missing
        self._flash_until = 0
        self._lines = LineBuffer()
        self._shake = ShakeDetector(
            cfg.SHAKE_HIGH_MG, cfg.SHAKE_LOW_MG, cfg.SHAKE_QUIET_MS,
            cfg.SHAKE_REFRACTORY_MS, cfg.SHAKE_MIN_JOLTS,
        )
        self._draw = DrawDetector(cfg.DRAW_RISE, cfg.DRAW_MIN_COUNTS, cfg.DRAW_SETTLE)
        self._button = Debouncer(cfg.BUTTON_SETTLE_MS)

    # --- talking -----------------------------------------------------------------

    def send(self, kind: str, *fields) -> None:
        try:
            line = encode(self.seq, kind, fields)
        except ValueError:
            line = encode(self.seq, ERROR, ("BADSEND", kind))
        self.seq = next_seq(self.seq)
        self.link.write(line)

    def hello(self) -> None:
        self.seq = 0  # every HELLO restarts the count (PROTOCOL.md, "Sequence numbers")
        caps = [s.name for s in (self.accel, self.colour) if s is not None]
        caps += ["button", "led"]
        self.send(HELLO, eggproto.PROTOCOL_VERSION, self.cfg.FIRMWARE_VERSION,
                  self.cfg.HEARTBEAT_MS, "+".join(caps))

    def error(self, code: str, text) -> None:
        self.send(ERROR, code, clean_field(text)[:60])

    # --- sensors -----------------------------------------------------------------

    def find_sensors(self) -> None:
        """Look for whichever sensors are missing."""
        try:
            present = self.i2c.scan()
        except OSError as e:
            self.error("I2C", f"bus scan failed: {e}")
            return
        if self.accel is None:
            self.accel = self._open_accel(present)
            self._note_missing(self.accel, "NOACCEL",
                               "no LIS3DH or ADXL345 answers: shakes are off")
        if self.colour is None:
            self.colour = self._open(TCS34725, present, (0x29,), gain=self.cfg.COLOUR_GAIN,
                                     cycles=self.cfg.COLOUR_CYCLES)
            self._note_missing(self.colour, "NOCOLOUR", "no TCS34725 answers: draws are off")

    def _note_missing(self, sensor, code: str, text: str) -> None:
        """Report a missing sensor once, not at every retry, and again to each new host."""
        if sensor is not None:
            self._missing.pop(code, None)
        elif code not in self._missing:
            self._missing[code] = text
            self.error(code, text)

    def _open_accel(self, present):
        cfg = self.cfg
        accel = self._open(LIS3DH, present, (0x18, 0x19), range_g=cfg.ACCEL_RANGE_G)
        return accel or self._open(ADXL345, present, (0x53, 0x1D), range_g=cfg.ACCEL_RANGE_G)

    def _open(self, driver, present, addresses, **options):
        for address in addresses:
            if address in present:
                try:
                    return driver(self.i2c, address, **options)
                except OSError as e:
                    self.error("I2C", f"{driver.__name__} at 0x{address:02X}: {e}")
        return None

    def _sensor_failed(self, which: str, e) -> None:
        self.error("I2C", f"{which} stopped answering: {e}")
        if which == "accel":
            self.accel = None
        else:
            self.colour = None
        self._next_retry = self.now + self.cfg.SENSOR_RETRY_MS

    # --- the loop ----------------------------------------------------------------

    def start(self) -> None:
        self.find_sensors()
        self._next_retry = self.cfg.SENSOR_RETRY_MS
        self.hello()

    def step(self) -> None:
        """One pass: commands, sensors, button, heartbeat, LED."""
        t = ticks_ms()
        self.now += ticks_diff(t, self._tick)
        self._tick = t
        self._commands()
        if self.accel is not None:
            try:
                shake = self._shake.feed(self.now, *self.accel.read_mg())
            except OSError as e:
                self._sensor_failed("accel", e)
            else:
                if shake:
                    self.send(SHAKE, *shake)
        if self.colour is not None and self.now >= self._next_colour:
            self._read_colour()
        event = self._button.feed(self.now, self.button.value() == 0)
        if event and event[0] == "up":
            self.send(BUTTON, event[1])
        if self.now >= self._next_hb:
            self._next_hb = self.now + self.cfg.HEARTBEAT_MS
            flags = ("A" if self.accel else "-") + ("C" if self.colour else "-")
            self.send(HEARTBEAT, min(self.now // 1000, MAX_UPTIME_S), flags)
        if (self.accel is None or self.colour is None) and self.now >= self._next_retry:
            self._next_retry = self.now + self.cfg.SENSOR_RETRY_MS
            self.find_sensors()
        self._show_led()

    def _read_colour(self) -> None:
        colour = self.colour
        try:
            if not colour.ready():
                return
            reading = colour.read_rgbc()
        except OSError as e:
            self._sensor_failed("colour", e)
            return
        self._next_colour = self.now + int(colour.integration_ms)
        bean = self._draw.feed(*reading)
        if bean:
            self.draws += 1
            self._flash_until = self.now + 300
            self.send(DRAW, self.draws, *bean, colour.gain, f"{colour.integration_ms:.1f}")

    def _commands(self) -> None:
        data = self.link.read()
        if not data:
            return
        overflows = self._lines.overflows
        lines = self._lines.feed(data)
        if self._lines.overflows != overflows:
            self.error("BADLINE", eggproto.too_long(self._lines.last_overflow,
                                                    self._lines.last_overflow_runaway))
        for line in lines:
            try:
                _, kind, fields = eggproto.decode(line)
            except ProtocolError as e:
                self.error("BADLINE", e)
                continue
            if kind == HI:
                self._led_mode = "on"
                self.hello()
                for code, text in self._missing.items():  # said at boot, maybe to nobody
                    self.error(code, text)
            elif kind == PING:
                self.send(PONG, fields[0] if fields else "")
            elif kind == LED and fields and fields[0] in LED_MODES:
                self._led_mode = fields[0]
            else:
                self.error("BADCMD", kind)

    def _show_led(self) -> None:
        mode = self._led_mode
        lit = mode == "on" or (mode == "blink" and (self.now // 500) % 2 == 0)
        if self.now < self._flash_until:
            lit = not lit  # a short flash: "I read that bean"
        self.led.value(1 if lit else 0)

    def run(self, stop=None) -> None:
        """Loop until ``stop()`` is true (never, on the Pico); a crash is reported, not fatal."""
        self.start()
        while stop is None or not stop():
            try:
                self.step()
            except Exception as e:  # keep the egg alive and tell the host why it hiccupped
                self.error("CRASH", repr(e))
                sleep_ms(1000)
            sleep_ms(self.cfg.LOOP_MS)


def main(link=None, cfg=None, stop=None) -> None:
    """Build the egg from its settings and run it (the tests pass their own link and settings)."""
    from machine import I2C, Pin

    if cfg is None:
        import eggconfig as cfg
    i2c = I2C(cfg.I2C_ID, scl=Pin(cfg.SCL_PIN), sda=Pin(cfg.SDA_PIN), freq=cfg.I2C_FREQ)
    button = Pin(cfg.BUTTON_PIN, Pin.IN, Pin.PULL_UP)
    led = Pin(cfg.LED_PIN, Pin.OUT)
    Egg(link or UsbLink(), i2c, button, led, cfg).run(stop)
