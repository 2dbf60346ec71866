"""Helper threads must never be the one a process-directed SIGTERM lands on."""

from __future__ import annotations

import signal
import threading

from reference_impl.executor.threads import BLOCKED
from reference_impl.executor.threads import start_helper


def _mask_in_thread(starter: object) -> set[signal.Signals]:
    seen: list[set[signal.Signals]] = []

    def look() -> None:
        seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))

    thread = threading.Thread(target=look)
    starter(thread)  # type: ignore[operator]
    thread.join(10)
    return seen[0]


def test_a_helper_thread_is_born_with_the_catchable_signals_blocked():
    mask = _mask_in_thread(start_helper)
    assert signal.SIGTERM in mask
    assert mask >= BLOCKED
    assert signal.SIGSEGV not in mask  # a thread's own faults stay deliverable


def test_a_plain_thread_would_take_sigterm_which_is_why_the_helper_exists():
    """The control: without start_helper, the new thread accepts SIGTERM."""
    assert signal.SIGTERM not in _mask_in_thread(lambda t: t.start())


def test_the_callers_mask_is_left_as_it_was():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    start_helper(threading.Thread(target=lambda: None)).join(10)
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
