"""Errors that carry evidence, the bases of every package's own errors.

Each package keeps its one root (`ClusterError`, `ConformanceError`, ...) and
mixes in one of these, so a caller catches by package while the message format
stays the same everywhere::

    EvidenceError        an error whose message is pasteable evidence
    ├── CommandFailed    a command exited non-zero: command line, exit code,
    │                    the last lines of its output and the log file's path
    └── WaitTimeout      a bounded wait ran out: what, for how long, and the
                         last observed state
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

TAIL_LINES = 50
"""Lines of output or log an error carries: enough to see why, short enough to read."""


def tail(path: Path, lines: int = TAIL_LINES) -> str:
    """Return the last `lines` lines of a log file, or a note that it is unreadable."""
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return f"(log {path} unreadable: {exc})"
    return "\n".join(text.splitlines()[-lines:])


class EvidenceError(Exception):
    """Base of the errors whose message is evidence enough to act on."""


class CommandFailed(EvidenceError):
    """A command exited non-zero (or could not start: exit code 127)."""

    def __init__(
        self,
        *,
        command: Sequence[str],
        returncode: int,
        output: str = "",
        log_path: Path | None = None,
    ) -> None:
        self.command = list(command)
        self.returncode = returncode
        self.log_path = log_path
        self.output = output or (tail(log_path) if log_path else "")
        last = "\n".join(self.output.splitlines()[-TAIL_LINES:])
        where = f"\nlog file: {log_path}" if log_path else ""
        super().__init__(
            f"command failed with exit code {returncode}: {shlex.join(self.command)}"
            f"{where}\nlast lines:\n{last}"
        )


class WaitTimeout(EvidenceError):
    """An awaited state was not reached: what, for how long, last observed."""

    def __init__(self, *, describe: str, timeout: float, last_observed: str) -> None:
        self.describe = describe
        self.timeout = timeout
        self.last_observed = last_observed
        super().__init__(
            f"timed out after {timeout:g} s waiting for {describe}; "
            f"last observed: {last_observed}"
        )
