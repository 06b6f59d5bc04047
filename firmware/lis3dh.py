"""LIS3DH accelerometer over I2C (ST datasheet DocID17530, register map section 8).

Only what shake detection needs: switch on at 100 Hz, high resolution, a
chosen range, and read the three axes in milli-g.
"""

WHO_AM_I = 0x0F
CHIP_ID = 0x33
CTRL_REG1 = 0x20  # ODR[7:4] LPen[3] Zen Yen Xen
CTRL_REG4 = 0x23  # BDU[7] BLE[6] FS[5:4] HR[3]
STATUS_REG = 0x27  # ZYXDA[3]
OUT_X_L = 0x28  # X, Y, Z as little-endian, left-justified 16-bit pairs
AUTO_INCREMENT = 0x80  # set on the sub-address to read several registers in one go

ODR_100HZ = 0x50
XYZ_ON = 0x07
BDU = 0x80
HR = 0x08
# FS bits and milli-g per count of the 16-bit left-justified output (datasheet table 4:
# 1, 2, 4, 12 mg/digit in 12-bit high-resolution mode, i.e. that / 16 per raw count).
RANGES = {2: (0x00, 1 / 16), 4: (0x10, 2 / 16), 8: (0x20, 4 / 16), 16: (0x30, 12 / 16)}
ADDRESSES = (0x18, 0x19)  # SDO/SA0 low, high


class LIS3DH:
    name = "lis3dh"

    def __init__(self, i2c, address: int = 0x18, range_g: int = 8):
        self.i2c = i2c
        self.address = address
        chip = i2c.readfrom_mem(address, WHO_AM_I, 1)[0]
        if chip != CHIP_ID:
            raise OSError(f"LIS3DH WHO_AM_I is 0x{chip:02X}, not 0x33")
        fs, self._mg = RANGES[range_g]
        i2c.writeto_mem(address, CTRL_REG1, bytes([ODR_100HZ | XYZ_ON]))
        i2c.writeto_mem(address, CTRL_REG4, bytes([BDU | HR | fs]))

    def read_mg(self):
        """(x, y, z) in milli-g."""
        raw = self.i2c.readfrom_mem(self.address, OUT_X_L | AUTO_INCREMENT, 6)
        return (
            _s16(raw[0] | raw[1] << 8) * self._mg,
            _s16(raw[2] | raw[3] << 8) * self._mg,
            _s16(raw[4] | raw[5] << 8) * self._mg,
        )


def _s16(v: int) -> int:
    return v - 65536 if v & 0x8000 else v
