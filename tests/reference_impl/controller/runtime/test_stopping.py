"""SIGTERM stops the controller even when it lands while the stop event's lock is held.

The moment is made deterministic: the main thread holds the event's internal
lock, signals itself and runs bytecode, so Python runs the handler right there.
A naive handler (`stop.set()`) hangs on that lock for good, the hang the
controller had (once in 300 SIGTERMs under load); `stopping.stop_on_signals`
must come through and still see the signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
HANG_SECONDS = 20.0
"""Far longer than the probe needs (well under a second) when nothing hangs."""
HUNG_AFTER = 3.0
"""How long the naive control must hang to count as hung (it never ends by itself)."""

PROBE = """
import os, signal, sys, threading
from reference_impl.controller.runtime import stopping

if sys.argv[1] == "naive":
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
else:
    stop = stopping.stop_on_signals(ignored=frozenset(int(a) for a in sys.argv[2:]))
# Event.wait holds this lock between its first bytecodes and the blocking
# acquire; a signal handled there is the one that hung the controller.
with stop._cond:
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10000):
        pass
print("survived", flush=True)
print("stopped" if stop.wait(2) else "not stopped", flush=True)
"""


def _probe(
    *args: str, timeout: float = HANG_SECONDS
) -> subprocess.CompletedProcess[str] | None:
    """The probe's output, or None when it hung."""
    try:
        return subprocess.run(
            [sys.executable, "-c", PROBE, *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


def test_a_handler_that_sets_the_event_hangs_there() -> None:
    """The control: the probe really reproduces the hazard."""
    assert _probe("naive", timeout=HUNG_AFTER) is None


def test_stop_on_signals_comes_through_and_stops() -> None:
    done = _probe("wakeup")
    assert done is not None, "stop_on_signals hung with the event's lock held"
    assert done.stdout.split() == ["survived", "stopped"], done.stderr


def test_an_ignored_sigterm_neither_hangs_nor_stops() -> None:
    done = _probe("wakeup", str(int(signal.SIGTERM)))
    assert done is not None
    assert done.stdout.split() == ["survived", "not", "stopped"], done.stderr
