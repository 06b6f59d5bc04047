"""The egg's serial framing, shared by the Pico firmware and the host.

One message per line: ``$EGG,<seq>,<TYPE>,<field>,...*<CRC>\\n`` where CRC is
CRC-16/CCITT-FALSE of the bytes between ``$`` and ``*`` as four upper-case hex
digits. The same file runs under MicroPython on the egg and under CPython on
the host (imported as ``firmware.eggproto``), so the two sides cannot drift:
it uses only the common subset (no typing module, no dataclasses, no
``__future__``). firmware/PROTOCOL.md is the prose version of this file.
"""

PROTOCOL_VERSION = 1
PREFIX = b"$EGG,"
MAX_LINE = 120  # bytes from "$" to the last checksum digit: the line ending does not count
SEQ_MOD = 65536  # sequence numbers run 0..65535 and wrap to 0
MAX_TYPE = 8  # type names are 1..8 upper-case letters

# Device -> host
HELLO = "HELLO"  # proto, firmware version, heartbeat ms, capabilities
HEARTBEAT = "HB"  # uptime s (at most MAX_UPTIME_S), sensor flags
SHAKE = "SHAKE"  # duration ms, peak mg, jolts (at most MAX_SHAKE_MS, MAX_PEAK_MG, MAX_JOLTS)
DRAW = "DRAW"  # n, r, g, b, c, gain, integration ms
BUTTON = "BTN"  # held ms (at most MAX_HELD_MS)
ERROR = "ERR"  # code, text
PONG = "PONG"  # token
# Host -> device
HI = "HI"  # host protocol version: asks for a HELLO
PING = "PING"  # token
LED = "LED"  # on | off | blink

# The longest shake, in ms: a player shakes the egg for a few seconds before a draw, so a
# minute is past any real one. The egg ends a shake that goes on at this length (an egg
# left on something that vibrates), and the host refuses a longer duration as a fault (a
# wrapped clock or a corrupted count), not a shake: 4294967295 ms would be 49 days.
MAX_SHAKE_MS = 60000
# The largest peak acceleration, in mg: the egg's accelerometers read at most 16 g on an
# axis (24.6 g where the LIS3DH's output saturates), so no real peak passes
# sqrt(3) x 24.6 g = 43 g. A glitched register read can compute more (an ADXL345's 32767
# counts are 128 g): the egg sends such a peak as this ceiling, the host refuses more.
MAX_PEAK_MG = 50000
# The most jolts in one shake: one a reading, at the accelerometers' 100 readings a second,
# for the longest shake (a real jolt takes two readings or more).
MAX_JOLTS = MAX_SHAKE_MS // 10
# The longest press of the egg's button, in ms: a player's press, even one held on purpose
# for a long press (1 s), lasts seconds, so a minute is past any real one. The egg sends a
# longer hold (the egg left lying on its button, then picked up) as this length, still a
# long press, and the host refuses a longer time as a fault (a wrapped clock or a
# corrupted count), not a press: 4294967295 ms would be 49 days.
MAX_HELD_MS = 60000
# The longest uptime, in seconds: ten years (10 x 365 days). The egg runs on the host's USB
# power, so it starts again whenever that machine is restarted or loses power; one left
# plugged in for weeks or months is well within this, none for ten years. The egg sends a
# longer uptime as this ceiling, and the host refuses more as a fault: 4294967295 (a count
# gone below 0) would be 136 years, and milliseconds sent for seconds pass it within 4 days.
MAX_UPTIME_S = 315360000

_FORBIDDEN = b"$*,"


