"""The real egg firmware, run on the host, talking to EggLink over a real pseudo-terminal.

The firmware files run unchanged against the MicroPython stand-ins in
tests/fakes (``machine`` with simulated LIS3DH / ADXL345 / TCS34725 chips);
the host opens the pty's path with pyserial as it would /dev/ttyACM0.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import serial
from serial.tools.list_ports_common import ListPortInfo

from companion.inputs.egg import EggLink, LinkState, find_egg_port
from companion.inputs.egg_colours import EggColours
from companion.inputs.egg_frames import WARN_FIRST
from firmware import eggproto

for _path in (Path(__file__).resolve().parents[1] / "firmware", Path(__file__).parent / "fakes"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from eggrig import EggRig, EventLog  # noqa: E402  (needs the MicroPython stand-ins on sys.path)
from ptylink import Pty  # noqa: E402

RED = (0.55, 0.25, 0.22)
BLUE = (0.20, 0.32, 0.50)
GREEN = (0.25, 0.55, 0.20)
COLOURS = EggColours({"red": (RED,), "blue": (BLUE,)})
FAST = {"read_timeout": 0.02, "handshake_timeout": 1.0, "backoff": (0.05, 0.2)}


@contextmanager
def started(port: str | None, **options: Any) -> Iterator[tuple[EggLink, EventLog]]:
    """An EggLink on ``port`` with short test timings, stopped on the way out."""
    events = EventLog()
    egg = EggLink(port, **{**FAST, **options})
    egg.start(events.put)
    try:
        yield egg, events
    finally:
        egg.stop()


def soon(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether ``check`` comes true within ``timeout`` s: what the egg does on its own
    clock (heartbeats, sensor retries) may come late on a busy machine."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def connected(events: EventLog) -> None:
    events.wait("device_status", where=lambda e: e.data["state"] == "connected")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[EggRig]:
    with EggRig(tmp_path / "egg", HEARTBEAT_MS=100, SENSOR_RETRY_MS=300) as r:
        yield r


@pytest.fixture
def link(rig: EggRig) -> Iterator[tuple[EggLink, EventLog]]:
    with started(str(rig.port), colours=COLOURS) as (egg, events):
        connected(events)
        time.sleep(0.15)  # the colour sensor's first readings set its dark level
        yield egg, events


def test_handshake_gives_the_firmware_version_capabilities_and_heartbeat(link, rig) -> None:
    egg, events = link
    assert egg.state == LinkState.CONNECTED
    assert egg.hello == {"protocol": 1, "firmware": "1.2.0", "heartbeat_ms": 100,
                         "capabilities": ["lis3dh", "tcs34725", "button", "led"]}
    status = egg.status()
    assert status.state == "connected"
    assert status.message.startswith(f"egg connected on {rig.port}: firmware 1.2.0")


def test_heartbeats_keep_arriving_with_the_sensor_flags(link) -> None:
    egg, _ = link
    before = egg.stats.messages
    assert soon(lambda: egg.stats.messages - before >= 3)  # one every 100 ms
    assert egg.sensor_flags == "AC"
    assert egg.stats.corrupt == egg.stats.lost_messages == 0


def test_a_shake_is_one_event_with_its_size(link, rig) -> None:
    _, events = link
    rig.accel.shake(0.5)
    shake = events.wait("shake")
    assert shake.source == "egg"
    assert set(shake.data) == {"duration_ms", "peak_g", "jolts"}  # as PROTOCOL.md lists
    assert 350 <= shake.data["duration_ms"] <= 600
    assert shake.data["jolts"] >= 3
    assert 2.0 < shake.data["peak_g"] < 4.0
    assert [e.kind for e in events.drain(0.4)].count("shake") == 0  # one shake, one event


def test_a_drawn_bean_is_read_and_matched_to_its_player(link, rig) -> None:
    _, events = link
    rig.colour.put_bean(RED)
    bean = events.wait("bean")
    reading = bean.data["reading"]
    assert reading["gain"] == 4 and reading["integration_ms"] == 48.0
    assert abs(reading["r"] / reading["c"] - RED[0]) < 0.01
    assert bean.data["player"] == "red" and bean.data["confidence"] > 0.5
    assert bean.data["draw"] == 1
    time.sleep(0.2)
    assert [e.kind for e in events.drain()].count("bean") == 0  # still at the mouth: one draw
    rig.colour.take_bean()
    time.sleep(0.2)
    rig.colour.put_bean(BLUE)
    second = events.wait("bean")
    assert (second.data["player"], second.data["draw"]) == ("blue", 2)
    rig.colour.take_bean()
    time.sleep(0.2)
    rig.colour.put_bean(GREEN)
    nobody = events.wait("bean")
    assert nobody.data["player"] is None
    assert "no player's beans look like that" in nobody.data["match"]


def test_the_egg_button_is_debounced_and_timed(link, rig) -> None:
    _, events = link
    for _ in range(3):  # contact chatter as it closes
        rig.press_button()
        time.sleep(0.004)
        rig.release_button()
        time.sleep(0.004)
    rig.press_button()
    time.sleep(0.15)
    rig.release_button()
    press = events.wait("egg_button")
    assert set(press.data) == {"held_ms", "long"}
    assert 120 <= press.data["held_ms"] <= 250
    assert press.data["long"] is False
    assert [e.kind for e in events.drain(0.2)].count("egg_button") == 0


def test_the_host_drives_the_egg_led(link, rig) -> None:
    egg, _ = link
    assert egg.set_led("on")
    time.sleep(0.1)
    assert rig.led() == 1
    assert egg.set_led("off")
    time.sleep(0.1)
    assert rig.led() == 0
    with pytest.raises(ValueError):
        egg.set_led("disco")


def test_corrupt_lines_are_counted_and_dropped_and_the_link_carries_on(link, rig) -> None:
    egg, events = link
    good = eggproto.encode(9, "SHAKE", (400, 2600, 5))
    rig.pty.inject(good.replace(b"SHAKE,400", b"SHAKE,900"))  # bad checksum
    rig.pty.inject(b"\x00\xff garbage\r\n$EGG,1,HB*ZZZZ\n")
    rig.pty.inject(b"$EGG," + b"7" * 500 + b"\n")  # runaway line
    time.sleep(0.3)
    assert egg.stats.corrupt == 2
    assert egg.stats.noise == 1
    assert egg.stats.overflows == 1
    assert "shake" not in [e.kind for e in events.drain()]
    assert egg.state == LinkState.CONNECTED
    assert egg.stats.refused == 3
    assert re.search(r"; 3 line\(s\) from the egg refused, the last: a line of (505|over 120) "
                     r"bytes \(at most 120 without its line end\)$", egg.status().message)
    rig.colour.put_bean(RED)
    assert events.wait("bean").data["player"] == "red"


def test_unplug_and_replug_reconnects(link, rig) -> None:
    egg, events = link
    rig.unplug()
    lost = events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
    assert "lost the egg" in lost.data["message"] and "read failed" in lost.data["message"]
    assert egg.state in (LinkState.LOST, LinkState.DISCONNECTED, LinkState.CONNECTING)
    time.sleep(0.3)  # a few attempts at a port that is not there
    rig.plug_in()
    connected(events)
    assert egg.stats.connects == 2
    rig.colour.put_bean(BLUE)
    assert events.wait("bean").data["player"] == "blue"


def test_a_silent_egg_is_lost_by_heartbeat_timeout_and_found_again(link, rig) -> None:
    egg, events = link
    rig.stop_firmware()  # hangs: the port stays, the egg says nothing more
    lost = events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
    assert "no heartbeat for 0.3 s" in lost.data["message"]
    rig.start_firmware()  # e.g. its watchdog reset it
    connected(events)
    rig.accel.shake(0.4)
    events.wait("shake")


def test_a_missing_sensor_is_reported_and_found_again(tmp_path: Path) -> None:
    rig = EggRig(tmp_path / "egg", HEARTBEAT_MS=100, SENSOR_RETRY_MS=300)
    rig.colour.present = False
    with rig, started(str(rig.port)) as (egg, events):
        connected(events)
        missing = events.wait("device_error")  # said at boot, and again to this host
        assert missing.data["code"] == "NOCOLOUR"
        assert missing.data["message"] == ("the egg reports NOCOLOUR: no TCS34725 answers: "
                                           "draws are off")
        assert egg.hello["capabilities"] == ["lis3dh", "button", "led"]
        assert soon(lambda: "no working colour sensor, so draws are off"
                    in egg.status().message)  # from the next heartbeat's flags
        time.sleep(0.4)
        assert [e for e in events.drain() if e.kind == "device_error"] == []  # not every retry
        rig.colour.present = True  # the loose wire is pushed back
        assert soon(lambda: egg.sensor_flags == "AC")  # the egg's next retry finds it
        assert "colour sensor" not in egg.status().message
        rig.colour.present = False  # and comes loose mid-game
        error = events.wait("device_error", where=lambda e: e.data["code"] == "I2C")
        assert "colour stopped answering" in error.data["message"]


def test_the_adxl345_works_as_the_accelerometer(tmp_path: Path) -> None:
    rig = EggRig(tmp_path / "egg", accel="adxl345", HEARTBEAT_MS=100)
    with rig, started(str(rig.port)) as (egg, events):
        connected(events)
        assert egg.hello["capabilities"][0] == "adxl345"
        rig.accel.shake(0.4)
        assert events.wait("shake").data["jolts"] >= 3


def test_the_egg_is_found_by_its_usb_id(tmp_path: Path) -> None:
    rig = EggRig(tmp_path / "egg", HEARTBEAT_MS=100)
    pico = ListPortInfo(str(rig.port), skip_link_detection=True)
    pico.vid, pico.pid = 0x2E8A, 0x0005
    other = ListPortInfo("/dev/ttyUSB7", skip_link_detection=True)
    other.vid, other.pid = 0x0403, 0x6001
    assert find_egg_port(ports=[other, pico]) == str(rig.port)
    assert find_egg_port(ports=[other]) is None
    with rig, started("auto", list_ports=lambda: [other, pico]) as (_, events):
        connected(events)


def test_no_egg_plugged_in_is_said_once() -> None:
    with started(None, list_ports=list) as (egg, events):
        status = events.wait("device_status")
        assert status.data["state"] == "disconnected"
        assert "no egg found (looking for USB id 2E8A:0005)" in status.data["message"]
        assert "--egg PORT" in status.data["message"]
        assert events.drain(0.4) == []  # retries quietly
        assert egg.status().state == "disconnected"


@pytest.mark.parametrize("name", ["ttyNOEGG", "a" * 5000])
def test_a_port_that_cannot_open_is_named_once(tmp_path: Path, name: str) -> None:
    # pyserial's own text names the port twice more: a 5,000-character one was said 3 times.
    port = str(tmp_path / name)
    with started(port) as (_, events):
        status = events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
    message = status.data["message"]
    assert message.startswith("cannot open the egg's port ") and "Errno" not in message
    assert message.endswith((": No such file or directory", ": File name too long"))
    assert message.count(str(tmp_path)) == 1 and len(message) < 300, message


def test_a_port_that_never_says_hello_is_an_error() -> None:
    pty = Pty()  # a serial device with something else on it: a REPL prompt, no egg firmware
    pty.inject(b"MicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico with RP2040\r\n")
    try:
        with started(pty.path, handshake_timeout=0.4) as (_, events):
            time.sleep(0.1)
            pty.inject(b">>> \r\n")
            error = events.wait("device_status", where=lambda e: e.data["state"] == "error")
            assert "no hello within 0.4 s; it said '>>>'" in error.data["message"]
            hi = os.read(pty.master, 200)
            assert b"$EGG,0,HI,1*" in hi  # it did ask
    finally:
        pty.unplug()


def test_an_egg_speaking_another_protocol_version_is_refused() -> None:
    pty = Pty()
    try:
        with started(pty.path) as (_, events):
            time.sleep(0.15)
            pty.inject(eggproto.encode(0, "HELLO", (2, "9.0.0", 1000, "led")))
            error = events.wait("device_status", where=lambda e: e.data["state"] == "error")
            assert "speaks protocol 2 but this companion speaks 1" in error.data["message"]
    finally:
        pty.unplug()


def test_a_write_that_cannot_complete_ends_the_session(link, rig, monkeypatch) -> None:
    egg, events = link

    def stuck(self, data):
        raise serial.SerialTimeoutException("Write timeout")

    monkeypatch.setattr(serial.Serial, "write", stuck)
    assert egg.ping() is False
    lost = events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
    assert "write timed out" in lost.data["message"]
    monkeypatch.undo()
    connected(events)
    assert egg.ping() is True


def test_a_failure_inside_the_link_is_reported_and_retried_not_fatal() -> None:
    calls = []

    def broken_port_listing():
        calls.append(1)
        raise RuntimeError("udev went away")

    with started(None, list_ports=broken_port_listing) as (_, events):
        error = events.wait("device_status", where=lambda e: e.data["state"] == "error")
        assert "the egg link failed (RuntimeError('udev went away'))" in error.data["message"]
        time.sleep(0.5)
        assert len(calls) >= 3  # still trying, with back-off


# --- what the protocol does not allow, sent by hand ------------------------------------


class ScriptedEgg:
    """The egg's side of a pty, spoken line by line by the test: right or wrong on purpose."""

    def __init__(self) -> None:
        self.pty = Pty()
        self.seq = 0

    def line(self, kind: str, *fields: object, size: int | None = None) -> bytes:
        """The next message without its ending; padded in its last field to ``size`` bytes."""
        parts = [str(f) for f in fields]
        if size is not None:
            parts[-1] += "x" * (size - len(self._frame(kind, parts)))
        line = self._frame(kind, parts)
        self.seq = eggproto.next_seq(self.seq)
        return line

    def send(self, kind: str, *fields: object, size: int | None = None,
             ending: bytes = b"\n") -> None:
        self.pty.inject(self.line(kind, *fields, size=size) + ending)

    def hello(self) -> None:
        self.seq = 0
        self.send("HELLO", 1, "1.1.0", 1000, "lis3dh+tcs34725+button+led")

    def heard(self) -> bytes:
        try:
            return os.read(self.pty.master, 4096)
        except BlockingIOError:
            return b""

    def _frame(self, kind: str, parts: list[str]) -> bytes:
        body = ",".join(["EGG", str(self.seq), kind, *parts]).encode()
        return b"$" + body + b"*%04X" % eggproto.crc16(body)


