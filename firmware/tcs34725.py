"""TCS34725 colour sensor over I2C (ams datasheet v1.0, register set table 4).

Every register access goes through the command byte: bit 7 (CMD) set, bits
6:5 the transaction type (01 = auto-increment, for reading the four channels
in one transfer). The egg reads raw clear/red/green/blue counts; the host turns
them into chromaticity, so gain and integration time travel with each reading.
"""

try:
    from time import sleep_ms
except ImportError:  # CPython running the host tests: the MicroPython stand-in provides it
    from utime import sleep_ms

ADDRESS = 0x29
COMMAND = 0x80
AUTO_INCREMENT = 0x20
ENABLE = 0x00  # AIEN[4] WEN[3] AEN[1] PON[0]
ATIME = 0x01  # integration time = (256 - ATIME) x 2.4 ms
CONTROL = 0x0F  # AGAIN[1:0]
ID = 0x12
STATUS = 0x13  # AINT[4] AVALID[0]
CDATAL = 0x14  # C, R, G, B as little-endian 16-bit pairs

PON = 0x01
AEN = 0x02
AVALID = 0x01
IDS = (0x44, 0x4D)  # TCS34721/34725, TCS34723/34727
GAINS = {1: 0x00, 4: 0x01, 16: 0x02, 60: 0x03}
CYCLE_MS = 2.4


class TCS34725:
    name = "tcs34725"

    def __init__(self, i2c, address: int = ADDRESS, gain: int = 4, cycles: int = 20):
        self.i2c = i2c
        self.address = address
        chip = self._read(ID, 1)[0]
        if chip not in IDS:
            raise OSError(f"TCS34725 ID is 0x{chip:02X}, not 0x44 or 0x4D")
        self.gain = gain
        self.integration_ms = cycles * CYCLE_MS
        self.max_count = min(65535, cycles * 1024)
        self._write(ATIME, 256 - cycles)
        self._write(CONTROL, GAINS[gain])
        self._write(ENABLE, PON)
        sleep_ms(3)  # the oscillator needs 2.4 ms after PON before AEN
        self._write(ENABLE, PON | AEN)

    def ready(self) -> bool:
        """True when a fresh integration cycle has finished."""
        return bool(self._read(STATUS, 1)[0] & AVALID)

    def read_rgbc(self):
        """(r, g, b, c) raw counts of the last finished integration."""
        raw = self._read(CDATAL, 8)
        c = raw[0] | raw[1] << 8
        r = raw[2] | raw[3] << 8
        g = raw[4] | raw[5] << 8
        b = raw[6] | raw[7] << 8
        return r, g, b, c

    def _read(self, register: int, n: int) -> bytes:
        return self.i2c.readfrom_mem(self.address, COMMAND | AUTO_INCREMENT | register, n)

    def _write(self, register: int, value: int) -> None:
        self.i2c.writeto_mem(self.address, COMMAND | register, bytes([value]))
