from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

# pytester is used by tests/conformance; pytest only accepts pytest_plugins in the
# top-level conftest. skipgate fails a `make test` session on an undeclared skip;
# heartbeat keeps the cluster stages' CI log from going silent while a long test runs.
pytest_plugins = ["pytester", "tests.skipgate", "tests.heartbeat"]


@pytest.fixture(autouse=True)
def _signal_state_is_left_as_found() -> Iterator[None]:
    """A test that leaves a signal blocked or a handler replaced fails, named.

    Signal masks and handlers are process-wide state that outlives a test: a
    SIGINT left blocked in an xdist worker made a later signal test of the same
    worker fail at random (the signal stayed pending).
    """
    watched = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    handlers = {s: signal.getsignal(s) for s in watched}
    yield
    after = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    changed = {
        s: signal.getsignal(s) for s in watched if signal.getsignal(s) != handlers[s]
    }
    for s, handler in handlers.items():
        signal.signal(s, handler)  # put back, so one leak fails one test only
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    assert after == mask, (
        f"the test left the signal mask {sorted(after)}, not {sorted(mask)}"
    )
    assert not changed, f"the test left signal handlers replaced: {changed}"
