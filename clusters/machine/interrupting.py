"""Turn SIGINT and SIGTERM into an exception, once, so `clusters up` can roll back.

Python's default SIGINT handling raises KeyboardInterrupt, and SIGTERM kills
the process outright, skipping any clean-up. While `interrupts_raise()` is
active, the first SIGINT or SIGTERM raises `Signalled` in the main thread;
`up` catches it, rolls back what it started, and reports `Interrupted`,
exiting 128 + the signal's number. `Signalled` is a BaseException, as
KeyboardInterrupt is, because waits treat any Exception from a probe as "not
yet" (a component still starting refuses connections): an Exception raised
there would be swallowed and `up` would carry on. A second signal must not cut that rollback short (a half-removed
cluster is worse than either state), so every later one is only logged, and
`shielded()` blocks the signals outright for a stretch of clean-up, so the
commands it runs (iptables-restore, kube-proxy --cleanup) are not killed by a
terminal's Ctrl-C either, which reaches the whole foreground process group.
"""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import Iterator
from types import FrameType

logger = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Signalled(BaseException):
    """A signal asked the process to stop; caught only by clean-up code."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"received {signal.Signals(signum).name}")
        self.signum = signum


class _Latch:
    """The first signal seen while active; process-wide, like the signal table."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.shielded = 0
        self.deferring = 0


_latch = _Latch()


def received() -> int | None:
    """The first signal received while `interrupts_raise()` was active, if any."""
    return _latch.first


def _handle(signum: int, frame: FrameType | None) -> None:
    if _latch.first is None and not _latch.shielded:
        _latch.first = signum
        raise Signalled(signum)
    if _latch.first is None:
        _latch.first = signum  # reported once the shielded clean-up is done
        if _latch.deferring:
            return  # `deferred()` raises it at the end of its block
    logger.warning(
        "Received %s; still cleaning up, which one signal cannot cut short.",
        signal.Signals(signum).name,
    )


@contextlib.contextmanager
def interrupts_raise() -> Iterator[None]:
    """Within the block, the first SIGINT or SIGTERM raises `Signalled`."""
    previous = {sig: signal.signal(sig, _handle) for sig in SIGNALS}
    _latch.first = None
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _latch.first = None


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM wait (blocked, also in child commands)."""
    _latch.shielded += 1
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        # Unblocking delivers what arrived meanwhile: still shielded, it is recorded.
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        _latch.shielded -= 1


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM wait; the first one raises `Signalled` after it.

    For starting a daemon: a `Signalled` raised inside `subprocess.Popen`, after the
    fork and before the exec is confirmed, loses the child's pid, and the rollback,
    which finds components by executable and command line, misses the child while it
    is still a copy of Python; it then becomes containerd and outlives the rollback
    (seen once in CI). Deferred, the signal lands once the pid is recorded. The block
    runs with the signals blocked, which children inherit: a daemon started in it must
    unblock them (`unblock_in_child`).
    """
    before = _latch.first
    _latch.deferring += 1
    try:
        with shielded():
            yield
    finally:
        _latch.deferring -= 1
    if before is None and _latch.first is not None:
        raise Signalled(_latch.first)


def unblock_in_child() -> None:
    """Unblock SIGINT and SIGTERM: `preexec_fn` of a daemon started in `deferred()`.

    The signal mask survives fork and exec, and a daemon must stop on SIGTERM.
    """
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
