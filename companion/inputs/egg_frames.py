"""The egg's lines as checked messages: a pure frame reader that counts all it drops.

No I/O and no threads: bytes in, messages out. :class:`FrameReader` is fed
whatever the wire gives (the fuzz test feeds it anything at all) and returns
only messages whose checksum, form and sequence number are right; every line
it drops is counted in :class:`LinkStats`, with the last one's reason.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from firmware import eggproto

log = logging.getLogger("companion.inputs.egg")

WARN_FIRST = 5  # log each of the first few dropped lines, then every WARN_EVERY-th
WARN_EVERY = 100
STALE_RESYNC = 3  # this many old sequence numbers in a row: resynchronise to the egg's


@dataclass(frozen=True)
class EggMessage:
    """One checked message; ``gap`` is how many messages went missing just before it."""

    seq: int
    kind: str
    fields: tuple[str, ...]
    gap: int = 0


@dataclass
class LinkStats:
    messages: int = 0
    corrupt: int = 0  # "$EGG" lines that failed the checks (bad checksum, bad form)
    noise: int = 0  # other lines: the MicroPython banner, a traceback, garbage
    overflows: int = 0  # lines longer than the protocol allows
    lost_messages: int = 0  # counted from sequence-number gaps
    stale: int = 0  # repeated or out-of-order sequence numbers, dropped
    bad_fields: int = 0  # well-framed messages whose fields break the protocol
    connects: int = 0
    last_refused: str = ""  # why the last corrupt, overlong or bad-field line was refused

    @property
    def refused(self) -> int:
        """Lines from the egg that the protocol does not allow (noise is not counted)."""
        return self.corrupt + self.overflows + self.bad_fields


class FrameReader:
    """Bytes from the wire to checked messages, counting everything it drops.

    No I/O and no threads, so it can be fed any bytes at all (the fuzz test
    does): it either returns a message whose checksum, form and sequence
    number are right, or drops the line and counts why.
    """

    def __init__(self, stats: LinkStats | None = None) -> None:
        self.stats = stats or LinkStats()
        self.last_seq: int | None = None
        self.last_noise = ""
        self._lines = eggproto.LineBuffer()
        self._overflows_seen = 0
        self._stale_run = 0

    def feed(self, data: bytes) -> list[EggMessage]:
        out = []
        for line in self._lines.feed(data):
            msg = self.accept(line)
            if msg is not None:
                out.append(msg)
        new = self._lines.overflows - self._overflows_seen
        if new:
            self._overflows_seen = self._lines.overflows
            self.stats.overflows += new
            self.stats.last_refused = eggproto.too_long(self._lines.last_overflow,
                                                        self._lines.last_overflow_runaway)
            warn_dropped(self.stats.last_refused, self.stats.overflows, new)
        return out

    def accept(self, line: bytes) -> EggMessage | None:
        try:
            seq, kind, fields = eggproto.decode(line)
        except eggproto.ProtocolError as e:
            if line.startswith(b"$EGG"):
                self.stats.corrupt += 1
                self.stats.last_refused = str(e)
                warn_dropped(f"corrupt line dropped ({e}): {line[:48]!r}", self.stats.corrupt)
            elif line.strip():
                self.stats.noise += 1
                self.last_noise = line.strip()[:80].decode("ascii", "replace")
            return None
        gap = 0
        if kind != eggproto.HELLO and self.last_seq is not None:
            gap = eggproto.seq_gap(self.last_seq, seq)
            if gap < 0:
                self._stale_run += 1
                if self._stale_run < STALE_RESYNC:
                    self.stats.stale += 1
                    warn_dropped(f"stale message #{seq} dropped (last was #{self.last_seq})",
                                 self.stats.stale)
                    return None
                gap = 0  # several in a row: our count is what is wrong, so follow the egg
            self.stats.lost_messages += gap
        self._stale_run = 0
        self.last_seq = seq  # a HELLO (the egg restarted or was asked) resynchronises
        self.stats.messages += 1
        return EggMessage(seq, kind, tuple(fields), gap)


def warn_dropped(what: str, count: int, new: int = 1) -> None:
    """Log a dropped line: each of the first WARN_FIRST of a kind, then one per WARN_EVERY.

    ``new`` lines of the kind were just dropped, making ``count``: one read can drop many
    (a burst of overlong lines), and a count that jumps past WARN_FIRST and every multiple
    of WARN_EVERY must still be logged once, not never.
    """
    first = count - new + 1
    if first <= WARN_FIRST or count // WARN_EVERY > (first - 1) // WARN_EVERY:
        log.warning("egg: %s (%d so far)", what, count)
