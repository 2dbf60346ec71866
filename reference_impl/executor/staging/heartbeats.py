"""The supervisor's heartbeat: rewrite RUNNING every interval until stopped.

The emissary presumes the supervisor dead when the marker's mtime stops
advancing for 30 s, so the heartbeat must keep beating while pre-main work
(artifact downloads) takes its time, and must be *stopped and joined* before the
final READY/FAILED is written: a late RUNNING overwriting READY would strand
main forever.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from reference_impl.executor.clocks import Clock
from reference_impl.executor.staging.background import Background

logger = logging.getLogger(__name__)


class Heartbeat(Background):
    """Call `beat` every `interval` seconds of `clock` on a daemon thread."""

    thread_name = "heartbeat"

    def __init__(
        self, *, beat: Callable[[], None], clock: Clock, interval: float
    ) -> None:
        super().__init__(clock)
        self._beat = beat
        self._interval = interval

    def start(self) -> None:
        """Start beating; the first beat comes one interval from now."""
        self._start_thread()

    def stop(self) -> None:
        """Stop and wait for the thread, so that no beat can follow this call."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def run(self) -> None:
        """Beat until stopped; runs on the calling thread (tests call it directly)."""
        while not self._clock.wait(self._stop, self._interval):
            try:
                self._beat()
            except OSError as err:
                # Keep beating: a transient write failure must not look like death.
                logger.warning("Heartbeat write failed: %s.", err)
