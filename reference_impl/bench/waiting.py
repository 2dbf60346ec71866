"""The benchmark's one polling helper (watches cover the rest).

`until(check, timeout=..., interval=..., describe=...)` calls `check` until it
returns something truthy, or raises `WaitTimeout` carrying the last `NotYet`
observation. The same shape as `conformance/waiting.py`, which the reference
implementation may not import (import-linter's independence contract).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol
from typing import TypeVar

from reference_impl.bench.errors import WaitTimeout

T = TypeVar("T")

OBSERVED_LIMIT = 2000
"""Characters of the last observation kept in a timeout message."""


class Clock(Protocol):
    """Time source of a wait; tests pass a fake one."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin."""
        ...

    def sleep(self, seconds: float) -> None:
        """Pause between two checks."""
        ...


class RealClock:
    """The process clock."""

    def monotonic(self) -> float:
        """Return `time.monotonic()`."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Pause between polls."""
        time.sleep(seconds)  # noqa: sleep-ok - the poll interval of the one wait helper


class NotYet:
    """A falsy check result that carries what was observed."""

    def __init__(self, observed: object) -> None:
        self.observed = observed

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"NotYet({self.observed!r})"


def until(
    check: Callable[[], T | NotYet],
    *,
    timeout: float,
    interval: float,
    describe: str,
    clock: Clock | None = None,
) -> T:
    """Return the first truthy result of `check`; raise WaitTimeout after `timeout`."""
    clk = clock or RealClock()
    deadline = clk.monotonic() + timeout
    last = "nothing (the check never ran)"
    while True:
        result = check()
        if result and not isinstance(result, NotYet):
            return result
        observed = result.observed if isinstance(result, NotYet) else result
        last = str(observed)[:OBSERVED_LIMIT]
        now = clk.monotonic()
        if now >= deadline:
            raise WaitTimeout(describe=describe, timeout=timeout, last_observed=last)
        clk.sleep(max(0.0, min(interval, deadline - now)))
