"""We test the hand-over from the static launcher, in process.

`adopt` takes the launch arguments off the command line (up to `--wpc-end`),
names the launcher, and gives back the variables the launcher moved aside or
the interpreter changed; without `--wpc-end` the command line is left as it
is. `release_signals` delivers what arrived while blocked, and the emissary's
`SignalForwarder.install` releases only once its handlers exist, so such a
signal is queued for the child instead of acting with its default disposition.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path

from reference_impl.executor import launching
from reference_impl.executor.child import children


def test_launch_arguments_are_taken_off_and_applied():
    environ = {"LC_CTYPE": "C.UTF-8", "KEEP": "1"}
    launch = launching.adopt(
        [
            "--wpc-launcher=/argo-bin/bin/argoexec",
            "--wpc-unset=LC_CTYPE",
            "--wpc-env=LD_PRELOAD=/lib/libjemalloc.so=x",
            "--wpc-end",
            "emissary",
            "--",
            "--wpc-end",
        ],
        environ,
    )
    assert launch.launcher == Path("/argo-bin/bin/argoexec")
    assert launch.argv == ["emissary", "--", "--wpc-end"]
    assert environ == {"KEEP": "1", "LD_PRELOAD": "/lib/libjemalloc.so=x"}


def test_a_command_line_without_launch_arguments_is_left_alone():
    environ = {"LC_CTYPE": "C.UTF-8"}
    launch = launching.adopt(["emissary", "--", "true"], environ)
    assert launch.launcher is None
    assert launch.argv == ["emissary", "--", "true"]
    assert environ == {"LC_CTYPE": "C.UTF-8"}


def test_a_blocked_signal_is_queued_for_the_child_once_handlers_exist():
    # SIGUSR1 stands in for SIGTERM: the same path, and harmless to the test
    # process if something goes wrong.
    forwarder = children.SignalForwarder()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        # To this thread: a process-directed signal could go to another thread
        # of the test process (xdist's) that does not block it.
        signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)
        assert signal.SIGUSR1 in signal.sigpending()
        forwarder.install()  # handlers first, then the release delivers it
        assert forwarder.pending == [signal.SIGUSR1]
        assert signal.SIGUSR1 not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        forwarder.restore()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
