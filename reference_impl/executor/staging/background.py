"""Work that waits on the clock on a helper thread until it is stopped.

The supervisor's heartbeat and the deadline monitor are both such work: a daemon
helper thread (`threads.start_helper`, so it never takes a process signal) running
`run`, which waits on the clock against the `_stop` event. `run` also runs on the
calling thread, which is how the tests drive it.
"""

from __future__ import annotations

import threading

from reference_impl.executor.clocks import Clock
from reference_impl.executor.threads import start_helper


class Background:
    """`run` on a daemon helper thread named `thread_name`, until `_stop` is set."""

    thread_name = "background"

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _start_thread(self) -> None:
        self._thread = threading.Thread(
            target=self.run, name=self.thread_name, daemon=True
        )
        start_helper(self._thread)

    def run(self) -> None:
        """The work; it returns once `_stop` is set (or it is done)."""
        raise NotImplementedError
