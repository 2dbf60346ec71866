"""Where an item's time goes: named phases, timed by one context manager.

The plugin gives each suite item a `Phases` recorder (kept in the item's stash,
`conformance.plugin.state.keys.PHASES`) and makes it this process's current one while
the item runs (`recording`). The harness marks what it does with `timed(name)`:
submitting a Workflow, waiting for the contract's event, reading what happened,
installing a private controller, changing its configuration, restarting it.
Outside an item (the run's own install, unit tests) `timed` records nothing.

Only the outermost timed block counts: a wait inside a restart is the
restart's time, so the phases of an item never add up to more than its
duration. A block another thread times while one is open is not counted
either, for the same reason (the wall clock is shared).

A recorder may also wrap each counted block in a context of its own (`step`):
the plugin makes each one an Allure step, so the report for people shows the
phases in the order they ran, without the harness knowing of Allure.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import AbstractContextManager

INSTALL = "install"
CONFIG_CHANGE = "configChange"
RESTART = "restart"
SUBMIT = "submit"
WAIT = "wait"
OBSERVE = "observe"
NAMES = (INSTALL, CONFIG_CHANGE, RESTART, SUBMIT, WAIT, OBSERVE)
"""What the harness times; setup and cleanup are pytest's own phases."""


Step = Callable[[str], AbstractContextManager[None]]
"""What a recorder wraps each counted block in, given the phase's name."""


class Phases:
    """Seconds per phase name, since the last `take()`."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, step: Step | None = None
    ) -> None:
        self._clock = clock
        self._step = step
        self._seconds: dict[str, float] = {}
        self._open = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Add the block's wall time to `name`, unless another block is open."""
        if name not in NAMES:
            raise ValueError(f"unknown phase {name!r} (known: {', '.join(NAMES)})")
        with self._lock:
            outermost = self._open == 0
            self._open += 1
        around = (
            self._step(name)
            if outermost and self._step is not None
            else contextlib.nullcontext()
        )
        started = self._clock()
        try:
            with around:
                yield
        finally:
            elapsed = self._clock() - started
            with self._lock:
                self._open -= 1
                if outermost:
                    self._seconds[name] = self._seconds.get(name, 0.0) + elapsed

    def take(self) -> dict[str, float]:
        """The seconds recorded so far, rounded to ms; the recorder starts over."""
        with self._lock:
            taken, self._seconds = self._seconds, {}
        return {name: round(seconds, 3) for name, seconds in sorted(taken.items())}


_current: Phases | None = None


@contextlib.contextmanager
def recording(phases: Phases) -> Iterator[Phases]:
    """Make `phases` the recorder `timed` writes to while the block runs."""
    global _current
    previous, _current = _current, phases
    try:
        yield phases
    finally:
        _current = previous


@contextlib.contextmanager
def timed(name: str) -> Iterator[None]:
    """Time the block as phase `name` of the running item (nothing outside one)."""
    phases = _current
    if phases is None:
        yield
        return
    with phases.timed(name):
        yield
