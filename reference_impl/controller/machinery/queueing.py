"""A work queue of keys, like client-go's: de-duplicated, delayed adds, one worker per key.

A key added while it is queued is not queued twice; a key added while a worker holds it is
queued again once the worker calls `done`, so the same workflow is never reconciled by two
threads at once. `add_rate_limited` backs off per key (5 ms doubling, capped at 60 s) for
retries after conflicts; `forget` resets that. The clock is injectable for unit tests.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable

BASE_DELAY = 0.005
MAX_DELAY = 60.0


class WorkQueue:
    """A thread-safe queue of string keys."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._condition = threading.Condition()
        self._queue: list[str] = []
        self._dirty: set[str] = set()
        self._processing: set[str] = set()
        self._delayed: list[tuple[float, int, str]] = []
        self._sequence = itertools.count()
        self._failures: dict[str, int] = {}
        self._shutdown = False

    def add(self, key: str) -> None:
        """Queue `key` now (no-op if it is already queued)."""
        with self._condition:
            self._add_locked(key)

    def add_after(self, key: str, seconds: float) -> None:
        """Queue `key` once `seconds` have passed."""
        if seconds <= 0:
            self.add(key)
            return
        with self._condition:
            heapq.heappush(
                self._delayed, (self._clock() + seconds, next(self._sequence), key)
            )
            self._condition.notify()

    def add_rate_limited(self, key: str) -> None:
        """Queue `key` after a per-key back-off that grows with each call."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        self.add_after(key, min(BASE_DELAY * 2**failures, MAX_DELAY))

    def forget(self, key: str) -> None:
        """Reset the back-off of `key` after it was processed successfully."""
        self._failures.pop(key, None)

    def get(self, timeout: float | None = None) -> str | None:
        """Return the next due key, waiting up to `timeout` seconds (None: until shutdown)."""
        deadline = None if timeout is None else self._clock() + timeout
        with self._condition:
            while True:
                self._promote_due()
                if self._queue:
                    key = self._queue.pop(0)
                    self._dirty.discard(key)
                    self._processing.add(key)
                    return key
                if self._shutdown:
                    return None
                wait = None if deadline is None else deadline - self._clock()
                if self._delayed:
                    due = self._delayed[0][0] - self._clock()
                    wait = due if wait is None else min(wait, due)
                if wait is not None and wait <= 0:
                    if deadline is not None and self._clock() >= deadline:
                        return None
                    continue
                self._condition.wait(wait)

    def done(self, key: str) -> None:
        """Mark `key` processed; queue it again if it was added meanwhile."""
        with self._condition:
            self._processing.discard(key)
            if key in self._dirty:
                self._queue.append(key)
                self._condition.notify()

    def shutdown(self) -> None:
        """Wake every waiting worker; `get` returns None from now on."""
        with self._condition:
            self._shutdown = True
            self._condition.notify_all()

    def __len__(self) -> int:
        with self._condition:
            return len(self._queue)

    def _add_locked(self, key: str) -> None:
        if key in self._dirty:
            return
        self._dirty.add(key)
        if key not in self._processing:
            self._queue.append(key)
            self._condition.notify()

    def _promote_due(self) -> None:
        now = self._clock()
        while self._delayed and self._delayed[0][0] <= now:
            _, _, key = heapq.heappop(self._delayed)
            self._add_locked(key)
