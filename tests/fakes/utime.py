"""Stand-in for MicroPython's ``time`` helpers, so the firmware runs on CPython.

MicroPython's tick counters wrap (at 2**30 ms on the RP2040 port); these
start two seconds short of the wrap, so the first firmware run in a test
session crosses it and the firmware's wrap handling is exercised.
"""

import time as _time

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD // 2
_START_MS = TICKS_PERIOD - 2000 - int(_time.monotonic() * 1000)


def ticks_ms() -> int:
    return (int(_time.monotonic() * 1000) + _START_MS) % TICKS_PERIOD


def ticks_us() -> int:
    return (int(_time.monotonic() * 1_000_000) + _START_MS * 1000) % TICKS_PERIOD


def ticks_add(ticks: int, delta: int) -> int:
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(new: int, old: int) -> int:
    """Signed difference that survives one wrap, as MicroPython defines it."""
    return ((new - old + _HALF) % TICKS_PERIOD) - _HALF


def sleep_ms(ms: int) -> None:
    _time.sleep(ms / 1000)


def sleep_us(us: int) -> None:
    _time.sleep(us / 1_000_000)


def sleep(s: float) -> None:
    _time.sleep(s)


def time() -> int:
    return int(_time.time())