def asked(egg: ScriptedEgg, timeout: float = 2.0) -> bytes:
    """What the host sends next (its HI, opening or after the egg fell silent), waiting
    for it."""
    deadline = time.monotonic() + timeout
    while not (heard := egg.heard()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return heard


@contextmanager
def greeted(**options: Any) -> Iterator[tuple[ScriptedEgg, EggLink, EventLog]]:
    """A scripted egg, a link on it with ``options``, and their handshake done. The egg
    answers the host's HI (numbered 0: its first command) once the port is open; a hello
    sent before would be flushed."""
    egg = ScriptedEgg()
    try:
        with started(egg.pty.path, **options) as (link, events):
            assert asked(egg).startswith(b"$EGG,0,HI,1*")
            egg.hello()
            connected(events)
            yield egg, link, events
    finally:
        egg.pty.unplug()


@pytest.fixture
def scripted() -> Iterator[tuple[ScriptedEgg, EggLink, EventLog]]:
    with greeted(colours=COLOURS, heartbeat_timeout=30) as s:
        yield s


def refused(events: EventLog, reason: str, timeout: float = 3.0) -> str:
    """The page's status once it names ``reason`` as the last line refused."""
    status = events.wait("device_status", timeout,
                         where=lambda e: e.data["message"].endswith("the last: " + reason))
    assert status.data["state"] == "connected"
    return status.data["message"]


def test_a_count_written_12_0_is_refused_with_the_reason_not_silently(scripted) -> None:
    egg, link, events = scripted
    egg.send("DRAW", 1, "12.0", 1915, 1691, 7676, 4, "48.0")
    error = events.wait("device_error")
    assert error.data["code"] == "BADMSG"
    assert error.data["message"] == (
        "the egg reported a bean drawn in a form this companion refuses (r count '12.0' is "
        "not a whole number; counts are written as digits only); if it mattered, enter it on "
        "the page")
    message = refused(events, "DRAW: r count '12.0' is not a whole number; counts are "
                              "written as digits only")
    assert "; 1 line(s) from the egg refused" in message
    assert link.status().message == message
    assert "bean" not in [e.kind for e in events.drain()]
    egg.send("DRAW", 2, 4228, 1915, 1691, 7676, 4, "48.0")  # the next good one still counts
    assert events.wait("bean").data["draw"] == 2
    assert link.state == LinkState.CONNECTED


def test_negative_counts_are_refused(scripted) -> None:
    egg, link, events = scripted
    egg.send("SHAKE", -400, 2000, 4)
    assert "duration '-400' is negative" in events.wait("device_error").data["message"]
    refused(events, "SHAKE: duration '-400' is negative; counts are never below 0")
    egg.send("BTN", "-20")
    refused(events, "BTN: held time '-20' is negative; counts are never below 0")
    assert link.stats.bad_fields == 2
    assert {"shake", "egg_button"}.isdisjoint(e.kind for e in events.drain())


def test_a_shake_longer_than_a_shake_can_last_is_refused_and_the_link_carries_on(
        scripted) -> None:
    # 4294967295 ms (49 days) passed as a shake's duration: nothing can shake an egg that
    # long, so such a line is a fault (a wrapped clock, a corrupted count), not a shake.
    egg, link, events = scripted
    egg.send("SHAKE", 4294967295, 2000, 4)
    error = events.wait("device_error")
    assert error.data["code"] == "BADMSG" and "duration 4294967295" in error.data["message"]
    refused(events, f"SHAKE: duration 4294967295 is outside 0..{eggproto.MAX_SHAKE_MS}")
    egg.send("SHAKE", eggproto.MAX_SHAKE_MS, 2000, 4)  # the longest shake there can be
    assert events.wait("shake").data["duration_ms"] == eggproto.MAX_SHAKE_MS
    assert link.stats.bad_fields == 1 and link.state == LinkState.CONNECTED


def test_a_shake_with_an_impossible_peak_or_jolts_is_refused(scripted) -> None:
    egg, link, events = scripted
    egg.send("SHAKE", 1180, 4294967295, 13)
    assert events.wait("device_error").data["code"] == "BADMSG"
    refused(events, f"SHAKE: peak acceleration 4294967295 is outside 0..{eggproto.MAX_PEAK_MG}")
    egg.send("SHAKE", 1180, 2710, 4294967295)
    refused(events, f"SHAKE: jolts 4294967295 is outside 0..{eggproto.MAX_JOLTS}")
    egg.send("SHAKE", 1180, eggproto.MAX_PEAK_MG, eggproto.MAX_JOLTS)
    assert events.wait("shake").data["peak_g"] == eggproto.MAX_PEAK_MG / 1000
    assert link.stats.bad_fields == 2 and link.state == LinkState.CONNECTED


def test_a_press_or_uptime_longer_than_can_be_is_refused_and_the_link_carries_on(
        scripted) -> None:
    # 4294967295 ms held (49 days) reached the referee as a long press, and an uptime of
    # 136 years passed as a heartbeat: faults (a wrapped clock, a corrupted count).
    egg, link, events = scripted
    egg.send("BTN", 4294967295)
    error = events.wait("device_error")
    assert error.data["code"] == "BADMSG" and "held time 4294967295" in error.data["message"]
    refused(events, f"BTN: held time 4294967295 is outside 0..{eggproto.MAX_HELD_MS}")
    egg.send("HB", 4294967295, "AC")
    refused(events, f"HB: uptime 4294967295 is outside 0..{eggproto.MAX_UPTIME_S}")
    egg.send("HB", eggproto.MAX_UPTIME_S, "A-")  # ten years up: taken
    egg.send("BTN", eggproto.MAX_HELD_MS)  # the longest press there can be
    press = events.wait("egg_button")
    assert press.data == {"held_ms": eggproto.MAX_HELD_MS, "long": True}
    assert link.sensor_flags == "A-"
    assert link.stats.bad_fields == 2 and link.state == LinkState.CONNECTED


def test_a_120_byte_line_with_crlf_is_taken_and_121_bytes_refused(scripted) -> None:
    egg, link, events = scripted
    egg.send("ERR", "CRASH", "a", size=120, ending=b"\r\n")
    error = events.wait("device_error")
    assert error.data["code"] == "CRASH" and error.data["message"].endswith("x" * 40)
    egg.send("ERR", "CRASH", "b", size=121, ending=b"\r\n")
    refused(events, "a line of 121 bytes (at most 120 without its line end)")
    assert link.stats.overflows == 1
    egg.send("BTN", 300)  # the refused line's number is missing: a gap, said as such
    gap = events.wait("device_error")
    assert gap.data["code"] == "GAP" and gap.data["message"].startswith("1 message(s) from")
    assert events.wait("egg_button").data["held_ms"] == 300


def test_a_storm_of_bad_fields_is_logged_a_few_times_not_once_a_line(scripted, caplog) -> None:
    """An egg whose every heartbeat has a bad field (firmware writing "nan") wrote one
    warning per line: ten a second, all game. Now as the frame reader's drops: the first
    few, then one per hundred; each is still counted and the page still names the last."""
    egg, link, events = scripted
    with caplog.at_level(logging.WARNING, logger="companion.inputs.egg"):
        for i in range(250):
            egg.send("HB", "nan", "AC")
            if i % 20 == 19:
                time.sleep(0.01)  # the pty holds a few kB: let the host read them
        egg.send("BTN", 300)  # the link carries on past them
        assert events.wait("egg_button").data["held_ms"] == 300
    assert link.stats.bad_fields == 250 and link.state == LinkState.CONNECTED
    warned = [r for r in caplog.records if "bad fields" in r.getMessage()]
    assert len(warned) == WARN_FIRST + 2  # the first five, the 100th and the 200th
    assert warned[-1].getMessage().endswith("(200 so far)")
    refused(events, "HB: uptime 'nan' is not written as plain digits 0-9 (no sign, space or "
                    "point)")


def test_the_host_numbers_its_commands_from_0_in_each_connection() -> None:
    with greeted(heartbeat_timeout=0.4, handshake_timeout=3) as (egg, link, events):
        assert link.ping("t1")
        assert asked(egg).startswith(b"$EGG,1,PING,t1*")
        events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
        # Silence: asked again on the same port, numbered as a new connection's first.
        assert asked(egg).startswith(b"$EGG,0,HI,1*")


def test_a_bean_drawn_while_the_egg_was_silent_is_counted_when_it_speaks_again() -> None:
    # The egg's loop stalls (a sensor hanging the bus, say) with the port still open: the
    # host asks it again on that port rather than closing it, which would throw away what
    # the egg says when it wakes.
    with greeted(colours=COLOURS, heartbeat_timeout=0.4, handshake_timeout=3) as (
            egg, link, events):
        lost = events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
        assert lost.data["message"] == (f"lost the egg on {egg.pty.path} (no heartbeat for "
                                        "0.4 s); asking it again")
        assert asked(egg).startswith(b"$EGG,0,HI,1*")
        egg.send("DRAW", 7, 4228, 1915, 1691, 7676, 4, "48.0")  # drawn while it stalled
        egg.send("HB", "nan", "AC")  # a line refused while lost: told once connected
        time.sleep(0.3)  # the host reads them before the egg's answer comes
        egg.hello()  # its answer
        assert events.wait("bean").data["player"] == "red"
        connected(events)
        assert link.stats.connects == 2 and link.stats.lost_messages == 0
        refused(events, "HB: uptime 'nan' is not written as plain digits 0-9 (no sign, space "
                        "or point)")
        states = {e.data["state"] for e in events.seen if e.kind == "device_status"}
        assert states == {"connected", "disconnected"}  # never "lost": the page knows three


def test_a_silent_egg_that_does_not_answer_is_opened_again() -> None:
    with greeted(heartbeat_timeout=0.4) as (egg, link, events):
        events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
        given_up = events.wait("device_status", where=lambda e: "of asking" in e.data["message"])
        assert given_up.data["message"] == (
            f"lost the egg on {egg.pty.path} (no heartbeat for 0.4 s, and no hello within 1 s "
            "of asking); reconnecting")
        # The port is opened again, which flushes what the egg said before: it answers
        # until a hello of its lands in the new session.
        deadline = time.monotonic() + 5
        while link.state != LinkState.CONNECTED and time.monotonic() < deadline:
            egg.hello()
            time.sleep(0.1)
        assert link.state == LinkState.CONNECTED and link.stats.connects == 2


# --- the firmware's side of the same rules ---------------------------------------------


def firmware_says(port: serial.Serial, kind: str, timeout: float = 2.0) -> list[tuple]:
    """Messages from the real firmware up to and including the first ``kind``."""
    from companion.inputs.egg_frames import FrameReader

    reader = FrameReader()
    got: list[tuple] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for msg in reader.feed(port.read(256)):
            got.append((msg.seq, msg.kind, msg.fields))
            if msg.kind == kind:
                return got
    raise AssertionError(f"no {kind} from the firmware within {timeout} s; got {got[-5:]}")


def test_the_firmware_restarts_its_count_at_every_hello(rig) -> None:
    with serial.Serial(str(rig.port), timeout=0.05) as port:
        while firmware_says(port, "HB")[-1][0] < 3:  # a few heartbeats: the count is past 0
            continue
        port.write(eggproto.encode(0, "HI", (1,)))
        hello = firmware_says(port, "HELLO")[-1]
        after = firmware_says(port, "HB")
        assert hello[0] == 0
        assert after[0][0] == 1  # the message after the HELLO is numbered 1


def test_the_firmware_takes_a_120_byte_command_with_crlf_and_refuses_121(rig) -> None:
    host = ScriptedEgg()  # the same hand-framing, used from the host's side here
    host.pty.unplug()
    with serial.Serial(str(rig.port), timeout=0.05) as port:
        port.write(host.line("LED", "on", "pad", size=120) + b"\r\n")
        time.sleep(0.1)
        assert rig.led() == 1
        port.write(host.line("LED", "off", "pad", size=121) + b"\r\n")
        err = firmware_says(port, "ERR")[-1]
        assert err[2] == ("BADLINE", "a line of 121 bytes (at most 120 without its line end)")
        time.sleep(0.1)
        assert rig.led() == 1  # the refused command did nothing


def test_a_malformed_hello_is_refused_with_the_reason() -> None:
    egg = ScriptedEgg()
    try:
        with started(egg.pty.path) as (link, events):
            time.sleep(0.1)
            egg.send("HELLO", 1, "1.1.0", "1000.0", "led")
            error = events.wait("device_status", where=lambda e: e.data["state"] == "error")
            assert error.data["message"] == (
                f"the egg on {egg.pty.path}: its hello is malformed: heartbeat period '1000.0' "
                "is not a whole number; counts are written as digits only")
            assert link.stats.last_refused.startswith("HELLO: heartbeat period '1000.0'")
    finally:
        egg.pty.unplug()


def test_an_unreachable_egg_is_told_once_each_time_not_at_every_retry(rig) -> None:
    told: list[str] = []
    with started(str(rig.port) + "-gone", on_unreachable=told.append) as (egg, events):
        events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
        time.sleep(0.5)  # several retries
        assert told == [f"cannot open the egg's port {rig.port}-gone: No such file or "
                        "directory"]
        assert egg.open_failure == told[0]
    told.clear()
    with started(str(rig.port), on_unreachable=told.append) as (egg, events):
        connected(events)
        assert told == [] and egg.open_failure is None
        rig.unplug()
        events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
        time.sleep(0.5)  # attempts at a port that is not there
        assert len(told) == 1 and told[0].startswith(f"lost the egg on {rig.port}")
        rig.plug_in()
        connected(events)
        rig.unplug()  # lost again: told again
        events.wait("device_status", where=lambda e: e.data["state"] == "disconnected")
        time.sleep(0.3)
        assert len(told) == 2 and told[1].startswith(f"lost the egg on {rig.port}")
