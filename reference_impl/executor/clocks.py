"""The executor's only access to time, so unit tests can replace it.

Every wait in the executor (heartbeat cadence, handshake polling, deadlines,
kill grace periods, API back-off) goes through a `Clock`. Tests pass a fake
whose `sleep` and `wait` advance a counter instead of blocking, which is what
keeps them inside `pytest --timeout=2`.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic time for intervals, wall time for file mtimes, and ways to wait."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards (intervals, deadlines)."""
        ...

    def time(self) -> float:
        """Seconds since the epoch, comparable with `os.stat().st_mtime`."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block for `seconds`."""
        ...

    def wait(self, event: threading.Event, timeout: float) -> bool:
        """Block until `event` is set or `timeout` passes; return whether it is set."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        """Return `time.monotonic()`."""
        return time.monotonic()

    def time(self) -> float:
        """Return `time.time()`."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        """Sleep for real; the executor's waits are bounded by their callers."""
        if seconds > 0:
            time.sleep(seconds)  # noqa: sleep-ok - the production clock is the one place that sleeps

    def wait(self, event: threading.Event, timeout: float) -> bool:
        """Wait on the event for real."""
        return event.wait(max(timeout, 0.0))
