"""What a fault's run showed: each test's outcome, read from its ConformanceReport.

Besides the outcome, each failed test's failure kind (assertion, timeout,
harness-error) and the clause IDs its failed assertion named: only those make a
killer count (`scoring`). A failed test in a report written before the kinds
were recorded is taken as a harness error: nothing says an assertion failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.negative.controls import TestRef

RANK = {"failed": 3, "error": 2, "skipped": 1, "passed": 0}
"""Which outcome speaks for a ShortName with several test functions."""
ASSERTION = "assertion"
TIMEOUT = "timeout"
HARNESS_ERROR = "harness-error"


@dataclass(frozen=True)
class Observed:
    """One test's result in a fault's run."""

    test: TestRef
    outcome: str
    """passed, failed, skipped, error, or "missing" when the run has no such test."""
    clauses: tuple[str, ...] = ()
    """The clauses the test's marker cites (what it claims to check)."""
    message: str = ""
    failure_kind: str | None = None
    """assertion, timeout or harness-error when failed or errored; else None."""
    failed_clauses: tuple[str, ...] = ()
    """Clause IDs the failed assertion's message named (only for `assertion`)."""


def merge(a: Observed, b: Observed) -> Observed:
    """One result for two functions of a ShortName: failures win, ties combine.

    Of two failures, an assertion speaks for the ShortName (with the clauses of
    the assertions only): it shows what broke, where a timeout shows nothing.
    """
    if RANK.get(a.outcome, 2) != RANK.get(b.outcome, 2):
        return max(a, b, key=lambda o: RANK.get(o.outcome, 2))
    clauses = tuple(dict.fromkeys(a.clauses + b.clauses))
    message = "\n".join(m for m in (a.message, b.message) if m)
    kinds = (a.failure_kind, b.failure_kind)
    kind = ASSERTION if ASSERTION in kinds else a.failure_kind or b.failure_kind
    failed = tuple(
        dict.fromkeys(
            c for o in (a, b) if o.failure_kind == ASSERTION for c in o.failed_clauses
        )
    )
    return Observed(a.test, a.outcome, clauses, message, kind, failed)


def _kind(test: dict[str, Any]) -> str | None:
    if test["outcome"] not in ("failed", "error"):
        return None
    return str(test.get("failureKind") or HARNESS_ERROR)


def read_report(path: Path) -> dict[TestRef, Observed]:
    """The scenario results of a ConformanceReport, by ShortName and layout."""
    document = yaml.safe_load(path.read_text())
    found: dict[TestRef, Observed] = {}
    for test in document["tests"]:
        if test["kind"] != "scenario":
            continue  # a layout-divergence check, not a test of its own
        ref = TestRef(short_name=test["shortName"], layout=test["layout"])
        seen = Observed(
            test=ref,
            outcome=test["outcome"],
            clauses=tuple(test["clauses"]),
            message=test["message"],
            failure_kind=_kind(test),
            failed_clauses=tuple(test.get("failedClauses") or ()),
        )
        found[ref] = merge(found[ref], seen) if ref in found else seen
    return found
