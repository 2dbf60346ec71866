"""Teardown work a test need not wait for, finished before its process ends.

Uninstalling a dedicated controller instance takes about 10 s (its namespace and
controller pod going away), and the test that used it held its pytest-xdist worker
all that time after its verdict. Nothing the next test does needs that instance
gone: it serves only Workflows labelled with its own instance ID, which no other
test uses. (A controller without `instanceID` serves every unlabelled Workflow:
the tests that run one hold the unlabelled-workflows lock and still wait.) So the
`dedicated_instance` fixture hands its uninstall to `Background`, which runs it in
a thread while the next test starts, and the process joins them all at its end.

A failure is logged with its command's error, not raised into
whichever test ran last; what it left behind carries the run's session label,
and the run's sweep removes it and reports it among the leaks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent import futures

logger = logging.getLogger(__name__)

WORKERS = 2
"""Teardowns run side by side at most: each mostly waits on the cluster."""


class Background:
    """Runs teardown steps in threads; `join` waits for all of them."""

    def __init__(self, *, workers: int = WORKERS) -> None:
        self._pool = futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="wpc-teardown"
        )
        self._pending: dict[futures.Future[None], str] = {}

    def submit(self, what: str, step: Callable[[], None]) -> None:
        """Start `step` (described as `what` in logs) without waiting for it."""
        logger.info("Started in the background: %s.", what)
        self._pending[self._pool.submit(step)] = what

    def join(self) -> list[str]:
        """Wait for every step; return what failed (each logged with its error)."""
        failed = []
        for future in futures.as_completed(list(self._pending)):
            what = self._pending.pop(future)
            error = future.exception()
            if error is None:
                logger.info("Finished in the background: %s.", what)
            else:
                logger.error("Failed in the background: %s: %s", what, error)
                failed.append(what)
        self._pool.shutdown(wait=True)
        return sorted(failed)
