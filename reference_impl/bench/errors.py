"""Errors of the benchmark.

One root, so the command line can report everything the benchmark raises on purpose::

    BenchError
    ├── CommandError   a subprocess failed; carries the command line, exit code and output
    ├── WaitTimeout    a bounded wait ran out; carries what, how long, the last observation
    ├── ClockError     the user command's clock is not the benchmark host's clock
    └── MarkerError    the user command's start marker is missing or malformed
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence


class BenchError(Exception):
    """Root of every error the benchmark raises deliberately."""


class CommandError(BenchError):
    """A subprocess failed; the message is a pasteable command line plus evidence."""

    def __init__(self, *, command: Sequence[str], returncode: int, output: str) -> None:
        self.command = list(command)
        self.returncode = returncode
        self.output = output
        super().__init__(
            f"command failed with exit code {returncode}: {shlex.join(self.command)}\n"
            f"output:\n{output.strip()[-2000:]}"
        )


class WaitTimeout(BenchError):
    """A bounded wait ran out; says what it waited for, for how long, and what it saw."""

    def __init__(self, *, describe: str, timeout: float, last_observed: str) -> None:
        self.describe = describe
        self.timeout = timeout
        self.last_observed = last_observed
        super().__init__(
            f"timed out after {timeout:g}s waiting for {describe}; "
            f"last observed: {last_observed}"
        )


class ClockError(BenchError):
    """The container's boot clock disagrees with this host's: not the same machine."""


class MarkerError(BenchError):
    """The user command's start marker is missing from its log or cannot be parsed."""
