"""Simulated LIS3DH, ADXL345 and TCS34725: register files that behave like the datasheets.

Each answers I2C transfers as the chip would (register pointer, auto-increment
rules, ID registers, power-on bits, scale set by the range/gain registers), so
the firmware's real drivers run against them unchanged. A test scripts the
physical world: ``accel.shake(0.6)`` shakes the egg from now on for 0.6 s;
``colour.put_bean((0.55, 0.25, 0.22))`` holds a bean of that chromaticity at
the mouth until ``colour.take_bean()``.
"""

import math
import random
import threading
import time

REST_MG = (0.0, 0.0, 1000.0)


class Accelerometer:
    """The physical motion shared by both accelerometer models, in milli-g."""

    def __init__(self):
        self.present = True
        self._lock = threading.Lock()
        self._shakes = []  # (start, end, amplitude_mg, hz)

    def shake(self, seconds: float, amplitude_mg: float = 2500.0, hz: float = 6.0) -> None:
        now = time.monotonic()
        with self._lock:
            self._shakes.append((now, now + seconds, amplitude_mg, hz))

    def motion_mg(self) -> tuple[float, float, float]:
        now = time.monotonic()
        x, y, z = REST_MG
        with self._lock:
            self._shakes = [s for s in self._shakes if s[1] > now - 1.0]
            for start, end, amp, hz in self._shakes:
                if start <= now < end:
                    x += amp * math.sin(2 * math.pi * hz * (now - start))
        return x, y, z


class SimLIS3DH(Accelerometer):
    """LIS3DH: WHO_AM_I 0x33; auto-increment only when bit 7 of the sub-address is set."""

    COUNTS_PER_G = {0x00: 16000, 0x10: 8000, 0x20: 4000, 0x30: 1333}  # by CTRL_REG4 FS bits

    def __init__(self):
        super().__init__()
        self.regs = bytearray(0x40)
        self.regs[0x0F] = 0x33
        self.regs[0x20] = 0x07  # CTRL_REG1 reset value: power-down, axes enabled
        self._pointer = 0
        self._increment = False

    def write(self, data: bytes) -> None:
        self._increment = bool(data[0] & 0x80)
        reg = data[0] & 0x7F
        for byte in data[1:]:
            self.regs[reg] = byte
            reg += 1 if self._increment else 0
        self._pointer = reg

    def read(self, n: int) -> bytes:
        data = self._output()
        if self._pointer == 0x14 and 0x14 in data:
            with self._lock:
                self.bean_reads += self.scene != self.DARK
        out = bytearray()
        reg = self._pointer
        for _ in range(n):
            out.append(data.get(reg, self.regs[reg % 0x40]))
            reg += 1 if self._increment else 0
        return bytes(out)

    def _output(self) -> dict[int, int]:
        if self.regs[0x20] >> 4 == 0:  # ODR = power-down: no new data
            return {r: 0 for r in range(0x28, 0x2E)}
        per_g = self.COUNTS_PER_G[self.regs[0x23] & 0x30]
        values = {0x27: 0x0F}  # STATUS: new data on every axis
        for i, mg in enumerate(self.motion_mg()):
            raw = max(-32768, min(32767, round(mg / 1000 * per_g))) & 0xFFFF
            values[0x28 + 2 * i] = raw & 0xFF
            values[0x29 + 2 * i] = raw >> 8
        return values


