"""SIGTERM and SIGHUP stop a run as Ctrl-C does: teardown, sweep, a report marked interrupted.

A cancelled CI job, `timeout` and make send SIGTERM, a closed terminal SIGHUP,
and `wpc run` passes both on to pytest (`plumbing.forwarding`). pytest handles
neither: it died at once, without fixture teardown (test namespaces and private
controller instances stayed on the cluster), end-of-run sweep or report. Here
the first SIGINT, SIGTERM or SIGHUP raises KeyboardInterrupt, pytest's own way
to stop: the running test stops, pytest tears its fixtures down and finishes
the session, and the reporting process sweeps and writes the report, marked
`interrupted` (`conformance.plugin.reporting.finishing`).

Two exceptions keep the clean-up whole:

- a first signal that arrives during a test's teardown raises nothing there
  (that would skip the rest of the teardown): it sets `session.shouldstop`, and
  pytest stops after that teardown, as interrupted all the same; so does one
  during the session's finish (the sweep and the report);
- a signal that lands in an old-style hookwrapper after its yield (allure-pytest
  wraps every test's setup so) stays a KeyboardInterrupt: pluggy warns
  (`PluggyTeardownRaisedWarning`) before it re-raises, and under a
  `filterwarnings = error` (the repository's) that warning replaced the
  interrupt, so the test cut short counted as run, with a harness error;
- every later signal is only noted on standard error. A second Ctrl-C does not
  abort the teardown, the sweep or the report: a half-torn-down run leaves
  what no sweep finds (private controller instances). Their waits are bounded by
  named timeouts; SIGKILL still stops the process at once.

Installed in every process of an active run (each pytest-xdist worker tears down
its own tests), from the main thread only, where Python runs signal handlers.
The pytest-xdist controller waits for its workers' teardown (up to
WORKERS_TEARDOWN) before the sweep.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from collections.abc import Generator
from types import FrameType
from typing import Any

import pytest

from conformance.plugin.state import runs

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PLUGIN_NAME = "wpc-interrupter"
WRAPPER_WARNING = "default::pluggy.PluggyTeardownRaisedWarning"
"""Shown, never an error: pluggy re-raises the wrapper's exception after it."""
WORKERS_TEARDOWN = 600.0
"""Seconds pytest-xdist workers of an interrupted run get to finish their teardown
(a private controller instance's uninstall, namespace deletions), scaled by
--timeout-scale; then they are killed. pytest-xdist's own limit is 10 s."""

Handler = Callable[[int, FrameType | None], Any] | int | None


class Interrupter:
    """The signal handlers of one pytest process, as a plugin bound to its run."""

    def __init__(self, run: runs.Run) -> None:
        self.run = run
        self.session: pytest.Session | None = None
        self.tearing_down = False
        self.previous: dict[int, Handler] = {}
        self.console = -1
        """A duplicate of standard error taken before pytest's capture moved it."""

    def install(self) -> None:
        """Take over SIGNALS (in the main thread; elsewhere Python cannot)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self.console = os.dup(2)
        self.previous = {s: signal.signal(s, self.handle) for s in SIGNALS}

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The first signal stops the run; later ones are only noted."""
        name = signal.Signals(signum).name
        if self.run.interrupted_by is not None:
            self._say(
                f"wpc: received {name} again: still tearing down, sweeping and "
                "writing the report; a signal does not cut that short (SIGKILL does)"
            )
            return
        self.run.interrupted_by = name
        if not self.tearing_down:
            raise KeyboardInterrupt(f"received {name}")
        if self.session is not None:
            self.session.shouldstop = f"interrupted by {name}"
        self._say(f"wpc: received {name}: stopping once this clean-up is done")

    def _say(self, line: str) -> None:
        # os.write, not a stream: a handler may run while that stream's own
        # write is half done (a reentrant call raises).
        with contextlib.suppress(OSError):
            os.write(self.console, f"{line}\n".encode())

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Keep the session: a signal during a teardown stops it through `shouldstop`."""
        self.session = session

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, Any, Any]:
        """While a test's teardown runs, a signal waits for its end."""
        self.tearing_down = True
        try:
            return (yield)
        finally:
            self.tearing_down = False

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """From here on (the remaining teardown, the sweep, the report) nothing raises.

        Before pytest-xdist stops its workers: those of an interrupted run are
        still tearing down, and get the time for it.
        """
        self.tearing_down = True
        if self.run.interrupted_by is not None:
            self._let_workers_finish(session.config)

    def _let_workers_finish(self, config: pytest.Config) -> None:
        # pytest-xdist ends its workers with execnet's group termination, which
        # kills those still running after `NodeManager.EXIT_TIMEOUT` (10 s): a
        # private instance's uninstall and namespace deletion take longer. The
        # workers got the signal too (the launcher signals the whole group), or
        # get execnet's SIGINT 5 s into the termination; they exit once torn down.
        nodemanager = getattr(
            config.pluginmanager.get_plugin("dsession"), "nodemanager", None
        )
        if nodemanager is None:
            return
        seconds = WORKERS_TEARDOWN * self.run.settings.timeout_scale
        nodemanager.EXIT_TIMEOUT = seconds
        self._say(f"wpc: waiting up to {seconds:.0f} s for the workers' teardown")

    def pytest_unconfigure(self) -> None:
        """Give the signals back (pytester runs many sessions in one process)."""
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous = {}
        if self.console >= 0:
            os.close(self.console)
            self.console = -1


def register(config: pytest.Config, run: runs.Run) -> None:
    """Install the handlers of an active run that will run tests."""
    if config.option.collectonly:
        return
    # Appended: pytest applies the ini's filters in order, the last one winning.
    config.addinivalue_line("filterwarnings", WRAPPER_WARNING)
    interrupter = Interrupter(run)
    # Registered first: its pytest_unconfigure gives the signals back.
    config.pluginmanager.register(interrupter, PLUGIN_NAME)
    interrupter.install()
