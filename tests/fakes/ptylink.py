"""The egg's end of a pseudo-terminal, standing in for the Pico's USB serial port.

``os.openpty()`` gives a real tty pair: the firmware reads and writes the
master end through ``PtyLink``; the host opens the slave's path with pyserial,
exactly as it opens /dev/ttyACM0. Like USB serial with nobody listening,
writes that the terminal cannot take are dropped, not blocked on.
"""

import errno
import fcntl
import os
import tty


class PtyLink:
    def __init__(self, master_fd: int):
        self.fd = master_fd
        self.dropped = 0
        flags = fcntl.fcntl(master_fd, fcntl.F_GETFL)
        fcntl.fcntl(master_fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)

    def read(self) -> bytes:
        try:
            return os.read(self.fd, 256)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EIO, errno.EBADF):
                return b""
            raise

    def write(self, data: bytes) -> None:
        try:
            os.write(self.fd, data)
        except OSError:
            self.dropped += 1


class Pty:
    """One plugged-in egg: a raw pty pair, its slave path, and a way to unplug it."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # as pyserial will: no echo, no line editing, no CR/LF mapping
        self.path = os.ttyname(self.slave)
        self.link = PtyLink(self.master)

    def inject(self, data: bytes) -> None:
        """Bytes on the wire from the egg's side, as if the cable garbled them."""
        os.write(self.master, data)

    def unplug(self) -> None:
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                continue
