"""Errors of the benchmark.

One root, so the command line can report everything the benchmark raises on
purpose; the evidence-carrying ones are the bottom layer's errors, subclassed
so a caller can still catch them by package::

    BenchError
    ├── CommandError   a subprocess failed (plumbing CommandFailed: command line,
    │                  exit code, output)
    ├── WaitTimeout    a bounded wait ran out (plumbing WaitTimeout: what, how long,
    │                  the last observation)
    ├── ClockError     the user command's clock is not the benchmark host's clock
    └── MarkerError    the user command's start marker is missing or malformed
"""

from __future__ import annotations

from plumbing import errors


class BenchError(Exception):
    """Root of every error the benchmark raises deliberately."""


class CommandError(BenchError, errors.CommandFailed):
    """A subprocess failed; the message is a pasteable command line plus evidence."""


class WaitTimeout(BenchError, errors.WaitTimeout):
    """A bounded wait ran out; says what it waited for, for how long, and what it saw."""


class ClockError(BenchError):
    """The container's boot clock disagrees with this host's: not the same machine."""


class MarkerError(BenchError):
    """The user command's start marker is missing from its log or cannot be parsed."""
