"""Errors raised by the conformance suite.

One root, so callers can catch everything this package raises; the outcome
mapping (`conformance.outcomes`) turns each branch into a test outcome::

    ConformanceError
    ├── DataError        a data file (profile, divergences, marker) is invalid;
    │                    the message names the file and the key
    ├── HarnessError     the harness or the cluster broke          -> outcome "error"
    │   ├── CommandError a profile command exited non-zero (command line,
    │   │                exit code, output tail, log path)
    │   └── ClusterRefused  the cluster lacks the WPC marker (see --allow-foreign-cluster)
    └── WaitTimeout      an awaited state was not reached in time  -> outcome "failed"
                         (also an AssertionError: the implementation did not do
                         what the clause requires within its limit)

`conformance.spec.SpecError` (the spec loader's error) is separate: a broken
spec is a suite bug and stops collection.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

OUTPUT_TAIL_LINES = 40


class ConformanceError(Exception):
    """Root of every error raised by the conformance package."""


class DataError(ConformanceError):
    """A data file the suite reads is invalid; the message names file and key."""


class HarnessError(ConformanceError):
    """The harness or the cluster broke, so the test proves nothing either way."""


class CommandError(HarnessError):
    """A profile command (install, restart, ...) exited non-zero."""

    def __init__(
        self,
        *,
        command: Sequence[str],
        returncode: int,
        output: str,
        log_path: Path | None = None,
    ) -> None:
        self.command = list(command)
        self.returncode = returncode
        self.output = output
        self.log_path = log_path
        tail = "\n".join(output.splitlines()[-OUTPUT_TAIL_LINES:])
        where = f"\nlog file: {log_path}" if log_path else ""
        super().__init__(
            f"command failed with exit code {returncode}: {shlex.join(self.command)}"
            f"{where}\nlast lines:\n{tail}"
        )


class ClusterRefused(HarnessError):
    """The cluster is not one WPC made, and the user did not allow it."""


class WaitTimeout(ConformanceError, AssertionError):
    """An awaited state was not reached: what, for how long, last observed."""

    def __init__(self, *, describe: str, timeout: float, last_observed: str) -> None:
        self.describe = describe
        self.timeout = timeout
        self.last_observed = last_observed
        super().__init__(
            f"timed out after {timeout:g} s waiting for {describe}; "
            f"last observed: {last_observed}"
        )
