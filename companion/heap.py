"""Giving the memory a start-up freed back to the system.

Building the reader's tables (the soft marker decoder's pictures of every code under
every blur, the colour tables) makes large temporaries, and so does every frame read.
Once freed, glibc keeps most of them in the process's heap, where a long-running
service would hold them for hours: asking it to trim returns them (about 35 MB of the
live demo's 200 MB after the tables are built). The reader asks once its tables are
built (``vision.peepwar.table.prepare_reader``), a running service every half minute
(``companion.service``). Elsewhere (macOS, musl) there is no such call and nothing
happens.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache


@cache
def _trim():  # type: ignore[no-untyped-def]
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def give_back_freed_memory() -> bool:
    """Return the heap's free memory to the system where the C library can (glibc's
    ``malloc_trim``); whether it could.

    >>> isinstance(give_back_freed_memory(), bool)
    True
    """
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
