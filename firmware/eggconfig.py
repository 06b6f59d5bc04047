"""Settings of one egg: wiring, sensor set-up and detection thresholds.

Edit this file on the Pico to match the egg (docs/hardware.md has the wiring).
The host tests pass a copy with shorter times.
"""

FIRMWARE_VERSION = "1.2.0"

I2C_ID = 0
SDA_PIN = 4  # GP4, Pico pin 6 (I2C0 SDA)
SCL_PIN = 5  # GP5, Pico pin 7 (I2C0 SCL)
I2C_FREQ = 400000
BUTTON_PIN = 15  # GP15, Pico pin 20; the button connects it to GND (internal pull-up)
LED_PIN = "LED"  # the Pico's own LED (GP25 on a Pico, the radio chip's on a Pico W)

ACCEL_RANGE_G = 8
COLOUR_GAIN = 4  # 1, 4, 16 or 60
COLOUR_CYCLES = 20  # integration time = cycles x 2.4 ms = 48 ms

LOOP_MS = 10  # 100 accelerometer samples a second
HEARTBEAT_MS = 1000
SENSOR_RETRY_MS = 5000  # look again for a missing sensor this often

SHAKE_HIGH_MG = 800
SHAKE_LOW_MG = 300
SHAKE_QUIET_MS = 250
SHAKE_REFRACTORY_MS = 600
SHAKE_MIN_JOLTS = 3

DRAW_RISE = 3.0
DRAW_MIN_COUNTS = 300
DRAW_SETTLE = 3

BUTTON_SETTLE_MS = 30
