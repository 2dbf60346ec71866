"""Wait/supervisor's deadline monitor: at ARGO_DEADLINE, stop the main containers.

Upstream `monitorDeadline`: when the deadline passes while main still runs,
write `Step exceeded its deadline` as the termination message and kill the main
containers through their signal files (artifact-plugin sidecars excluded).
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable

from reference_impl.executor.clocks import Clock
from reference_impl.executor.threads import start_helper

logger = logging.getLogger(__name__)

MESSAGE = "Step exceeded its deadline"


class DeadlineMonitor:
    """Run `on_deadline(MESSAGE)` once `deadline` passes, unless stopped first."""

    def __init__(
        self,
        *,
        deadline: datetime.datetime | None,
        clock: Clock,
        on_deadline: Callable[[str], None],
    ) -> None:
        self._deadline = deadline
        self._clock = clock
        self._on_deadline = on_deadline
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.fired = False

    def start(self) -> None:
        """Start watching on a daemon thread (no-op without a deadline)."""
        if self._deadline is None:
            return
        self._thread = threading.Thread(target=self.run, name="deadline", daemon=True)
        start_helper(self._thread)

    def stop(self) -> None:
        """Stop watching; a kill already under way is left to finish."""
        self._stop.set()

    def run(self) -> None:
        """Wait for the deadline on the calling thread (tests call it directly)."""
        if self._deadline is None:
            return
        remaining = self._deadline.timestamp() - self._clock.time()
        if self._clock.wait(self._stop, max(remaining, 0.0)):
            logger.info("Deadline monitor stopped.")
            return
        logger.info("%s.", MESSAGE)
        self.fired = True
        self._on_deadline(MESSAGE)