class ProtocolError(ValueError):
    """A line that is not a well-formed egg message; ``str()`` says what is wrong."""


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): catches every burst of up to 16 bits."""
    crc = 0xFFFF
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc


def clean_field(text) -> str:
    """``text`` made safe to send as one field: printable ASCII, no ``$ * ,``."""
    out = []
    for ch in str(text):
        o = ord(ch)
        out.append(ch if 32 <= o < 127 and ch not in "$*," else "_")
    return "".join(out)


def encode(seq: int, kind: str, fields=()) -> bytes:
    """The wire form of one message; raises ValueError if it would be malformed."""
    if not (0 <= seq < SEQ_MOD):
        raise ValueError("sequence number out of range")
    if not _is_type(kind):
        raise ValueError("bad message type")
    parts = [PREFIX[1:-1], str(seq).encode(), kind.encode()]
    for field in fields:
        raw = str(field).encode()
        for byte in raw:
            if byte < 32 or byte > 126 or byte in _FORBIDDEN:
                raise ValueError("field has a character the protocol forbids")
        parts.append(raw)
    body = b",".join(parts)
    line = b"$" + body + b"*" + f"{crc16(body):04X}".encode()
    if len(line) > MAX_LINE:
        raise ValueError("message longer than MAX_LINE")
    return line + b"\n"


def decode(line: bytes):
    """``(seq, type, fields)`` from one line (with or without its ``\\r\\n``).

    Strict on purpose: anything but the exact form is a ProtocolError, so a
    corrupted line can never be mistaken for a message.
    """
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE:
        raise ProtocolError(too_long(len(line)))
    if not line.startswith(PREFIX):
        raise ProtocolError("not an egg message")
    star = len(line) - 5
    if star < len(PREFIX) or line[star] != 42:  # "*"
        raise ProtocolError("no checksum")
    body = line[1:star]
    want = _hex4(line[star + 1:])
    if want < 0:
        raise ProtocolError("checksum is not 4 upper-case hex digits")
    if crc16(body) != want:
        raise ProtocolError("bad checksum")
    for byte in body:
        if byte < 32 or byte > 126 or byte == 36 or byte == 42:  # "$" "*"
            raise ProtocolError("bad character")
    parts = body.decode().split(",")
    if len(parts) < 3:
        raise ProtocolError("too few fields")
    seq = _decimal(parts[1])
    if seq < 0 or seq >= SEQ_MOD:
        raise ProtocolError("bad sequence number")
    if not _is_type(parts[2]):
        raise ProtocolError("bad message type")
    return seq, parts[2], parts[3:]


def next_seq(seq: int) -> int:
    return (seq + 1) % SEQ_MOD


def seq_gap(last: int, seq: int) -> int:
    """Messages missing between ``last`` and ``seq``: 0 when ``seq`` follows ``last``.

    A negative answer means ``seq`` is not newer (a repeat or a stray old line).
    """
    ahead = (seq - last) % SEQ_MOD
    if ahead == 0 or ahead > SEQ_MOD // 2:
        return -1
    return ahead - 1


class LineBuffer:
    """Cuts a byte stream into lines, dropping (and counting) any longer than MAX_LINE.

    ``last_overflow`` is the length of the last line dropped, line ending not
    counted; ``last_overflow_runaway`` is true when it was dropped before its
    end came (its length is then only a lower bound).
    """

    def __init__(self):
        self._buf = b""
        self._skipping = False
        self.overflows = 0
        self.last_overflow = 0
        self.last_overflow_runaway = False

    def feed(self, data: bytes):
        lines = []
        buf = self._buf + data
        start = 0  # walked by index: cutting each line off the front copied the rest every
        while True:  # time, so a read of a million short lines took minutes
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line, start = buf[start:nl + 1], nl + 1
            if self._skipping:
                self._skipping = False
                continue
            size = payload_length(line)
            if size <= MAX_LINE:
                lines.append(line)
            else:
                self._overflow(size, False)
        buf = buf[start:]
        if len(buf) > MAX_LINE + 1:  # room for a whole payload and its "\r"
            if not self._skipping:
                self._overflow(len(buf), True)
            self._skipping = True
            buf = b""
        self._buf = buf
        return lines

    def _overflow(self, size, runaway):
        self.overflows += 1
        self.last_overflow = size
        self.last_overflow_runaway = runaway


def payload_length(line: bytes) -> int:
    """Bytes of ``line`` without its ``\\n`` or ``\\r\\n``: what MAX_LINE limits."""
    n = len(line)
    if n and line[n - 1] == 10:
        n -= 1
        if n and line[n - 1] == 13:
            n -= 1
    return n


def too_long(size, runaway=False) -> str:
    """Why a line of ``size`` bytes (line ending not counted) is refused."""
    what = f"over {MAX_LINE}" if runaway else str(size)
    return f"a line of {what} bytes (at most {MAX_LINE} without its line end)"


def _is_type(text: str) -> bool:
    if not (0 < len(text) <= MAX_TYPE):
        return False
    return all("A" <= ch <= "Z" for ch in text)


def _decimal(text: str) -> int:
    """The value of 1..5 plain decimal digits, else -1 (int() would take " 7", "+7", "7_0")."""
    if not (0 < len(text) <= 5):
        return -1
    value = 0
    for ch in text:
        if not ("0" <= ch <= "9"):
            return -1
        value = value * 10 + ord(ch) - 48
    return value


def _hex4(raw: bytes) -> int:
    if len(raw) != 4:
        return -1
    value = 0
    for byte in raw:
        if 48 <= byte <= 57:
            digit = byte - 48
        elif 65 <= byte <= 70:
            digit = byte - 55
        else:
            return -1
        value = value * 16 + digit
    return value
