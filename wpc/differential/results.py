"""What one differential run found, per corpus file: the verdict and its evidence."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from wpc.differential import comparing
from wpc.differential.comparing import Difference

Json = dict[str, Any]

SAME = "same"
DIFFERENT = "different"
KNOWN = "known"
NOT_COMPLETED = "not-completed"
SKIPPED = "skipped"
VERDICTS = (SAME, DIFFERENT, KNOWN, NOT_COMPLETED, SKIPPED)
FAILING = frozenset({DIFFERENT, NOT_COMPLETED})
"""Verdicts that make the run exit non-zero."""


@dataclass(frozen=True)
class SideRun:
    """One side's run of one corpus workflow."""

    workflow: str
    """The workflow's generated name (in the side's namespace)."""
    completed: bool
    outcome: Json
    """`outcomes.normalise` of the workflow as last seen."""
    note: str = ""
    """Why it did not complete in time (the wait's last observation), or ''."""


@dataclass(frozen=True)
class FileResult:
    """The verdict on one corpus file."""

    file: str
    verdict: str
    reason: str = ""
    """Why it was skipped, or why its differences are known."""
    a: SideRun | None = None
    b: SideRun | None = None
    differences: list[Difference] = field(default_factory=list)


def judge(file: str, a: SideRun, b: SideRun, *, known: dict[str, str]) -> FileResult:
    """Compare both sides' outcomes; a known file's failure is reported as known."""
    differences = comparing.compare(a.outcome, b.outcome)
    if not (a.completed and b.completed):
        verdict = NOT_COMPLETED if a.completed == b.completed else DIFFERENT
        if a.completed != b.completed:
            differences.insert(0, Difference("completed", a.completed, b.completed))
    else:
        verdict = DIFFERENT if differences else SAME
    reason = known.get(file, "")
    if verdict in FAILING and reason:
        verdict = KNOWN
    return FileResult(
        file=file, verdict=verdict, reason=reason, a=a, b=b, differences=differences
    )


def skipped(file: str, reason: str) -> FileResult:
    """A corpus file that was not run."""
    return FileResult(file=file, verdict=SKIPPED, reason=reason)


def counts(results: list[FileResult]) -> dict[str, int]:
    """How many files got each verdict (every verdict named, zeros included)."""
    return {v: sum(1 for r in results if r.verdict == v) for v in VERDICTS}


def failing(results: list[FileResult]) -> list[FileResult]:
    """The files whose verdict fails the run."""
    return [r for r in results if r.verdict in FAILING]
