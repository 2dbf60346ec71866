"""The emissary's side of the init-less handshake: wait for READY, or fail with 65.

Decision table (contract 2.3), evaluated on every inotify wake-up and at least
every `Timings.ready_poll` seconds:

    READY                                        return
    FAILED                                       PreMainFailure("supervisor reported pre-main failure: <msg>")
    absent, `never_appeared` s since the start   PreMainFailure("supervisor presumed dead: status marker
                                                 never appeared within 30s")
    RUNNING/partial, mtime `stale` s old         PreMainFailure("supervisor presumed dead: no status
                                                 update within 30s")

Both limits trigger when the age *reaches* the limit (upstream compares with
`>`; at the 2 s poll granularity the difference cannot be observed). Ages of
the marker use the wall clock, because mtimes are wall-clock times.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from reference_impl.executor.clocks import Clock
from reference_impl.executor.errors import PreMainFailure
from reference_impl.executor.files import markers
from reference_impl.executor.protocol import Paths
from reference_impl.executor.settings import Timings

logger = logging.getLogger(__name__)


def _seconds(limit: float) -> str:
    # Go formats time.Duration(30*time.Second) as "30s"; keep the same text.
    return f"{limit:g}s"


def evaluate(
    reading: markers.StatusReading | None,
    *,
    waited: float,
    now: float,
    timings: Timings,
) -> bool:
    """Return True on READY, False to keep waiting; raise PreMainFailure on failure."""
    if reading is None:
        if waited >= timings.never_appeared:
            raise PreMainFailure(
                "supervisor presumed dead: status marker never appeared within "
                + _seconds(timings.never_appeared)
            )
        return False
    if reading.token == markers.READY:
        return True
    if reading.token == markers.FAILED:
        raise PreMainFailure(f"supervisor reported pre-main failure: {reading.message}")
    if now - reading.mtime >= timings.stale:
        raise PreMainFailure(
            "supervisor presumed dead: no status update within "
            + _seconds(timings.stale)
        )
    return False


def wait_for_ready(
    *,
    paths: Paths,
    clock: Clock,
    timings: Timings,
    pause: Callable[[float], None] | None = None,
) -> None:
    """Block until the supervisor reports READY; PreMainFailure otherwise.

    `pause(seconds)` waits for the next look; production passes an inotify
    watch (`watching.DirectoryWatch.pause`), tests a fake that advances `clock`.
    """
    wait = pause or clock.sleep
    start = clock.monotonic()
    logger.info("Waiting for the supervisor's status marker %s.", paths.status)
    while True:
        reading = markers.read_status(paths.status)
        waited = clock.monotonic() - start
        if evaluate(reading, waited=waited, now=clock.time(), timings=timings):
            logger.info("The supervisor is ready after %.3f s.", waited)
            return
        wait(timings.ready_poll)