class SimADXL345(Accelerometer):
    """ADXL345: DEVID 0xE5; data only while POWER_CTL.Measure is set; reads auto-increment."""

    def __init__(self):
        super().__init__()
        self.regs = bytearray(0x40)
        self.regs[0x00] = 0xE5
        self.regs[0x2C] = 0x0A
        self._pointer = 0

    def write(self, data: bytes) -> None:
        reg = data[0] & 0x3F
        for byte in data[1:]:
            self.regs[reg] = byte
            reg += 1
        self._pointer = data[0] & 0x3F

    def read(self, n: int) -> bytes:
        data = self._output()
        if self._pointer == 0x14 and 0x14 in data:
            with self._lock:
                self.bean_reads += self.scene != self.DARK
        start = self._pointer
        return bytes(data.get(r, self.regs[r % 0x40]) for r in range(start, start + n))

    def _output(self) -> dict[int, int]:
        if not self.regs[0x2D] & 0x08:
            return {r: 0 for r in range(0x32, 0x38)}
        fmt = self.regs[0x31]
        per_g = 256 if fmt & 0x08 else 256 >> (fmt & 0x03)  # full resolution: 3.9 mg/LSB
        limit = 2 << (fmt & 0x03)
        values = {}
        for i, mg in enumerate(self.motion_mg()):
            g = max(-limit, min(limit, mg / 1000))
            raw = round(g * per_g) & 0xFFFF
            values[0x32 + 2 * i] = raw & 0xFF
            values[0x33 + 2 * i] = raw >> 8
        return values


class SimTCS34725:
    """TCS34725: ID 0x44; every access needs the CMD bit; type 01 auto-increments.

    The scene is a light level per channel in counts per millisecond at 1x
    gain; the registers hold that times gain times integration time, capped at
    the sensor's maximum count, with a little seeded noise.
    """

    GAINS = (1, 4, 16, 60)
    DARK = (0.2, 0.15, 0.15, 0.5)  # r, g, b, c counts/ms at 1x with nothing at the mouth

    def __init__(self, seed: int = 7):
        self.present = True
        self.regs = bytearray(0x20)
        self.regs[0x01] = 0xFF
        self.regs[0x12] = 0x44
        self.bad_commands = 0
        self.scene = self.DARK
        self.bean_reads = 0  # colour readings taken since the bean now at the mouth came
        self._pointer = 0
        self._increment = False
        self._enabled_at = None
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def put_bean(self, chroma: tuple[float, float, float], brightness: float = 40.0) -> None:
        """A bean whose r/c, g/c, b/c are ``chroma`` now sits at the mouth."""
        with self._lock:
            self.scene = (chroma[0] * brightness, chroma[1] * brightness,
                          chroma[2] * brightness, brightness)
            self.bean_reads = 0

    def take_bean(self) -> None:
        with self._lock:
            self.scene = self.DARK

    def write(self, data: bytes) -> None:
        cmd = data[0]
        if not cmd & 0x80:
            self.bad_commands += 1
            return
        self._increment = (cmd >> 5) & 0x03 == 0x01
        reg = cmd & 0x1F
        self._pointer = reg
        for byte in data[1:]:
            self.regs[reg] = byte
            if reg == 0x00:
                on = byte & 0x03 == 0x03
                self._enabled_at = time.monotonic() if on else None
            reg += 1 if self._increment else 0

    def read(self, n: int) -> bytes:
        data = self._output()
        if self._pointer == 0x14 and 0x14 in data:
            with self._lock:
                self.bean_reads += self.scene != self.DARK
        out = bytearray()
        reg = self._pointer
        for _ in range(n):
            out.append(data.get(reg, self.regs[reg % 0x20]))
            reg += 1 if self._increment else 0
        return bytes(out)

    def integration_ms(self) -> float:
        return (256 - self.regs[0x01]) * 2.4

    def _output(self) -> dict[int, int]:
        valid = (self._enabled_at is not None
                 and time.monotonic() - self._enabled_at >= self.integration_ms() / 1000)
        values = {0x13: 0x01 if valid else 0x00}
        if not valid:
            return values
        cycles = 256 - self.regs[0x01]
        top = min(65535, cycles * 1024)
        gain = self.GAINS[self.regs[0x0F] & 0x03]
        with self._lock:
            r, g, b, c = self.scene
        for reg, rate in ((0x14, c), (0x16, r), (0x18, g), (0x1A, b)):
            noise = 1 + self._rng.uniform(-0.005, 0.005)
            count = min(top, round(rate * gain * self.integration_ms() * noise))
            values[reg] = count & 0xFF
            values[reg + 1] = count >> 8
        return values
