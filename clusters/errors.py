"""Errors raised by `clusters`.

One root, so callers can catch everything this package raises::

    ClusterError
    ├── RunError             a command exited non-zero (command line, exit code, log tail)
    ├── ComponentStartError  a cluster component exited or never became healthy
    ├── ProviderError        a provider cannot do what was asked (missing CLI, bad name)
    └── MarkerMissingError   the cluster lacks the WPC marker, so we refuse to touch it
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

LOG_TAIL_LINES = 50


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """Return the last `lines` lines of a log file, or a note that it is missing."""
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return f"(log {path} unreadable: {exc})"
    return "\n".join(text.splitlines()[-lines:])


class ClusterError(Exception):
    """Root of every error raised by the clusters package."""


class RunError(ClusterError):
    """A command exited non-zero; the message is pasteable evidence."""

    def __init__(
        self,
        *,
        command: Sequence[str],
        returncode: int,
        log_path: Path | None = None,
        output: str = "",
    ) -> None:
        self.command = list(command)
        self.returncode = returncode
        self.log_path = log_path
        self.output = output or (tail(log_path) if log_path else "")
        where = f"\nlog file: {log_path}" if log_path else ""
        super().__init__(
            f"command failed with exit code {returncode}: {shlex.join(self.command)}"
            f"{where}\nlast lines:\n{self.output}"
        )


class ComponentStartError(ClusterError):
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


class MarkerMissingError(ClusterError):
    """The cluster does not carry the WPC marker ConfigMap."""
