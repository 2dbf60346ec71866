"""Wait/supervisor's deadline monitor: at ARGO_DEADLINE, stop the main containers.

Upstream `monitorDeadline`: when the deadline passes while main still runs,
write `Step exceeded its deadline` as the termination message and kill the main
containers through their signal files (artifact-plugin sidecars excluded).
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from reference_impl.executor.clocks import Clock
from reference_impl.executor.staging.background import Background

logger = logging.getLogger(__name__)

MESSAGE = "Step exceeded its deadline"


class DeadlineMonitor(Background):
    """Run `on_deadline(MESSAGE)` once `deadline` passes, unless stopped first."""

    thread_name = "deadline"

    def __init__(
        self,
        *,
        deadline: datetime.datetime | None,
        clock: Clock,
        on_deadline: Callable[[str], None],
    ) -> None:
        super().__init__(clock)
        self._deadline = deadline
        self._on_deadline = on_deadline
        self.fired = False

    def start(self) -> None:
        """Start watching on a daemon thread (no-op without a deadline)."""
        if self._deadline is None:
            return
        self._start_thread()

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
