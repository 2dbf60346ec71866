"""Errors raised by `clusters`.

One root, so callers can catch everything this package raises; the evidence
carrying ones are also `plumbing.errors` errors, formatted the same everywhere::

    ClusterError
    ├── RunError             a command exited non-zero (command line, exit code, log tail)
    ├── WaitTimeout          a bounded wait ran out (what, how long, last observed)
    ├── ComponentStartError  a cluster component exited or never became healthy
    ├── ProviderError        a provider cannot do what was asked (missing CLI, bad name)
    │   └── KubeconfigError  a kubeconfig is missing or unreadable, or lacks the context
    ├── MarkerMissingError   the cluster lacks the WPC marker, so we refuse to touch it
    └── Interrupted          SIGINT or SIGTERM stopped the command (exit 128 + signal)
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Sequence
from pathlib import Path

from plumbing import errors as plumbing_errors
from plumbing.errors import TAIL_LINES as LOG_TAIL_LINES
from plumbing.errors import tail


class ClusterError(Exception):
    """Root of every error raised by the clusters package."""


class RunError(ClusterError, plumbing_errors.CommandFailed):
    """A command exited non-zero; the message is pasteable evidence."""


class WaitTimeout(ClusterError, plumbing_errors.WaitTimeout):
    """A bounded wait ran out; carries the last observed state."""


class ComponentStartError(ClusterError, plumbing_errors.EvidenceError):
    """A component exited, or did not become healthy in time."""

    def __init__(
        self,
        *,
        component: str,
        command: Sequence[str],
        log_path: Path,
        reason: str,
    ) -> None:
        self.component = component
        self.command = list(command)
        self.log_path = log_path
        self.reason = reason
        super().__init__(
            f"{component} failed to start: {reason}\n"
            f"command: {shlex.join(self.command)}\n"
            f"log file: {log_path}\n"
            f"last {LOG_TAIL_LINES} lines:\n{tail(log_path)}"
        )


class ProviderError(ClusterError):
    """The provider cannot do what was asked."""


class KubeconfigError(ProviderError):
    """A kubeconfig is missing, unreadable or malformed, or has no such context.

    The message names the file(s) and the context; it is the user's input, so
    the front ends report it as invalid input (exit 10).
    """


class MarkerMissingError(ClusterError):
    """The cluster does not carry the WPC marker ConfigMap."""


class Interrupted(ClusterError):
    """SIGINT or SIGTERM stopped the command; `outcome` says what was undone."""

    def __init__(self, signum: int, *, outcome: str = "") -> None:
        self.signum = signum
        self.outcome = outcome
        name = signal.Signals(signum).name
        super().__init__(f"interrupted by {name}" + (f"; {outcome}" if outcome else ""))

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process a signal ended."""
        return 128 + self.signum
