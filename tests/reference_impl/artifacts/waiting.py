"""The one bounded wait of these tests: poll until true or fail with evidence."""

from __future__ import annotations

import time
from collections.abc import Callable


class WaitTimeout(AssertionError):
    """A wait ran out; the message says for what, how long, and what was seen last."""


def until(
    probe: Callable[[], tuple[bool, object]],
    *,
    timeout: float,
    describe: str,
    interval: float = 0.05,
) -> object:
    """Call `probe` until it returns (True, value); return that value.

    The probe reports what it observed with each attempt, so a timeout carries
    the last observed state instead of a bare "timed out".
    """
    deadline = time.monotonic() + timeout
    while True:
        done, observed = probe()
        if done:
            return observed
        if time.monotonic() >= deadline:
            raise WaitTimeout(
                f"{describe}: not true after {timeout:.1f}s; last observed: {observed}"
            )
        time.sleep(interval)  # noqa: sleep-ok - the poll interval of the one bounded wait helper
