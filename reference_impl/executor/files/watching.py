"""Wake up early when a directory changes (inotify), else wait out the timeout.

The emissary polls the status marker every 2 s, as upstream, but upstream also
watches it with inotify, so main starts as soon as READY lands rather than up
to 2 s later. That latency is part of what the suite compares between layouts,
so the reference watches too. Python has no inotify binding; ctypes reaches
libc's. If that fails (no inotify, no libc symbols) `pause` degrades to a plain
timed wait, which is still correct, only slower.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import select
import time
from pathlib import Path

logger = logging.getLogger(__name__)

_IN_CLOSE_WRITE = 0x008
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100


class DirectoryWatch:
    """A `pause(timeout)` that returns early on writes/renames in `directory`."""

    def __init__(self, directory: Path) -> None:
        self._fd: int | None = None
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
            if fd < 0:
                raise OSError(ctypes.get_errno(), "inotify_init1")
            mask = _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE
            if libc.inotify_add_watch(fd, os.fsencode(directory), mask) < 0:
                err = ctypes.get_errno()
                os.close(fd)
                raise OSError(err, "inotify_add_watch")
            self._fd = fd
        except (OSError, AttributeError) as err:
            logger.info(
                "Watching %s without inotify (%s); polling only.", directory, err
            )

    def pause(self, timeout: float) -> None:
        """Block until something changes in the directory or `timeout` seconds pass."""
        if self._fd is None:
            time.sleep(max(timeout, 0.0))  # noqa: sleep-ok - the poll interval of the contract
            return
        readable, _, _ = select.select([self._fd], [], [], max(timeout, 0.0))
        if readable:
            # Drain; the caller re-reads the marker. Another wake-up may have drained it.
            with contextlib.suppress(BlockingIOError):
                os.read(self._fd, 64 * 1024)

    def close(self) -> None:
        """Release the inotify descriptor."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
