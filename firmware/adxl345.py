"""ADXL345 accelerometer over I2C (Analog Devices datasheet rev. G, register map table 19).

The egg's alternative accelerometer: switch on at 100 Hz, full resolution
(3.9 mg per count at every range), and read the three axes in milli-g.
"""

DEVID = 0x00
CHIP_ID = 0xE5
BW_RATE = 0x2C  # rate code in bits 3:0
POWER_CTL = 0x2D  # Measure = bit 3
DATA_FORMAT = 0x31  # FULL_RES = bit 3, range in bits 1:0
DATAX0 = 0x32  # X0 X1 Y0 Y1 Z0 Z1, little-endian signed; multi-byte reads auto-increment

RATE_100HZ = 0x0A
MEASURE = 0x08
FULL_RES = 0x08
RANGES = {2: 0x00, 4: 0x01, 8: 0x02, 16: 0x03}
MG_PER_COUNT = 3.9  # full resolution, any range
ADDRESSES = (0x53, 0x1D)  # ALT ADDRESS pin low, high


class ADXL345:
    name = "adxl345"

    def __init__(self, i2c, address: int = 0x53, range_g: int = 8):
        self.i2c = i2c
        self.address = address
        chip = i2c.readfrom_mem(address, DEVID, 1)[0]
        if chip != CHIP_ID:
            raise OSError(f"ADXL345 DEVID is 0x{chip:02X}, not 0xE5")
        i2c.writeto_mem(address, BW_RATE, bytes([RATE_100HZ]))
        i2c.writeto_mem(address, DATA_FORMAT, bytes([FULL_RES | RANGES[range_g]]))
        i2c.writeto_mem(address, POWER_CTL, bytes([MEASURE]))

    def read_mg(self):
        """(x, y, z) in milli-g."""
        raw = self.i2c.readfrom_mem(self.address, DATAX0, 6)
        return (
            _s16(raw[0] | raw[1] << 8) * MG_PER_COUNT,
            _s16(raw[2] | raw[3] << 8) * MG_PER_COUNT,
            _s16(raw[4] | raw[5] << 8) * MG_PER_COUNT,
        )


def _s16(v: int) -> int:
    return v - 65536 if v & 0x8000 else v
