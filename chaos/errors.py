"""Errors raised by the chaos package.

One root, so callers can catch everything this package raises::

    ChaosError
    ├── HistoryError    a history file is unreadable or one of its lines is
    │                   malformed; the message names the file and the line
    ├── RecorderError   a recording thread failed (which kind, what broke);
    │                   raised by `HistoryRecorder.stop()`
    ├── ReportError     a ChaosReport does not match chaos-report.schema.json;
    │                   the message lists each error with its JSON path
    ├── SessionError    an activity ran outside an experiment session, or
    │                   asked for something the session does not have
    ├── Unexpected      the system under test did not do what it must (a
    │                   probe's expectation); the experiment `failed`
    │   └── Final       ... and waiting longer cannot change that: ends a
    │                   wait at once (also a `plumbing.waiting.Abort`)
    ├── Unsupported     the fault cannot be injected here (outcome
    │                   `not-applicable`; the control stops the method)
    ├── NotApplicable   the experiment needs what the provider or the
    │                   profile does not offer; raised by the control
    │                   before anything is installed, after reporting it
    └── Inconclusive    the harness could not gather the evidence a probe
                        needs (outcome `error`, never `failed`)

Bad input (`HistoryError`) maps to exit code 2 in `python -m chaos check`.
"""

from __future__ import annotations

from pathlib import Path

from plumbing.waiting import Abort


class ChaosError(Exception):
    """Root of every error raised by the chaos package."""


class HistoryError(ChaosError):
    """A history file cannot be read, or one of its lines is malformed."""

    def __init__(self, path: Path | str, line: int | None, problem: str) -> None:
        self.path = Path(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {problem}")


class RecorderError(ChaosError):
    """A recording thread failed, so the history it wrote is incomplete."""


class ReportError(ChaosError):
    """A ChaosReport does not match its JSON schema."""


class SessionError(ChaosError):
    """An activity ran without an open session, or the session lacks what it needs."""


class Unexpected(ChaosError, AssertionError):
    """The system under test did not do what it must; the message is the evidence.

    An AssertionError too, so the harness's waits treat it as "not yet".
    """


class Final(Unexpected, Abort):
    """An expectation that failed for good: a wait that sees it stops at once."""


class Unsupported(ChaosError):
    """The cluster provider has no way to inject this fault."""


class NotApplicable(ChaosError):
    """The experiment does not apply here; its entry is already in the report."""


class Inconclusive(ChaosError):
    """The harness saw too little to prove or refute what a probe checks."""
