"""The project's one bounded wait.

`until(check, timeout=..., interval=..., describe=...)` calls `check` until it
returns something truthy (returned to the caller) or the timeout passes. A
check says what it saw by returning `NotYet(observed)` or by raising
`AssertionError` (or one of the exception types given as `ignoring`); these
count as "not yet", and the last observation goes into the timeout error, so a
timeout explains itself. Any other exception escapes at once: a broken API is
an error, not something to wait out. `Abort` ends the wait at once even when
`ignoring` would swallow it.

Eventually consistent states should hold for several observations in a row
(`consecutive=3`) before a caller relies on them (Gateway API #1242).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol
from typing import TypeVar

from plumbing.errors import WaitTimeout

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


class Abort(Exception):
    """Raised by a check to end the wait at once: waiting longer cannot help."""


def describe_observation(result: object) -> str:
    """Text of an observation, cut to `OBSERVED_LIMIT` characters."""
    text = str(result.observed) if isinstance(result, NotYet) else repr(result)
    if len(text) > OBSERVED_LIMIT:
        return text[:OBSERVED_LIMIT] + f"... ({len(text)} characters)"
    return text


def until(
    check: Callable[[], T | NotYet],
    *,
    timeout: float,
    interval: float,
    describe: str,
    consecutive: int = 1,
    ignoring: tuple[type[BaseException], ...] = (),
    clock: Clock | None = None,
    error: Callable[..., WaitTimeout] = WaitTimeout,
) -> T:
    """Return the first truthy result of `check` seen `consecutive` times in a row.

    Raises `error` (a `WaitTimeout`, or a package's subclass of it so its
    callers can catch the package's root) naming `describe`, the timeout and
    the last observation.
    """
    clk = clock or RealClock()
    deadline = clk.monotonic() + timeout
    last = "nothing (the check never ran)"
    streak = 0
    while True:
        try:
            result = check()
        except Abort:
            raise
        except AssertionError as exc:
            streak = 0
            last = f"assertion failed: {exc}"
        except ignoring as exc:
            streak = 0
            last = f"{type(exc).__name__}: {exc}"
        else:
            if result and not isinstance(result, NotYet):
                streak += 1
                if streak >= consecutive:
                    return result
                last = (
                    f"{describe_observation(result)} ({streak}/{consecutive} in a row)"
                )
            else:
                streak = 0
                last = describe_observation(result)
        now = clk.monotonic()
        if now >= deadline:
            raise error(describe=describe, timeout=timeout, last_observed=last)
        clk.sleep(max(0.0, min(interval, deadline - now)))
