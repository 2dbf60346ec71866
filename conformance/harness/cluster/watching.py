"""The suite's waits: `until` (polling) and `watch_until` (a Kubernetes watch).

`until()` is `plumbing.waiting.until` raising the suite's `WaitTimeout`, which
is an AssertionError: a state the implementation did not reach in time fails
the test instead of erroring it. `watch_until()` lists once (the current state may already satisfy the check),
then watches from that list's resourceVersion, re-listing when the server ends
the stream or answers 410 Gone, until the check passes or the deadline comes.
Its check and its timeout error behave exactly like `until()`.

`clause_limit(clause)` wraps a wait whose timeout is a limit the clause itself sets
(e.g. "within the cleanup timeout"): there, running out is the clause broken, so
the WaitTimeout becomes an AssertionError naming the clause, which the negative
controls count as a clause-specific failure (issue 11). A wait on a harness budget
stays a timeout.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from typing import Any
from typing import TypeVar

from conformance.errors import WaitTimeout
from conformance.harness.cluster import timing
from plumbing import waiting
from plumbing.waiting import Clock
from plumbing.waiting import NotYet
from plumbing.waiting import RealClock

T = TypeVar("T")
StreamFactory = Callable[..., Iterable[dict[str, Any]]]


def until(
    check: Callable[[], T | NotYet],
    *,
    timeout: float,
    interval: float,
    describe: str,
    consecutive: int = 1,
    ignoring: tuple[type[BaseException], ...] = (),
    clock: Clock | None = None,
) -> T:
    """Return the first truthy result of `check` (see `plumbing.waiting.until`).

    Raises the suite's WaitTimeout naming `describe`, the timeout and the last
    observation. Timed as the running item's "wait" phase.
    """
    with timing.timed(timing.WAIT):
        return waiting.until(
            check,
            timeout=timeout,
            interval=interval,
            describe=describe,
            consecutive=consecutive,
            ignoring=ignoring,
            clock=clock,
            error=WaitTimeout,
        )


def _default_stream(
    list_fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> Iterable[dict[str, Any]]:
    from kubernetes import watch

    return watch.Watch().stream(list_fn, *args, **kwargs)  # type: ignore[no-untyped-call,no-any-return]


def _items_and_version(listing: Any) -> tuple[list[Any], str]:
    if isinstance(listing, dict):
        return list(listing.get("items") or []), str(
            listing["metadata"].get("resourceVersion", "")
        )
    return list(listing.items or []), str(listing.metadata.resource_version or "")


def watch_until(
    list_fn: Callable[..., Any],
    *args: Any,
    check: Callable[[Any], T | NotYet],
    timeout: float,
    describe: str,
    clock: Clock | None = None,
    stream: StreamFactory | None = None,
    **selectors: Any,
) -> T:
    """Return the first truthy `check(obj)` over listed and watched objects.

    Timed as the running item's "wait" phase.
    """
    with timing.timed(timing.WAIT):
        return _watch_until(
            list_fn,
            *args,
            check=check,
            timeout=timeout,
            describe=describe,
            clock=clock,
            stream=stream,
            **selectors,
        )


def _watch_until(
    list_fn: Callable[..., Any],
    *args: Any,
    check: Callable[[Any], T | NotYet],
    timeout: float,
    describe: str,
    clock: Clock | None,
    stream: StreamFactory | None,
    **selectors: Any,
) -> T:
    clk = clock or RealClock()
    open_stream = stream or _default_stream
    deadline = clk.monotonic() + timeout
    last = "nothing (no object matched the selectors)"

    def evaluate(obj: Any) -> T | None:
        nonlocal last
        try:
            result = check(obj)
        except AssertionError as exc:
            last = f"assertion failed: {exc}"
            return None
        if result and not isinstance(result, NotYet):
            return result
        last = str(result.observed) if isinstance(result, NotYet) else repr(result)
        return None

    while True:
        remaining = deadline - clk.monotonic()
        if remaining <= 0:
            raise WaitTimeout(describe=describe, timeout=timeout, last_observed=last)
        items, version = _items_and_version(list_fn(*args, **selectors))
        for obj in items:
            found = evaluate(obj)
            if found:
                return found
        for event in open_stream(
            list_fn,
            *args,
            resource_version=version,
            timeout_seconds=max(1, int(remaining)),
            **selectors,
        ):
            if event.get("type") == "ERROR":
                break  # 410 Gone and friends: re-list from scratch
            found = evaluate(event["object"])
            if found:
                return found
            if clk.monotonic() >= deadline:
                break


@contextlib.contextmanager
def clause_limit(clause: str) -> Iterator[None]:
    """Turn a WaitTimeout inside into an AssertionError naming `clause`.

    Only for a wait whose timeout is the limit `clause` sets: its expiry is then
    the implementation breaking the clause, not a slow cluster.
    """
    try:
        yield
    except WaitTimeout as exc:
        raise AssertionError(f"{clause}: not within its limit: {exc}") from exc
