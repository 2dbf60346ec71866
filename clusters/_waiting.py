"""The one bounded wait of the clusters package: poll a probe until it passes.

A timeout raises WaitTimeout naming what was awaited, for how long, and the
last observed state, so a failed bring-up says where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from clusters.errors import ClusterError

T = TypeVar("T")


class WaitTimeout(ClusterError):
    """A bounded wait ran out; carries the last observed state."""


class Abort(Exception):
    """Raised by a probe to end the wait at once: waiting longer cannot help."""


def until(
    probe: Callable[[], tuple[bool, T]],
    *,
    timeout: float,
    describe: str,
    interval: float = 0.2,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], None] = time.sleep,
) -> T:
    """Call `probe` until it returns (True, value); return the value.

    `probe` returns (done, observed); `observed` is kept for the error. A probe
    that raises is treated as not done, its exception as the observed state.
    `pause` is injectable so unit tests run without real time.
    """
    deadline = clock() + timeout
    last: object = "nothing observed yet"
    while True:
        try:
            done, observed = probe()
        except Abort:
            raise
        except Exception as exc:
            done, last = False, f"{type(exc).__name__}: {exc}"
        else:
            if done:
                return observed
            last = observed
        if clock() >= deadline:
            raise WaitTimeout(
                f"timed out after {timeout:.0f}s waiting for {describe}; last observed: {last}"
            )
        pause(interval)
