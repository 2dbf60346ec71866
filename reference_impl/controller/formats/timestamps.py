"""Time as the controller reads and writes it: RFC 3339 in UTC, whole seconds, like Go's.

The controller never calls the wall clock directly below `running`; it receives a `Clock`
so unit tests can pin the time.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

Clock = Callable[[], datetime.datetime]


def utc_now() -> datetime.datetime:
    """Return the current time in UTC (the production clock)."""
    return datetime.datetime.now(datetime.UTC)


def format_time(moment: datetime.datetime) -> str:
    """Return `moment` as Kubernetes writes metav1.Time: `2026-01-02T03:04:05Z`."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str | None) -> datetime.datetime | None:
    """Return the time in an RFC 3339 string, or None for an empty value."""
    if not text:
        return None
    return datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def seconds_since(text: str | None, now: datetime.datetime) -> float | None:
    """Return how many seconds ago `text` was, or None when it is empty."""
    moment = parse_time(text)
    return None if moment is None else (now - moment).total_seconds()
