"""Progress of a run on the console: prepare steps and the test loop (#12).

Two parts, both only in the reporting process:

- `echo` shows, while the run is prepared, the INFO lines of the command runner
  and of the preparing code (which command runs, "still running ... after 1m20s:
  <its last log line>"), which pytest would otherwise capture until the end;
- `Heartbeat` writes one line at least every `INTERVAL` seconds during the
  tests: how many are done, failed, the elapsed time and what is running, so a
  CI log always tells slow from hung (pytest itself prints nothing while a long
  test runs).

Two traps, each of which once left a whole run without a heartbeat line:
pytest-xdist's controller collects nothing (no `pytest_collection_finish` there),
so the beat starts at session start; and while a test runs in this process,
pytest's capture points file descriptor 1 at a temporary file, so the lines go to
a duplicate of the real standard output taken before any test (`Writer`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any
from typing import TextIO

import pytest

from plumbing.commands import elapsed

INTERVAL = 20.0
"""Seconds between heartbeat lines (under the 30 s a CI log may stay silent)."""

ECHOED = ("plumbing.commands", "conformance.implementations")
"""Loggers whose INFO lines are shown while the run is prepared."""


class _Echo(logging.Handler):
    def __init__(self, write: Callable[[str], None], started: float) -> None:
        super().__init__(logging.INFO)
        self.write = write
        self.started = started

    def emit(self, record: logging.LogRecord) -> None:
        self.write(
            f"wpc [{elapsed(time.monotonic() - self.started)}] {record.getMessage()}"
        )


class Writer:
    """Writes whole lines to the console, also while a test's output is captured.

    Made while capture is suspended (pytest_configure, session start): it keeps a
    duplicate of the real standard output's descriptor, which the capture's later
    redirection of descriptor 1 does not touch. Where standard output is no file
    (pytester's in-process runs), it writes through pytest's terminal reporter.
    A line starts on a fresh line: when pytest's terminal writer is mid-line (its
    width changed since our last line), a newline comes first.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.stream: TextIO | None = None
        self.after = -1
        self.lock = threading.Lock()
        try:
            fd = os.dup(sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):
            return  # no descriptor behind sys.stdout: the terminal reporter's path
        self.stream = open(fd, "w", buffering=1, encoding="utf-8", errors="replace")  # noqa: SIM115 - closed by config cleanup
        config.add_cleanup(self.stream.close)

    def __call__(self, line: str) -> None:
        """Write `line` (from any thread)."""
        # Looked up per line: the terminal reporter registers after this plugin.
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        with self.lock:
            if self.stream is None or self.stream.closed:
                if terminal is not None:
                    terminal.ensure_newline()
                    terminal.write_line(line)
                return
            width = terminal._tw.width_of_current_line if terminal is not None else 0
            fresh = width == 0 or width == self.after
            self.stream.write(("" if fresh else "\n") + line + "\n")
            self.after = width


def writer(config: pytest.Config) -> Callable[[str], None]:
    """The console's line writer (see `Writer`); call while capture is suspended."""
    return Writer(config)


@contextlib.contextmanager
def echo(write: Callable[[str], None]) -> Iterator[None]:
    """Show the INFO lines of the `ECHOED` loggers while the block runs."""
    handler = _Echo(write, time.monotonic())
    saved = []
    for name in ECHOED:
        log = logging.getLogger(name)
        saved.append((log, log.level))
        log.addHandler(handler)
        if log.getEffectiveLevel() > logging.INFO:
            log.setLevel(logging.INFO)
    try:
        yield
    finally:
        for log, level in saved:
            log.removeHandler(handler)
            log.setLevel(level)


class Heartbeat:
    """Counts tests as they finish; a thread writes a line every `interval` s."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.interval = INTERVAL if interval is None else interval
        self.clock = clock  # a seam: tests read lines without waiting
        self.started = clock()
        self.total = 0
        self.done = 0
        self.failed = 0
        self.running: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread that writes a line every `interval` s (once)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._beat, name="wpc-heartbeat", daemon=True
            )
            self._thread.start()

    def line(self) -> str:
        """The heartbeat line for now."""
        now = self.clock()
        oldest = sorted(self.running.items(), key=lambda item: item[1])[:3]
        running = ", ".join(
            f"{nodeid.rsplit('::', 1)[-1]} ({elapsed(now - since)})"
            for nodeid, since in oldest
        )
        more = len(self.running) - len(oldest)
        return (
            f"wpc [{elapsed(now - self.started)}] {self.done}/{self.total} tests done, "
            f"{self.failed} failed; running: {running or 'nothing'}"
            + (f" and {more} more" if more > 0 else "")
        )

    def pytest_sessionstart(self) -> None:
        """Beat from the start: an xdist controller never finishes a collection."""
        self.start()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The number of tests, collected in this process."""
        self.total = len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """The number of tests, as an xdist worker collected them (all collect all)."""
        self.total = len(ids)

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        """A test started (in this process or a pytest-xdist worker)."""
        self.running[nodeid] = self.clock()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A test finished: count it, and its failure."""
        if report.failed:
            self.failed += 1
        if report.when == "teardown":
            self.done += 1
            self.running.pop(report.nodeid, None)

    def pytest_sessionfinish(self) -> None:
        """Stop beating."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            self.write(self.line())
