"""Helper threads that never take delivery of a process-directed signal.

The kernel gives a signal sent to the process to any one of its threads that
does not block it. Python runs its handlers only on the main thread, and only
once that thread executes bytecode again. So when a helper thread (a tee, the
signal-file watcher) takes a SIGTERM while the main thread waits in waitpid(),
the wait is not interrupted: the handler, which forwards the signal to the
user's command, runs only after the command has exited by itself, and the
SIGTERM is lost (seen as exit 0 instead of 143, once in 60 runs under load).

Every helper thread is therefore born with the catchable signals blocked (a new
thread inherits its creator's mask), which leaves the main thread as the only
one the kernel can choose.
"""

from __future__ import annotations

import signal
import threading

UNCATCHABLE_OR_SYNCHRONOUS = frozenset(
    {
        signal.SIGKILL,  # cannot be caught nor blocked
        signal.SIGSTOP,
        signal.SIGSEGV,  # faults of the thread itself: blocking them helps nobody
        signal.SIGBUS,
        signal.SIGFPE,
        signal.SIGILL,
        signal.SIGTRAP,
        signal.SIGSYS,
        signal.SIGABRT,
    }
)
"""Signals no helper blocks and the emissary never forwards."""
BLOCKED = frozenset(
    s for s in signal.valid_signals() if s not in UNCATCHABLE_OR_SYNCHRONOUS
)
"""What a helper thread blocks from its first instruction on."""


def start_helper(thread: threading.Thread) -> threading.Thread:
    """Start `thread` with `BLOCKED` blocked; the caller's mask is left as it was.

    Signals that arrive meanwhile stay pending on the process and reach the
    caller (the main thread) when its mask is restored.
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, BLOCKED)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return thread
